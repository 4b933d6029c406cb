import Foundation

extension ManagedObjectContext {
    /// Posted at the end of ``processPendingChanges()`` when objects were inserted, updated,
    /// deleted or refreshed since the last one; the sets are under ``insertedObjectsKey``,
    /// ``updatedObjectsKey``, ``deletedObjectsKey`` and ``refreshedObjectsKey``.
    ///
    /// Corresponds to `NSManagedObjectContextObjectsDidChange`.
    public static let objectsDidChangeNotification = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
    /// Posted when a save starts, before `willSave` is sent to the objects; no user info.
    ///
    /// Corresponds to `NSManagedObjectContextWillSave`.
    public static let willSaveNotification = Notification.Name("NSManagedObjectContextWillSaveNotification")
    /// Posted after a save succeeded, with the saved objects under ``insertedObjectsKey``,
    /// ``updatedObjectsKey`` and ``deletedObjectsKey`` and their IDs under
    /// ``insertedObjectIDsKey``, ``updatedObjectIDsKey`` and ``deletedObjectIDsKey``.
    ///
    /// Corresponds to `NSManagedObjectContextDidSave`.
    public static let didSaveNotification = Notification.Name("NSManagedObjectContextDidSaveNotification")

    /// The inserted objects, a `Set<ManagedObject>`.
    ///
    /// Corresponds to `NSInsertedObjectsKey`.
    public static let insertedObjectsKey = "inserted"
    /// The updated objects, a `Set<ManagedObject>`.
    ///
    /// Corresponds to `NSUpdatedObjectsKey`.
    public static let updatedObjectsKey = "updated"
    /// The deleted objects, a `Set<ManagedObject>`.
    ///
    /// Corresponds to `NSDeletedObjectsKey`.
    public static let deletedObjectsKey = "deleted"
    /// The objects refreshed from the store, a `Set<ManagedObject>`.
    ///
    /// Corresponds to `NSRefreshedObjectsKey`.
    public static let refreshedObjectsKey = "refreshed"
    /// The IDs of the inserted objects, a `Set<ManagedObjectID>`.
    ///
    /// Corresponds to `NSInsertedObjectIDsKey`.
    public static let insertedObjectIDsKey = "inserted_objectIDs"
    /// The IDs of the updated objects, a `Set<ManagedObjectID>`.
    ///
    /// Corresponds to `NSUpdatedObjectIDsKey`.
    public static let updatedObjectIDsKey = "updated_objectIDs"
    /// The IDs of the deleted objects, a `Set<ManagedObjectID>`.
    ///
    /// Corresponds to `NSDeletedObjectIDsKey`.
    public static let deletedObjectIDsKey = "deleted_objectIDs"

    /// Posts the objects-did-change notification for the changes not yet announced.
    func postObjectsDidChange() {
        let (inserted, isEveryEntry) = unannouncedInserted()
        let updated = unannouncedUpdated.objects.subtracting(inserted)
        let deleted = unannouncedDeleted, refreshed = unannouncedRefreshed
        let entries = clearUnannouncedInsertions()
        // The entries are the inserted objects, each once: the save walks them (moved, not
        // copied, and not released here).
        if keepsAnnouncedInsertions && isEveryEntry { keptAnnouncedInsertions = (inserted, entries) }
        unannouncedUpdated.removeAll()
        unannouncedDeleted = []
        unannouncedRefreshed = []
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty) else { return }
        var userInfo: [AnyHashable: Any] = [:]
        if !inserted.isEmpty { userInfo[Self.insertedObjectsKey] = inserted }
        if !updated.isEmpty { userInfo[Self.updatedObjectsKey] = updated }
        if !deleted.isEmpty { userInfo[Self.deletedObjectsKey] = deleted }
        if !refreshed.isEmpty { userInfo[Self.refreshedObjectsKey] = refreshed }
        notifyChangeObservers(ContextChangeSet(inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed))
        notificationCenter.post(name: Self.objectsDidChangeNotification, object: self, userInfo: userInfo)
    }
}
