import Foundation

/// How the faults of one entity read their rows from a SQLite store: a statement of their own,
/// prepared on the entity's first fault, the entity's name as bytes and its column reads, so
/// that firing a fault binds its key, steps once, compares the row's `Z_ENT` in place and
/// decodes the row, with no lookup by name and no SQL made.
///
/// Not thread-safe: used under the lock of the store that owns its connection.
final class FaultRowReader {
    /// The entity of the IDs read (held, so that its identity, the store's key for this
    /// reader, is never another entity's).
    let entity: EntityDescription
    /// The store model's entity of that name, which the records name.
    let storeEntity: EntityDescription
    /// The quoted name of the entity's table.
    let table: String
    /// How each property reads from the row.
    let reads: [SQLSchema.Read]
    /// `SELECT <the table's columns> FROM <table> WHERE Z_PK = ?`.
    let statement: SQLiteStatement
    /// The entity's name as UTF-8, which the row's `Z_ENT` must hold (in a table of several
    /// entities, the key of another entity's record reads no record).
    let entityName: [UInt8]

    init(entity: EntityDescription, storeEntity: EntityDescription, table: String, reads: [SQLSchema.Read], statement: SQLiteStatement) {
        self.entity = entity
        self.storeEntity = storeEntity
        self.table = table
        self.reads = reads
        self.statement = statement
        entityName = Array(storeEntity.name.utf8)
    }

    /// The row of the record `key` as a record that leaves its to-many relationships out; nil
    /// when there is none (or it is of another entity).
    ///
    /// - Throws: ``SQLiteError`` when the statement fails, ``PersistenceError`` when the row
    ///   holds a value the store refuses to read.
    func read(key: Int64, store: SQLiteStore) throws -> StoreRecord? {
        try withRow(key: key) {
            var record = try store.decodeRow(statement, entity: storeEntity, reads: reads, table: table)
            record.omittedRelationships = storeEntity.toManyIndexes
            return record
        }
    }

    /// Decodes the row of the record `key` into `sink` (see ``TypedRowReading``); false when
    /// there is none (or it is of another entity).
    ///
    /// - Throws: What ``read(key:store:)`` throws, and what the sink throws.
    func read(key: Int64, store: SQLiteStore, into sink: inout some TypedRowSink) throws -> Bool {
        try withRow(key: key) { try store.decodeRow(statement, entity: storeEntity, reads: reads, table: table, into: &sink) } != nil
    }

    /// Runs `body` on the row of the record `key`, when there is one of this entity.
    private func withRow<Result>(key: Int64, _ body: () throws -> Result) throws -> Result? {
        // Reset after each read (ending its read transaction), never before: the statement is
        // always left reset.
        defer { statement.resetKeepingBindings() }
        try statement.bind(key, at: 1)
        guard try statement.step(), statement.textEquals(entityName, at: 1) else { return nil }
        return try body()
    }
}
