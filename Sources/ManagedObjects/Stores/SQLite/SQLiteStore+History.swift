import Foundation

/// Persistent history in a SQLite file, in three tables of the store's own, named as Core
/// Data's are (their columns are this library's):
///
/// - `ATRANSACTION`: one row per transaction. `Z_PK` (`AUTOINCREMENT`, so numbers are never
///   reused, even after deletes) is the transaction number; `ZTIMESTAMP` (seconds since the
///   reference date), `ZAUTHOR`, `ZCONTEXTNAME`.
/// - `ACHANGE`: one row per changed record. `Z_PK` (the change ID), `ZTRANSACTIONID`,
///   `ZCHANGETYPE` (0 insert, 1 update, 2 delete), `ZENTITY` (the entity's name), `ZENTITYPK`
///   (the record's primary key), `ZCOLUMNS` (an update's property names, comma-separated).
/// - `ATOMBSTONE`: a deleted record's preserved values, one row per attribute: `ZCHANGEID`,
///   `ZNAME`, `ZVALUE` (as the record's column held it).
///
/// `Z_METADATA`'s `historyDeletedThrough` row holds the last transaction number deleted: a
/// fetch after an older token throws ``PersistenceError/Code/historyTokenExpired``.
extension SQLiteStore: PersistentHistoryStore {
    private static let deletedThroughKey = "historyDeletedThrough"

    /// Creates the history tables when `enable` is true (a new file, or one that did not track
    /// history yet), and answers whether the file tracks history: it does once they exist.
    static func prepareHistory(_ connection: SQLiteConnection, enable: Bool) throws -> Bool {
        var exists = false
        try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ATRANSACTION'").forEachRow { _ in exists = true }
        guard enable && !exists else { return exists }
        try connection.transaction {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS \"ATRANSACTION\" (\"Z_PK\" INTEGER PRIMARY KEY AUTOINCREMENT, "
                    + "\"ZTIMESTAMP\" REAL NOT NULL, \"ZAUTHOR\" TEXT, \"ZCONTEXTNAME\" TEXT)")
            try connection.execute("CREATE INDEX IF NOT EXISTS \"ATRANSACTION_ZTIMESTAMP\" ON \"ATRANSACTION\" (\"ZTIMESTAMP\")")
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS \"ACHANGE\" (\"Z_PK\" INTEGER PRIMARY KEY AUTOINCREMENT, "
                    + "\"ZTRANSACTIONID\" INTEGER NOT NULL, \"ZCHANGETYPE\" INTEGER NOT NULL, \"ZENTITY\" TEXT NOT NULL, "
                    + "\"ZENTITYPK\" INTEGER NOT NULL, \"ZCOLUMNS\" TEXT)")
            try connection.execute("CREATE INDEX IF NOT EXISTS \"ACHANGE_ZTRANSACTIONID\" ON \"ACHANGE\" (\"ZTRANSACTIONID\")")
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS \"ATOMBSTONE\" (\"ZCHANGEID\" INTEGER NOT NULL, \"ZNAME\" TEXT NOT NULL, "
                    + "\"ZVALUE\", PRIMARY KEY (\"ZCHANGEID\", \"ZNAME\")) WITHOUT ROWID")
        }
        return true
    }

    /// Records a save as one transaction, inside the save's own SQLite transaction and before
    /// its rows are written (a deleted row's tombstone is copied from the row).
    func recordHistory(_ changes: SaveChanges, _ connection: SQLiteConnection) throws {
        guard tracksPersistentHistory else { return }
        try recordHistory(
            deleted: changes.deleted, inserted: changes.inserted.map(\.objectID),
            updated: changes.updated.map { ($0.objectID, changes.history.updatedProperties(of: $0)) },
            author: changes.history.author, contextName: changes.history.contextName, connection)
    }

    /// Records one transaction of the store's writes: what a save or a batch operation run in
    /// SQL calls inside its own SQLite transaction, before it deletes rows (a deleted row's
    /// tombstone is copied from the row). Does nothing when the store does not track history or
    /// there is no change.
    func recordHistory(
        deleted: [ManagedObjectID], inserted: [ManagedObjectID], updated: [(id: ManagedObjectID, properties: Set<String>)],
        author: String?, contextName: String?, _ connection: SQLiteConnection
    ) throws {
        guard tracksPersistentHistory, !(deleted.isEmpty && inserted.isEmpty && updated.isEmpty) else { return }
        var number: Int64 = 0
        try connection.cachedStatement(
            "INSERT INTO \"ATRANSACTION\" (\"ZTIMESTAMP\", \"ZAUTHOR\", \"ZCONTEXTNAME\") VALUES (?, ?, ?) RETURNING \"Z_PK\""
        ).forEachRow([
            .real(Date().timeIntervalSinceReferenceDate), author.map(SQLiteValue.text) ?? .null, contextName.map(SQLiteValue.text) ?? .null,
        ]) { number = $0.int64(at: 0) }
        let insert = try connection.cachedStatement(
            "INSERT INTO \"ACHANGE\" (\"ZTRANSACTIONID\", \"ZCHANGETYPE\", \"ZENTITY\", \"ZENTITYPK\", \"ZCOLUMNS\") "
                + "VALUES (?, ?, ?, ?, ?) RETURNING \"Z_PK\"")
        func recordChange(_ id: ManagedObjectID, _ type: PersistentHistoryChangeType, columns: Set<String>? = nil) throws -> Int64 {
            guard let key = id.primaryKey, id.storeIdentifier == identifier else {
                throw PersistenceError(.saveFailed, message: "\(id) is not an object ID of this store", objectID: id)
            }
            var changeID: Int64 = 0
            try insert.forEachRow([
                .integer(number), .integer(Int64(type.rawValue)), .text(id.entity.name), .integer(key),
                columns.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
            ]) { changeID = $0.int64(at: 0) }
            return changeID
        }
        for id in deleted {
            let changeID = try recordChange(id, .delete)
            guard let mapping = schema.entities[id.entity.name], let key = id.primaryKey else { continue }
            for attribute in id.entity.tombstoneAttributes {
                guard attribute.index < mapping.storage.count, case .attribute(let column, _) = mapping.storage[attribute.index] else { continue }
                try connection.cachedStatement(
                    "INSERT INTO \"ATOMBSTONE\" (\"ZCHANGEID\", \"ZNAME\", \"ZVALUE\") SELECT ?, ?, \(column) FROM \(mapping.table) WHERE \"Z_PK\" = ?"
                ).execute([.integer(changeID), .text(attribute.name), .integer(key)])
            }
        }
        for id in inserted { _ = try recordChange(id, .insert) }
        for (id, properties) in updated { _ = try recordChange(id, .update, columns: properties) }
    }

    /// The token of the last transaction the file recorded (by any writer).
    ///
    /// - Throws: ``PersistenceError/Code/unsupportedRequest`` when the store does not track
    ///   history; ``PersistenceError/Code/operationFailed`` when the file cannot be read.
    public func currentPersistentHistoryToken() throws -> PersistentHistoryToken {
        try checkTracksHistory()
        let number = try withConnection(.operationFailed) { state in
            var number: Int64 = 0
            try state.connection.cachedStatement("SELECT \"seq\" FROM sqlite_sequence WHERE \"name\" = 'ATRANSACTION'")
                .forEachRow { number = $0.int64(at: 0) }
            return number
        }
        return PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }

    /// Fetches history (in one read transaction, so that a concurrent writer's transaction is
    /// seen whole or not at all) or deletes it (in one write transaction).
    ///
    /// - Throws: See ``PersistentHistoryStore/execute(_:)``; ``PersistenceError/Code/operationFailed``
    ///   for history rows this library would not have written (an unknown change type, a
    ///   tombstone value of the wrong type), ``PersistenceError/Code/saveFailed`` when a delete
    ///   fails (nothing is deleted).
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try check(request)
        if request.isDelete {
            return try withConnection(.saveFailed) { state in
                try state.connection.transaction { try deleteHistory(request, state.connection) }
            }
        }
        return try withConnection(.operationFailed) { state in
            try state.connection.transaction(immediate: false) { try fetchHistory(request, state.connection) }
        }
    }

    /// The last transaction number deleted (0: none).
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when `Z_METADATA` holds something else
    ///   than a number there (tokens could no longer tell whether they expired).
    private func deletedThrough(_ connection: SQLiteConnection) throws -> Int64 {
        var number: Int64 = 0
        try connection.cachedStatement("SELECT \"Z_VALUE\" FROM \"Z_METADATA\" WHERE \"Z_KEY\" = ?")
            .forEachRow([.text(Self.deletedThroughKey)]) { row in
                guard let value = Int64(row.text(at: 0)), value >= 0 else {
                    throw PersistenceError(
                        .operationFailed,
                        message: "Z_METADATA's \(Self.deletedThroughKey) is \(Self.describeStoredValue(row.value(at: 0))), not a transaction number")
                }
                number = value
            }
        return number
    }

    private func fetchHistory(_ request: PersistentHistoryChangeRequest, _ connection: SQLiteConnection) throws -> PersistentHistoryResult {
        try checkNotExpired(request, deletedThrough: deletedThrough(connection))
        let condition: String, argument: SQLiteValue
        switch request.operation {
        case .fetchAfterToken(let token): (condition, argument) = ("\"Z_PK\" > ?", .integer(token?.transactionNumber ?? 0))
        case .fetchAfterDate(let date): (condition, argument) = ("\"ZTIMESTAMP\" > ?", .real(date.timeIntervalSinceReferenceDate))
        default: return PersistentHistoryResult()
        }
        var transactions: [PersistentHistoryTransaction] = []
        var positions: [Int64: Int] = [:]
        let limit = request.fetchLimit > 0 ? " LIMIT \(request.fetchLimit)" : ""
        try connection.prepare(
            "SELECT \"Z_PK\", \"ZTIMESTAMP\", \"ZAUTHOR\", \"ZCONTEXTNAME\" FROM \"ATRANSACTION\" WHERE \(condition) ORDER BY \"Z_PK\"\(limit)"
        ).forEachRow([argument]) { row in
            positions[row.int64(at: 0)] = transactions.count
            transactions.append(PersistentHistoryTransaction(
                transactionNumber: row.int64(at: 0), storeIdentifier: identifier,
                timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                author: row.isNull(at: 2) ? nil : row.text(at: 2), contextName: row.isNull(at: 3) ? nil : row.text(at: 3), changes: []))
        }
        guard let first = transactions.first?.transactionNumber, let last = transactions.last?.transactionNumber else {
            return PersistentHistoryResult()
        }
        let range: [SQLiteValue] = [.integer(first), .integer(last)]
        // Each value decoded as its attribute's column is (see `SQLSchema.Decoding`).
        var tombstones: [Int64: [String: StoreValue]] = [:]
        try connection.prepare(
            "SELECT t.\"ZCHANGEID\", c.\"ZENTITY\", t.\"ZNAME\", t.\"ZVALUE\" FROM \"ATOMBSTONE\" t "
                + "JOIN \"ACHANGE\" c ON c.\"Z_PK\" = t.\"ZCHANGEID\" WHERE c.\"ZTRANSACTIONID\" BETWEEN ? AND ?"
        ).forEachRow(range) { row in
            let changeID = row.int64(at: 0), name = row.text(at: 2)
            // Attributes (or entities) the model no longer has are left out.
            guard let entity = model.entity(named: row.text(at: 1)), let attribute = entity.attributesByName[name] else { return }
            let storage = row.storageClass(at: 3)
            guard let value = storage == .null ? .null : decode(row, at: 3, storage, as: SQLSchema.Decoding(attribute.attributeType)) else {
                throw PersistenceError(
                    .operationFailed,
                    message: "the history tombstone of change \(changeID) holds \(Self.describeStoredValue(row.value(at: 3))) for "
                        + "\(entity.name).\(name), which is not a \(attribute.attributeType) value",
                    key: name)
            }
            tombstones[changeID, default: [:]][name] = value
        }
        try connection.prepare(
            "SELECT \"Z_PK\", \"ZTRANSACTIONID\", \"ZCHANGETYPE\", \"ZENTITY\", \"ZENTITYPK\", \"ZCOLUMNS\" FROM \"ACHANGE\" "
                + "WHERE \"ZTRANSACTIONID\" BETWEEN ? AND ? ORDER BY \"Z_PK\""
        ).forEachRow(range) { row in
            let changeID = row.int64(at: 0), number = row.int64(at: 1)
            guard let position = positions[number] else { return }
            guard let type = PersistentHistoryChangeType(rawValue: Int(truncatingIfNeeded: row.int64(at: 2))), let key = row.key(at: 4) else {
                throw PersistenceError(
                    .operationFailed, message: "history change \(changeID) of transaction \(number) has change type "
                        + "\(Self.describeStoredValue(row.value(at: 2))) and key \(Self.describeStoredValue(row.value(at: 4))), "
                        + "which this store does not write")
            }
            // An entity the model no longer has (removed by a migration): its changes are left out.
            guard let entity = model.entity(named: row.text(at: 3)) else { return }
            let id = ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: key)
            var change = PersistentHistoryChange(changeID: changeID, changedObjectID: id, changeType: type, transactionNumber: number)
            if type == .update {
                change.updatedProperties = row.isNull(at: 5) ? [] : Set(row.text(at: 5).split(separator: ",").map(String.init))
            }
            if type == .delete, !entity.tombstoneAttributes.isEmpty {
                change.tombstone = (entity.tombstone(of: []) ?? [:]).merging(tombstones[changeID] ?? [:]) { _, stored in stored }
            }
            transactions[position].changes.append(change)
        }
        return PersistentHistoryResult(transactions: transactions)
    }

    private func deleteHistory(_ request: PersistentHistoryChangeRequest, _ connection: SQLiteConnection) throws -> PersistentHistoryResult {
        let condition: String, argument: SQLiteValue
        switch request.operation {
        case .deleteBeforeToken(let token): (condition, argument) = ("\"Z_PK\" < ?", .integer(token?.transactionNumber ?? Int64.max))
        case .deleteBeforeDate(let date): (condition, argument) = ("\"ZTIMESTAMP\" < ?", .real(date.timeIntervalSinceReferenceDate))
        default: return PersistentHistoryResult()
        }
        var count = 0, last: Int64 = 0
        try connection.prepare("SELECT count(*), ifnull(max(\"Z_PK\"), 0) FROM \"ATRANSACTION\" WHERE \(condition)").forEachRow([argument]) { row in
            count = Int(row.int64(at: 0))
            last = row.int64(at: 1)
        }
        guard count > 0 else { return PersistentHistoryResult() }
        let changes = "SELECT c.\"Z_PK\" FROM \"ACHANGE\" c JOIN \"ATRANSACTION\" t ON t.\"Z_PK\" = c.\"ZTRANSACTIONID\" WHERE t.\(condition)"
        try connection.prepare("DELETE FROM \"ATOMBSTONE\" WHERE \"ZCHANGEID\" IN (\(changes))").execute([argument])
        try connection.prepare(
            "DELETE FROM \"ACHANGE\" WHERE \"ZTRANSACTIONID\" IN (SELECT \"Z_PK\" FROM \"ATRANSACTION\" WHERE \(condition))"
        ).execute([argument])
        try connection.prepare("DELETE FROM \"ATRANSACTION\" WHERE \(condition)").execute([argument])
        try connection.prepare(
            "INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES (?, ?) "
                + "ON CONFLICT (\"Z_KEY\") DO UPDATE SET \"Z_VALUE\" = max(CAST(\"Z_VALUE\" AS INTEGER), CAST(excluded.\"Z_VALUE\" AS INTEGER))"
        ).execute([.text(Self.deletedThroughKey), .text(String(last))])
        return PersistentHistoryResult(deletedTransactionCount: count)
    }
}
