import Foundation

extension SQLiteStore {
    /// Writes a save in one transaction (`BEGIN IMMEDIATE` … `COMMIT`): the primary-key
    /// counters for the keys `saveKeys(for:count:)` handed out, the persistent history
    /// transaction when the store tracks history, deleted rows, updated rows, inserted rows, then
    /// join-table rows and positions of ordered relationships.
    ///
    /// Before writing, it checks inside the transaction that every updated or deleted record
    /// still has the version the last ``versions(of:)`` reported (or, without one, the version
    /// the request expects): the coordinator's save lock covers one process only, and another
    /// process may have written in between.
    ///
    /// - Throws: ``PersistenceError/Code/mergeConflict`` with the records another writer
    ///   changed; `SaveKeysTaken` (internal, handled by the saving context) when another writer reserved keys handed out by
    ///   `saveKeys(for:count:)` since; ``PersistenceError/Code/saveFailed`` with the failing SQL when SQLite refuses
    ///   a statement. Nothing is written then.
    public func apply(_ changes: SaveChanges) throws {
        try withConnection(.saveFailed) { state in
            let reported = state.reportedVersions
            let pendingKeys = state.pendingKeys
            state.reportedVersions = [:]
            state.pendingKeys = [:]
            guard !changes.isEmpty else { return }
            let connection = state.connection
            do {
                try connection.transaction {
                    try claimSaveKeys(pendingKeys, connection)
                    try checkVersions(changes, reported: reported, connection)
                    try recordHistory(changes, connection)
                    try writeRows(changes, connection)
                }
            } catch let error as SaveKeysTaken {
                // The save is applied again with other keys: it needs the versions it checked.
                state.reportedVersions = reported
                throw error
            }
        }
    }

    private func writeRows(_ changes: SaveChanges, _ connection: SQLiteConnection) throws {
        for id in changes.deleted { try delete(id, connection) }
        // Updated rows before new ones: a value of a uniqueness constraint that an update
        // frees may be taken by an insert of the same save.
        try write(changes.updated, inserting: false, connection)
        try write(changes.inserted, inserting: true, connection)
        try writeRelationships(of: changes.inserted, isNew: true, connection)
        try writeRelationships(of: changes.updated, isNew: false, connection)
    }

    /// Writes the relationships of `records` beyond their rows, looking each entity's mapping
    /// up once per run of records of that entity, and skipping without building anything the
    /// records with nothing to write: an entity without join tables or ordered one-to-many
    /// relationships, or a new record that relates no object through them.
    private func writeRelationships(of records: [StoreRecord], isNew: Bool, _ connection: SQLiteConnection) throws {
        var entity: EntityDescription?
        var mapping: SQLSchema.EntityMapping?
        for record in records {
            if record.objectID.entity !== entity {
                entity = record.objectID.entity
                mapping = schema.entities[record.objectID.entity.name]
            }
            // No mapping: the per-record path throws the error.
            if let mapping, !mapping.writesRelationships || (isNew && !mapping.hasRelationshipWrites(of: record)) { continue }
            try writeRelationships(of: record, isNew: isNew, connection)
        }
    }

    private func checkVersions(_ changes: SaveChanges, reported: [ManagedObjectID: Int64?], _ connection: SQLiteConnection) throws {
        let conflicts = try PersistenceError.versionConflicts(in: changes, reported: reported) { try currentVersion(of: $0, connection) }
        if !conflicts.isEmpty { throw PersistenceError.mergeConflicts(conflicts) }
    }

    private func mapping(of id: ManagedObjectID) throws -> (SQLSchema.EntityMapping, Int64) {
        try schema.mapping(of: id, storeIdentifier: identifier)
    }

    private func delete(_ id: ManagedObjectID, _ connection: SQLiteConnection) throws {
        let (mapping, key) = try mapping(of: id)
        try connection.cachedStatement("DELETE FROM \(mapping.table) WHERE \"Z_PK\" = ?").execute([.integer(key)])
        for case .toManyByJoin(let join, let own, _, _, _) in mapping.storage {
            try connection.cachedStatement("DELETE FROM \(join) WHERE \(own) = ?").execute([.integer(key)])
        }
    }

    /// Inserts or updates the rows of `records`, grouped by entity so that each group binds
    /// one cached statement.
    private func write(_ records: [StoreRecord], inserting: Bool, _ connection: SQLiteConnection) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let name = records[start].objectID.entity.name
            var end = start + 1
            while end < records.endIndex && records[end].objectID.entity.name == name { end += 1 }
            let (mapping, _) = try mapping(of: records[start].objectID)
            let statement = try connection.cachedStatement(inserting ? mapping.insertSQL : mapping.updateSQL)
            // Every parameter is bound for every row, so the bindings need no clearing between
            // rows: one reset before the group, one after each row (keeping its bindings), and
            // one clearing them after the group.
            statement.reset()
            defer { statement.reset() }
            for record in records[start..<end] {
                try write(record, mapping: mapping, statement: statement, inserting: inserting)
            }
            start = end
        }
    }

    /// Inserts or updates the row of `record` (its attributes and to-one relationships).
    private func write(
        _ record: StoreRecord, mapping: SQLSchema.EntityMapping, statement: SQLiteStatement, inserting: Bool
    ) throws {
        guard record.objectID.storeIdentifier == identifier, let key = record.objectID.primaryKey else {
            throw PersistenceError(.saveFailed, message: "\(record.objectID) is not an object ID of this store", objectID: record.objectID)
        }
        defer { statement.resetKeepingBindings() }
        var parameter: Int32
        if inserting {
            try statement.bind(key, at: 1)
            try statement.bind(record.objectID.entity.name, at: 2)
            try statement.bind(record.version, at: 3)
            parameter = 4
        } else {
            try statement.bind(record.version, at: 1)
            parameter = 2
        }
        for column in mapping.writtenColumns {
            let value = column.index < record.values.count ? record.values[column.index] : .null
            if column.isEntityColumn {
                if case .toOne(let target?) = value {
                    try statement.bind(target.entity.name, at: parameter)
                } else {
                    // Bound even when NULL: the row before's bindings are kept (see `write(_:inserting:_:)`).
                    try statement.bind(.null, at: parameter)
                }
            } else {
                let sqlite = Self.sqliteValue(value)
                // SQLite stores NaN as NULL: the value would come back as nil (or, in a required
                // attribute, as a record the store refuses to read).
                if case .real(let real) = sqlite, real.isNaN {
                    let entity = record.objectID.entity
                    let name = column.index < entity.properties.count ? entity.properties[column.index].name : "?"
                    throw PersistenceError(
                        .saveFailed, message: "\(entity.name).\(name) of \(record.objectID) is NaN, which SQLite cannot keep",
                        objectID: record.objectID, key: name)
                }
                try statement.bind(sqlite, at: parameter)
            }
            parameter += 1
        }
        if !inserting { try statement.bind(key, at: parameter) }
        while try statement.step() {}
    }

    /// Writes the join-table rows of `record`'s many-to-many relationships and the positions
    /// of its ordered one-to-many relationships.
    private func writeRelationships(of record: StoreRecord, isNew: Bool, _ connection: SQLiteConnection) throws {
        let (mapping, key) = try mapping(of: record.objectID)
        for (storage, related) in mapping.relationshipWrites(of: record) {
            switch storage {
            case .toManyByInverse(let table, _, let order?):
                // No related rows, no positions to write (and no statement to look up).
                guard !related.isEmpty else { continue }
                let statement = try connection.cachedStatement("UPDATE \(table) SET \(order) = ? WHERE \"Z_PK\" = ?")
                for (position, id) in related.enumerated() {
                    guard let relatedKey = id.primaryKey else { continue }
                    try statement.execute([.integer(Int64(position)), .integer(relatedKey)])
                }
            case .toManyByJoin(let join, let own, let other, let order, _):
                let keys = related.compactMap(\.primaryKey)
                // A new record has no join rows yet: with none to add there is nothing to write.
                if isNew && keys.isEmpty { continue }
                if !isNew {
                    var existing: [Int64] = []
                    try connection.cachedStatement("SELECT \(other) FROM \(join) WHERE \(own) = ?")
                        .forEachRow([.integer(key)]) { existing.append($0.int64(at: 0)) }
                    let kept = Set(keys)
                    let remove = try connection.cachedStatement("DELETE FROM \(join) WHERE \(own) = ? AND \(other) = ?")
                    for gone in existing where !kept.contains(gone) { try remove.execute([.integer(key), .integer(gone)]) }
                }
                if let order {
                    let statement = try connection.cachedStatement(
                        "INSERT INTO \(join) (\(own), \(other), \(order)) VALUES (?, ?, ?) "
                            + "ON CONFLICT (\"Z_1\", \"Z_2\") DO UPDATE SET \(order) = excluded.\(order)")
                    for (position, relatedKey) in keys.enumerated() {
                        try statement.execute([.integer(key), .integer(relatedKey), .integer(Int64(position))])
                    }
                } else {
                    let statement = try connection.cachedStatement("INSERT OR IGNORE INTO \(join) (\(own), \(other)) VALUES (?, ?)")
                    for relatedKey in keys { try statement.execute([.integer(key), .integer(relatedKey)]) }
                }
            default:
                continue
            }
        }
    }

    /// A store value as SQLite keeps it (see ``SQLDialect/columnType(_:)``).
    static func sqliteValue(_ value: StoreValue) -> SQLiteValue {
        switch value {
        case .null, .toMany: .null
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .decimal(let value): .text(value.description)
        case .string(let value): .text(value)
        case .boolean(let value): .integer(value ? 1 : 0)
        case .date(let value): .real(value.timeIntervalSinceReferenceDate)
        case .data(let value): .blob(value)
        case .uuid(let value): .blob(withUnsafeBytes(of: value.uuid) { Data($0) })
        case .uri(let value): .text(value.absoluteString)
        case .toOne(let id): id?.primaryKey.map(SQLiteValue.integer) ?? .null
        }
    }
}
