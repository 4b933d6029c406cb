import Foundation

extension ManagedObjectContext {
    /// Whether the context merges by itself the saves that other coordinators, in this process
    /// or in other processes and machines, make to its ``PostgreSQLStore``s; false by default.
    ///
    /// ```swift
    /// context.automaticallyMergesChangesFromParent = true
    /// // In the context's task or actor, for as long as the context should stay live:
    /// await context.mergeRemoteChangesUntilCancelled()
    /// ```
    ///
    /// Turning it on starts listening (`LISTEN`, on one connection per store that every
    /// context of the coordinator shares) before it returns, so every save committed afterwards
    /// arrives. The changes wait until the context's isolation domain merges them: at the end of
    /// each ``processPendingChanges()`` (so before each save), and as soon as they arrive while
    /// a task awaits ``mergeRemoteChangesUntilCancelled(isolation:)``; until then they are kept (object
    /// IDs, one set per save), so a context that sets the property should reach one of those
    /// points regularly. A merge works as
    /// `mergeChanges(fromRemoteContextSave:into:)`: registered objects of updated records take
    /// the saved values and version (faults among them drop their stale row), registered
    /// objects of deleted records leave the context, inserted records become registered
    /// faults; then ``objectsDidChangeNotification`` is posted (inserted, refreshed — faults
    /// included — and deleted objects) and fetched-results controllers on the context report
    /// the rows that changed. An object with unsaved changes keeps them over the saved values,
    /// except under ``MergePolicy/storeTrump`` (attributes the other save changed take its
    /// values; other changes stay) and ``MergePolicy/rollback`` (its changes are dropped and it
    /// turns into a fault).
    ///
    /// When the listening connection breaks (a server restart, a network), the listener
    /// connects again, waiting up to two seconds between attempts; saves committed in between
    /// are not announced, so the context then checks every registered object against the
    /// store: present ones are merged as updated, missing ones as deleted. Records inserted in
    /// between appear at the next fetch.
    ///
    /// Saves of the context's own coordinator are not included: merge those from its
    /// ``didSaveNotification`` with ``mergeChanges(fromContextDidSave:)``. Stores added to the
    /// coordinator later, stores of other types and child contexts are not listened to (setting
    /// the property on a child context does nothing: merge into its parent).
    ///
    /// Corresponds to `NSManagedObjectContext.automaticallyMergesChangesFromParent`;
    /// differences: it merges the saves of other coordinators and processes (Core Data's
    /// remote-change notifications, merged by hand there), and it merges at the points above,
    /// in the context's isolation domain, instead of on the context's queue.
    public var automaticallyMergesChangesFromParent: Bool {
        get { remoteChangeMailbox != nil }
        set {
            guard newValue != (remoteChangeMailbox != nil), chain.parentStore == nil else { return }
            if newValue {
                let stores = persistentStoreCoordinator.persistentStores.compactMap { $0 as? PostgreSQLStore }
                remoteChangeMailbox = RemoteChangeMailbox(stores: stores)
            } else {
                remoteChangeMailbox?.close()
                remoteChangeMailbox = nil
            }
        }
    }

    /// Merges the remote changes as they arrive, in the caller's isolation domain (where the
    /// context lives), until the task is cancelled or ``automaticallyMergesChangesFromParent``
    /// is turned off; returns at once when it is off.
    ///
    /// ```swift
    /// @MainActor final class Model {
    ///     let context: ManagedObjectContext
    ///     func startMerging() -> Task<Void, Never> {
    ///         context.automaticallyMergesChangesFromParent = true
    ///         return Task { await self.context.mergeRemoteChangesUntilCancelled() }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter isolation: Where the merges run: the caller's actor, by default (the
    ///   context belongs to it).
    ///
    /// Corresponds to the merging Core Data's context queue does by itself when
    /// `automaticallyMergesChangesFromParent` is set.
    public func mergeRemoteChangesUntilCancelled(isolation: isolated (any Actor)? = #isolation) async {
        guard let mailbox = remoteChangeMailbox else { return }
        for await _ in mailbox.arrivals() {
            guard remoteChangeMailbox === mailbox else { return }
            mergeArrivedRemoteChanges()
        }
    }

    /// Merges what arrived since the last merge, one objects-did-change notification per save.
    func mergeArrivedRemoteChanges() {
        guard let mailbox = remoteChangeMailbox else { return }
        for event in mailbox.takeEvents() {
            switch event {
            case .changes(let changes): mergeAutomatically(changes)
            case .resynchronize: mergeAutomatically(changesSinceConnectionLoss())
            }
        }
    }

    /// Merges one remote save, applying the merge policy to objects with unsaved changes.
    private func mergeAutomatically(_ changes: RemoteChanges) {
        var settled = Set<ManagedObjectID>()
        for id in changes.updated {
            guard let object = registered[id] else { continue }
            if object.isFault {
                // Reported as refreshed, so that controllers place it by the saved values.
                unannouncedRefreshed.insert(object)
                continue
            }
            guard object.hasChanges, !object.isDeleted else { continue }
            switch mergePolicy {
            case .rollback:
                refresh(object, mergeChanges: false)
                settled.insert(id)
            case .storeTrump:
                takeStoreValues(of: object)
                settled.insert(id)
            default:
                break
            }
        }
        var remaining = changes
        remaining.updated.removeAll { settled.contains($0) }
        Self.mergeChanges(fromRemoteContextSave: remaining, into: [self])
    }

    /// Merges the saved record into `object`, then gives the attributes whose saved value
    /// changed the saved value even where the object had changed them.
    private func takeStoreValues(of object: ManagedObject) {
        let attributes = object.entity.attributes.filter { !$0.isTransient }.map(\.name)
        let before = object.committedValues(forKeys: attributes)
        refresh(object, mergeChanges: true)
        let after = object.committedValues(forKeys: attributes)
        let changed = object.changedValues()
        for key in attributes where changed[key] != nil {
            guard let saved = after[key], !ManagedObject.storedValuesEqual(before[key], saved) else { continue }
            try? object.setValue(saved is NSNull ? nil : saved, forKey: key)
        }
    }

    /// What the saves missed while the listener was disconnected did to the registered
    /// objects: those whose record is gone are deleted, the others possibly updated.
    private func changesSinceConnectionLoss() -> RemoteChanges {
        var changes = RemoteChanges()
        for object in registered.values where !object.objectID.isTemporaryID && persistentStoreCoordinator.store(for: object.objectID) is PostgreSQLStore {
            if recordExists(object.objectID) == false {
                changes.deleted.append(object.objectID)
            } else {
                // Present, or unreadable now (the server may be down again): refreshed, not dropped.
                changes.updated.append(object.objectID)
            }
        }
        return changes
    }

    /// Whether the store has a record for `id`; nil when it cannot tell. Asks twice, since the
    /// store's first operation after its connection broke fails and the next one connects again.
    private func recordExists(_ id: ManagedObjectID) -> Bool? {
        for _ in 0..<2 {
            do {
                return try sourceRecord(for: id) != nil
            } catch {
                continue
            }
        }
        return nil
    }
}
