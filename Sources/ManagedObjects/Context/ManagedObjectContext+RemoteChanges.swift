import Foundation

/// The records another writer inserted, updated and deleted: a batch request's result, or what
/// another process reports, for `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
///
/// Corresponds to the dictionary Core Data's `mergeChanges(fromRemoteContextSave:into:)` takes
/// (`NSInsertedObjectsKey`, `NSUpdatedObjectsKey`, `NSDeletedObjectsKey`); differences: typed.
public struct RemoteChanges: Sendable {
    /// The IDs of inserted records.
    ///
    /// Corresponds to the `NSInsertedObjectsKey` entry.
    public var inserted: [ManagedObjectID]
    /// The IDs of updated records.
    ///
    /// Corresponds to the `NSUpdatedObjectsKey` entry.
    public var updated: [ManagedObjectID]
    /// The IDs of deleted records.
    ///
    /// Corresponds to the `NSDeletedObjectsKey` entry.
    public var deleted: [ManagedObjectID]

    /// Creates a change set.
    ///
    /// Corresponds to building the dictionary Core Data takes.
    public init(inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

extension ManagedObjectContext {
    /// Brings changes written outside the contexts (a batch update or delete, another
    /// coordinator or process) into each of `contexts`: registered objects of updated records
    /// take the saved values (keeping their unsaved changes over them, as
    /// ``refresh(_:mergeChanges:)`` with merging does) and the saved version, so their next
    /// save does not conflict; faults among them read the saved record when they fire;
    /// registered objects of deleted records leave the context; inserted records become
    /// registered faults. Each context then posts ``objectsDidChangeNotification`` (inserted,
    /// refreshed and deleted objects).
    ///
    /// Corresponds to `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
    public static func mergeChanges(fromRemoteContextSave changes: RemoteChanges, into contexts: [ManagedObjectContext]) {
        for context in contexts { context.mergeRemoteChanges(changes) }
    }

    /// Brings changes given as Core Data gives them into each of `contexts`: under
    /// ``insertedObjectsKey``, ``updatedObjectsKey`` and ``deletedObjectsKey`` (or the
    /// `…ObjectIDsKey` keys), arrays or sets of ``ManagedObjectID``s or of their URIs
    /// (``ManagedObjectID/uriRepresentation()``, as another process passes them). Values of
    /// other types and URIs that name no object of a context's coordinator are skipped.
    ///
    /// Corresponds to `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        for context in contexts {
            func ids(_ keys: String...) -> [ManagedObjectID] {
                keys.flatMap { key -> [ManagedObjectID] in
                    let value = changes[key]
                    let items: [Any] = (value as? [Any]) ?? (value as? Set<ManagedObjectID>).map { Array($0) } ?? (value as? Set<URL>).map { Array($0) } ?? []
                    return items.compactMap { item in
                        if let id = item as? ManagedObjectID { return id }
                        if let uri = item as? URL { return context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) }
                        return nil
                    }
                }
            }
            context.mergeRemoteChanges(RemoteChanges(
                inserted: ids(insertedObjectsKey, insertedObjectIDsKey), updated: ids(updatedObjectsKey, updatedObjectIDsKey),
                deleted: ids(deletedObjectsKey, deletedObjectIDsKey)))
        }
    }

    private func mergeRemoteChanges(_ changes: RemoteChanges) {
        for id in changes.inserted where !id.isTemporaryID && registered[id] == nil && persistentStoreCoordinator.store(for: id) != nil {
            noteUnannouncedInsertion(of: makeFault(for: id))
        }
        let saved = Notification(
            name: Self.didSaveNotification, object: nil,
            userInfo: [Self.updatedObjectIDsKey: Set(changes.updated), Self.deletedObjectIDsKey: Set(changes.deleted)])
        mergeChanges(fromContextDidSave: saved)
    }
}
