import Foundation

/// The objects one context notification is about, by ID: what crosses from the context's
/// isolation domain to a task.
///
/// Corresponds to the user info of `NSManagedObjectContextObjectsDidChange` and
/// `NSManagedObjectContextDidSave`; differences: objects are given by ID, since objects do not
/// leave their context's isolation domain.
public struct ContextChanges: Sendable, Equatable {
    /// The inserted objects.
    public var insertedObjectIDs: Set<ManagedObjectID> = []
    /// The updated objects.
    public var updatedObjectIDs: Set<ManagedObjectID> = []
    /// The deleted objects.
    public var deletedObjectIDs: Set<ManagedObjectID> = []
    /// The objects refreshed from the store (objects-did-change only).
    public var refreshedObjectIDs: Set<ManagedObjectID> = []

    /// Creates a value with the given IDs.
    public init(
        insertedObjectIDs: Set<ManagedObjectID> = [], updatedObjectIDs: Set<ManagedObjectID> = [],
        deletedObjectIDs: Set<ManagedObjectID> = [], refreshedObjectIDs: Set<ManagedObjectID> = []
    ) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
        self.refreshedObjectIDs = refreshedObjectIDs
    }

    /// Reads the IDs of the objects under the notification's object keys. Called where the
    /// notification is posted, in the context's isolation domain, which the objects belong to.
    init(_ notification: Notification) {
        func ids(_ key: String) -> Set<ManagedObjectID> {
            Set((notification.userInfo?[key] as? Set<ManagedObject> ?? []).map(\.objectID))
        }
        insertedObjectIDs = ids(ManagedObjectContext.insertedObjectsKey)
        updatedObjectIDs = ids(ManagedObjectContext.updatedObjectsKey)
        deletedObjectIDs = ids(ManagedObjectContext.deletedObjectsKey)
        refreshedObjectIDs = ids(ManagedObjectContext.refreshedObjectsKey)
        // A save's inserted objects have their permanent IDs by now; the ID keys say so too.
        if let inserted = notification.userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID> {
            insertedObjectIDs = inserted
        }
    }
}

extension ManagedObjectContext {
    /// The context's ``objectsDidChangeNotification``s, as an asynchronous sequence of the IDs
    /// they name.
    ///
    /// ```swift
    /// for await changes in context.objectChanges() {
    ///     print(changes.updatedObjectIDs.count, "objects changed")
    /// }
    /// ```
    /// Notifications posted while the consumer is busy wait in a buffer that keeps the newest
    /// 100 by default (older ones are dropped); pass `bufferingPolicy` to keep the oldest
    /// instead, another count, or all of them (`.unbounded`).
    ///
    /// The sequence ends, and stops listening, when the context goes away (after the
    /// notifications already buffered) or when the consuming task is cancelled (at once, leaving
    /// what is buffered). It does not keep the context alive: it holds the notification center.
    ///
    /// Corresponds to `NotificationCenter.notifications(named:object:)` for
    /// `NSManagedObjectContextObjectsDidChange`; differences: it yields object IDs.
    public func objectChanges(
        bufferingPolicy: AsyncStream<ContextChanges>.Continuation.BufferingPolicy = .bufferingNewest(100)
    ) -> AsyncStream<ContextChanges> {
        notifications(named: Self.objectsDidChangeNotification, bufferingPolicy: bufferingPolicy)
    }

    /// The context's ``didSaveNotification``s, as an asynchronous sequence of the IDs of the
    /// saved objects (inserted ones under their permanent IDs). Buffering and ending as for
    /// ``objectChanges(bufferingPolicy:)``.
    ///
    /// Corresponds to `NotificationCenter.notifications(named:object:)` for
    /// `NSManagedObjectContextDidSave`; differences: it yields object IDs.
    public func saves(
        bufferingPolicy: AsyncStream<ContextChanges>.Continuation.BufferingPolicy = .bufferingNewest(100)
    ) -> AsyncStream<ContextChanges> {
        notifications(named: Self.didSaveNotification, bufferingPolicy: bufferingPolicy)
    }

    private func notifications(
        named name: Notification.Name, bufferingPolicy: AsyncStream<ContextChanges>.Continuation.BufferingPolicy
    ) -> AsyncStream<ContextChanges> {
        let (stream, continuation) = AsyncStream<ContextChanges>.makeStream(bufferingPolicy: bufferingPolicy)
        let center = notificationCenter
        let token = center.addObserver(forName: name, object: self, queue: nil) { notification in
            continuation.yield(ContextChanges(notification))
        }
        let registration = NotificationRegistration(token)
        let streams = notificationStreams
        let number = streams.add { continuation.finish() }
        continuation.onTermination = { [weak streams] _ in
            center.removeObserver(registration.token)
            streams?.remove(number)
        }
        return stream
    }
}

/// A notification center's observer token, removed when the stream that holds it ends, from
/// the thread that ends it.
// SAFETY: the token is immutable and only handed to `NotificationCenter.removeObserver(_:)`,
// which takes the center's own lock.
private final class NotificationRegistration: @unchecked Sendable {
    let token: any NSObjectProtocol

    init(_ token: any NSObjectProtocol) {
        self.token = token
    }
}
