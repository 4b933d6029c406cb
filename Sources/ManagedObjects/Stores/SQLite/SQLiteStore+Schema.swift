import Foundation

extension SQLiteStore {
    /// Switches the file to write-ahead logging, then creates the schema in a new file or
    /// checks an existing file's metadata against the model.
    ///
    /// - Returns: The store identifier.
    /// - Throws: ``SQLiteError`` (an unreadable file); ``PersistenceError`` with
    ///   ``PersistenceError/Code/invalidStore`` or ``PersistenceError/Code/incompatibleModel``.
    static func prepare(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, path: String, migrate: Bool
    ) throws -> String {
        // The first read of the file: a file of another kind fails here with SQLITE_NOTADB.
        let journal = try connection.prepare("PRAGMA journal_mode = WAL")
        var mode = ""
        try journal.forEachRow { mode = $0.text(at: 0) }
        if mode.lowercased() != "wal" {
            throw PersistenceError(.invalidStore, message: "\(path) cannot use write-ahead logging (journal mode \(mode))")
        }
        // Every commit reaches the disk before a save returns, whatever SQLite's build default.
        try connection.execute("PRAGMA synchronous = FULL")
        // One write transaction, so that two coordinators opening a new file at once create
        // the schema once: the second waits, then finds the first one's tables.
        return try connection.transaction {
            var tables: [String] = []
            try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                .forEachRow { tables.append($0.text(at: 0)) }
            if !tables.contains("Z_METADATA") {
                guard tables.isEmpty else {
                    throw PersistenceError(
                        .invalidStore,
                        message: "\(path) is a SQLite database that this library did not write (it has tables "
                            + tables.sorted().joined(separator: ", ") + " and no Z_METADATA)")
                }
                let identifier = try create(connection, schema: schema, model: model)
                try SQLiteMigrationDatabase(connection: connection).synchronizeUniqueIndexes(schema: schema, model: model, store: path)
                try SQLiteMigrationDatabase(connection: connection).synchronizeFetchIndexes(schema: schema, model: model)
                return identifier
            }
            let identifier = try check(connection, schema: schema, model: model, path: path, migrate: migrate)
            // Uniqueness constraints and fetch indexes are not part of the version hash: the indexes
            // follow the model.
            try SQLiteMigrationDatabase(connection: connection).synchronizeUniqueIndexes(schema: schema, model: model, store: path)
            try SQLiteMigrationDatabase(connection: connection).synchronizeFetchIndexes(schema: schema, model: model)
            return identifier
        }
    }

    /// Creates the tables, the metadata and the primary-key counters (inside the caller's
    /// transaction).
    private static func create(_ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel) throws -> String {
        let identifier = UUID().uuidString
        do {
            try connection.execute("CREATE TABLE \"Z_METADATA\" (\"Z_KEY\" TEXT PRIMARY KEY, \"Z_VALUE\" TEXT NOT NULL)")
            try connection.execute("CREATE TABLE \"Z_PRIMARYKEY\" (\"Z_ENT\" TEXT PRIMARY KEY, \"Z_MAX\" INTEGER NOT NULL)")
            for statement in schema.creationStatements { try connection.execute(statement) }
            let metadata = try connection.prepare("INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES (?, ?)")
            for (key, value) in SQLMetadata.newStoreRows(identifier: identifier, schemaVersion: schemaVersion, model: model) {
                try metadata.execute([.text(key), .text(value)])
            }
            let keys = try connection.prepare("INSERT INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, 0)")
            for table in schema.tables { try keys.execute([.text(table.rootEntityName)]) }
        }
        return identifier
    }

    /// Reads the metadata of an existing store and compares it with the model, migrating the
    /// file when asked (``SQLMigration``).
    private static func check(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, path: String, migrate: Bool
    ) throws -> String {
        var metadata: [String: String] = [:]
        try connection.prepare("SELECT \"Z_KEY\", \"Z_VALUE\" FROM \"Z_METADATA\"").forEachRow { row in
            metadata[row.text(at: 0)] = row.text(at: 1)
        }
        return try SQLiteMigrationDatabase(connection: connection).openExistingStore(
            metadata: metadata, schema: schema, model: model, schemaVersion: schemaVersion, migrate: migrate, store: path)
    }
}
