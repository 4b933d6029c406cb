import Foundation

extension PostgreSQLStore {
    /// A fixed key for `pg_advisory_xact_lock`, so that two processes opening an empty
    /// database at once create the schema once: the second waits, then finds the tables.
    private static let schemaLockKey: Int64 = 0x4D4F_5343_4845_4D41  // "MOSCHEMA"

    /// Creates the schema in an empty database, or checks an existing one's metadata against
    /// the model and migrates it when `migrate` is set (``SQLMigration``), then brings the
    /// unique indexes in line with the model's uniqueness constraints: all in one transaction,
    /// so that a migration that fails leaves the database as it was (PostgreSQL's DDL is
    /// transactional).
    ///
    /// - Returns: The store identifier.
    /// - Throws: ``PostgreSQLError``; ``PersistenceError`` with ``PersistenceError/Code/invalidStore``,
    ///   ``PersistenceError/Code/incompatibleModel`` or ``PersistenceError/Code/migrationFailed``.
    static func prepare(
        _ connection: PostgreSQLConnection, schema: SQLSchema, model: ManagedObjectModel, server: String, migrate: Bool
    ) throws -> String {
        // String comparisons normalize text with `normalize`, which needs UTF-8.
        let encoding = try connection.run("SELECT current_setting('server_encoding')").text(0, 0) ?? ""
        guard encoding.uppercased() == "UTF8" else {
            throw PersistenceError(.invalidStore, message: "\(server) uses the encoding \(encoding); the store needs a UTF8 database")
        }
        let database = PostgreSQLMigrationDatabase(connection: connection)
        return try connection.transaction {
            try connection.run("SELECT pg_advisory_xact_lock($1::bigint)", [.text(String(schemaLockKey))])
            let result = try connection.run("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
            let tables = (0..<result.rowCount).compactMap { result.text($0, 0) }
            if !tables.contains("Z_METADATA") {
                guard tables.isEmpty else {
                    throw PersistenceError(
                        .invalidStore,
                        message: "\(server) holds tables this library did not write (" + tables.joined(separator: ", ")
                            + ") and no Z_METADATA")
                }
                let identifier = try create(connection, schema: schema, model: model)
                try database.synchronizeUniqueIndexes(schema: schema, model: model, store: server)
                try database.synchronizeFetchIndexes(schema: schema, model: model)
                return identifier
            }
            let identifier = try check(connection, schema: schema, model: model, server: server, migrate: migrate)
            // Uniqueness constraints and fetch indexes are not part of the version hash: the indexes
            // follow the model.
            try database.synchronizeUniqueIndexes(schema: schema, model: model, store: server)
            try database.synchronizeFetchIndexes(schema: schema, model: model)
            return identifier
        }
    }

    private static func create(_ connection: PostgreSQLConnection, schema: SQLSchema, model: ManagedObjectModel) throws -> String {
        let identifier = UUID().uuidString
        try connection.execute("CREATE TABLE \"Z_METADATA\" (\"Z_KEY\" text PRIMARY KEY, \"Z_VALUE\" text NOT NULL)")
        for statement in schema.creationStatements { try connection.execute(statement) }
        for (key, value) in SQLMetadata.newStoreRows(identifier: identifier, schemaVersion: schemaVersion, model: model) {
            try connection.run("INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES ($1, $2)", [.text(key), .text(value)])
        }
        return identifier
    }

    /// Reads the metadata of an existing database and compares it with the model (every
    /// entity's and property's version hash), migrating the database when asked.
    private static func check(
        _ connection: PostgreSQLConnection, schema: SQLSchema, model: ManagedObjectModel, server: String, migrate: Bool
    ) throws -> String {
        let result = try connection.run("SELECT \"Z_KEY\", \"Z_VALUE\" FROM \"Z_METADATA\"")
        var metadata: [String: String] = [:]
        for row in 0..<result.rowCount {
            if let key = result.text(row, 0), let value = result.text(row, 1) { metadata[key] = value }
        }
        return try PostgreSQLMigrationDatabase(connection: connection).openExistingStore(
            metadata: metadata, schema: schema, model: model, schemaVersion: schemaVersion, migrate: migrate, store: server)
    }
}
