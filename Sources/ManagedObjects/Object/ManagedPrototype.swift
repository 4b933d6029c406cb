import Foundation
import Synchronization

/// Instances of `ManagedObject` subclasses made only to be read by reflection: their entity
/// models nothing, so their ``Managed`` wrappers keep what their initializers left in them, and
/// reading a property through a key path records its key instead of a value.
enum ManagedPrototype {
    /// The entity of every prototype: no properties, no class of its own.
    private static let model = Result { try ManagedObjectModel(entities: [Entity("ManagedPrototype")]) }
    /// The probes in progress, per thread: the keys each has read so far, innermost last.
    /// Reads of prototypes on a thread with no probe running are nobody's reads. The lock is
    /// held only to note a key or to start or end a probe, never while a probe runs the
    /// model's code, so a probe that reads a key path whose getter probes another (or waits
    /// for another thread's probe) neither deadlocks nor mixes the two probes' keys.
    private static let probes = Mutex<[ObjectIdentifier: [[String]]]>([:])

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

    /// Called by a ``Managed`` accessor of a prototype: records the key read by the current
    /// thread's innermost probe, if it runs one.
    static func noteAccess(_ key: String) {
        let thread = ObjectIdentifier(Thread.current)
        probes.withLock { probes in
            guard let innermost = probes[thread]?.indices.last else { return }
            probes[thread]?[innermost].append(key)
        }
    }

    /// The keys of the ``Managed`` properties of prototypes that `body` reads on this thread,
    /// in order; the reads of a probe `body` itself starts are that probe's alone.
    static func accessedKeys(during body: () -> Void) -> [String] {
        let thread = ObjectIdentifier(Thread.current)
        probes.withLock { $0[thread, default: []].append([]) }
        body()
        return probes.withLock { probes in
            let keys = probes[thread]?.popLast() ?? []
            if probes[thread]?.isEmpty == true { probes[thread] = nil }
            return keys
        }
    }

    /// A value of `type` a prototype's accessor returns: a new prototype for a managed-object
    /// class, an empty or zero literal, an enumeration's first case; nil for other types (they
    /// read their empty value or placeholder first).
    static func value(of type: Any.Type) -> Any? {
        switch type {
        case let type as ManagedObject.Type: try? make(type)
        case let type as any ExpressibleByDictionaryLiteral.Type: emptyDictionary(type)
        case let type as any ExpressibleByArrayLiteral.Type: emptyArray(type)
        case let type as any ExpressibleByStringLiteral.Type: emptyString(type)
        case let type as any ExpressibleByIntegerLiteral.Type: zero(type)
        case let type as any CaseIterable.Type: firstCase(type)
        default: nil
        }
    }

    /// Whether a prototype's accessor of a property of `type` has a value to return: an
    /// accessor with none stops the program, so no key path is read on a prototype of a class
    /// with such a property.
    static func canStandIn(for type: Any.Type) -> Bool {
        type is any ManagedEmptyValue.Type || type is any ManagedPlaceholderValue.Type
            || type is ManagedObject.Type || value(of: type) != nil
    }

    /// The first `@Managed` property of `type` (or of a superclass) whose accessor has no
    /// value to return on a prototype, with its Swift type.
    static func propertyWithoutStandIn(of type: ManagedObject.Type) throws -> (name: String, type: Any.Type)? {
        try ClassModelReader.levels(of: type).lazy.flatMap(\.fields)
            .first { !canStandIn(for: $0.valueType) }
            .map { ($0.name, $0.valueType) }
    }

    private static func emptyDictionary<Value: ExpressibleByDictionaryLiteral>(_: Value.Type) -> Value { [:] }
    private static func emptyArray<Value: ExpressibleByArrayLiteral>(_: Value.Type) -> Value { [] }
    private static func emptyString<Value: ExpressibleByStringLiteral>(_: Value.Type) -> Value { "" }
    private static func zero<Value: ExpressibleByIntegerLiteral>(_: Value.Type) -> Value { 0 }
    private static func firstCase<Value: CaseIterable>(_: Value.Type) -> Value? { Value.allCases.first }
}
