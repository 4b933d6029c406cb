import Foundation
import ModelObjects
import Synchronization

extension ManagedObject {
    /// The default accessors for a modeled to-many key of the object's entity, used by
    /// `mutableSetValue(forKey:)` and `mutableArrayValue(forKey:)`; nil for keys the class
    /// declares itself.
    static func managedCollectionAccessors(forKey key: String) -> CollectionAccessors? {
        guard PropertyTableKeys.declares(key, in: self) == false else { return nil }
        /// The object's to-many relationship for the key, without firing a fault.
        func modeledRelationship(of object: ModelObject) throws -> (ManagedObject, RelationshipDescription) {
            guard let managed = object as? ManagedObject, let property = managed.entity.propertiesByName[key] else {
                throw KeyValueCodingError(
                    .undefinedKey, key: key, className: String(reflecting: type(of: object)),
                    message: "the key '\(key)' is not a modeled to-many relationship")
            }
            guard let relationship = property as? RelationshipDescription, relationship.isToMany else {
                throw KeyValueCodingError(
                    .notACollection, key: key, className: String(reflecting: type(of: object)),
                    message: "\(managed.entity.name).\(key) is not a to-many relationship")
            }
            return (managed, relationship)
        }
        func relationship(of object: ModelObject) throws -> (ManagedObject, RelationshipDescription) {
            let (managed, relationship) = try modeledRelationship(of: object)
            try managed.fireFaultIfNeeded()
            return (managed, relationship)
        }
        func objects(_ values: [Any], for object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
            try values.map { try object.relatedObject($0, for: relationship) }
        }
        // Ordered accessors serve mutableArrayValue, unordered ones mutableSetValue; the
        // proxies ask for the kind they need, and both kinds are answered from one storage.
        var accessors = ManagedObjectCollectionAccessors.make(
            unordered: .throwingUnordered(
                members: { object in
                    let (managed, relationship) = try relationship(of: object)
                    return managed.toManyObjects(at: relationship.index).map { AnyHashable($0) }
                },
                add: { object, values in
                    let (managed, relationship) = try relationship(of: object)
                    managed.addToToMany(relationship, try objects(values, for: managed, relationship), at: nil)
                },
                remove: { object, values in
                    let (managed, relationship) = try relationship(of: object)
                    managed.removeFromToMany(relationship, try objects(values, for: managed, relationship))
                }),
            ordered: .throwingOrdered(
                count: { object in
                    let (managed, relationship) = try relationship(of: object)
                    return managed.toManyObjects(at: relationship.index).count
                },
                objectAt: { object, index in
                    let (managed, relationship) = try relationship(of: object)
                    let objects = managed.toManyObjects(at: relationship.index)
                    guard objects.indices.contains(index) else { throw outOfRange(index, key, managed) }
                    return objects[index]
                },
                insert: { object, value, index in
                    let (managed, relationship) = try relationship(of: object)
                    let related = try managed.relatedObject(value, for: relationship)
                    managed.addToToMany(relationship, [related], at: index)
                },
                remove: { object, index in
                    let (managed, relationship) = try relationship(of: object)
                    let objects = managed.toManyObjects(at: relationship.index)
                    guard objects.indices.contains(index) else { throw outOfRange(index, key, managed) }
                    managed.removeFromToMany(relationship, [objects[index]])
                },
                replace: { object, index, value in
                    let (managed, relationship) = try relationship(of: object)
                    let objects = managed.toManyObjects(at: relationship.index)
                    guard objects.indices.contains(index) else { throw outOfRange(index, key, managed) }
                    let related = try managed.relatedObject(value, for: relationship)
                    managed.removeFromToMany(relationship, [objects[index]])
                    managed.addToToMany(relationship, [related], at: index)
                }))
        // A proxy for a key the entity does not model fails when it is made, as Core Data's
        // `mutableSetValueForKey:` raises at once for an unknown key.
        accessors?.checkObject = { object in _ = try modeledRelationship(of: object) }
        return accessors
    }
}

private func outOfRange(_ index: Int, _ key: String, _ object: ManagedObject) -> KeyValueCodingError {
    KeyValueCodingError(
        .indexOutOfRange, key: key, className: String(reflecting: type(of: object)),
        message: "index \(index) is out of range for \(object.entity.name).\(key)")
}

/// Which classes give their own collection accessors, cached per class and relationship.
enum ManagedObjectCollectionAccessors {
    /// Per class and relationship; inverse maintenance asks for one class and relationship once
    /// per edit (every employee added to its department's set), answered with one atomic load.
    private static let ownAccessors = ClassKeyedCache<RelationshipDescription, Bool>()

    static func make(unordered: CollectionAccessors, ordered: CollectionAccessors) -> CollectionAccessors? {
        .combined(unordered: unordered, ordered: ordered)
    }

    /// Whether `type` overrides `collectionAccessors(forKey:)` with its own accessors for
    /// `relationship`'s key.
    static func classHasOwnAccessors(_ type: ManagedObject.Type, for relationship: RelationshipDescription) -> Bool {
        ownAccessors.value(for: type, relationship) {
            type.collectionAccessors(forKey: relationship.name).map { !$0.isFrameworkDefault } ?? false
        }
    }
}

/// Whether a class declares a key with a property wrapper of the core module.
enum PropertyTableKeys {
    static func declares(_ key: String, in type: ManagedObject.Type) -> Bool {
        ModelObject.declaresKey(key, in: type)
    }
}
