import Foundation

/// A store that keeps its records in a PostgreSQL database, shared by every process that
/// opens it.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(
///     type: .postgreSQL, at: URL(string: "postgresql://app:secret@db.internal:5432/company?sslmode=require"))
/// let context = ManagedObjectContext(coordinator: coordinator)
/// ```
///
/// The schema is the SQLite store's (`SQLSchema`: a table per inheritance hierarchy, a
/// column per attribute and to-one relationship, join tables, order columns, indexes on
/// foreign keys, a metadata table with the model's version hashes) in PostgreSQL's types
/// (`SQLDialect.columnType(_:)`), created when the database has no table; a database written
/// with another model is refused with ``PersistenceError/Code/incompatibleModel``.
///
/// Primary keys come from a sequence per table, so processes insert without colliding. Every
/// save is one transaction that first locks the rows it changes (`SELECT … FOR UPDATE`) and
/// checks their versions (`Z_OPT`): a record another process changed since it was read makes
/// the save throw ``PersistenceError/Code/mergeConflict`` (which the context's merge policy
/// may resolve), never overwrite it.
///
/// A connection that fails (a stopped or restarted server, a network) fails the operation with
/// ``PersistenceError/Code/connectionFailed`` naming the server, and the next operation
/// connects again. The password never appears in an error or in ``url``.
///
/// Corresponds to no Core Data store (Core Data keeps to files); Enterprise Objects Framework's
/// database adaptors did this. Opened with ``PersistentStoreOptions/lightweightMigration``, a
/// database written with an earlier model migrates as a SQLite file does (`SQLMigration`), in
/// one transaction: PostgreSQL's DDL is transactional, so a failed migration leaves the database
/// as it was. Differences from the SQLite store: string equality and order compare the NFC forms in SQL (`normalize`, as Swift compares
/// strings), while string comparisons with options, `LIKE`, `MATCHES`, `BEGINSWITH`,
/// `ENDSWITH` and `CONTAINS` are evaluated in memory after the rest of the predicate ran in
/// SQL (PostgreSQL has no `mo_compare`).
// SAFETY: `state` (the connection, a non-Sendable class owning the `PGconn`, and the versions
// last reported) is read and written only inside `lock.withLock`, so one thread at a time uses
// it; every other stored property is an immutable `Sendable` value.
public final class PostgreSQLStore: PersistentStore, @unchecked Sendable {
    /// What the lock protects.
    struct State {
        /// The connection; nil after one failed, until the next operation connects again.
        var connection: PostgreSQLConnection?
        /// The versions the last ``versions(of:)`` call reported (nil: no record), which
        /// ``apply(_:)`` checks again inside its transaction.
        var reportedVersions: [ManagedObjectID: Int64?] = [:]
    }

    /// The version of the schema layout this build writes, kept in the metadata table.
    static let schemaVersion = 1

    /// The store's unique identifier, kept in the database: permanent object IDs of this store
    /// stay valid in every process that opens it.
    public let identifier: String
    /// ``PersistentStoreType/postgreSQL``.
    public var type: PersistentStoreType { .postgreSQL }
    /// The database's URL without its password.
    public let url: URL?

    let configuration: PostgreSQLConfiguration
    /// Names this store instance in the notifications its saves send, so that its own
    /// listeners leave them out.
    let senderToken = UUID().uuidString
    /// The listener thread of the contexts that merge remote changes automatically.
    let remoteChangeFeed = PostgreSQLRemoteChangeFeed()
    let model: ManagedObjectModel
    let schema: SQLSchema
    /// Guards `state`.
    private let lock = NSLock()
    private var state: State

    /// Opens the store in the database `url` names, creating its schema when the database has
    /// no table.
    ///
    /// - Parameters:
    ///   - url: `postgresql://user:password@host:port/database`, with optional `sslmode`
    ///     (`disable`, `allow`, `prefer`, `require`, `verify-ca`, `verify-full`) and
    ///     `connect_timeout` (seconds) query items.
    ///   - model: The model of the records; a database written with another model is refused.
    ///   - options: ``PersistentStoreOptions/lightweightMigration`` to bring a database written
    ///     with an earlier model up to `model`.
    /// - Throws: ``PersistenceError/Code/invalidStore`` for a URL the store cannot use or a
    ///   database holding tables this library did not write; ``PersistenceError/Code/connectionFailed``
    ///   when the server cannot be reached, refuses the login or has no such database;
    ///   ``PersistenceError/Code/incompatibleModel`` for a database written with another model
    ///   (without migration); ``PersistenceError/Code/migrationFailed`` for a change lightweight
    ///   migration cannot infer, or a new uniqueness constraint the records break.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator addPersistentStoreWithType:…]`.
    public init(url: URL, model: ManagedObjectModel, options: PersistentStoreOptions = []) throws {
        let configuration = try mappingPostgreSQLErrors(.invalidStore) { try PostgreSQLConfiguration(url: url) }
        self.configuration = configuration
        self.url = URL(string: PostgreSQLConfiguration.redacted(url))
        self.model = model
        let schema = SQLSchema(model: model, dialect: .postgreSQL)
        self.schema = schema
        let connection = try mappingPostgreSQLErrors(.invalidStore) { try PostgreSQLConnection(configuration: configuration) }
        let server = configuration.serverDescription
        identifier = try mappingPostgreSQLErrors(.invalidStore) {
            try Self.prepare(connection, schema: schema, model: model, server: server, migrate: options.contains(.lightweightMigration))
        }
        state = State(connection: connection)
    }

    /// Runs `body` with a connection (connecting again when the last one failed), under the
    /// lock, turning libpq errors into ``PersistenceError``s with `code`. A failure of the
    /// connection drops it, so the next operation connects again.
    func withConnection<Result>(
        _ code: PersistenceError.Code, _ body: (PostgreSQLConnection, inout State) throws -> Result
    ) throws -> Result {
        try lock.withLock {
            try mappingPostgreSQLErrors(code) {
                let connection: PostgreSQLConnection
                if let open = state.connection, open.isOpen {
                    connection = open
                } else {
                    state.connection = nil
                    connection = try PostgreSQLConnection(configuration: configuration)
                    state.connection = connection
                }
                do {
                    return try body(connection, &state)
                } catch let error as PostgreSQLError where error.isConnectionFailure || !connection.isOpen {
                    state.connection = nil
                    throw error
                }
            }
        }
    }

    /// The number of SQL statements the current connection ran, for tests that check a fetch
    /// or a fault costs the statements it should.
    package var statementCount: Int {
        lock.withLock { state.connection?.statementCount ?? 0 }
    }

    /// Runs `body` and returns the SQL of every statement it ran, in order.
    package func recordingSQL(_ body: () throws -> Void) rethrows -> [String] {
        lock.withLock { state.connection?.log = [] }
        defer { lock.withLock { state.connection?.log = nil } }
        try body()
        return lock.withLock { state.connection?.log ?? [] }
    }
}

extension PersistentStoreType {
    /// A PostgreSQL database, shared by several processes (see ``PostgreSQLStore``).
    ///
    /// Corresponds to no Core Data store type.
    public static let postgreSQL = PersistentStoreType(rawValue: "PostgreSQL")
}
