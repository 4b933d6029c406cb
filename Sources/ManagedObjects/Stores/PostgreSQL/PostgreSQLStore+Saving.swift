import Foundation

extension PostgreSQLStore {
    /// Reserves `count` keys for the hierarchy of `entity` from its table's sequence, so that
    /// processes inserting at once never get the same ones (the keys of one call need not be
    /// consecutive).
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed``; ``PersistenceError/Code/connectionFailed``.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard let mapping = schema.entities[entity.name],
              let sequence = schema.tables.first(where: { $0.name == mapping.table })?.sequenceName
        else {
            throw PersistenceError(.saveFailed, message: "the store's model has no entity \(entity.name)")
        }
        return try withConnection(.saveFailed) { connection, _ in
            let result = try connection.run(
                "SELECT nextval($1::regclass) FROM generate_series(1, $2::bigint)", [.text(sequence), .text(String(count))])
            var keys: [Int64] = []
            keys.reserveCapacity(count)
            for row in 0..<result.rowCount {
                guard let key = result.int64(row, 0) else {
                    throw PersistenceError(.saveFailed, message: "the sequence \(sequence) handed out no key")
                }
                keys.append(key)
            }
            return keys
        }
    }

    /// Writes a save in one transaction: it locks the rows of the updated and deleted records
    /// (`SELECT … FOR UPDATE`, in key order) and checks that each still has the version the
    /// last ``versions(of:)`` reported (or, without one, the version the request expects), then
    /// deletes, updates, inserts (several rows a statement, see `insert(_:_:)`), writes
    /// join-table rows and positions, and announces the IDs it wrote to
    /// ``PostgreSQLChangeListener``s (delivered when it commits).
    ///
    /// - Throws: ``PersistenceError/Code/mergeConflict`` with the records another process
    ///   changed; ``PersistenceError/Code/constraintConflict`` when a row breaks a unique index
    ///   (another process saved the same values meanwhile);
    ///   ``PersistenceError/Code/saveFailed`` with the failing SQL when the server
    ///   refuses a statement; ``PersistenceError/Code/connectionFailed`` when the connection
    ///   breaks. Nothing is written then (a connection that breaks during `COMMIT` leaves the
    ///   outcome to the server, as with any client).
    public func apply(_ changes: SaveChanges) throws {
        try withConnection(.saveFailed) { connection, state in
            let reported = state.reportedVersions
            state.reportedVersions = [:]
            guard !changes.isEmpty else { return }
            try connection.transaction {
                try checkVersions(changes, reported: reported, connection)
                for id in changes.deleted { try delete(id, connection) }
                // Updated rows before new ones: a value of a uniqueness constraint that an update
                // frees may be taken by an insert of the same save.
                for record in changes.updated { try update(record, connection) }
                try insert(changes.inserted, connection)
                for record in changes.inserted { try writeRelationships(of: record, isNew: true, connection) }
                for record in changes.updated { try writeRelationships(of: record, isNew: false, connection) }
                try notify(changes, connection)
            }
        }
    }

    private func checkVersions(_ changes: SaveChanges, reported: [ManagedObjectID: Int64?], _ connection: PostgreSQLConnection) throws {
        let ids = changes.updated.map(\.objectID) + changes.deleted
        guard !ids.isEmpty else { return }
        let current = try currentVersions(of: ids, connection, locking: true)
        let conflicts = PersistenceError.versionConflicts(in: changes, reported: reported) { current[$0] }
        if !conflicts.isEmpty { throw PersistenceError.mergeConflicts(conflicts) }
    }

    private func mapping(of id: ManagedObjectID) throws -> (SQLSchema.EntityMapping, Int64) {
        try schema.mapping(of: id, storeIdentifier: identifier)
    }

    private func delete(_ id: ManagedObjectID, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: id)
        try connection.run("DELETE FROM \(mapping.table) WHERE \"Z_PK\" = $1", [.text(String(key))])
        for case .toManyByJoin(let join, let own, _, _, _) in mapping.storage {
            try connection.run("DELETE FROM \(join) WHERE \(own) = $1", [.text(String(key))])
        }
    }

    /// The most rows one INSERT writes. Inserting row by row costs a round trip to the server
    /// each; batches cut that to one per batch. Batch sizes are powers of two (a save of 700
    /// rows writes 512, 128, 32, 16, 8 and 4), so that the prepared statements stay few.
    static let insertBatchLimit = 512

    /// Inserts the rows of `records` (their attributes and to-one relationships), several a
    /// statement: `INSERT … VALUES (…), (…), …` for the records of each entity (a save's records
    /// come in no particular order; the rows of one save need none).
    private func insert(_ records: [StoreRecord], _ connection: PostgreSQLConnection) throws {
        var order: [String] = []
        var byEntity: [String: [StoreRecord]] = [:]
        for record in records {
            let name = record.objectID.entity.name
            if byEntity[name] == nil { order.append(name) }
            byEntity[name, default: []].append(record)
        }
        for name in order {
            guard let group = byEntity[name], let first = group.first else { continue }
            let (mapping, _) = try mapping(of: first.objectID)
            let width = mapping.writtenColumns.count + 3
            // PostgreSQL binds at most 65,535 parameters to a statement.
            var limit = Self.insertBatchLimit
            while limit > 1 && limit * width > Int(UInt16.max) { limit /= 2 }
            var start = group.startIndex
            while start < group.endIndex {
                var count = limit
                while count > group.endIndex - start { count /= 2 }
                var parameters: [PostgreSQLParameter] = []
                parameters.reserveCapacity(count * width)
                for record in group[start..<(start + count)] {
                    let (_, key) = try self.mapping(of: record.objectID)
                    parameters += [.text(String(key)), .text(name), .text(String(record.version))]
                    appendValues(of: record, mapping: mapping, to: &parameters)
                }
                try connection.run(Self.insertSQL(mapping, rows: count, width: width), parameters)
                start += count
            }
        }
    }

    /// `INSERT INTO table (columns) VALUES ($1, …), (…)` for `rows` rows of `width` columns.
    private static func insertSQL(_ mapping: SQLSchema.EntityMapping, rows: Int, width: Int) -> String {
        guard rows > 1 else { return mapping.insertSQL }
        let names = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + mapping.writtenColumns.map(\.column)
        var sql = "INSERT INTO \(mapping.table) (\(names.joined(separator: ", "))) VALUES "
        sql.reserveCapacity(sql.utf8.count + rows * width * 8)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<width {
                if column > 0 { sql += ", " }
                sql += "$\(row * width + column + 1)"
            }
            sql += ")"
        }
        return sql
    }

    /// Updates the row of `record` (its attributes and to-one relationships).
    private func update(_ record: StoreRecord, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: record.objectID)
        var parameters: [PostgreSQLParameter] = []
        parameters.reserveCapacity(mapping.writtenColumns.count + 2)
        parameters.append(.text(String(record.version)))
        appendValues(of: record, mapping: mapping, to: &parameters)
        parameters.append(.text(String(key)))
        try connection.run(mapping.updateSQL, parameters)
    }

    /// Appends the parameters of the written columns of `record`.
    private func appendValues(of record: StoreRecord, mapping: SQLSchema.EntityMapping, to parameters: inout [PostgreSQLParameter]) {
        for column in mapping.writtenColumns {
            let value = column.index < record.values.count ? record.values[column.index] : .null
            if column.isEntityColumn {
                if case .toOne(let id?) = value { parameters.append(.text(id.entity.name)) } else { parameters.append(.null) }
            } else {
                parameters.append(Self.parameter(value))
            }
        }
    }

    /// Writes the join-table rows of `record`'s many-to-many relationships and the positions of
    /// its ordered one-to-many relationships.
    private func writeRelationships(of record: StoreRecord, isNew: Bool, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: record.objectID)
        for (storage, related) in mapping.relationshipWrites(of: record) {
            switch storage {
            case .toManyByInverse(let table, _, let order?):
                for (position, id) in related.enumerated() {
                    guard let relatedKey = id.primaryKey else { continue }
                    try connection.run(
                        "UPDATE \(table) SET \(order) = $1 WHERE \"Z_PK\" = $2", [.text(String(position)), .text(String(relatedKey))])
                }
            case .toManyByJoin(let join, let own, let other, let order, _):
                let keys = related.compactMap(\.primaryKey)
                if !isNew {
                    try connection.run(
                        "DELETE FROM \(join) WHERE \(own) = $1 AND NOT (\(other) = ANY($2::bigint[]))", [.text(String(key)), Self.keyArray(keys)])
                }
                if let order {
                    for (position, relatedKey) in keys.enumerated() {
                        try connection.run(
                            "INSERT INTO \(join) (\(own), \(other), \(order)) VALUES ($1, $2, $3) "
                                + "ON CONFLICT (\"Z_1\", \"Z_2\") DO UPDATE SET \(order) = excluded.\(order)",
                            [.text(String(key)), .text(String(relatedKey)), .text(String(position))])
                    }
                } else if !keys.isEmpty {
                    try connection.run(
                        "INSERT INTO \(join) (\(own), \(other)) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING",
                        [.text(String(key)), Self.keyArray(keys)])
                }
            default:
                continue
            }
        }
    }
}
