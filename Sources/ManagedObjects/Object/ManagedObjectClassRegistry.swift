import Foundation
import Synchronization

/// Which entity each `ManagedObject` subclass stands for, and which keys the entities of a
/// class model: filled when a model is made, read by ``ManagedObject/entity()`` and the class
/// hooks that have no instance to ask.
enum ManagedObjectClassRegistry {
    private struct State {
        var entitiesByClass: [ObjectIdentifier: EntityDescription] = [:]
        var modeledKeysByClass: [ObjectIdentifier: Set<String>] = [:]
        var placeholders: [ObjectIdentifier: ManagedObjectModel] = [:]
    }

    private static let state = Mutex(State())

    /// Records the entities of a new model: each class names the last entity registered for it.
    static func register(_ model: ManagedObjectModel) {
        state.withLock { state in
            for entity in model.entities {
                let identifier = ObjectIdentifier(entity.managedObjectClass)
                if entity.managedObjectClass != ManagedObject.self {
                    state.entitiesByClass[identifier] = entity
                }
                state.modeledKeysByClass[identifier, default: []].formUnion(entity.propertiesByName.keys)
            }
        }
        // The classes' answers to `automaticallyNotifiesObservers(forKey:)` may have changed.
        AutomaticNotificationAnswers.invalidate()
    }

    /// The entity registered for `type` or its nearest registered superclass, or a placeholder
    /// entity with no properties named after the class.
    static func entity(for type: ManagedObject.Type) -> EntityDescription {
        var candidate: AnyClass? = type
        while let current = candidate {
            if let entity = state.withLock({ $0.entitiesByClass[ObjectIdentifier(current)] }) { return entity }
            candidate = _getSuperclass(current)
        }
        return placeholder(for: type)
    }

    /// Whether some entity whose objects are of `type` (or a superclass) models `key`.
    static func models(_ key: String, in type: ManagedObject.Type) -> Bool {
        // ManagedObject itself serves every entity without a class: its keys count only for it.
        var candidate: AnyClass? = type
        while let current = candidate, current != ModelObject.self, current != ManagedObject.self || type == ManagedObject.self {
            if state.withLock({ $0.modeledKeysByClass[ObjectIdentifier(current)]?.contains(key) }) == true {
                return true
            }
            candidate = _getSuperclass(current)
        }
        return false
    }

    private static func placeholder(for type: ManagedObject.Type) -> EntityDescription {
        let identifier = ObjectIdentifier(type)
        if let model = state.withLock({ $0.placeholders[identifier] }), let entity = model.entities.first {
            return entity
        }
        let name = String(describing: type).filter { $0.isLetter || $0.isNumber || $0 == "_" }
        // A name made only of letters, digits and underscores, with no properties: cannot fail.
        let model = (try? ManagedObjectModel(entities: [Entity(name.isEmpty ? "ManagedObject" : name, class: type) {}]))
        return state.withLock { state in
            if let existing = state.placeholders[identifier]?.entities.first { return existing }
            guard let model, let entity = model.entities.first else {
                preconditionFailure("could not make a placeholder entity for \(type)")
            }
            state.placeholders[identifier] = model
            return entity
        }
    }
}
