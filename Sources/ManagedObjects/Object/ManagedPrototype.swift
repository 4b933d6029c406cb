import Foundation
import Synchronization

/// Instances of `ManagedObject` subclasses made only to be read by reflection: their entity
/// models nothing, so their ``Managed`` wrappers keep what their initializers left in them, and
/// reading a property through a key path records its key instead of a value.
enum ManagedPrototype {
    /// The entity of every prototype: no properties, no class of its own.
    private static let model = Result { try ManagedObjectModel(entities: [Entity("ManagedPrototype")]) }
    /// The keys read from prototypes since the last ``accessedKeys(during:)`` began.
    private static let accessed = Mutex<[String]>([])
    private static let probing = Mutex<Void>(())

    /// A new prototype of `type`, in no context.
    static func make(_ type: ManagedObject.Type) throws -> ManagedObject {
        let model = try model.get()
        guard let entity = model.entities.first else {
            throw ModelError(.unknownEntity, message: "the prototype model has no entity")
        }
        return type.init(entity: entity, insertInto: nil)
    }

    /// Whether `object` is a prototype.
    static func isPrototype(_ object: ManagedObject) -> Bool {
        guard case .success(let model) = model else { return false }
        return object.entity === model.entities.first
    }

    /// Called by a ``Managed`` accessor of a prototype: records the key read.
    static func noteAccess(_ key: String) {
        accessed.withLock { $0.append(key) }
    }

    /// The keys of the ``Managed`` properties of prototypes that `body` reads, in order.
    static func accessedKeys(during body: () -> Void) -> [String] {
        probing.withLock { _ in
            accessed.withLock { $0.removeAll() }
            body()
            return accessed.withLock { keys in
                defer { keys.removeAll() }
                return keys
            }
        }
    }

    /// A value of `type` a prototype's accessor returns: a new prototype for a managed-object
    /// class; nil for other types (they read their empty value or placeholder first).
    static func value(of type: Any.Type) -> Any? {
        guard let type = type as? ManagedObject.Type else { return nil }
        return try? make(type)
    }
}
