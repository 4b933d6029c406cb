import Foundation

extension SQLiteStore {
    /// Metadata keys: `Z_METADATA` holds one row per key.
    enum MetadataKey {
        static let schemaVersion = "schemaVersion"
        static let storeIdentifier = "storeIdentifier"
        static let modelVersionHash = "modelVersionHash"
        /// Followed by an entity name: that entity's version hash, in hex.
        static let entityPrefix = "entity."
        /// Followed by `Entity.property`: that property's version hash, in hex (files written
        /// before this key existed lack it; their mismatches name entities only).
        static let propertyPrefix = "property."
        /// Followed by `Entity.property`: that property's shape (see ``propertyShape(_:)``).
        static let shapePrefix = "shape."
    }

    /// What a stored property is, as migration compares it: its kind with the attribute type or
    /// the destination and cardinality, then `|optional` or `|required`, or `transient`.
    /// `destinationName` replaces the destination entity's name (its name before a rename).
    static func propertyShape(_ property: PropertyDescription, destinationName: String? = nil) -> String {
        if property.isTransient { return "transient" }
        let kind: String
        if let attribute = property as? AttributeDescription {
            kind = "attribute \(attribute.attributeType.rawValue)"
        } else if let relationship = property as? RelationshipDescription {
            kind = "relationship \(destinationName ?? relationship.destinationEntity?.name ?? "?") "
                + (relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one")
        } else {
            kind = "property"
        }
        return kind + (property.isOptional ? "|optional" : "|required")
    }

    /// The metadata rows that describe the model: each entity's version hash and each of its
    /// properties', compared when the file is opened again.
    static func modelMetadataRows(_ model: ManagedObjectModel) -> [(String, String)] {
        var rows: [(String, String)] = []
        for entity in model.entities {
            rows.append((MetadataKey.entityPrefix + entity.name, hex(entity.versionHash)))
            for property in entity.properties {
                rows.append((MetadataKey.propertyPrefix + entity.name + "." + property.name, hex(property.versionHash)))
                rows.append((MetadataKey.shapePrefix + entity.name + "." + property.name, propertyShape(property)))
            }
        }
        return rows
    }

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
                try synchronizeUniqueIndexes(connection, schema: schema, model: model, path: path)
                return identifier
            }
            let identifier = try check(connection, schema: schema, model: model, path: path, migrate: migrate)
            // Uniqueness constraints are not part of the version hash: the indexes follow the model.
            try synchronizeUniqueIndexes(connection, schema: schema, model: model, path: path)
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
            var rows: [(String, String)] = [
                (MetadataKey.schemaVersion, String(schemaVersion)),
                (MetadataKey.storeIdentifier, identifier),
                (MetadataKey.modelVersionHash, hex(model.versionHash)),
            ]
            rows += modelMetadataRows(model)
            for (key, value) in rows { try metadata.execute([.text(key), .text(value)]) }
            let keys = try connection.prepare("INSERT INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, 0)")
            for table in schema.tables { try keys.execute([.text(table.rootEntityName)]) }
        }
        return identifier
    }

    /// Reads the metadata of an existing store and compares it with the model.
    private static func check(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, path: String, migrate: Bool
    ) throws -> String {
        var metadata: [String: String] = [:]
        try connection.prepare("SELECT \"Z_KEY\", \"Z_VALUE\" FROM \"Z_METADATA\"").forEachRow { row in
            metadata[row.text(at: 0)] = row.text(at: 1)
        }
        guard let identifier = metadata[MetadataKey.storeIdentifier], !identifier.isEmpty,
              let version = metadata[MetadataKey.schemaVersion].flatMap(Int.init)
        else {
            throw PersistenceError(.invalidStore, message: "\(path) has no store identifier or schema version in Z_METADATA")
        }
        guard version == schemaVersion else {
            throw PersistenceError(
                .incompatibleModel,
                message: "\(path) uses schema layout \(version); this build reads layout \(schemaVersion)")
        }
        var stored: [String: String] = [:]
        for (key, value) in metadata where key.hasPrefix(MetadataKey.entityPrefix) {
            stored[String(key.dropFirst(MetadataKey.entityPrefix.count))] = value
        }
        let current = Dictionary(model.entities.map { ($0.name, hex($0.versionHash)) }, uniquingKeysWith: { first, _ in first })
        let added = current.keys.filter { stored[$0] == nil }.sorted()
        let removed = stored.keys.filter { current[$0] == nil }.sorted()
        let changed = current.keys.filter { stored[$0] != nil && stored[$0] != current[$0] }.sorted()
        if !(added.isEmpty && removed.isEmpty && changed.isEmpty) && migrate {
            try Self.migrate(connection, schema: schema, model: model, storedEntities: Set(stored.keys), metadata: metadata, path: path)
            return identifier
        }
        if !(added.isEmpty && removed.isEmpty && changed.isEmpty) {
            var parts: [String] = []
            if !added.isEmpty { parts.append("entities added: " + added.joined(separator: ", ")) }
            if !removed.isEmpty { parts.append("entities removed: " + removed.joined(separator: ", ")) }
            if !changed.isEmpty {
                parts.append("entities changed: " + changed.map { describeChange(of: $0, model: model, metadata: metadata) }.joined(separator: ", "))
            }
            throw PersistenceError(
                .incompatibleModel,
                message: "\(path) was written with another model (" + parts.joined(separator: "; ") + ")")
        }
        return identifier
    }

    /// A changed entity's name, with the properties that differ when the file recorded them:
    /// `Employee (added: email; removed: nickname; changed: salary)`.
    private static func describeChange(of name: String, model: ManagedObjectModel, metadata: [String: String]) -> String {
        let prefix = MetadataKey.propertyPrefix + name + "."
        var stored: [String: String] = [:]
        for (key, value) in metadata where key.hasPrefix(prefix) { stored[String(key.dropFirst(prefix.count))] = value }
        guard !stored.isEmpty, let entity = model.entity(named: name) else { return name }
        let current = Dictionary(entity.properties.map { ($0.name, hex($0.versionHash)) }, uniquingKeysWith: { first, _ in first })
        var parts: [String] = []
        let added = current.keys.filter { stored[$0] == nil }.sorted()
        let removed = stored.keys.filter { current[$0] == nil }.sorted()
        let changed = current.keys.filter { stored[$0] != nil && stored[$0] != current[$0] }.sorted()
        if !added.isEmpty { parts.append("added: " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed: " + removed.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed: " + changed.joined(separator: ", ")) }
        return parts.isEmpty ? name : "\(name) (" + parts.joined(separator: "; ") + ")"
    }

    /// Lowercase hexadecimal digits of `data`.
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
