import Foundation

/// Receives the IDs of the objects other coordinators (in this process or others, on this
/// machine or others) save to a PostgreSQL database, through PostgreSQL's `LISTEN`/`NOTIFY`, as
/// notifications a context merges with ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``.
///
/// ```swift
/// let listener = try store.makeChangeListener()
/// // In the context's isolation domain, for example in a loop of its task:
/// if let changes = try listener.nextChanges(waitingUpTo: 1) {
///     context.mergeChanges(fromContextDidSave: changes)   // refreshes or removes registered objects
/// }
/// ```
///
/// Every save of a ``PostgreSQLStore`` sends, inside its transaction, the IDs it inserted,
/// updated and deleted; the server delivers them when the save commits, never for a save that
/// failed. The listener leaves out the saves of the store it was made from: contexts of that
/// coordinator merge those from ``ManagedObjectContext/didSaveNotification``.
///
/// Contexts that only need to stay up to date do not need a listener of their own: set
/// ``ManagedObjectContext/automaticallyMergesChangesFromParent`` and they merge these changes by
/// themselves.
///
/// A listener has a connection of its own. When it breaks, ``nextChanges(waitingUpTo:)`` throws
/// ``PersistenceError/Code/connectionFailed`` and the next call connects and listens again;
/// saves committed in between are not reported, so refresh the objects that matter then.
///
/// Corresponds to Core Data's `NSPersistentStoreRemoteChange` notification with
/// `NSManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`; differences: a pull
/// (the caller waits in its own isolation domain, where its contexts live) instead of a
/// notification posted on an arbitrary thread.
// SAFETY: `connection` is read and written only inside `lock.withLock`; every other stored
// property is an immutable `Sendable` value.
public final class PostgreSQLChangeListener: @unchecked Sendable {
    /// The name of the notifications ``nextChanges(waitingUpTo:)`` returns.
    ///
    /// Corresponds to `NSPersistentStoreRemoteChange`.
    public static let remoteChangeNotification = Notification.Name("PostgreSQLStoreRemoteChange")

    private let configuration: PostgreSQLConfiguration
    private let channel: String
    private let model: ManagedObjectModel
    private let storeIdentifier: String
    /// The token of the store whose own saves are left out.
    private let ownSender: String
    private let lock = NSLock()
    private var connection: PostgreSQLConnection?

    init(store: PostgreSQLStore) throws {
        configuration = store.configuration
        channel = store.notificationChannel
        model = store.model
        storeIdentifier = store.identifier
        ownSender = store.senderToken
        connection = try lock.withLock { try connect() }
    }

    private func connect() throws -> PostgreSQLConnection {
        try mappingPostgreSQLErrors(.connectionFailed) {
            let connection = try PostgreSQLConnection(configuration: configuration)
            try connection.execute("LISTEN " + quoted(channel))
            return connection
        }
    }

    /// The changes other coordinators saved since the last call, waiting up to `timeout`
    /// seconds for one when there is none; nil when none came. The notification is named
    /// ``remoteChangeNotification`` and holds sets of ``ManagedObjectID`` under
    /// ``ManagedObjectContext/insertedObjectIDsKey``, ``ManagedObjectContext/updatedObjectIDsKey``
    /// and ``ManagedObjectContext/deletedObjectIDsKey``.
    ///
    /// - Throws: ``PersistenceError/Code/connectionFailed`` when the listener's connection
    ///   breaks (the next call connects again).
    public func nextChanges(waitingUpTo timeout: TimeInterval) throws -> Notification? {
        let received = try lock.withLock {
            let connection = try self.connection ?? connect()
            self.connection = connection
            do {
                return try mappingPostgreSQLErrors(.connectionFailed) { try connection.notifications(waitingUpTo: timeout) }
            } catch {
                self.connection = nil
                throw error
            }
        }
        var inserted = Set<ManagedObjectID>(), updated = Set<ManagedObjectID>(), deleted = Set<ManagedObjectID>()
        for notification in received where notification.channel == channel {
            var lines = notification.payload.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
            // The first line names the sending store; a payload of another format is ignored.
            guard let header = lines.next(), header.hasPrefix(PostgreSQLStore.payloadVersion + "\t"),
                  header.dropFirst(PostgreSQLStore.payloadVersion.count + 1) != ownSender
            else { continue }
            while let line = lines.next() {
                let fields = line.split(separator: "\t")
                guard fields.count == 3, let entity = model.entity(named: String(fields[1])), let key = Int64(fields[2]) else { continue }
                let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: storeIdentifier, primaryKey: key))
                switch fields[0] {
                case "I": inserted.insert(id)
                case "U": updated.insert(id)
                case "D": deleted.insert(id)
                default: continue
                }
            }
        }
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        return Notification(
            name: Self.remoteChangeNotification, object: nil,
            userInfo: [
                ManagedObjectContext.insertedObjectIDsKey: inserted, ManagedObjectContext.updatedObjectIDsKey: updated,
                ManagedObjectContext.deletedObjectIDsKey: deleted,
            ])
    }
}
