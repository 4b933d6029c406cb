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
    /// deletes, inserts, updates, writes join-table rows and positions, and announces the IDs
    /// it wrote to ``PostgreSQLChangeListener``s (delivered when it commits).
    ///
    /// - Throws: ``PersistenceError/Code/mergeConflict`` with the records another process
    ///   changed; ``PersistenceError/Code/saveFailed`` with the failing SQL when the server
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
                for record in changes.inserted { try write(record, inserting: true, connection) }
                for record in changes.updated { try write(record, inserting: false, connection) }
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
        var conflicts: [PersistenceError.Conflict] = []
        func check(_ id: ManagedObjectID, fallback: Int64?) {
            let expected: Int64? = reported[id] ?? fallback
            if current[id] != expected {
                conflicts.append(PersistenceError.Conflict(
                    objectID: id, oldVersion: changes.expectedVersions[id] ?? expected ?? 0, newVersion: current[id]))
            }
        }
        for record in changes.updated {
            let (previous, overflow) = record.version.subtractingReportingOverflow(1)
            check(record.objectID, fallback: overflow ? nil : previous)
        }
        for id in changes.deleted { check(id, fallback: changes.expectedVersions[id]) }
        guard !conflicts.isEmpty else { return }
        conflicts.sort { $0.objectID.description < $1.objectID.description }
        throw PersistenceError(
            .mergeConflict,
            message: "\(conflicts.count) record\(conflicts.count == 1 ? " was" : "s were") changed by another writer "
                + "during the save: " + conflicts.map(\.description).joined(separator: "; "),
            conflicts: conflicts)
    }

    private func mapping(of id: ManagedObjectID) throws -> (SQLSchema.EntityMapping, Int64) {
        guard let mapping = schema.entities[id.entity.name], let key = id.primaryKey, id.storeIdentifier == identifier else {
            throw PersistenceError(.saveFailed, message: "\(id) is not an object ID of this store", objectID: id)
        }
        return (mapping, key)
    }

    private func delete(_ id: ManagedObjectID, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: id)
        try connection.run("DELETE FROM \(mapping.table) WHERE \"Z_PK\" = $1", [.text(String(key))])
        for case .toManyByJoin(let join, let own, _, _, _) in mapping.storage {
            try connection.run("DELETE FROM \(join) WHERE \(own) = $1", [.text(String(key))])
        }
    }

    /// Inserts or updates the row of `record` (its attributes and to-one relationships).
    private func write(_ record: StoreRecord, inserting: Bool, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: record.objectID)
        var parameters: [PostgreSQLParameter] = []
        parameters.reserveCapacity(mapping.writtenColumns.count + 3)
        if inserting {
            parameters += [.text(String(key)), .text(record.objectID.entity.name), .text(String(record.version))]
        } else {
            parameters.append(.text(String(record.version)))
        }
        for column in mapping.writtenColumns {
            let value = column.index < record.values.count ? record.values[column.index] : .null
            if column.isEntityColumn {
                if case .toOne(let id?) = value { parameters.append(.text(id.entity.name)) } else { parameters.append(.null) }
            } else {
                parameters.append(Self.parameter(value))
            }
        }
        if !inserting { parameters.append(.text(String(key))) }
        try connection.run(inserting ? mapping.insertSQL : mapping.updateSQL, parameters)
    }

    /// Writes the join-table rows of `record`'s many-to-many relationships and the positions of
    /// its ordered one-to-many relationships.
    private func writeRelationships(of record: StoreRecord, isNew: Bool, _ connection: PostgreSQLConnection) throws {
        let (mapping, key) = try mapping(of: record.objectID)
        guard mapping.writesRelationships else { return }
        for (index, storage) in mapping.storage.enumerated() {
            // Left out: not read since the record was, so the rows keep what they have.
            guard index < record.values.count, !record.omittedRelationships.contains(index) else { continue }
            var related: [ManagedObjectID] = []
            if case .toMany(let ids) = record.values[index] { related = ids }
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
