import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Brings an object up to date with its store.
    ///
    /// Without merging, the object drops its unsaved changes and turns back into a fault
    /// (``ManagedObject/willTurnIntoFault()``, then ``ManagedObject/didTurnIntoFault()``),
    /// freeing its values; the next read loads fresh ones. With merging, it reloads the record
    /// now and keeps its unsaved changes over the fresh values; observers hear each key that
    /// changes; when the record cannot be read (another context deleted it, or the store
    /// failed), it keeps its values and changes as they are, for the next save to settle. A
    /// fault forgets the row a fetch left with it, so that firing it reads the store. An
    /// inserted object, never saved, is left as it is.
    ///
    /// Corresponds to `-[NSManagedObjectContext refreshObject:mergeChanges:]`.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.isInserted else { return }
        if object.isFault && !object.hasChanges {
            object.fetchedRow = PropertyValues()
            return
        }
        if mergeChanges, object.hasChanges {
            if let record = try? sourceRecord(for: object.objectID),
               (try? take(record, into: object, keepingChanges: true)) != nil {
                unannouncedRefreshed.insert(object)
            }
            return
        }
        turnIntoFault(object)
        unannouncedRefreshed.insert(object)
    }

    /// Turns every registered object without changes back into a fault, and merges fresh
    /// values into those with changes.
    ///
    /// Corresponds to `-[NSManagedObjectContext refreshAllObjects]`.
    public func refreshAllObjects() {
        for object in registered.values { refresh(object, mergeChanges: true) }
    }

    func turnIntoFault(_ object: ManagedObject) {
        // Observation trackings hear a possible change of every key: the next read loads the
        // store's values, which other contexts may have changed.
        object.observationWillChangeAllKeys()
        defer { object.observationDidChangeAllKeys() }
        object.willTurnIntoFault()
        relationshipReadFailures[ObjectIdentifier(object)] = nil
        if object.isUpdated { updated.remove(object) }
        if object.isDeleted {
            deleted.remove(object)
            pendingDeletions.removeAll { $0 === object }
        }
        // The flags of an unannounced insertion stay with its entry in `unannouncedInserted`, and
        // an unannounced update's with its entry in `unannouncedUpdated`.
        object.flags = object.flags.intersection([.insertionUnannounced, .changedWhileInsertionUnannounced, .updateUnannounced])
            .union([.fault, .awokeFromInsert])
        object.values = PropertyValues()
        object.fetchedRow = PropertyValues()
        object.faultBatch = nil
        object.snapshot = nil
        object.pendingChanges = []
        undoManager?.removeAllActions(withTarget: object)
        object.didTurnIntoFault()
    }

    /// Discards every unsaved change: inserted objects leave the context, deleted objects come
    /// back, updated objects take their last saved values (observers hear each key that
    /// changes), and the undo manager forgets everything. The objects-did-change notification
    /// lists the discarded insertions as deleted and the restored objects as refreshed.
    ///
    /// Corresponds to `-[NSManagedObjectContext rollback]`.
    public func rollback() {
        undoManager?.disableUndoRegistration()
        defer {
            try? undoManager?.enableUndoRegistration()
            undoManager?.removeAllActions()
        }
        let insertedObjects = inserted
        // Inserted objects, and inserted ones deleted since: both leave the context.
        let discarded = insertedObjects.union(pendingDeletions.filter { $0.objectID.isTemporaryID })
        let restored = updated.union(deleted).union(pendingDeletions.filter { !$0.objectID.isTemporaryID })
        for object in restored {
            object.flags.remove([.updated, .deleted])
            // A fault that could not fire has nothing to restore (its changes were its only values).
            guard let snapshot = object.snapshot, !object.isFault else {
                if object.isFault { object.values = PropertyValues() }
                continue
            }
            object.changeRecordingDepth += 1
            object.inverseMaintenanceDepth += 1
            for property in object.entity.properties where property.index < snapshot.count && property.index < object.values.count {
                if ManagedObject.storedValuesEqual(object.values[property.index], snapshot[property.index]) { continue }
                object.willChangeValue(forKey: property.name)
                object.values[property.index] = snapshot[property.index]
                object.didChangeValue(forKey: property.name)
            }
            object.changeRecordingDepth -= 1
            object.inverseMaintenanceDepth -= 1
            if object.managedObjectContext !== self { register(object) }
        }
        for object in insertedObjects {
            object.flags.remove(.inserted)
            unregister(object)
        }
        for object in pendingDeletions where object.objectID.isTemporaryID {
            object.flags.remove(.deleted)
            unregister(object)
        }
        inserted = []
        updated = []
        deleted = []
        pendingDeletions = []
        relationshipReadFailures = [:]
        clearUnannouncedInsertions()
        unannouncedUpdated.removeAll()
        // Discarded insertions leave as deletions, as an undone insertion does, so observers
        // (fetched-results controllers among them) hear that they are gone.
        unannouncedDeleted = discarded
        unannouncedRefreshed.formUnion(restored)
        postObjectsDidChange()
    }

    /// Forgets every registered object and every unsaved change; objects you still hold leave
    /// the context and lose their values (reading them by key throws
    /// ``PersistenceError/Code/objectNotFound``; typed accessors read the entity's default
    /// values), so objects that held each other are freed. The undo manager forgets everything.
    ///
    /// Corresponds to `-[NSManagedObjectContext reset]`.
    public func reset() {
        for object in registered.values {
            object.observationWillChangeAllKeys()
            defer { object.observationDidChangeAllKeys() }
            letGo(object)
            // The objects are invalid from now on, as in Core Data: their values go back to the
            // entity's initial ones, which also lets objects that held each other be freed.
            object.values = object.entity.initialValues
            object.snapshot = nil
            object.fetchedRow = PropertyValues()
            object.faultBatch = nil
            object.pendingChanges = []
            object.flags = [.fault, .awokeFromInsert]
        }
        registered.removeAll()
        relationshipReadFailures = [:]
        inserted = []
        updated = []
        deleted = []
        pendingDeletions = []
        clearUnannouncedInsertions()
        unannouncedUpdated.removeAll()
        unannouncedDeleted = []
        unannouncedRefreshed = []
        undoManager?.removeAllActions()
    }

    /// Brings the changes another context saved into this one, from that context's
    /// ``didSaveNotification``: registered objects it updated take the saved values (keeping
    /// this context's unsaved changes over them) and the version read, so a later save of
    /// this context does not conflict with them, and faults among them read the saved record
    /// when they fire; registered objects it deleted leave this context (a fault among them
    /// then throws ``PersistenceError/Code/objectNotFound`` when fired). Posts ``objectsDidChangeNotification`` with the refreshed and deleted objects.
    ///
    /// Reads only the IDs in the notification, never the other context's objects, so the
    /// notification may come from another isolation domain.
    ///
    /// Corresponds to `-[NSManagedObjectContext mergeChangesFromContextDidSaveNotification:]`.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let userInfo = notification.userInfo ?? [:]
        let updatedIDs = userInfo[Self.updatedObjectIDsKey] as? Set<ManagedObjectID> ?? []
        let deletedIDs = userInfo[Self.deletedObjectIDsKey] as? Set<ManagedObjectID> ?? []
        for id in updatedIDs {
            guard let object = registered[id] else { continue }
            if object.isFault {
                // Its fetched row is stale: the next read loads the saved record.
                object.fetchedRow = PropertyValues()
                continue
            }
            if let record = try? sourceRecord(for: id),
               (try? take(record, into: object, keepingChanges: object.hasChanges)) != nil {
                unannouncedRefreshed.insert(object)
            }
        }
        for id in deletedIDs {
            guard let object = registered[id] else { continue }
            inserted.remove(object)
            updated.remove(object)
            deleted.remove(object)
            object.flags.remove([.inserted, .updated])
            object.flags.insert(.deleted)
            unannouncedDeleted.insert(object)
            unregister(object)
        }
        postObjectsDidChange()
    }
}
