import Foundation
import Testing
@testable import ManagedObjects

/// A directory under the temporary directory, removed with its contents when released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ModelObjectsTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The URL of a file named `name` in the directory.
    func file(_ name: String = "Store.sqlite") -> URL {
        url.appendingPathComponent(name)
    }
}

/// The kind of store the shared test stack uses.
enum TestStore {
    enum Kind: Sendable { case inMemory, sqlite, postgreSQL }

    /// Set with `TestStore.$kind.withValue(.sqlite) { … }` to run a scenario over SQLite (or
    /// `.postgreSQL`, over a new database on the test server).
    @TaskLocal static var kind = Kind.inMemory

    /// Adds a store of the current kind; returns the directory of a SQLite store's file. A
    /// PostgreSQL store needs ``addStore(to:)``, which also returns its database.
    static func add(to coordinator: PersistentStoreCoordinator) throws -> TemporaryDirectory? {
        guard kind != .postgreSQL else {
            throw PersistenceError(.invalidStore, message: "TestStore.add(to:) keeps no database: use TestStore.addStore(to:)")
        }
        return try addStore(to: coordinator).0
    }

    /// Adds a store of the current kind; returns the directory of a SQLite store's file or the
    /// PostgreSQL store's database, which live as long as they are held.
    static func addStore(to coordinator: PersistentStoreCoordinator) throws -> (TemporaryDirectory?, TemporaryPostgreSQLDatabase?) {
        switch kind {
        case .inMemory:
            try coordinator.addPersistentStore(type: .inMemory)
            return (nil, nil)
        case .sqlite:
            let directory = try TemporaryDirectory()
            try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
            return (directory, nil)
        case .postgreSQL:
            let database = try TemporaryPostgreSQLDatabase()
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            return (nil, database)
        }
    }
}

extension ManagedTestStack {
    /// The SQLite store, when the stack has one.
    var sqliteStore: SQLiteStore? { coordinator.persistentStores.first as? SQLiteStore }

    /// A new coordinator and context on the same SQLite file, as another process would have.
    func reopened() throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let url = try #require(sqliteStore?.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        return (coordinator, ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
    }
}

/// A SQLite store opened directly (no coordinator), with helpers to write records and to look
/// at the file with SQL.
struct SQLiteProbe {
    let directory: TemporaryDirectory
    let model: ManagedObjectModel
    let store: SQLiteStore

    init(directory: TemporaryDirectory, model: ManagedObjectModel) throws {
        self.directory = directory
        self.model = model
        store = try SQLiteStore(url: directory.file(), model: model)
    }

    /// Inserts one record of `entity`, its values set by `fill`; returns its ID.
    @discardableResult
    func insert(_ entity: EntityDescription, values fill: (inout [StoreValue]) -> Void = { _ in }) throws -> ManagedObjectID {
        let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
        let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key))
        var values = [StoreValue](repeating: .null, count: entity.properties.count)
        fill(&values)
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(objectID: id, version: 1, values: values)]
        try store.apply(changes)
        return id
    }

    /// The rows of `sql`, each as its columns' text joined by `|` (NULL as `NULL`), read
    /// through a connection of its own.
    func query(_ sql: String) throws -> [String] {
        try Self.query(sql, at: directory.file())
    }

    static func query(_ sql: String, at url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, create: false)
        var rows: [String] = []
        try connection.prepare(sql).forEachRow { row in
            rows.append((0..<row.columnCount).map { column -> String in
                switch row.value(at: column) {
                case .null: "NULL"
                case .integer(let value): "\(value)"
                case .real(let value): "\(value)"
                case .text(let value): value
                case .blob(let value): value.map { String(format: "%02X", $0) }.joined()
                }
            }.joined(separator: "|"))
        }
        return rows
    }
}
