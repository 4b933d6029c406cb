import Foundation

/// A store that keeps its records in a SQLite database file.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "Company.sqlite"))
/// let context = ManagedObjectContext(coordinator: coordinator)
/// ```
///
/// The schema comes from the model (see the README's "SQLite store" section): a table per
/// inheritance hierarchy, a column per attribute and to-one relationship, join tables for
/// many-to-many relationships and position columns for ordered ones. A metadata table keeps the
/// model's entity version hashes and the store identifier, so object IDs stay valid across
/// opens and a file written with another model is refused.
///
/// Every save is one transaction in write-ahead-log mode: all of it is written, or none.
/// Several coordinators, in this process or others, may open the same file; each save checks
/// inside its transaction that the records it read have not changed since, and fails with
/// ``PersistenceError/Code/mergeConflict`` when they have.
///
/// Opened with ``PersistentStoreOptions/lightweightMigration``, a file written with an earlier
/// version of the model migrates when it opens (new entities, optional attributes or ones with
/// a default, relationships, removed properties, renames through `renamingIdentifier`).
///
/// Corresponds to Core Data's `NSSQLiteStoreType`; differences: this library's own schema (not
/// Core Data's `Z`-tables byte for byte); lightweight migration infers fewer changes (no type
/// changes, no entity removals with rows left behind).
// SAFETY: `state` (the connection, a non-Sendable class owning the `sqlite3*` handle and its
// prepared statements, and the versions last reported) is read and written only inside
// `lock.withLock`, so one thread at a time uses it; every other stored property is an
// immutable `Sendable` value.
public final class SQLiteStore: PersistentStore, SaveKeyProviding, @unchecked Sendable {
    /// What the lock protects: the connection and what the last `versions(of:)` reported.
    struct State {
        var connection: SQLiteConnection
        /// The versions the last ``versions(of:)`` call reported (nil: no record), which
        /// ``apply(_:)`` checks again inside its transaction.
        var reportedVersions: [ManagedObjectID: Int64?] = [:]
        /// The keys ``saveKeys(for:count:)`` handed out since the last ``apply(_:)``, by root
        /// entity: the counter as read then (`base`) and the last key handed out, which the
        /// next apply claims inside its transaction.
        var pendingKeys: [String: (base: Int64, last: Int64)] = [:]
        /// The comparisons `mo_compare` evaluates for the statements running.
        let comparisonFunction: SQLiteComparisonFunction
        /// How a fault of each entity reads its row, made on the entity's first fault.
        var faultReaders: [ObjectIdentifier: FaultRowReader] = [:]
        /// The reader of the last fault read: faults fired one after another are mostly of one
        /// entity, found without hashing.
        var lastFaultReader: FaultRowReader?
    }

    /// The version of the schema layout this build writes, kept in the metadata table.
    static let schemaVersion = 1

    /// The store's unique identifier, kept in the file: permanent object IDs of this store
    /// stay valid when it is opened again.
    public let identifier: String
    /// The address of `identifier`'s interned identity, which the IDs of this store's records
    /// hold: an ID is this store's when its key holds this address.
    let identityAddress: UInt
    /// ``PersistentStoreType/sqlite``.
    public var type: PersistentStoreType { .sqlite }
    /// The database file.
    public var url: URL? { fileURL }

    /// Whether the store records persistent history: opened with
    /// ``PersistentStoreOptions/persistentHistoryTracking``, or a file that has history tables.
    public let tracksPersistentHistory: Bool
    let fileURL: URL
    let model: ManagedObjectModel
    let schema: SQLSchema
    /// Guards `state`.
    private let lock = NSLock()
    private var state: State

    /// Opens the store at `url`, creating the file and its schema when there is none.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - model: The model of the records; a file written with another model is refused, or
    ///     migrated with ``PersistentStoreOptions/lightweightMigration``.
    ///   - options: ``PersistentStoreOptions/lightweightMigration`` to bring a file written with an
    ///     earlier model up to `model` (see ``PersistentStoreOptions``);
    ///     ``PersistentStoreOptions/persistentHistoryTracking`` to record persistent history.
    /// - Throws: ``PersistenceError/Code/invalidStore`` when the file cannot be opened, is not a
    ///   SQLite database, is corrupt, or is a database this library did not write;
    ///   ``PersistenceError/Code/incompatibleModel`` when it was written with a model whose
    ///   entities differ (the message names them) and migration was not asked for;
    ///   ``PersistenceError/Code/migrationFailed`` when the change cannot be inferred.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator addPersistentStoreWithType:NSSQLiteStoreType …]`.
    public init(url: URL, model: ManagedObjectModel, options: PersistentStoreOptions = []) throws {
        guard url.isFileURL else {
            throw PersistenceError(.invalidStore, message: "a SQLite store needs a file URL, not \(url)")
        }
        fileURL = url
        self.model = model
        let schema = SQLSchema(model: model)
        self.schema = schema
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: url.path)
        } catch let error as SQLiteError {
            throw error.persistenceError(.invalidStore, file: url)
        }
        connection.setBusyTimeout(milliseconds: 10_000)
        identifier = try mappingSQLiteErrors(.invalidStore, file: url) {
            try Self.prepare(connection, schema: schema, model: model, path: url.path, migrate: options.contains(.lightweightMigration))
        }
        identityAddress = StoreIdentity.interned(identifier).address
        tracksPersistentHistory = try mappingSQLiteErrors(.invalidStore, file: url) {
            try Self.prepareHistory(connection, enable: options.contains(.persistentHistoryTracking))
        }
        let comparisonFunction = SQLiteComparisonFunction()
        try mappingSQLiteErrors(.invalidStore) { try comparisonFunction.define(on: connection) }
        state = State(connection: connection, comparisonFunction: comparisonFunction)
    }

    /// The permanent ID of the record `key` of `entity` in this store.
    func objectID(_ entity: EntityDescription, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, key: ManagedObjectID.Key(store: identityAddress, number: key))
    }

    /// Runs `body` with the connection, under the lock, turning SQLite errors into
    /// ``PersistenceError``s with `code`.
    func withConnection<Result>(_ code: PersistenceError.Code, _ body: (inout State) throws -> Result) throws -> Result {
        try lock.withLock {
            try mappingSQLiteErrors(code, file: fileURL) { try body(&state) }
        }
    }

    /// The number of SQL statements run since the store opened, for tests that check a
    /// fetch or a fault costs the statements it should (no N+1).
    package var statementCount: Int {
        lock.withLock { state.connection.trace.count }
    }

    /// Runs `body` and returns the SQL of every statement it ran, in order.
    package func recordingSQL(_ body: () throws -> Void) rethrows -> [String] {
        lock.withLock { state.connection.trace.log = [] }
        defer { lock.withLock { state.connection.trace.log = nil } }
        try body()
        return lock.withLock { state.connection.trace.log ?? [] }
    }
}
