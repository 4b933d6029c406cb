import Foundation
import Synchronization

/// Connects contexts to the stores of one model: the place a second context is made from, and
/// the one that serializes saves.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .inMemory)
/// let context = ManagedObjectContext(coordinator: coordinator)
/// let background = ManagedObjectContext(coordinator: coordinator)   // in another task
/// ```
///
/// A coordinator is `Sendable`: share it between tasks, and give each task its own context.
///
/// Corresponds to Core Data's `NSPersistentStoreCoordinator`; differences: stores of the
/// coordinator's model only, one store per save (the first store).
public final class PersistentStoreCoordinator: Sendable {
    /// The model of every object the coordinator's stores hold.
    ///
    /// Corresponds to `NSPersistentStoreCoordinator.managedObjectModel`.
    public let managedObjectModel: ManagedObjectModel
    /// The stores, each with the address of its identifier's interned identity, which the
    /// IDs of its records hold (found by comparing integers, not strings).
    private let stores = Mutex<[(identity: UInt, store: any PersistentStore)]>([])
    /// Held for the whole of a save, so that conflict checks and writes of two contexts never
    /// interleave.
    private let saveLock = Mutex(())
    /// The records saves through the coordinator changed, for the rows its contexts' faults hold.
    let savedRecords = SavedRecordLog()

    /// Creates a coordinator with no store.
    ///
    /// Corresponds to `NSPersistentStoreCoordinator(managedObjectModel:)`.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// The stores, in the order they were added.
    ///
    /// Corresponds to `NSPersistentStoreCoordinator.persistentStores`.
    public var persistentStores: [any PersistentStore] {
        stores.withLock { $0.map(\.store) }
    }

    /// Adds a store of the given kind.
    ///
    /// - Parameters:
    ///   - type: The kind of store.
    ///   - url: The store's file, for kinds that have one (``PersistentStoreType/sqlite``,
    ///     ``PersistentStoreType/binary``); the database's `postgresql://` URL for
    ///     ``PersistentStoreType/postgreSQL``.
    ///   - options: ``PersistentStoreOptions/lightweightMigration`` to migrate a SQLite or PostgreSQL store
    ///     written with an earlier model; ``PersistentStoreOptions/persistentHistoryTracking``
    ///     to record persistent history (SQLite and in-memory stores).
    /// - Returns: The store.
    /// - Throws: ``PersistenceError/Code/invalidStore`` for a kind this build cannot open, a
    ///   file store (``PersistentStoreType/sqlite``, ``PersistentStoreType/binary``) without a
    ///   file URL, or a file that is not a store; ``PersistenceError/Code/incompatibleModel`` for a
    ///   store written with another model; ``PersistenceError/Code/unsupportedRequest`` for
    ///   persistent history tracking on a binary or PostgreSQL store.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator addPersistentStoreWithType:configuration:URL:options:error:]`.
    @discardableResult
    public func addPersistentStore(
        type: PersistentStoreType, at url: URL? = nil, options: PersistentStoreOptions = []
    ) throws -> any PersistentStore {
        switch type {
        case .inMemory:
            let store = InMemoryStore(tracksPersistentHistory: options.contains(.persistentHistoryTracking))
            addPersistentStore(store)
            return store
        case .binary:
            guard let url else {
                throw PersistenceError(.invalidStore, message: "a binary store needs a file URL")
            }
            if options.contains(.persistentHistoryTracking) {
                throw PersistenceError(.unsupportedRequest, message: "a binary store does not record persistent history", fileURL: url)
            }
            let store = try BinaryStore(url: url, model: managedObjectModel)
            addPersistentStore(store)
            return store
        case .sqlite:
            guard let url else {
                throw PersistenceError(.invalidStore, message: "a SQLite store needs the URL of its file")
            }
            let store = try SQLiteStore(url: url, model: managedObjectModel, options: options)
            addPersistentStore(store)
            return store
        case .postgreSQL:
            guard let url else {
                throw PersistenceError(.invalidStore, message: "a PostgreSQL store needs a postgresql:// URL")
            }
            if options.contains(.persistentHistoryTracking) {
                throw PersistenceError(.unsupportedRequest, message: "a PostgreSQL store does not record persistent history")
            }
            let store = try PostgreSQLStore(url: url, model: managedObjectModel, options: options)
            addPersistentStore(store)
            return store
        default:
            throw PersistenceError(.invalidStore, message: "no store of type \(type) is available")
        }
    }

    /// Adds a store you made.
    public func addPersistentStore(_ store: any PersistentStore) {
        let identity = StoreIdentity.interned(store.identifier).address
        stores.withLock { $0.append((identity, store)) }
    }

    /// The store that holds records of `objectID`, or nil.
    func store(for objectID: ManagedObjectID) -> (any PersistentStore)? {
        let identity = objectID.key.store
        return stores.withLock { stores in
            guard identity != 0 else { return stores.first?.store }
            return stores.first { $0.identity == identity }?.store
        }
    }

    /// The store new objects are saved to.
    ///
    /// - Throws: ``PersistenceError/Code/noPersistentStore``.
    func storeForNewObjects() throws -> any PersistentStore {
        guard let store = stores.withLock({ $0.first?.store }) else {
            throw PersistenceError(.noPersistentStore, message: "the coordinator has no persistent store")
        }
        return store
    }

    /// Runs `body` with no other save of this coordinator running.
    func performSave<Result>(_ body: () throws -> Result) rethrows -> Result {
        try saveLock.withLock { _ in try body() }
    }

    /// The object ID named by a URI from ``ManagedObjectID/uriRepresentation()``, or nil when
    /// the URI names no entity of the model or no store of the coordinator.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator managedObjectIDForURIRepresentation:]`.
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard uri.scheme == "x-coredata" else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entity(named: String(parts[0])) else { return nil }
        let key = parts[1]
        let prefix = "t" + ManagedObjectID.processIdentifier + "-"
        if key.hasPrefix(prefix), let number = UInt64(key.dropFirst(prefix.count)), (uri.host ?? "").isEmpty {
            return ManagedObjectID(entity: entity, key: .temporary(number))
        }
        guard key.first == "p", let primaryKey = Int64(key.dropFirst()), let host = uri.host,
              stores.withLock({ $0.contains { $0.store.identifier == host } })
        else { return nil }
        return ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: host, primaryKey: primaryKey))
    }
}
