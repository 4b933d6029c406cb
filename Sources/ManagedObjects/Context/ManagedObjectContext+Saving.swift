import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Saves the inserted, updated and deleted objects to the store, all or nothing; a child
    /// context (``init(parent:notificationCenter:)``) saves them into its parent instead, and
    /// the store is written when the root context saves.
    ///
    /// In order: ``processPendingChanges()``; ``willSaveNotification``; `willSave()` on every
    /// changed object (changes made there are saved too); validation of every inserted
    /// (`validateForInsert`), updated (`validateForUpdate`) and deleted (`validateForDelete`)
    /// object, reporting every failure; then, with no other save of the coordinator running,
    /// permanent IDs for inserted objects, the conflict check against records saved by others
    /// since this context read them (resolved by ``mergePolicy``), and one write to the store.
    /// After the write: objects get their permanent IDs, `didSave()` runs on each, deleted
    /// objects leave the context, and ``didSaveNotification`` is posted.
    ///
    /// - Throws: `ValidationError` (one failure, or `ValidationError/Code/multipleErrors`
    ///   with every failure); ``PersistenceError/Code/mergeConflict`` and
    ///   ``PersistenceError/Code/constraintConflict`` under the error merge policy (other
    ///   policies merge objects sharing a uniqueness constraint's values into one);
    ///   ``PersistenceError/Code/noPersistentStore``; what the store throws;
    ///   ``PersistenceError/Code/operationFailed`` when a relationship's IDs could not be read
    ///   while the context edited around it (the edits that needed them were not made);
    ///   ``PersistenceError/Code/objectNotFound`` when an object was newly related to one whose
    ///   record is gone, or a fault whose record is gone was changed through typed accessors.
    ///   Nothing is written then, and the context keeps its changes.
    ///
    /// Corresponds to `-[NSManagedObjectContext save:]`.
    public func save() throws {
        keepsAnnouncedInsertions = true
        processPendingChanges()
        keepsAnnouncedInsertions = false
        let announced = keptAnnouncedInsertions
        keptAnnouncedInsertions = nil
        // Before anything else: an edit skipped for want of a relationship may be the only change.
        try throwRelationshipReadFailure()
        guard hasChanges else { return }
        notificationCenter.post(name: Self.willSaveNotification, object: self)
        var insertedObjects = notifyWillSave(announced: announced)
        try validateChanges(&insertedObjects)
        // Validation may need a relationship (a class validator of its key) and fail to read it.
        try throwRelationshipReadFailure()
        let outcome: SaveOutcome
        if let parentStore = chain.parentStore {
            // Uniqueness is settled where records reach the store: when the root context saves.
            outcome = try pushChanges(into: parentStore)
        } else {
            outcome = try persistentStoreCoordinator.performSave {
                try resolveUniquenessConflicts()
                return try writeChanges(insertedObjects.current(in: self))
            }
        }
        finishSave(outcome)
    }

    /// The inserted objects of a save as one array, walked by the save's passes (`willSave()`,
    /// validation, the write, `didSave()`) without a reference per object, with the set it
    /// holds. Each retain or release is an atomic write to an object's header, usually out of
    /// the cache, that the processor cannot overlap with the next object's: a copy of the set
    /// per pass cost two per object. Usually the array is the insertions the save's
    /// `processPendingChanges()` announced, in the order they were made (so the passes walk the
    /// objects in the order they were allocated), moved here rather than released; else one
    /// made from the set.
    struct InsertedObjectsOfSave {
        /// The set `array` holds.
        private(set) var set: Set<ManagedObject>
        /// The objects of `set`, each once.
        private(set) var array: [ManagedObject]

        /// The objects of `set`: `announced`'s array when it holds them (its set is `set`).
        init(_ set: Set<ManagedObject>, announced: (set: Set<ManagedObject>, array: [ManagedObject])? = nil) {
            self.set = set
            if let announced, announced.set == set, announced.array.count == set.count {
                array = announced.array
            } else {
                array = Array(set)
            }
        }

        /// The context's inserted objects now: `array` when `inserted` is still `set` (the
        /// usual case: one comparison of storage), else an array of the new set, kept.
        mutating func current(in context: ManagedObjectContext) -> [ManagedObject] {
            let now = context.inserted
            if now != set { self = InsertedObjectsOfSave(now) }
            return array
        }
    }

    /// Calls `willSave()` once on every inserted, updated and deleted object, in rounds: objects
    /// that join those sets during a round (through a `willSave()`, or the pending changes
    /// processed after it) are called in the next one.
    ///
    /// - Parameter announced: The insertions the save's `processPendingChanges()` announced,
    ///   when they were every inserted object (see `keepsAnnouncedInsertions`).
    /// - Returns: The inserted objects of the first round, for the save's other passes.
    private func notifyWillSave(announced: (set: Set<ManagedObject>, array: [ManagedObject])?) -> InsertedObjectsOfSave {
        // The first round calls every object: the three sets are disjoint (an object is in the
        // one its inserted, updated or deleted flag names). The sets are kept as they were, so
        // that when the round leaves them as they were (the usual case: no `willSave()` changes
        // anything), telling takes one comparison of storage each and no object is hashed.
        let before = (inserted: inserted, updated: updated, deleted: deleted)
        // The arrays hold every object of the round (a `willSave()` may take it out of the
        // context): it is walked without a reference per object.
        let insertedObjects = InsertedObjectsOfSave(before.inserted, announced: announced)
        var others: [ManagedObject] = []
        others.reserveCapacity(before.updated.count + before.deleted.count)
        others.append(contentsOf: before.updated)
        others.append(contentsOf: before.deleted)
        if insertedObjects.array.isEmpty && others.isEmpty { return insertedObjects }
        insertedObjects.array.forEachUnretained { _, object in object.willSave() }
        others.forEachUnretained { _, object in object.willSave() }
        processPendingChanges()
        if inserted == before.inserted && updated == before.updated && deleted == before.deleted { return insertedObjects }
        var notified = Set<ObjectIdentifier>(minimumCapacity: insertedObjects.array.count + others.count)
        for objects in [insertedObjects.array, others] {
            objects.forEachUnretained { _, object in notified.insert(ObjectIdentifier(object)) }
        }
        var pending: [ManagedObject] = []
        for _ in 1..<100 {
            // Collected before any `willSave()` runs: changes made there are seen next round.
            pending = []
            for objects in [inserted, updated, deleted] {
                for object in objects where !notified.contains(ObjectIdentifier(object)) { pending.append(object) }
            }
            if pending.isEmpty { break }
            for object in pending where notified.insert(ObjectIdentifier(object)).inserted { object.willSave() }
            processPendingChanges()
        }
        return insertedObjects
    }

    /// Gives the objects that have temporary IDs permanent ones now, before a save: the IDs
    /// can then be handed to other contexts, and the save keeps them. The keys are reserved in
    /// a transaction of their own, so no other coordinator on the same store gets them; objects
    /// that already have permanent IDs are left as they are.
    ///
    /// - Throws: ``PersistenceError/Code/objectInWrongContext`` for an object of another
    ///   context (no object gets an ID then); ``PersistenceError/Code/noPersistentStore``; what
    ///   the store throws.
    ///
    /// Corresponds to `-[NSManagedObjectContext obtainPermanentIDsForObjects:error:]`.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        if let stranger = objects.first(where: { $0.managedObjectContext !== self }) {
            throw PersistenceError(
                .objectInWrongContext, message: "\(stranger.objectID) is not an object of this context", objectID: stranger.objectID)
        }
        var byEntity: [ObjectIdentifier: [ManagedObject]] = [:]
        var seen = Set<ObjectIdentifier>()
        for object in objects where object.objectID.isTemporaryID && seen.insert(ObjectIdentifier(object)).inserted {
            byEntity[ObjectIdentifier(object.entity), default: []].append(object)
        }
        guard !byEntity.isEmpty else { return }
        let store = try persistentStoreCoordinator.storeForNewObjects()
        // Reserved together with no save of this coordinator running: a save's own keys are
        // claimed in its transaction.
        let ids = try persistentStoreCoordinator.performSave {
            try byEntity.values.map { group in
                let entity = group[0].entity
                return try store.newPrimaryKeys(for: entity, count: group.count).map {
                    ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: $0)
                }
            }
        }
        var renames: [(old: ManagedObjectID, new: ManagedObjectID)] = []
        for (group, groupIDs) in zip(byEntity.values, ids) {
            for (object, id) in zip(group, groupIDs) {
                if registered[object.objectID] === object { registered[object.objectID] = nil }
                renames.append((object.objectID, id))
                object.objectID = id
                registered[id] = object
            }
        }
        // The chain's other contexts may hold these objects under their temporary IDs.
        if chain.parentStore != nil || !chain.children.isEmpty { chainRoot.adoptPermanentIDs(renames) }
    }

    private func validateChanges(_ insertedObjects: inout InsertedObjectsOfSave) throws {
        var errors: [any Error] = []
        // The array holds every object for the walk.
        insertedObjects.current(in: self).forEachUnretained { _, object in
            do { try object.validateForInsert() } catch { errors.append(error) }
        }
        for object in updated { do { try object.validateForUpdate() } catch { errors.append(error) } }
        for object in deleted { do { try object.validateForDelete() } catch { errors.append(error) } }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Throws the first relationship read failure recorded (see ``relationshipReadFailures``).
    private func throwRelationshipReadFailure() throws {
        guard let failure = relationshipReadFailures.values.first else { return }
        throw PersistenceError(
            .operationFailed,
            message: "\(failure.object.entity.name).\(failure.relationship) of \(failure.object.objectID) could not be read "
                + "(\(failure.error)), so the changes that needed it were not made; refresh the object without merging, "
                + "or roll back or reset the context",
            objectID: failure.object.objectID)
    }

    /// What a write did, for the work after it.
    struct SaveOutcome {
        /// The permanent IDs of `savedInserted`, in the same order.
        var permanentIDs: [ManagedObjectID] = []
        /// The new record versions of saved updated objects (inserted ones are at version 1).
        var versions: [ObjectIdentifier: Int64] = [:]
        var savedInserted: [ManagedObject] = []
        var savedUpdated: [ManagedObject] = []
        var savedDeleted: [ManagedObject] = []
        /// Objects whose changes a merge policy dropped; they now hold the store's values.
        var rolledBack: [ManagedObject] = []
        /// Objects whose records were deleted by someone else, dropped from the context.
        var vanished: [ManagedObject] = []
    }

    /// Builds the store request, checks conflicts and writes; `insertedObjects` are the
    /// objects of `inserted`. Runs under the coordinator's save lock.
    private func writeChanges(_ insertedObjects: [ManagedObject]) throws -> SaveOutcome {
        let store = try persistentStoreCoordinator.storeForNewObjects()
        var outcome = SaveOutcome()
        // Each inserted object knows its position in `insertedObjects` (its save slot), where
        // its permanent ID is found while the records are built.
        let permanentIDs = SavePermanentIDs(count: insertedObjects.count)
        var slotsByEntity: [ObjectIdentifier: [Int]] = [:]
        insertedObjects.forEachUnretained { slot, object in
            object.saveSlot = slot
            // Objects given permanent IDs by `obtainPermanentIDs(for:)` keep them.
            if object.objectID.isTemporaryID { slotsByEntity[ObjectIdentifier(object.entity), default: []].append(slot) }
        }
        let storeIdentifier = store.identifier
        // Keys handed out without a write of their own, claimed by the save's one transaction;
        // other stores reserve them the old way.
        let keyProvider = store as? any SaveKeyProviding
        defer { keyProvider?.discardSaveKeys() }
        for slots in slotsByEntity.values {
            let entity = insertedObjects[slots[0]].entity
            let keys = try keyProvider?.saveKeys(for: entity, count: slots.count) ?? store.newPrimaryKeys(for: entity, count: slots.count)
            for (slot, key) in zip(slots, keys) {
                permanentIDs.ids[slot] = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: storeIdentifier, primaryKey: key))
            }
        }
        func id(of object: ManagedObject) -> ManagedObjectID {
            let slot = object.saveSlot
            if slot >= 0 && slot < insertedObjects.count && insertedObjects[slot] === object, let id = permanentIDs.ids[slot] {
                return id
            }
            return object.objectID
        }

        var changes = SaveChanges()
        outcome.permanentIDs.reserveCapacity(insertedObjects.count)
        var overrides = PrimitiveAccessorOverrides()
        // A store that writes rows from the objects' storage gets the objects whose class has
        // no primitive accessors of its own and whose attributes all have typed slots: the
        // others are read through their accessors or value transformers, into records, here
        // rather than while the store writes (with its lock held, in its transaction).
        let rowWriter = store as? any InsertedRowWriting
        var typedAttributes = TypedAttributeEntities()
        // The slots of the objects written as records; when a row writer takes all the others
        // (usually every one), its objects and IDs share the arrays already made.
        var recordSlots: [Int] = []
        if rowWriter == nil { changes.inserted.reserveCapacity(insertedObjects.count) }
        try insertedObjects.forEachUnretained { slot, object in
            try checkSavable(object)
            let objectID = id(of: object)
            outcome.permanentIDs.append(objectID)
            if rowWriter != nil && !overrides.hasAny(for: object) && typedAttributes.of(object.entity) {
                // The record would have failed on a dangling to-many reference: so does the row.
                try checkToManyTargets(of: object, ids: id)
                return
            }
            recordSlots.append(slot)
            let values = try storeValues(of: object, ids: id, overrides: overrides.of(object)).values
            changes.inserted.append(StoreRecord(objectID: objectID, version: 1, values: values))
        }
        var rowObjects: [ManagedObject] = [], rowIDs: [ManagedObjectID] = []
        if rowWriter != nil {
            if recordSlots.isEmpty {
                // The same buffers: no reference taken per object.
                (rowObjects, rowIDs) = (insertedObjects, outcome.permanentIDs)
            } else {
                rowObjects.reserveCapacity(insertedObjects.count - recordSlots.count)
                rowIDs.reserveCapacity(insertedObjects.count - recordSlots.count)
                var nextRecord = 0
                for slot in insertedObjects.indices {
                    if nextRecord < recordSlots.count && recordSlots[nextRecord] == slot {
                        nextRecord += 1
                        continue
                    }
                    rowObjects.append(insertedObjects[slot])
                    rowIDs.append(outcome.permanentIDs[slot])
                }
            }
        }
        var rows = InsertedObjectRows(
            objects: rowObjects, ids: rowIDs,
            relatedID: { related, relationship, object in try self.savedID(of: related, in: relationship, of: object, ids: id) },
            record: { object, objectID in StoreRecord(objectID: objectID, version: 1, values: try self.storeValues(of: object, ids: id).values) })
        outcome.savedInserted = insertedObjects
        var updatedByID: [ManagedObjectID: ManagedObject] = [:]
        for object in updated where !object.objectID.isTemporaryID {
            try checkSavable(object)
            let (values, omitted) = try storeValues(of: object, ids: id, omittingUnread: true, overrides: overrides.of(object))
            let record = StoreRecord(
                objectID: object.objectID, version: try Self.version(after: object.snapshotVersion, of: object.objectID), values: values,
                omittedRelationships: omitted)
            changes.updated.append(record)
            changes.expectedVersions[object.objectID] = object.snapshotVersion
            updatedByID[object.objectID] = object
        }
        var deletedByID: [ManagedObjectID: ManagedObject] = [:]
        for object in deleted where !object.objectID.isTemporaryID {
            changes.deleted.append(object.objectID)
            changes.expectedVersions[object.objectID] = object.snapshotVersion
            deletedByID[object.objectID] = object
        }
        changes.history = historyDetails(for: store, updated: updatedByID)

        let checked = Array(changes.expectedVersions.keys)
        let current = try store.versions(of: checked)
        let conflicts = checked.compactMap { id -> PersistenceError.Conflict? in
            let expected = changes.expectedVersions[id] ?? 0
            return current[id] == expected ? nil : PersistenceError.Conflict(objectID: id, oldVersion: expected, newVersion: current[id])
        }.sorted { $0.objectID.description < $1.objectID.description }
        if !conflicts.isEmpty {
            try resolve(conflicts, in: &changes, store: store, updated: updatedByID, deleted: deletedByID, outcome: &outcome, ids: id)
        }
        func apply() throws {
            if let rowWriter { try rowWriter.apply(changes, inserting: rows) } else { try store.apply(changes) }
        }
        do {
            try apply()
        } catch is SaveKeysTaken {
            // Another writer on the same file reserved those keys first: reserve others (in
            // transactions of their own, so they cannot be taken) and write again.
            var replacements: [ManagedObjectID: ManagedObjectID] = [:]
            for slots in slotsByEntity.values {
                let entity = insertedObjects[slots[0]].entity
                let keys = try store.newPrimaryKeys(for: entity, count: slots.count)
                for (slot, key) in zip(slots, keys) {
                    guard let old = permanentIDs.ids[slot] else { continue }
                    let new = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: storeIdentifier, primaryKey: key))
                    replacements[old] = new
                    // Rows written from storage find their related objects' IDs here.
                    permanentIDs.ids[slot] = new
                }
            }
            changes.inserted = changes.inserted.map { $0.replacingIDs(replacements) }
            changes.updated = changes.updated.map { $0.replacingIDs(replacements) }
            rows.ids = rows.ids.map { replacements[$0] ?? $0 }
            outcome.permanentIDs = outcome.permanentIDs.map { replacements[$0] ?? $0 }
            try apply()
        }
        // Sibling contexts' faults holding rows of these records must read them again.
        persistentStoreCoordinator.savedRecords.recordSave(changing: changes.updated.map(\.objectID) + changes.deleted)
        for record in changes.updated {
            if let object = updatedByID[record.objectID] {
                outcome.versions[ObjectIdentifier(object)] = record.version
                outcome.savedUpdated.append(object)
            }
        }
        for id in changes.deleted { if let object = deletedByID[id] { outcome.savedDeleted.append(object) } }
        return outcome
    }

    /// The version a save gives a record whose version is `version`: one more. A record version
    /// comes from the store's file, where damage (or another writer) can leave any number; at
    /// `Int64.max` the save throws rather than overflow or wrap around to a version that
    /// optimistic locking could mistake for an older one.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` naming the record.
    static func version(after version: Int64, of id: ManagedObjectID) throws -> Int64 {
        let (next, overflow) = version.addingReportingOverflow(1)
        guard !overflow else {
            throw PersistenceError(
                .saveFailed, message: "the record version of \(id) is \(version), the largest there is: it cannot be saved again",
                objectID: id)
        }
        return next
    }

    /// Throws when saving the object would write what was never read: it is a fault that could
    /// not fire, changed through typed accessors (which cannot throw), so its other values are
    /// the entity's defaults; or it was related, since it was last read or saved, to an object
    /// whose record was found gone when its fault fired (key-value coding throws at once), so
    /// it would write a dangling reference. References that were already there are the
    /// conflict check's business.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound``, or ``PersistenceError/Code/operationFailed``
    ///   for a fault whose record is there but could not be read.
    private func checkSavable(_ object: ManagedObject) throws {
        if object.isFault {
            let gone = object.flags.contains(.unfulfillable)
            throw PersistenceError(
                gone ? .objectNotFound : .operationFailed,
                message: "\(object.entity.name) \(object.objectID) was changed while its record "
                    + (gone ? "no longer exists" : "could not be read")
                    + "; refresh it without merging, or roll back or reset the context",
                objectID: object.objectID)
        }
        guard metUnfulfillableFault else { return }
        func firstGone(in value: Any?, except before: Set<ManagedObjectID>) -> ManagedObject? {
            func isNewlyGone(_ related: ManagedObject) -> Bool {
                related.flags.contains(.unfulfillable) && !before.contains(related.objectID)
            }
            if let related = value as? ManagedObject { return isNewlyGone(related) ? related : nil }
            if let set = value as? Set<ManagedObject> { return set.first(where: isNewlyGone) }
            return (value as? [ManagedObject])?.first(where: isNewlyGone)
        }
        for relationship in object.entity.relationships where !relationship.isTransient && relationship.index < object.values.count {
            let value = object.values[relationship.index]
            // Unread relationship faults are unchanged; most relationships relate no gone record.
            guard !(value is RelationshipFault), firstGone(in: value, except: []) != nil else { continue }
            let committed = object.snapshot.flatMap { relationship.index < $0.count ? $0[relationship.index] : nil }
            let before: Set<ManagedObjectID> = if let fault = committed as? RelationshipFault {
                Set(fault.ids ?? [])
            } else if let related = committed as? ManagedObject {
                [related.objectID]
            } else {
                Set(ManagedObject.objects(inCollection: committed).map(\.objectID))
            }
            if let gone = firstGone(in: value, except: before) {
                throw PersistenceError(
                    .objectNotFound,
                    message: "\(object.entity.name).\(relationship.name) of \(object.objectID) refers to \(gone.entity.name) "
                        + "\(gone.objectID), whose record no longer exists (deleted by another context?)",
                    objectID: gone.objectID)
            }
        }
    }

    /// Applies the merge policy to the conflicts, adjusting the request and the objects.
    private func resolve(
        _ conflicts: [PersistenceError.Conflict], in changes: inout SaveChanges, store: any PersistentStore,
        updated: [ManagedObjectID: ManagedObject], deleted: [ManagedObjectID: ManagedObject],
        outcome: inout SaveOutcome, ids: (ManagedObject) -> ManagedObjectID
    ) throws {
        let policy = mergePolicy.kind
        if policy == .error {
            throw PersistenceError(
                .mergeConflict,
                message: "\(conflicts.count) object\(conflicts.count == 1 ? " was" : "s were") changed by someone else since this context read "
                    + (conflicts.count == 1 ? "it" : "them") + ": " + conflicts.map(\.description).joined(separator: "; "),
                conflicts: conflicts)
        }
        for conflict in conflicts {
            let id = conflict.objectID
            let storeRecord = try store.record(for: id)
            if let object = deleted[id] {
                if policy == .rollback, let storeRecord {
                    changes.deleted.removeAll { $0 == id }
                    object.flags.remove(.deleted)
                    try take(storeRecord, into: object, keepingChanges: false)
                    outcome.rolledBack.append(object)
                } else if storeRecord == nil {
                    changes.deleted.removeAll { $0 == id }
                    outcome.vanished.append(object)
                }
                continue
            }
            guard let object = updated[id], let position = changes.updated.firstIndex(where: { $0.objectID == id }) else { continue }
            guard let storeRecord else {
                changes.updated.remove(at: position)
                if policy == .overwrite || policy == .objectTrump {
                    changes.inserted.append(StoreRecord(objectID: id, version: 1, values: try storeValues(of: object, ids: ids).values))
                    outcome.versions[ObjectIdentifier(object)] = 1
                    outcome.savedUpdated.append(object)
                } else {
                    outcome.vanished.append(object)
                }
                continue
            }
            let mine = changes.updated[position].values
            let base = try snapshotStoreValues(of: object, omitted: changes.updated[position].omittedRelationships)
            var merged = mine
            switch policy {
            case .storeTrump:
                for index in merged.indices where index < storeRecord.values.count && storeRecord.values[index] != base[index] {
                    merged[index] = storeRecord.values[index]
                }
            case .objectTrump:
                for index in merged.indices where index < storeRecord.values.count && mine[index] == base[index] {
                    merged[index] = storeRecord.values[index]
                }
            case .rollback:
                changes.updated.remove(at: position)
                try take(storeRecord, into: object, keepingChanges: false)
                outcome.rolledBack.append(object)
                continue
            default:
                break
            }
            // Relationships left out stay left out: the store keeps what it has for them.
            let omitted = changes.updated[position].omittedRelationships
            changes.updated[position] = StoreRecord(
                objectID: id, version: try Self.version(after: storeRecord.version, of: id), values: merged, omittedRelationships: omitted)
            if merged != mine {
                try take(
                    StoreRecord(objectID: id, version: storeRecord.version, values: merged, omittedRelationships: omitted),
                    into: object, keepingChanges: false)
            }
        }
    }

    /// The object's persistent values as the store keeps them. With `omittingUnread`, to-many
    /// relationships whose IDs were never read are left out (``StoreValue/null``, their indexes
    /// in `omitted`): unchanged, so the store keeps what it has; without, their IDs are read.
    /// `overrides` is the object's `attributesWithCustomPrimitiveAccessors()`, looked up when nil.
    func storeValues(
        of object: ManagedObject, ids: (ManagedObject) -> ManagedObjectID, omittingUnread: Bool = false, overrides: [Bool]? = nil
    ) throws -> (values: [StoreValue], omitted: Set<Int>) {
        let properties = object.entity.properties
        let isToMany = object.entity.isToManyByIndex
        var values: [StoreValue] = []
        var omitted: Set<Int> = []
        values.reserveCapacity(properties.count)
        let overrides = overrides ?? object.attributesWithCustomPrimitiveAccessors()
        let stored = object.values
        for property in properties {
            // Properties are in index order: each value lands at its property's index.
            if !property.isTransient && !overrides[property.index] {
                // Attributes and to-one relationships straight from their typed slots.
                if let value = stored.storeValue(at: property.index) {
                    values.append(value)
                    continue
                }
                if stored.kind(at: property.index) == .object, let relationship = property as? RelationshipDescription {
                    let related = stored.load(ManagedObject.self, at: property.index)
                    values.append(try related.map { .toOne(try savedID(of: $0, in: relationship, of: object, ids: ids)) } ?? .null)
                    continue
                }
                if isToMany[property.index], let relationship = property as? RelationshipDescription,
                   let related = try savedIDs(inLoaded: stored[property.index], of: relationship, of: object, ids: ids)
                {
                    values.append(.toMany(related))
                    continue
                }
            }
            let value = property.isTransient ? nil : object.attributeValue(property, overrides: overrides)
            if property.isTransient {
                values.append(.null)
            } else if omittingUnread && isToMany[property.index], let fault = value as? RelationshipFault, fault.ids == nil {
                values.append(.null)
                omitted.insert(property.index)
            } else {
                values.append(try storeValue(value, for: property, of: object, ids: ids))
            }
        }
        return (values, omitted)
    }

    /// The values the object last read from or saved to the store, as the store keeps them;
    /// the `omitted` relationships (left out of the save, see `storeValues`) are left out here too.
    private func snapshotStoreValues(of object: ManagedObject, omitted: Set<Int>) throws -> [StoreValue] {
        guard let snapshot = object.snapshot else { return [] }
        var values = [StoreValue](repeating: .null, count: object.entity.properties.count)
        for property in object.entity.properties where !property.isTransient && property.index < snapshot.count {
            if omitted.contains(property.index) { continue }
            values[property.index] = try storeValue(snapshot[property.index], for: property, of: object, ids: { $0.objectID })
        }
        return values
    }

    /// One value as the store keeps it.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` for a relationship to an object that
    ///   will not be saved (a dangling reference); what a value transformer throws.
    func storeValue(
        _ value: Any?, for property: PropertyDescription, of object: ManagedObject, ids: (ManagedObject) -> ManagedObjectID
    ) throws -> StoreValue {
        guard let value else { return .null }
        if let relationship = property as? RelationshipDescription {
            func savedID(_ related: ManagedObject) throws -> ManagedObjectID {
                try self.savedID(of: related, in: relationship, of: object, ids: ids)
            }
            if relationship.isToMany {
                if let related = try savedIDs(inLoaded: value, of: relationship, of: object, ids: ids) { return .toMany(related) }
                // An untouched relationship fault is written back as the store gave it.
                if let fault = value as? RelationshipFault { return .toMany(try object.relationshipFaultIDs(fault, at: relationship.index)) }
                return .toMany([])
            }
            guard let related = asModelObject(value) as? ManagedObject else { return .null }
            return .toOne(try savedID(related))
        }
        guard let attribute = property as? AttributeDescription else { return .null }
        // Stored values have the attribute's own type (the casts below match it exactly); a class's
        // own primitive accessor may answer with another number type, which converts.
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64:
            if let integer = value as? Int64 { return .integer(integer) }
            if let integer = value as? Int32 { return .integer(Int64(integer)) }
            if let integer = value as? Int16 { return .integer(Int64(integer)) }
            return convertKeyValue(value, to: Int64.self).map(StoreValue.integer) ?? .null
        case .double, .float:
            if let double = value as? Double { return .double(double) }
            return convertKeyValue(value, to: Double.self).map(StoreValue.double) ?? .null
        case .decimal: return (value as? Decimal).map(StoreValue.decimal) ?? .null
        case .string: return (value as? String).map(StoreValue.string) ?? .null
        case .boolean: return (value as? Bool).map(StoreValue.boolean) ?? .null
        case .date: return (value as? Date).map(StoreValue.date) ?? .null
        case .binaryData: return (value as? Data).map(StoreValue.data) ?? .null
        case .uuid: return (value as? UUID).map(StoreValue.uuid) ?? .null
        case .uri: return (value as? URL).map(StoreValue.uri) ?? .null
        case .transformable:
            guard let transformer = attribute.valueTransformer else {
                throw PersistenceError(
                    .saveFailed, message: "no value transformer is registered for \(object.entity.name).\(attribute.name)",
                    objectID: object.objectID)
            }
            return .data(try transformer.transformedValue(value))
        default:
            return .null
        }
    }

    /// The IDs a to-many `relationship` of `object` saves for `value`, its loaded objects (a set,
    /// or an array for an ordered relationship), in the relationship's order or by primary key;
    /// nil when `value` holds no loaded objects (a relationship fault).
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` for a dangling reference.
    private func savedIDs(
        inLoaded value: Any?, of relationship: RelationshipDescription, of object: ManagedObject,
        ids: (ManagedObject) -> ManagedObjectID
    ) throws -> [ManagedObjectID]? {
        // The stored collection's own type first: a failed cast costs more than a matching one.
        let objects: [ManagedObject]
        if relationship.isOrdered, let array = value as? [ManagedObject] {
            objects = array
        } else if let set = value as? Set<ManagedObject> {
            objects = Array(set)
        } else if let array = value as? [ManagedObject] {
            objects = array
        } else {
            return nil
        }
        if objects.isEmpty { return [] }
        var related = try objects.map { try savedID(of: $0, in: relationship, of: object, ids: ids) }
        if !relationship.isOrdered {
            // By key, then entity name for equal keys of several entities: the names are read
            // only then. Sorted as keys and positions, then put in that order by swaps: a sort
            // of the IDs themselves would copy them as it merges, each copy an atomic retain
            // and release of the ID's entity (a dozen per object of a department's employees).
            var order = related.indices.map { (key: related[$0].primaryKey ?? 0, position: $0) }
            order.sort { lhs, rhs in
                lhs.key != rhs.key
                    ? lhs.key < rhs.key
                    : related[lhs.position].entity.name < related[rhs.position].entity.name
            }
            related.permute(taking: order.map(\.position))
        }
        return related
    }

    /// Throws what building the record of `object` would throw for an object of a to-many
    /// relationship that will not be saved (a dangling reference), without building the IDs.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` for a dangling reference.
    private func checkToManyTargets(of object: ManagedObject, ids: (ManagedObject) -> ManagedObjectID) throws {
        // Nothing here writes the object's values.
        try object.withValuesUnretained { values in try checkToManyTargets(of: object, values: values, ids: ids) }
    }

    /// `checkToManyTargets(of:ids:)` on `values`, the object's own.
    private func checkToManyTargets(
        of object: ManagedObject, values: borrowing PropertyValues, ids: (ManagedObject) -> ManagedObjectID
    ) throws {
        for relationship in object.entity.relationships where relationship.isToMany && !relationship.isTransient {
            // A relationship fault holds the store's IDs: nothing dangles there.
            switch values.toManyContents(at: relationship.index) {
            case .set(let set): for related in set { _ = try savedID(of: related, in: relationship, of: object, ids: ids) }
            case .array(let array): for related in array { _ = try savedID(of: related, in: relationship, of: object, ids: ids) }
            case .unread, .other, nil: continue
            }
        }
    }

    /// The ID `relationship` of `object` saves for `related`.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` when `related` will not be saved (a
    ///   dangling reference).
    private func savedID(
        of related: ManagedObject, in relationship: RelationshipDescription, of object: ManagedObject,
        ids: (ManagedObject) -> ManagedObjectID
    ) throws -> ManagedObjectID {
        let id = ids(related)
        if id.isTemporaryID {
            throw PersistenceError(
                .objectNotFound,
                message: "\(object.entity.name).\(relationship.name) refers to \(related.entity.name) \(related.objectID), "
                    + "which is not saved in this context (a dangling reference)",
                objectID: object.objectID)
        }
        return id
    }

    /// Replaces an object's values with a record's, notifying observers of the keys that change;
    /// with `keepingChanges`, properties changed since the snapshot keep their current values.
    /// The change is not recorded and inverses are not maintained (the record has both sides).
    ///
    /// - Throws: What ``objectValues(from:of:)`` throws; the object is left as it was.
    func take(_ record: StoreRecord, into object: ManagedObject, keepingChanges: Bool) throws {
        var fresh = try objectValues(from: record, of: object)
        if object.values.count != fresh.count {
            // A fault that could not fire has no values to keep or compare: it is fulfilled.
            object.values = fresh
            object.snapshot = fresh
            object.snapshotVersion = record.version
            object.flags.remove([.fault, .unfulfillable])
            object.fetchedRow = PropertyValues()
            return
        }
        let changed: Set<Int> = keepingChanges
            ? Set(object.entity.properties.filter { property in
                guard let snapshot = object.snapshot, property.index < snapshot.count else { return true }
                return !ManagedObject.storedValuesEqual(object.values[property.index], snapshot[property.index])
            }.map(\.index))
            : []
        object.changeRecordingDepth += 1
        object.inverseMaintenanceDepth += 1
        defer {
            object.changeRecordingDepth -= 1
            object.inverseMaintenanceDepth -= 1
        }
        for property in object.entity.properties where !property.isTransient && !changed.contains(property.index) {
            if let fault = object.values[property.index] as? RelationshipFault, fault.ids == nil {
                // Never read: it stands for what the store has, which the fresh record is.
                fresh[property.index] = fault
                continue
            }
            let new = fresh[property.index]
            if ManagedObject.storedValuesEqual(object.values[property.index], new) { continue }
            object.willChangeValue(forKey: property.name)
            object.values[property.index] = new
            object.didChangeValue(forKey: property.name)
        }
        object.snapshot = fresh
        object.snapshotVersion = record.version
    }

    /// Updates the context after a successful write.
    private func finishSave(_ outcome: SaveOutcome) {
        var updatedIDs = Set<ManagedObjectID>(), deletedIDs = Set<ManagedObjectID>()
        let insertedIDs = Self.idSet(of: outcome.permanentIDs)
        let savedInsertedSet = inserted
        // Each object leaves the registry under its temporary ID and joins it under its permanent
        // one: the registry keeps its size. When they are most of it, the registry is rebuilt
        // once from the slots where the objects are found by reference (see
        // `ObjectRegistry.rename(at:objects:to:)`): a removal and an insertion each read the
        // other objects along their probe runs, a cache miss each.
        let renamesChildren = !chain.children.isEmpty && chain.parentStore == nil
        var renames: [(old: ManagedObjectID, new: ManagedObjectID)] = []
        var overrides = PrimitiveAccessorOverrides()
        let permanentIDs = outcome.permanentIDs
        let savedInserted = outcome.savedInserted
        let rebuildsRegistry = savedInserted.count == permanentIDs.count && registered.prefersRebuild(renaming: savedInserted.count)
        var positions: [Int] = []
        if rebuildsRegistry { positions.reserveCapacity(savedInserted.count) }
        // Objects the rebuild misses (not registered under their temporary IDs), with those IDs.
        var missed: [(index: Int, old: ManagedObjectID)] = []
        // Objects whose class keeps attributes in primitive accessors of its own: their snapshot
        // runs the class's code, which must find the registry whole.
        var snapshotsAfterRenames: [Int] = []
        savedInserted.forEachUnretained { index, object in
            guard index < permanentIDs.count else { return }
            let id = permanentIDs[index]
            if renamesChildren { renames.append((object.objectID, id)) }
            if !rebuildsRegistry {
                registered[object.objectID] = nil
            } else if let position = registered.position(of: object, registeredAs: object.objectID.key) {
                positions.append(position)
            } else {
                missed.append((index, object.objectID))
            }
            object.objectID = id
            object.saveSlot = -1
            if !rebuildsRegistry { registered.insert(object, id: id) }
            object.flags.remove([.inserted, .updated])
            if !rebuildsRegistry || !overrides.hasAny(for: object) {
                object.snapshot = Self.snapshot(of: object, overrides: &overrides)
            } else {
                snapshotsAfterRenames.append(index)
            }
            object.snapshotVersion = 1
        }
        if rebuildsRegistry {
            if missed.isEmpty {
                registered.rename(at: positions, objects: savedInserted, to: permanentIDs)
            } else {
                var found: [ManagedObject] = [], foundIDs: [ManagedObjectID] = []
                var nextMissed = 0
                for index in savedInserted.indices {
                    if nextMissed < missed.count && missed[nextMissed].index == index {
                        nextMissed += 1
                        continue
                    }
                    found.append(savedInserted[index])
                    foundIDs.append(permanentIDs[index])
                }
                registered.rename(at: positions, objects: found, to: foundIDs)
                for (index, old) in missed {
                    registered[old] = nil
                    registered.insert(savedInserted[index], id: permanentIDs[index])
                }
            }
            for index in snapshotsAfterRenames {
                savedInserted[index].snapshot = Self.snapshot(of: savedInserted[index], overrides: &overrides)
            }
        }
        for object in outcome.savedUpdated {
            object.flags.remove([.inserted, .updated])
            object.snapshot = Self.snapshot(of: object, overrides: &overrides)
            // Every record saved has its version there (see `version(after:of:)`).
            object.snapshotVersion = outcome.versions[ObjectIdentifier(object)] ?? object.snapshotVersion
        }
        if !renames.isEmpty { adoptPermanentIDs(renames) }
        for object in outcome.savedUpdated { updatedIDs.insert(object.objectID) }
        for object in outcome.rolledBack { object.flags.remove([.updated, .deleted]) }
        for object in outcome.savedDeleted + outcome.vanished {
            deletedIDs.insert(object.objectID)
            unregister(object)
            undoManager?.removeAllActions(withTarget: object)
        }
        inserted = []
        updated = []
        deleted = []
        unannouncedUpdated.subtract(outcome.savedUpdated)
        // In that order, without joining the arrays (a copy, and a retain and release per object).
        // `outcome` holds every object for the walk.
        outcome.savedInserted.forEachUnretained { _, object in object.didSave() }
        for object in outcome.savedUpdated { object.didSave() }
        for object in outcome.savedDeleted { object.didSave() }
        let userInfo: [AnyHashable: Any] = [
            Self.insertedObjectsKey: savedInsertedSet, Self.updatedObjectsKey: Set(outcome.savedUpdated),
            Self.deletedObjectsKey: Set(outcome.savedDeleted), Self.insertedObjectIDsKey: insertedIDs,
            Self.updatedObjectIDsKey: updatedIDs, Self.deletedObjectIDsKey: deletedIDs,
        ]
        notificationCenter.post(name: Self.didSaveNotification, object: self, userInfo: userInfo)
    }
}

extension ManagedObjectContext {
    /// A set of `ids`, for the did-save notification. Each ID is copied in once: `Set(_:)`
    /// inserts a copy of each element and hands back another (`insert`'s member), a retain and
    /// a release of the ID's entity per ID besides the set's own.
    static func idSet(of ids: [ManagedObjectID]) -> Set<ManagedObjectID> {
        var set = Set<ManagedObjectID>(minimumCapacity: ids.count)
        ids.withUnsafeBufferPointer { ids in
            for index in ids.indices { set.update(with: ids[index]) }
        }
        return set
    }

    /// The snapshot a saved object keeps: its storage as it is (shared, not copied) when its
    /// class keeps no attribute in primitive accessors of its own, else `currentSnapshot`'s.
    fileprivate static func snapshot(of object: ManagedObject, overrides: inout PrimitiveAccessorOverrides) -> PropertyValues {
        let objectOverrides = overrides.of(object)
        return overrides.hasAny ? object.currentSnapshot(overrides: objectOverrides) : object.values
    }
}

/// The permanent IDs a save gives its inserted objects, by save slot. A class, so that the
/// closures that look an object's ID up (once for each reference a row or record writes) capture
/// no variable: every read of a captured variable is checked for exclusivity, which costs more
/// than the lookup. SAFETY: confined to the save that makes it; no access spans another.
final class SavePermanentIDs {
    @exclusivity(unchecked) var ids: [ManagedObjectID?]

    init(count: Int) {
        ids = [ManagedObjectID?](repeating: nil, count: count)
    }
}

/// Whether every persistent attribute of an entity has a typed slot (none is transformable or
/// undefined, whose values only a record carries as a store keeps them), for a loop over many
/// objects, most of them of one entity in a row: the last answer is kept.
struct TypedAttributeEntities {
    private var entity: ObjectIdentifier?
    private var answer = false

    /// The answer for `entity`.
    mutating func of(_ entity: EntityDescription) -> Bool {
        if ObjectIdentifier(entity) != self.entity {
            self.entity = ObjectIdentifier(entity)
            let slots = entity.layout.slots
            answer = entity.attributes.allSatisfy { $0.isTransient || ($0.index < slots.count && slots[$0.index].kind != .any) }
        }
        return answer
    }
}

/// `ManagedObject.attributesWithCustomPrimitiveAccessors()` for a loop over many objects, most
/// of them of one class and entity in a row: the last answer is kept, so the shared cache is
/// asked once per run of objects instead of once per object.
struct PrimitiveAccessorOverrides {
    private var objectClass: ObjectIdentifier?
    private var entity: ObjectIdentifier?
    private var answer: [Bool] = []
    /// Whether the last answer has a property with a primitive accessor of its own.
    private(set) var hasAny = false

    /// Whether `object`'s answer has a property with a primitive accessor of its own.
    mutating func hasAny(for object: ManagedObject) -> Bool {
        _ = of(object)
        return hasAny
    }

    /// The answer for `object`, which must not be a fault when its class and entity are new.
    mutating func of(_ object: ManagedObject) -> [Bool] {
        let objectClass = ObjectIdentifier(type(of: object)), entity = ObjectIdentifier(object.entity)
        if objectClass != self.objectClass || entity != self.entity {
            answer = object.attributesWithCustomPrimitiveAccessors()
            hasAny = answer.contains(true)
            self.objectClass = objectClass
            self.entity = entity
        }
        return answer
    }
}
