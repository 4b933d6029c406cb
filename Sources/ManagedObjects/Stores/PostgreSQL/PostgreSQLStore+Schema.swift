import Foundation

extension PostgreSQLStore {
    /// Metadata keys: `Z_METADATA` holds one row per key (the SQLite store's keys).
    enum MetadataKey {
        static let schemaVersion = "schemaVersion"
        static let storeIdentifier = "storeIdentifier"
        static let modelVersionHash = "modelVersionHash"
        /// Followed by an entity name: that entity's version hash, in hex.
        static let entityPrefix = "entity."
    }

    /// A fixed key for `pg_advisory_xact_lock`, so that two processes opening an empty
    /// database at once create the schema once: the second waits, then finds the tables.
    private static let schemaLockKey: Int64 = 0x4D4F_5343_4845_4D41  // "MOSCHEMA"

    /// Creates the schema in an empty database or checks an existing one's metadata against
    /// the model, in one transaction.
    ///
    /// - Returns: The store identifier.
    /// - Throws: ``PostgreSQLError``; ``PersistenceError`` with ``PersistenceError/Code/invalidStore``
    ///   or ``PersistenceError/Code/incompatibleModel``.
    static func prepare(_ connection: PostgreSQLConnection, schema: SQLSchema, model: ManagedObjectModel, server: String) throws -> String {
        // String comparisons normalize text with `normalize`, which needs UTF-8.
        let encoding = try connection.run("SELECT current_setting('server_encoding')").text(0, 0) ?? ""
        guard encoding.uppercased() == "UTF8" else {
            throw PersistenceError(.invalidStore, message: "\(server) uses the encoding \(encoding); the store needs a UTF8 database")
        }
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
                return try create(connection, schema: schema, model: model)
            }
            return try check(connection, model: model, server: server)
        }
    }

    /// The metadata rows that describe the model: each entity's version hash.
    static func modelMetadataRows(_ model: ManagedObjectModel) -> [(String, String)] {
        model.entities.map { (MetadataKey.entityPrefix + $0.name, hex($0.versionHash)) }
    }

    private static func create(_ connection: PostgreSQLConnection, schema: SQLSchema, model: ManagedObjectModel) throws -> String {
        let identifier = UUID().uuidString
        try connection.execute("CREATE TABLE \"Z_METADATA\" (\"Z_KEY\" text PRIMARY KEY, \"Z_VALUE\" text NOT NULL)")
        for statement in schema.creationStatements { try connection.execute(statement) }
        let rows = [
            (MetadataKey.schemaVersion, String(schemaVersion)),
            (MetadataKey.storeIdentifier, identifier),
            (MetadataKey.modelVersionHash, hex(model.versionHash)),
        ] + modelMetadataRows(model)
        for (key, value) in rows {
            try connection.run("INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES ($1, $2)", [.text(key), .text(value)])
        }
        return identifier
    }

    private static func check(_ connection: PostgreSQLConnection, model: ManagedObjectModel, server: String) throws -> String {
        let result = try connection.run("SELECT \"Z_KEY\", \"Z_VALUE\" FROM \"Z_METADATA\"")
        var metadata: [String: String] = [:]
        for row in 0..<result.rowCount {
            if let key = result.text(row, 0), let value = result.text(row, 1) { metadata[key] = value }
        }
        guard let identifier = metadata[MetadataKey.storeIdentifier], !identifier.isEmpty,
              let version = metadata[MetadataKey.schemaVersion].flatMap(Int.init)
        else {
            throw PersistenceError(.invalidStore, message: "\(server) has no store identifier or schema version in Z_METADATA")
        }
        guard version == schemaVersion else {
            throw PersistenceError(
                .incompatibleModel, message: "\(server) uses schema layout \(version); this build reads layout \(schemaVersion)")
        }
        var stored: [String: String] = [:]
        for (key, value) in metadata where key.hasPrefix(MetadataKey.entityPrefix) {
            stored[String(key.dropFirst(MetadataKey.entityPrefix.count))] = value
        }
        let current = Dictionary(model.entities.map { ($0.name, hex($0.versionHash)) }, uniquingKeysWith: { first, _ in first })
        let added = current.keys.filter { stored[$0] == nil }.sorted()
        let removed = stored.keys.filter { current[$0] == nil }.sorted()
        let changed = current.keys.filter { stored[$0] != nil && stored[$0] != current[$0] }.sorted()
        guard added.isEmpty && removed.isEmpty && changed.isEmpty else {
            var parts: [String] = []
            if !added.isEmpty { parts.append("entities added: " + added.joined(separator: ", ")) }
            if !removed.isEmpty { parts.append("entities removed: " + removed.joined(separator: ", ")) }
            if !changed.isEmpty { parts.append("entities changed: " + changed.joined(separator: ", ")) }
            throw PersistenceError(
                .incompatibleModel, message: "\(server) was written with another model (" + parts.joined(separator: "; ") + ")")
        }
        return identifier
    }

    /// Lowercase hexadecimal digits of `data`.
    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
