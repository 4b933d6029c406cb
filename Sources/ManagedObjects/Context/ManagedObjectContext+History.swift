import Foundation

extension ManagedObjectContext {
    /// Fetches or deletes persistent history through the context's coordinator (see
    /// ``PersistentStoreCoordinator/execute(_:)``). Fetching changes no object: merge the
    /// transactions with ``mergeChanges(from:)-(PersistentHistoryTransaction)``.
    ///
    /// - Throws: What ``PersistentStoreCoordinator/execute(_:)`` throws.
    ///
    /// Corresponds to `-[NSManagedObjectContext executeRequest:error:]` with an
    /// `NSPersistentHistoryChangeRequest`.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try persistentStoreCoordinator.execute(request)
    }

    /// Brings a transaction of persistent history into the context, as
    /// ``mergeChanges(fromContextDidSave:)`` does with its ``PersistentHistoryTransaction/objectIDNotification()``:
    /// registered objects it updated take the stored values (keeping this context's unsaved
    /// changes over them), registered objects it deleted leave the context, and
    /// ``objectsDidChangeNotification`` is posted.
    ///
    /// Corresponds to `mergeChanges(fromContextDidSave: transaction.objectIDNotification())`.
    public func mergeChanges(from transaction: PersistentHistoryTransaction) {
        mergeChanges(from: [transaction])
    }

    /// Brings several transactions into the context at once (one objects-did-change
    /// notification): see ``mergeChanges(from:)-(PersistentHistoryTransaction)``.
    public func mergeChanges(from transactions: [PersistentHistoryTransaction]) {
        var inserted = Set<ManagedObjectID>(), updated = Set<ManagedObjectID>(), deleted = Set<ManagedObjectID>()
        for transaction in transactions {
            for change in transaction.changes {
                switch change.changeType {
                case .insert: inserted.insert(change.changedObjectID)
                case .update: updated.insert(change.changedObjectID)
                case .delete: deleted.insert(change.changedObjectID)
                }
            }
        }
        mergeChanges(fromContextDidSave: Notification(
            name: Self.didSaveNotification, object: nil,
            userInfo: [Self.insertedObjectIDsKey: inserted, Self.updatedObjectIDsKey: updated.subtracting(deleted), Self.deletedObjectIDsKey: deleted]))
    }

    /// What a save tells a store that records history: the context's author and name, and the
    /// properties each updated object changed. Made before the merge policy settles conflicts,
    /// so an update lists every property this context changed.
    func historyDetails(for store: any PersistentStore, updated: [ManagedObjectID: ManagedObject]) -> SaveChanges.HistoryDetails {
        var details = SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)
        guard (store as? any PersistentHistoryStore)?.tracksPersistentHistory == true else { return details }
        for (id, object) in updated { details.updatedProperties[id] = Set(object.changedValues().keys) }
        return details
    }
}
