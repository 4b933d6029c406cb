import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Sets the request's values on every matching record in the store, all or nothing, and
    /// raises each record's version (so a context holding an older copy gets a merge conflict
    /// when it saves it).
    ///
    /// Like Core Data, the batch bypasses the contexts: registered objects keep the values
    /// they had until you merge the result's IDs with
    /// `mergeChanges(fromRemoteContextSave:into:)` (faults of any context of the coordinator
    /// read the new values when they fire). No notification is posted and nothing is
    /// recorded for undo. The SQLite store runs it as one `UPDATE` when it can translate the
    /// predicate to SQL; otherwise the matching records are found as a fetch finds them and
    /// written in one transaction.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity``; `KeyValueCodingError/Code/undefinedKey`
    ///   for a key that is not a stored attribute, `KeyValueCodingError/Code/typeMismatch`
    ///   for a value the attribute cannot hold; `ValidationError` for values the model's
    ///   constraints reject; ``PersistenceError/Code/constraintConflict`` when records would
    ///   share a uniqueness constraint's values; ``PersistenceError/Code/noPersistentStore``;
    ///   what the predicate's evaluation and the store throw. Nothing is written then.
    ///
    /// Corresponds to `-[NSManagedObjectContext executeRequest:error:]` with an
    /// `NSBatchUpdateRequest`.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchRequestResult {
        let entity = try batchEntity(named: request.entityName)
        var values: [(attribute: AttributeDescription, value: StoreValue)] = []
        var failures: [any Error] = []
        for (key, raw) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.attributesByName[key], !attribute.isTransient else {
                throw KeyValueCodingError(
                    .undefinedKey, key: key, className: entity.name,
                    message: "a batch update sets stored attributes; \(entity.name) has no stored attribute '\(key)'")
            }
            var converted: Any?
            var stored = StoreValue.null
            if let value = Self.unwrappedBatchValue(raw), !isNull(value) {
                (converted, stored) = try batchValue(value, of: attribute, label: { "the batch update of \(entity.name)" })
            }
            do {
                try ManagedObject.checkModelConstraints(of: attribute, value: converted, entityName: entity.name, object: nil)
            } catch {
                failures.append(error)
            }
            values.append((attribute, stored))
        }
        if let error = ValidationError.combining(failures) { throw error }
        let store = try persistentStoreCoordinator.storeForNewObjects()
        let ids = try persistentStoreCoordinator.performSave { () throws -> [ManagedObjectID] in
            let ids: [ManagedObjectID]
            if !values.isEmpty, let executor = store as? any BatchRequestExecuting,
               let done = try executor.batchUpdate(
                entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate.map(storePredicate), values: values,
                history: SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)) {
                ids = done
            } else {
                let matching = try batchMatchingIDs(entity, predicate: request.predicate, includesSubentities: request.includesSubentities)
                guard !values.isEmpty else { return matching }
                let records = try store.records(for: matching)
                var changes = SaveChanges()
                changes.history = SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)
                for id in matching {
                    guard var record = records[id] else { continue }
                    for (attribute, value) in values where attribute.index < record.values.count { record.values[attribute.index] = value }
                    changes.updated.append(StoreRecord(objectID: id, version: try Self.version(after: record.version, of: id), values: record.values))
                    changes.expectedVersions[id] = record.version
                    changes.history.updatedProperties[id] = Set(values.map(\.attribute.name))
                }
                try store.apply(changes)
                ids = changes.updated.map(\.objectID)
            }
            // Sibling contexts' faults holding rows of these records must read them again.
            persistentStoreCoordinator.savedRecords.recordSave(changing: ids)
            return ids
        }
        return BatchRequestResult(resultType: request.resultType, count: ids.count, objectIDs: request.resultType == .objectIDs ? ids : nil)
    }

    /// Deletes the request's records from the store, with the records its delete rules reach,
    /// all or nothing: cascade relationships delete their related records too, nullify
    /// relationships take the deleted records out of their related records' inverses (whose
    /// versions rise), and a deny relationship that relates a record the delete leaves alive
    /// refuses it. No relationship without an inverse is followed back to the deleted records.
    ///
    /// Like Core Data, the batch bypasses the contexts: registered objects of deleted records
    /// stay until you merge the result's IDs with `mergeChanges(fromRemoteContextSave:into:)`
    /// (a fault among them throws ``PersistenceError/Code/objectNotFound`` when it fires). No
    /// notification is posted, nothing is recorded for undo, and neither validation nor
    /// `prepareForDeletion()` runs. The SQLite store runs a delete by predicate as a few
    /// statements (one `DELETE`, one `UPDATE` per nullifying relationship) when the predicate
    /// translates to SQL and no relationship of the entity cascades or denies.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity``; `ValidationError/Code/relationshipDeniedDelete`
    ///   naming the relationship; ``PersistenceError/Code/objectNotFound`` for an object ID that
    ///   is temporary or of another store; ``PersistenceError/Code/noPersistentStore``; what the
    ///   predicate's evaluation and the store throw. Nothing is deleted then.
    ///
    /// Corresponds to `-[NSManagedObjectContext executeRequest:error:]` with an
    /// `NSBatchDeleteRequest`; differences: the result's IDs include the records the delete
    /// rules deleted.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchRequestResult {
        let store = try persistentStoreCoordinator.storeForNewObjects()
        var matching: (entity: EntityDescription, predicate: KeyValuePredicate?, includesSubentities: Bool)?
        var given: [ManagedObjectID] = []
        switch request.target {
        case .matching(let name, let predicate, let includesSubentities):
            matching = (try batchEntity(named: name), predicate, includesSubentities)
        case .objectIDs(let ids):
            if let foreign = ids.first(where: { $0.isTemporaryID || $0.storeIdentifier != store.identifier }) {
                throw PersistenceError(
                    .objectNotFound, message: "a batch delete takes IDs of saved records of the store; \(foreign) is not one", objectID: foreign)
            }
            given = ids
        }
        let deleted = try persistentStoreCoordinator.performSave { () throws -> [ManagedObjectID] in
            if let matching, let executor = store as? any BatchRequestExecuting,
               let done = try executor.batchDelete(
                entity: matching.entity, includesSubentities: matching.includesSubentities, predicate: matching.predicate.map(storePredicate),
                history: SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)) {
                persistentStoreCoordinator.savedRecords.recordSave(changing: done.deleted + done.updated)
                return done.deleted
            }
            let targets = try matching.map { try batchMatchingIDs($0.entity, predicate: $0.predicate, includesSubentities: $0.includesSubentities) } ?? given
            var changes = try batchDeletion(of: targets, in: store)
            changes.history.author = transactionAuthor
            changes.history.contextName = name
            try store.apply(changes)
            persistentStoreCoordinator.savedRecords.recordSave(changing: changes.deleted + changes.updated.map(\.objectID))
            return changes.deleted
        }
        return BatchRequestResult(resultType: request.resultType, count: deleted.count, objectIDs: request.resultType == .objectIDs ? deleted : nil)
    }

    /// A dictionary value with an `Optional` inside unwrapped: nil for `.none`.
    private static func unwrappedBatchValue(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let inner = mirror.children.first?.value else { return nil }
        return unwrappedBatchValue(inner)
    }

    /// The entity a batch request names.
    private func batchEntity(named name: String) throws -> EntityDescription {
        guard let entity = persistentStoreCoordinator.managedObjectModel.entity(named: name) else {
            throw ModelError(.unknownEntity, entity: name, message: "the model has no entity named '\(name)'")
        }
        return entity
    }

    /// The IDs of the saved records a predicate matches, found as a fetch of a context with no
    /// changes finds them (in the store where it can, else in memory).
    private func batchMatchingIDs(_ entity: EntityDescription, predicate: KeyValuePredicate?, includesSubentities: Bool) throws -> [ManagedObjectID] {
        let scratch = ManagedObjectContext(coordinator: persistentStoreCoordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<ManagedObject>(entityName: entity.name, predicate: predicate)
        request.includesSubentities = includesSubentities
        return try scratch.fetchObjectIDs(request)
    }

    /// The store changes that delete `targets` and what their delete rules reach.
    ///
    /// - Throws: `ValidationError/Code/relationshipDeniedDelete`; what the store throws.
    private func batchDeletion(of targets: [ManagedObjectID], in store: any PersistentStore) throws -> SaveChanges {
        var deleted: [ManagedObjectID: StoreRecord] = [:]
        var order: [ManagedObjectID] = []
        var denied: [(owner: ManagedObjectID, relationship: RelationshipDescription, related: [ManagedObjectID])] = []
        var nullified: [(related: ManagedObjectID, inverse: RelationshipDescription)] = []
        var frontier = targets
        while !frontier.isEmpty {
            var seen = Set<ManagedObjectID>()
            let fresh = frontier.filter { deleted[$0] == nil && seen.insert($0).inserted }
            frontier = []
            let records = try store.records(for: fresh)
            for id in fresh {
                guard let record = records[id] else { continue }  // already gone
                deleted[id] = record
                order.append(id)
                for relationship in id.entity.relationships where !relationship.isTransient && relationship.index < record.values.count {
                    let related: [ManagedObjectID] = switch record.values[relationship.index] {
                    case .toOne(let target?): [target]
                    case .toMany(let ids): ids
                    default: []
                    }
                    guard !related.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .cascade: frontier += related
                    case .deny: denied.append((id, relationship, related))
                    case .nullify:
                        if let inverse = relationship.inverseRelationship { nullified += related.map { ($0, inverse) } }
                    default: break
                    }
                }
            }
        }
        for (owner, relationship, related) in denied {
            if let alive = related.first(where: { deleted[$0] == nil }) {
                throw ValidationError(
                    .relationshipDeniedDelete, key: relationship.name,
                    message: "\(owner.entity.name).\(relationship.name) of \(owner) relates \(alive.entity.name) \(alive) and its delete "
                        + "rule is deny: the batch delete deletes nothing")
            }
        }
        // Related records left alive lose the deleted ones from their inverses.
        let survivors = nullified.filter { deleted[$0.related] == nil }
        let current = try store.records(for: Array(Set(survivors.map(\.related))))
        var updated: [ManagedObjectID: StoreRecord] = [:]
        // In persistent history, each related record's update names the inverses that lost records.
        var history: [ManagedObjectID: Set<String>] = [:]
        for (related, inverse) in survivors {
            guard var record = updated[related] ?? current[related], inverse.index < record.values.count else { continue }
            switch record.values[inverse.index] {
            case .toOne(let target?) where deleted[target] != nil: record.values[inverse.index] = .toOne(nil)
            case .toMany(let ids): record.values[inverse.index] = .toMany(ids.filter { deleted[$0] == nil })
            default: break
            }
            updated[related] = record
            history[related, default: []].insert(inverse.name)
        }
        var changes = SaveChanges()
        changes.history.updatedProperties = history
        changes.deleted = order
        for id in order { changes.expectedVersions[id] = deleted[id]?.version }
        for (id, record) in updated.sorted(by: { $0.key.description < $1.key.description }) {
            guard let version = current[id]?.version else { continue }
            changes.updated.append(StoreRecord(objectID: id, version: try Self.version(after: version, of: id), values: record.values))
            changes.expectedVersions[id] = version
        }
        return changes
    }
}
