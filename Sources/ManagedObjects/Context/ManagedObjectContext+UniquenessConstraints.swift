import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Objects of a save that share the values of one uniqueness constraint, with the record
    /// already saved with those values, if any.
    private struct ConstraintGroup {
        var constraint: UniquenessConstraint
        var key: [StoreValue]
        var objects: [ManagedObject]
        var record: StoreRecord?
    }

    /// Finds the inserted and updated objects that would break a uniqueness constraint, among
    /// themselves or against the store, and resolves them by the merge policy: under
    /// ``MergePolicy/error`` it throws with nothing changed; under the others each group of
    /// objects sharing values becomes one object, the saved record's (or, among unsaved
    /// objects only, the first inserted), as Core Data does (see `merge(_:into:)`). Runs
    /// under the coordinator's save lock, before the write.
    ///
    /// - Throws: ``PersistenceError/Code/constraintConflict``; what the store throws.
    func resolveUniquenessConflicts() throws {
        guard persistentStoreCoordinator.managedObjectModel.entities.contains(where: { !$0.uniquenessConstraints.isEmpty }) else { return }
        var constraintsByEntity: [ObjectIdentifier: [UniquenessConstraint]] = [:]
        var constraints: [UniquenessConstraint] = []
        var candidates: [ManagedObject] = []
        for object in Array(inserted) + Array(updated) where !object.isFault {
            let id = ObjectIdentifier(object.entity)
            let own = constraintsByEntity[id] ?? object.entity.allUniquenessConstraints
            constraintsByEntity[id] = own
            guard !own.isEmpty else { continue }
            candidates.append(object)
            for constraint in own where !constraints.contains(where: { $0.isSame(as: constraint) }) { constraints.append(constraint) }
        }
        guard !candidates.isEmpty else { return }
        // Unsaved objects in the order they were inserted: the first one wins among them.
        candidates.sort { Self.insertionOrder(of: $0) < Self.insertionOrder(of: $1) }
        let store = try persistentStoreCoordinator.storeForNewObjects()
        var groups: [ConstraintGroup] = []
        for constraint in constraints {
            var order: [[StoreValue]] = []
            var members: [[StoreValue]: [ManagedObject]] = [:]
            for object in candidates where object.entity.isKindOf(entity: constraint.entity) {
                guard let key = try constraintKey(of: object, constraint) else { continue }
                if members[key] == nil { order.append(key) }
                members[key, default: []].append(object)
            }
            var lookup = StoreLookup(constraint: constraint)
            for key in order {
                let objects = members[key] ?? []
                let record = try lookup.record(matching: key, excluding: objects, context: self, store: store)
                if objects.count > 1 || record != nil {
                    groups.append(ConstraintGroup(constraint: constraint, key: key, objects: objects, record: record))
                }
            }
        }
        guard !groups.isEmpty else { return }
        if mergePolicy.kind == .error {
            let conflicts = groups.map { group in
                PersistenceError.ConstraintConflict(
                    entityName: group.constraint.entity.name, constraint: group.constraint.names,
                    constraintValues: Dictionary(zip(group.constraint.names, group.key), uniquingKeysWith: { first, _ in first }),
                    databaseObjectID: group.record?.objectID, databaseSnapshot: group.record.map(UniquenessConstraint.snapshot(of:)),
                    conflictingObjectIDs: group.objects.map(\.objectID))
            }
            throw PersistenceError.constraintConflicts(conflicts, by: "in the save")
        }
        for group in groups {
            // An earlier group's merge may have taken some of these objects out already.
            let objects = group.objects.filter { $0.managedObjectContext === self && !$0.isDeleted }
            let winner: ManagedObject
            if let record = group.record {
                winner = object(with: record.objectID)
                try winner.fireFault()
            } else if let first = objects.first(where: { !$0.isInserted }) ?? objects.first {
                winner = first
            } else {
                continue
            }
            for loser in objects where loser !== winner { try merge(loser, into: winner) }
        }
        processPendingChanges()
    }

    /// Moves `loser` into `winner`, which has the same constrained values, and takes `loser`
    /// out of the save: attributes and to-one relationships by the merge policy
    /// (``MergePolicy/objectTrump``: the values `loser` set, those other than the entity's
    /// defaults; ``MergePolicy/overwrite``: all of `loser`'s; ``MergePolicy/storeTrump``:
    /// `loser`'s where `winner` has none; ``MergePolicy/rollback``: none), to-many
    /// relationships joined, and references to `loser` from changed objects moved to `winner`.
    /// An inserted `loser` leaves the context unsaved; a saved one is deleted.
    private func merge(_ loser: ManagedObject, into winner: ManagedObject) throws {
        let policy = mergePolicy.kind
        for property in loser.entity.properties where !property.isTransient {
            guard let target = winner.entity.propertiesByName[property.name] else { continue }
            let name = property.name
            if let relationship = property as? RelationshipDescription, target is RelationshipDescription {
                let value = try loser.value(forKey: name)
                if relationship.isToMany {
                    let members = ManagedObject.objects(inCollection: value)
                    guard !members.isEmpty else { continue }
                    try loser.setValue(relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any, forKey: name)
                    var union = ManagedObject.objects(inCollection: try winner.value(forKey: name))
                    for member in members where !union.contains(where: { $0 === member }) { union.append(member) }
                    try winner.setValue(relationship.isOrdered ? union as Any : Set(union) as Any, forKey: name)
                } else if let value, let related = asModelObject(value) as? ManagedObject {
                    try loser.setValue(nil, forKey: name)
                    let current = try winner.value(forKey: name)
                    if policy == .objectTrump || policy == .overwrite || (policy == .storeTrump && current == nil) {
                        try winner.setValue(related, forKey: name)
                    }
                }
            } else if let attribute = property as? AttributeDescription, target is AttributeDescription {
                let mine = try loser.value(forKey: name)
                let theirs = try winner.value(forKey: name)
                let takesMine: Bool = switch policy {
                case .overwrite: true
                case .objectTrump: !ManagedObject.storedValuesEqual(mine, attribute.defaultValue)
                case .storeTrump: theirs == nil
                default: false
                }
                if takesMine && !ManagedObject.storedValuesEqual(mine, theirs) { try winner.setValue(mine, forKey: name) }
            }
        }
        // References without an inverse are not moved by the setters above.
        for other in Array(inserted) + Array(updated) where other !== loser && !other.isFault {
            for relationship in other.entity.relationships where relationship.inverseRelationship == nil && !relationship.isTransient {
                guard let destination = relationship.destinationEntity, loser.entity.isKindOf(entity: destination),
                      winner.entity.isKindOf(entity: destination)
                else { continue }
                let value = try other.value(forKey: relationship.name)
                if relationship.isToMany {
                    var members = ManagedObject.objects(inCollection: value)
                    guard let position = members.firstIndex(where: { $0 === loser }) else { continue }
                    if members.contains(where: { $0 === winner }) { members.remove(at: position) } else { members[position] = winner }
                    try other.setValue(relationship.isOrdered ? members as Any : Set(members) as Any, forKey: relationship.name)
                } else if let value, asModelObject(value) === loser {
                    try other.setValue(winner, forKey: relationship.name)
                }
            }
        }
        if loser.isInserted {
            inserted.remove(loser)
            forgetUnannouncedInsertion(of: loser)
            loser.flags.remove(.inserted)
            undoManager?.removeAllActions(withTarget: loser)
            unregister(loser)
        } else {
            delete(loser)
        }
    }

    /// The constrained values of `object` as the store keeps them; nil when one has no value.
    /// A related object that is not saved yet counts by its temporary ID.
    private func constraintKey(of object: ManagedObject, _ constraint: UniquenessConstraint) throws -> [StoreValue]? {
        let overrides = object.attributesWithCustomPrimitiveAccessors()
        var key: [StoreValue] = []
        for property in constraint.properties {
            let value = object.attributeValue(property, overrides: overrides)
            if property is RelationshipDescription {
                guard let value, let related = asModelObject(value) as? ManagedObject else { return nil }
                key.append(.toOne(related.objectID))
            } else {
                let stored = try storeValue(value, for: property, of: object, ids: { $0.objectID })
                if stored == .null { return nil }
                key.append(stored)
            }
        }
        return key
    }

    /// A predicate that the records with `key` as `constraint`'s values match.
    func predicate(matching key: [StoreValue], of constraint: UniquenessConstraint) throws -> KeyValuePredicate {
        var format: [String] = []
        var arguments: [Any?] = []
        for (property, value) in zip(constraint.properties, key) {
            format.append("%K == %@")
            arguments.append(property.name)
            if case .toOne(let id?) = value {
                arguments.append(StoreObjectReference(objectID: id))
            } else {
                arguments.append(try objectValue(value, for: property))
            }
        }
        return try KeyValuePredicate(format: format.joined(separator: " AND "), argumentArray: arguments)
    }

    /// Saved objects first, then unsaved ones in the order they were inserted.
    private static func insertionOrder(of object: ManagedObject) -> UInt64 {
        object.objectID.key.temporaryNumber ?? 0
    }

    /// Finds saved records with given constrained values: by a fetch with the values as its
    /// predicate where the store translates it, else from one read of every record of the
    /// constraint's entity, grouped by values.
    private struct StoreLookup {
        let constraint: UniquenessConstraint
        var everyRecord: [[StoreValue]: [StoreRecord]]?

        init(constraint: UniquenessConstraint) {
            self.constraint = constraint
        }

        /// The first saved record with `key` that is not one of `objects` and is not leaving
        /// these values in the save (deleted, or updated to other values).
        mutating func record(
            matching key: [StoreValue], excluding objects: [ManagedObject], context: ManagedObjectContext, store: any PersistentStore
        ) throws -> StoreRecord? {
            // A record cannot relate to an object that is not saved.
            if key.contains(where: { if case .toOne(let id?) = $0 { id.isTemporaryID } else { false } }) { return nil }
            let found: [StoreRecord]
            if let everyRecord {
                found = everyRecord[key] ?? []
            } else {
                let predicate = try context.predicate(matching: key, of: constraint)
                let result = try store.fetch(StoreFetchRequest(entity: constraint.entity, includesSubentities: true, predicate: predicate))
                if result.appliedPredicate {
                    found = result.records
                } else {
                    var grouped: [[StoreValue]: [StoreRecord]] = [:]
                    for record in result.records {
                        if let recordKey = constraint.key(of: record) { grouped[recordKey, default: []].append(record) }
                    }
                    everyRecord = grouped
                    found = grouped[key] ?? []
                }
            }
            let excluded = Set(objects.map(\.objectID))
            return found.first { record in
                guard !excluded.contains(record.objectID), constraint.key(of: record) == key else { return false }
                guard let registered = context.registeredObject(for: record.objectID) else { return true }
                if registered.isDeleted { return false }
                // Updated to other values in this save: it frees these.
                if registered.isUpdated, !registered.isFault, (try? context.constraintKey(of: registered, constraint)) != key { return false }
                return true
            }
        }
    }
}
