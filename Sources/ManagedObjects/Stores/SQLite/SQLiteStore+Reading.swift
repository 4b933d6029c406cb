import Foundation

extension SQLiteStore {
    /// Reserves `count` keys for the hierarchy of `entity`, in a transaction of its own, so
    /// that coordinators in other processes reserving keys on the same file never get the same
    /// ones (the `Z_PRIMARYKEY` row of the root entity holds the last key handed out).
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` when the counter cannot be written.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard let mapping = schema.entities[entity.name] else {
            throw PersistenceError(.saveFailed, message: "the store's model has no entity \(entity.name)")
        }
        let last: Int64 = try withConnection(.saveFailed) { state in
            let connection = state.connection
            return try connection.transaction {
                // SQLite's arithmetic would take text for 0 (handing out keys in use) and a real as it is.
                try connection.cachedStatement("SELECT \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" = ?")
                    .forEachRow([.text(mapping.rootEntityName)]) { row in
                        guard case .integer = row.value(at: 0) else {
                            throw PersistenceError(
                                .saveFailed,
                                message: "the primary-key counter of \(mapping.rootEntityName) in Z_PRIMARYKEY is damaged "
                                    + "(\(Self.describeStoredValue(row.value(at: 0))))")
                        }
                    }
                try connection.cachedStatement("UPDATE \"Z_PRIMARYKEY\" SET \"Z_MAX\" = \"Z_MAX\" + ? WHERE \"Z_ENT\" = ?")
                    .execute([.integer(Int64(count)), .text(mapping.rootEntityName)])
                if connection.changes == 0 {
                    try connection.cachedStatement("INSERT INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, ?)")
                        .execute([.text(mapping.rootEntityName), .integer(Int64(count))])
                }
                var last: Int64 = 0
                try connection.cachedStatement("SELECT \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" = ?")
                    .forEachRow([.text(mapping.rootEntityName)]) { last = $0.int64(at: 0) }
                return last
            }
        }
        // Z_MAX is read from the file: a damaged counter must fail, not overflow.
        let (first, overflow) = last.subtractingReportingOverflow(Int64(count) - 1)
        guard !overflow, first >= 1 else {
            throw PersistenceError(
                .saveFailed, message: "the primary-key counter of \(mapping.rootEntityName) in Z_PRIMARYKEY is damaged (\(last))")
        }
        return Array(first...last)
    }

    /// Keys for `count` new records of `entity`, read from the counter without writing it: the
    /// next ``apply(_:)`` claims them in its own transaction (and throws ``SaveKeysTaken`` when
    /// another writer moved the counter in between), so a save costs one commit.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` when the counter cannot be read or is damaged.
    func saveKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard let mapping = schema.entities[entity.name] else {
            throw PersistenceError(.saveFailed, message: "the store's model has no entity \(entity.name)")
        }
        let root = mapping.rootEntityName
        return try withConnection(.saveFailed) { state in
            let base: Int64, last: Int64
            if let pending = state.pendingKeys[root] {
                (base, last) = pending
            } else {
                var counter: Int64 = 0
                try state.connection.cachedStatement("SELECT \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" = ?")
                    .forEachRow([.text(root)]) { row in
                        // Read as an integer, text would be 0 and hand out keys in use.
                        guard case .integer(let value) = row.value(at: 0) else {
                            throw PersistenceError(
                                .saveFailed, message: "the primary-key counter of \(root) in Z_PRIMARYKEY is damaged (\(row.value(at: 0)))")
                        }
                        counter = value
                    }
                (base, last) = (counter, counter)
            }
            // Z_MAX is read from the file: a damaged counter must fail, not overflow.
            let (end, overflow) = last.addingReportingOverflow(Int64(count))
            guard !overflow, last >= 0 else {
                throw PersistenceError(.saveFailed, message: "the primary-key counter of \(root) in Z_PRIMARYKEY is damaged (\(last))")
            }
            state.pendingKeys[root] = (base, end)
            return Array((last + 1)...end)
        }
    }

    /// Forgets the keys ``saveKeys(for:count:)`` handed out since the last ``apply(_:)``.
    func discardSaveKeys() {
        try? withConnection(.saveFailed) { state in state.pendingKeys = [:] }
    }

    /// Claims the keys ``saveKeys(for:count:)`` handed out, inside the save's transaction.
    ///
    /// - Throws: ``SaveKeysTaken`` when another writer reserved keys since they were read.
    func claimSaveKeys(_ pending: [String: (base: Int64, last: Int64)], _ connection: SQLiteConnection) throws {
        for (root, keys) in pending.sorted(by: { $0.key < $1.key }) {
            var counter: Int64?
            try connection.cachedStatement("SELECT \"Z_MAX\" FROM \"Z_PRIMARYKEY\" WHERE \"Z_ENT\" = ?")
                .forEachRow([.text(root)]) { counter = $0.int64(at: 0) }
            guard (counter ?? 0) == keys.base else { throw SaveKeysTaken() }
            if counter == nil {
                try connection.cachedStatement("INSERT INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, ?)")
                    .execute([.text(root), .integer(keys.last)])
            } else {
                try connection.cachedStatement("UPDATE \"Z_PRIMARYKEY\" SET \"Z_MAX\" = ? WHERE \"Z_ENT\" = ?")
                    .execute([.integer(keys.last), .text(root)])
            }
        }
    }

    /// The record for `objectID`: one statement for the row, one per to-many relationship.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when the file cannot be read or a
    ///   value in it cannot be decoded.
    public func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        guard objectID.key.store == identityAddress, let mapping = schema.entities[objectID.entity.name] else { return nil }
        let table = mapping.table, name = objectID.entity.name, key = objectID.key.number
        let cacheKey = SQLiteConnection.StatementKey(purpose: 0, entityName: name)
        return try withConnection(.operationFailed) { state in
            try readRecords(
                state.connection, table: table, where: "\(table).\"Z_PK\" = ? AND \(table).\"Z_ENT\" = ?",
                bindings: [.integer(key), .text(name)], cacheKey: cacheKey
            ).first
        }
    }

    /// The record for `objectID` without its to-many relationships
    /// (``StoreRecord/omittedRelationships``): one statement, where a whole record takes
    /// one more per to-many relationship. The context reads those with
    /// ``relatedObjectIDs(of:through:)`` when they are first used.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when the file cannot be read or a
    ///   value in it cannot be decoded.
    public func faultRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        // A temporary ID's key holds 0, another store's another address.
        guard objectID.key.store == identityAddress else { return nil }
        let key = objectID.key.number, entity = objectID.entity
        return try withConnection(.operationFailed) { state in
            try faultRowReader(for: entity, &state)?.read(key: key, store: self)
        }
    }

    /// The reader of `entity`'s fault rows, made on its first fault; nil for an entity this
    /// store has no table for.
    func faultRowReader(for entity: EntityDescription, _ state: inout State) throws -> FaultRowReader? {
        if let last = state.lastFaultReader, last.entity === entity { return last }
        if let known = state.faultReaders[ObjectIdentifier(entity)] {
            state.lastFaultReader = known
            return known
        }
        guard let made = try makeFaultRowReader(for: entity, state.connection) else { return nil }
        state.faultReaders[ObjectIdentifier(entity)] = made
        state.lastFaultReader = made
        return made
    }

    /// The reader of `entity`'s fault rows; nil for an entity this store has no table for.
    private func makeFaultRowReader(for entity: EntityDescription, _ connection: SQLiteConnection) throws -> FaultRowReader? {
        guard let mapping = schema.entities[entity.name], let select = schema.selectLists[mapping.table],
              let storeEntity = model.entity(named: entity.name)
        else { return nil }
        let table = mapping.table
        // Its own statement (not the connection's shared one, which others reset). The row's
        // entity is compared in place rather than in SQL, which would read `Z_ENT` twice.
        let statement = try connection.prepare("SELECT \(select.sql) FROM \(table) WHERE \(table).\"Z_PK\" = ?")
        return FaultRowReader(
            entity: entity, storeEntity: storeEntity, table: table, reads: mapping.reads, statement: statement)
    }

    /// The IDs `relationship` of the record of `objectID` relates it to, in one statement (none
    /// when the record is gone); nil for an ID this store did not give.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func relatedObjectIDs(of objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]? {
        guard objectID.key.store == identityAddress, let mapping = schema.entities[objectID.entity.name] else { return nil }
        let key = objectID.key.number
        guard relationship.index < mapping.storage.count, let query = toManyQuery(mapping.storage[relationship.index]) else {
            return []
        }
        return try withConnection(.operationFailed) { state in
            try relatedIDs(state.connection, sql: query.head + "= ?" + query.tail, arguments: [.integer(key)])[key] ?? []
        }
    }

    /// The query of a to-many relationship's related IDs, around the condition on the owner's
    /// key (which depends on the records read); nil for other storage.
    private func toManyQuery(_ storage: SQLSchema.Storage) -> (head: String, tail: String)? {
        switch storage {
        case .toManyByInverse(let other, let foreignKey, let order):
            return (
                "SELECT \(foreignKey), \"Z_PK\", \"Z_ENT\" FROM \(other) WHERE \(foreignKey) ",
                " ORDER BY \(foreignKey), " + (order.map { "\($0), " } ?? "") + "\"Z_PK\"")
        case .toManyByJoin(let join, let own, let otherColumn, let order, let otherTable):
            return (
                "SELECT j.\(own), j.\(otherColumn), t.\"Z_ENT\" FROM \(join) AS j JOIN \(otherTable) AS t "
                    + "ON t.\"Z_PK\" = j.\(otherColumn) WHERE j.\(own) ",
                " ORDER BY j.\(own), " + (order.map { "j.\($0), " } ?? "") + "j.\(otherColumn)")
        default:
            return nil
        }
    }

    /// The records of `objectIDs` that exist: one statement per table for the rows (per 1,000
    /// IDs) and one per to-many relationship, however many IDs there are. This is what batched
    /// faults and prefetching use.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        try records(for: objectIDs, readsToMany: true)
    }

    /// The records of `objectIDs` that exist without their to-many relationships
    /// (``StoreRecord/omittedRelationships``): one statement per table (per 1,000 IDs), what a
    /// batch of faults and prefetched to-one targets read.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    ///
    /// Corresponds to Core Data's SQLite store filling a batch of faults (rows only).
    public func faultRecords(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        try records(for: objectIDs, readsToMany: false)
    }

    private func records(for objectIDs: [ManagedObjectID], readsToMany: Bool) throws -> [ManagedObjectID: StoreRecord] {
        try withConnection(.operationFailed) { state in
            let connection = state.connection
            // A batch of 1,000 faults is one statement (fewer where this SQLite allows fewer parameters).
            let chunkSize = min(Self.keysPerStatement, connection.parameterLimit)
            return try schema.records(for: objectIDs, storeIdentifier: identifier, chunkSize: chunkSize) { table, keys in
                guard readsToMany else {
                    // Found by table and count, without making the SQL and its placeholders again.
                    let statementKey = SQLiteConnection.StatementKey(purpose: 1, entityName: table, count: keys.count)
                    return try readRows(
                        connection, table: table,
                        where: "\(table).\"Z_PK\" IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))",
                        keys: keys, cacheKey: statementKey)
                }
                let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                return try readRecords(
                    connection, table: table, where: "\(table).\"Z_PK\" IN (\(placeholders))",
                    bindings: keys.map { .integer($0) }, readsToMany: readsToMany)
            }
        }
    }

    /// The most keys one statement reading records by ID binds: a batch of faults of Core
    /// Data's usual `fetchBatchSize` is then one statement.
    static let keysPerStatement = 1_000

    /// The records a to-many relationship of `owners` relates them to, with each owner's
    /// related IDs: one statement per 500 owners, selecting by the inverse foreign key (or
    /// through the join table) and reading the owner's key with each row; the records leave
    /// their own to-many relationships out. Nil for a relationship this store does not keep
    /// that way.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func records(relatedTo owners: [ManagedObjectID], through relationship: RelationshipDescription) throws -> StoreRelatedRecords? {
        try withConnection(.operationFailed) { state in
            try schema.relatedRecords(of: owners, through: relationship, storeIdentifier: identifier, chunkSize: 500) { query, keys in
                let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                return try readRows(
                    state.connection, table: query.table, from: query.from, where: "\(query.ownerColumn) IN (\(placeholders))",
                    bindings: keys.map { .integer($0) }, orderAndLimit: query.order, ownerColumn: query.ownerColumn)
            }
        }
    }

    /// The records of `entity` (and its subentities), in primary-key order: one statement for
    /// the rows and one per to-many relationship.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        guard let mapping = schema.entities[entity.name] else { return [] }
        let (condition, bindings) = entityCondition(mapping, includesSubentities: includesSubentities)
        return try withConnection(.operationFailed) { state in
            try readRecords(
                state.connection, table: mapping.table, where: condition, bindings: bindings,
                orderAndLimit: " ORDER BY \(mapping.table).\"Z_PK\"")
        }
    }

    /// The versions (`Z_OPT`) of the records that exist among `objectIDs`; remembered, so
    /// that the ``apply(_:)`` that follows can check inside its transaction that no other
    /// writer changed them in between.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] {
        try withConnection(.operationFailed) { state in
            var versions: [ManagedObjectID: Int64] = [:]
            var reported: [ManagedObjectID: Int64?] = [:]
            for id in objectIDs {
                let version = try currentVersion(of: id, state.connection)
                reported[id] = .some(version)
                if let version { versions[id] = version }
            }
            state.reportedVersions = reported
            return versions
        }
    }

    /// The `Z_OPT` of the row of `id`, or nil when there is none.
    func currentVersion(of id: ManagedObjectID, _ connection: SQLiteConnection) throws -> Int64? {
        guard id.storeIdentifier == identifier, let key = id.primaryKey, let mapping = schema.entities[id.entity.name] else {
            return nil
        }
        var version: Int64?
        try connection.cachedStatement("SELECT \"Z_OPT\" FROM \(mapping.table) WHERE \"Z_PK\" = ? AND \"Z_ENT\" = ?")
            .forEachRow([.integer(key), .text(id.entity.name)]) { version = $0.int64(at: 0) }
        return version
    }

    /// The condition selecting rows of `mapping`'s entity (and its subentities); empty when
    /// every row of the table matches.
    func entityCondition(_ mapping: SQLSchema.EntityMapping, includesSubentities: Bool) -> (String, [SQLiteValue]) {
        let (condition, bindings) = schema.entityCondition(mapping, includesSubentities: includesSubentities)
        return (condition, bindings.map(SQLiteValue.init))
    }

    /// Reads the rows of `table` (selected `from` it, or a join with it) matching `condition`
    /// into records that leave their to-many relationships out; with `ownerColumn`, also that
    /// column's value of each row.
    func readRows(
        _ connection: SQLiteConnection, table: String, from: String? = nil, where condition: @autoclosure () -> String,
        bindings: [SQLiteValue], orderAndLimit: String = "", ownerColumn: String? = nil, cacheKey: SQLiteConnection.StatementKey? = nil
    ) throws -> (records: [StoreRecord], owners: [Int64]) {
        var records: [StoreRecord] = []
        var owners: [Int64] = []
        var kinds = EntityLookup()
        // The to-many relationships each entity's records leave out, worked out once per entity.
        try forEachSelectedRow(
            connection, table: table, from: from, where: condition(), bindings: bindings, orderAndLimit: orderAndLimit,
            ownerColumn: ownerColumn, cacheKey: cacheKey
        ) { row in
            var record = try decodeRow(row, table: table, kinds: &kinds)
            record.omittedRelationships = record.objectID.entity.toManyIndexes
            records.append(record)
            if ownerColumn != nil { owners.append(row.int64(at: row.columnCount - 1)) }
        }
        return (records, owners)
    }

    /// Runs the statement selecting the rows of `table` (selected `from` it, or a join with
    /// it) matching `condition`, with `ownerColumn` last when given, and calls `body` with each
    /// row; nothing when the store has no such table. `selectList` replaces the table's SELECT
    /// list (a partial fetch's, see `SQLSchema.selectList(of:holding:model:)`).
    func forEachSelectedRow(
        _ connection: SQLiteConnection, table: String, from: String? = nil, where condition: @autoclosure () -> String,
        bindings: [SQLiteValue], orderAndLimit: String = "", ownerColumn: String? = nil, cacheKey: SQLiteConnection.StatementKey? = nil,
        selectList: String? = nil, _ body: (SQLiteStatement) throws -> Void
    ) throws {
        guard let select = selectList ?? schema.selectLists[table]?.sql else { return }
        func sql() -> String {
            let condition = condition()
            let whereClause = condition.isEmpty ? "" : " WHERE " + condition
            return "SELECT \(select)" + (ownerColumn.map { ", " + $0 } ?? "") + " FROM \(from ?? table)" + whereClause + orderAndLimit
        }
        // A statement run once per object is found by its key, without making its SQL.
        let statement = try cacheKey.map { try connection.cachedStatement($0, sql: sql) } ?? connection.cachedStatement(sql())
        try statement.forEachRow(bindings, body)
    }

    /// Reads the rows of `table` whose keys are bound from `keys` (a condition with a
    /// placeholder per key) into records that leave their to-many relationships out: what a
    /// batch of faults reads.
    func readRows(
        _ connection: SQLiteConnection, table: String, where condition: @autoclosure () -> String, keys: ArraySlice<Int64>,
        cacheKey: SQLiteConnection.StatementKey
    ) throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        records.reserveCapacity(keys.count)
        var kinds = EntityLookup()
        try forEachKeyedRow(connection, table: table, where: condition(), keys: keys, cacheKey: cacheKey) { row in
            var record = try decodeRow(row, table: table, kinds: &kinds)
            record.omittedRelationships = record.objectID.entity.toManyIndexes
            records.append(record)
        }
        return records
    }

    /// Runs the statement selecting the rows of `table` whose keys are bound from `keys` (a
    /// condition with a placeholder per key) and calls `body` with each row; nothing when the
    /// store has no such table.
    func forEachKeyedRow(
        _ connection: SQLiteConnection, table: String, where condition: @autoclosure () -> String, keys: ArraySlice<Int64>,
        cacheKey: SQLiteConnection.StatementKey, _ body: (SQLiteStatement) throws -> Void
    ) throws {
        guard let select = schema.selectLists[table] else { return }
        let statement = try connection.cachedStatement(cacheKey) { "SELECT \(select.sql) FROM \(table) WHERE " + condition() }
        try statement.forEachRow(keys: keys, body)
    }

    /// Reads the rows of `table` matching `condition` into records, then (with `readsToMany`)
    /// fills their to-many relationships with one statement per relationship.
    func readRecords(
        _ connection: SQLiteConnection, table: String, where condition: String, bindings: [SQLiteValue],
        orderAndLimit: String = "", readsToMany: Bool = true, cacheKey: SQLiteConnection.StatementKey? = nil
    ) throws -> [StoreRecord] {
        var records = try readRows(
            connection, table: table, where: condition, bindings: bindings, orderAndLimit: orderAndLimit, cacheKey: cacheKey
        ).records
        guard readsToMany, !records.isEmpty else { return records }
        let whereClause = condition.isEmpty ? "" : " WHERE " + condition
        var entityNames = Set<String>()
        for position in records.indices {
            entityNames.insert(records[position].objectID.entity.name)
            records[position].omittedRelationships = []
        }

        // To-many relationships, one statement each for all the records read.
        var done = Set<String>()
        for name in entityNames.sorted() {
            guard let mapping = schema.entities[name] else { continue }
            for (index, storage) in mapping.storage.enumerated() {
                guard let query = toManyQuery(storage) else { continue }
                guard done.insert(query.head + query.tail).inserted else { continue }
                let related = try readRelated(connection, query: query, records: records, condition: whereClause, orderAndLimit: orderAndLimit)
                // Every record of a kind that has this relationship gets its list. (The records
                // are edited in place: holding a copy of one would copy its values on write.)
                var hasRelationship: (entity: EntityDescription, answer: Bool)?
                for position in records.indices {
                    let entity = records[position].objectID.entity
                    if hasRelationship?.entity !== entity {
                        let recordMapping = schema.entities[entity.name]
                        let answer = recordMapping.map { index < $0.storage.count && sameStorage($0.storage[index], storage) } ?? false
                        hasRelationship = (entity, answer)
                    }
                    guard hasRelationship?.answer == true else { continue }
                    let key = records[position].objectID.primaryKey ?? 0
                    records[position].values[index] = .toMany(related[key] ?? [])
                }
            }
        }
        return records
    }

    /// Runs a to-many query (the condition on the owner's key goes between its head and tail) for the records
    /// read, grouping the related IDs by owner.
    private func readRelated(
        _ connection: SQLiteConnection, query: (head: String, tail: String), records: [StoreRecord], condition: String,
        orderAndLimit: String
    ) throws -> [Int64: [ManagedObjectID]] {
        if records.count == 1, let key = records[0].objectID.primaryKey {
            return try relatedIDs(connection, sql: query.head + "= ?" + query.tail, arguments: [.integer(key)])
        }
        if condition.isEmpty && !orderAndLimit.contains(" LIMIT ") || records.count >= 1000 {
            // Every row of the table was read, or many: reading the whole relationship through
            // its index costs less than selecting the owners again; owners not read are ignored.
            return try relatedIDs(connection, sql: query.head + "IS NOT NULL" + query.tail, arguments: [])
        }
        // A few: by the keys read (repeating the condition instead would evaluate it again,
        // `mo_compare` on every row included).
        let keys = records.compactMap(\.objectID.primaryKey)
        var related: [Int64: [ManagedObjectID]] = [:]
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + 500, keys.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            related.merge(
                try relatedIDs(connection, sql: query.head + "IN (\(placeholders))" + query.tail, arguments: chunk.map { .integer($0) }),
                uniquingKeysWith: { first, _ in first })
            start += 500
        }
        return related
    }

    /// Runs a to-many query, grouping the related IDs by owner key.
    private func relatedIDs(_ connection: SQLiteConnection, sql: String, arguments: [SQLiteValue]) throws -> [Int64: [ManagedObjectID]] {
        var related: [Int64: [ManagedObjectID]] = [:]
        var entities: [String: EntityDescription] = [:]
        try connection.cachedStatement(sql).forEachRow(arguments) { row in
            guard let owner = row.key(at: 0), let key = row.key(at: 1) else {
                throw PersistenceError(
                    .operationFailed,
                    message: "a to-many relationship reads \(Self.describeStoredValue(row.value(at: 1))) related to "
                        + "\(Self.describeStoredValue(row.value(at: 0))), which are not both primary keys",
                    sql: sql)
            }
            let name = row.text(at: 2)
            guard let entity = entities[name] ?? model.entity(named: name) else {
                throw PersistenceError(.operationFailed, message: "row \(key) names an entity the model does not have: \(name)", sql: sql)
            }
            entities[name] = entity
            related[owner, default: []].append(objectID(entity, key))
        }
        return related
    }

    private func sameStorage(_ lhs: SQLSchema.Storage, _ rhs: SQLSchema.Storage) -> Bool {
        switch (lhs, rhs) {
        case (.toManyByInverse(let a, let b, let c), .toManyByInverse(let d, let e, let f)): a == d && b == e && c == f
        case (.toManyByJoin(let a, let b, let c, let d, _), .toManyByJoin(let e, let f, let g, let h, _)):
            a == e && b == f && c == g && d == h
        default: false
        }
    }

    /// The entities met while decoding rows, with the last one at hand (rows of one entity
    /// usually follow each other), so that most rows cost no dictionary lookup and no string.
    struct EntityLookup {
        var all: [String: (entity: EntityDescription, reads: [SQLSchema.Read])] = [:]
        /// The last row's entity (nil before the first row), its name and the name's bytes
        /// (compared with the row's `Z_ENT` in place) and how its rows read: separate fields,
        /// not an optional tuple, so that each row reads the two it returns (a retain each)
        /// instead of copying all four (four retains and three releases).
        var lastEntity: EntityDescription?
        var lastName = ""
        var lastUTF8: [UInt8] = []
        var lastReads: [SQLSchema.Read] = []
    }

    /// One row as a record (to-many relationships still empty).
    func decodeRow(_ row: SQLiteStatement, table: String, kinds: inout EntityLookup) throws -> StoreRecord {
        let (entity, reads) = try rowEntity(row, table: table, kinds: &kinds)
        return try decodeRow(row, entity: entity, reads: reads, table: table)
    }

    /// The entity of a row of `table` (named by its `Z_ENT`) and how its columns read.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` for a damaged key, an entity the
    ///   model does not have, or one whose records are in another table.
    func rowEntity(_ row: SQLiteStatement, table: String, kinds: inout EntityLookup) throws -> (EntityDescription, [SQLSchema.Read]) {
        if let entity = kinds.lastEntity, row.textEquals(kinds.lastUTF8, at: 1) { return (entity, kinds.lastReads) }
        let entity: EntityDescription, reads: [SQLSchema.Read]
        // The key first: a row whose key is damaged is refused for that, whatever it names.
        guard let key = row.key(at: 0) else { throw badKey(row, table: table) }
        let name = row.text(at: 1)
        if !kinds.all.isEmpty, let known = kinds.all[name] {
            (entity, reads) = known
        } else {
            guard let found = model.entity(named: name), let foundMapping = schema.entities[name] else {
                throw PersistenceError(
                    .operationFailed, message: "row \(key) of \(table) names an entity the model does not have: \(name)", sql: row.sql)
            }
            // Another table's entity: its columns are not these (read, they would be another record's values).
            guard foundMapping.table == table else {
                throw PersistenceError(
                    .operationFailed, message: "the record \(key) in \(table) names the entity \(name), whose records are in \(foundMapping.table)",
                    sql: row.sql)
            }
            (entity, reads) = (found, foundMapping.reads)
            // Rows of one entity (most fetches) need only the last: the table of entities is
            // kept once a second one appears.
            if let last = kinds.lastEntity, kinds.all.isEmpty { kinds.all[kinds.lastName] = (last, kinds.lastReads) }
            if kinds.lastEntity != nil { kinds.all[name] = (found, reads) }
        }
        kinds.lastEntity = entity
        kinds.lastName = name
        kinds.lastUTF8 = Array(name.utf8)
        kinds.lastReads = reads
        return (entity, reads)
    }

    /// One row of a record of `entity`, whose columns read as `reads`, as a record (to-many
    /// relationships still empty).
    func decodeRow(_ row: SQLiteStatement, entity: EntityDescription, reads: [SQLSchema.Read], table: String) throws -> StoreRecord {
        var values = RecordRowValues(count: entity.properties.count)
        let (key, version) = try decodeRow(row, entity: entity, reads: reads, table: table, into: &values)
        return StoreRecord(objectID: objectID(entity, key), version: version, values: values.values)
    }

    /// Checks and decodes one row of a record of `entity`, whose columns read as `reads`,
    /// handing each value that is not NULL to `values`: the one implementation of the rules a
    /// row must follow, whether it becomes a record or an object's typed storage. Returns the
    /// row's key and version.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` for a damaged key or version, NULL
    ///   in a required attribute, a value of another type or range than its attribute's, or a
    ///   to-one relationship's column that holds no key of its destination.
    func decodeRow<Values: DecodedRowValues>(
        _ row: SQLiteStatement, entity: EntityDescription, reads: [SQLSchema.Read], table: String, into values: inout Values
    ) throws -> (key: Int64, version: Int64) {
        guard let key = row.key(at: 0) else { throw badKey(row, table: table) }
        let versionColumn = row.column(at: 2)
        let version = versionColumn.int64
        // SQLite would read text as 0 and a huge real as Int64.max, which the next save writes back.
        guard version >= 1, versionColumn.storageClass == .integer else {
            throw PersistenceError(
                .operationFailed,
                message: "the record \(key) in \(table) has the version (Z_OPT) \(Self.describeStoredValue(row.value(at: 2))), "
                    + "not a positive integer",
                sql: row.sql)
        }
        // Values going straight into an object's slots skip the `StoreValue` where the slot
        // takes the decoded value as it is.
        let target = values.slotTarget
        for read in reads {
            let index = read.index, position = read.position
            switch read.kind {
            case .attribute:
                let column = row.column(at: position)
                let storage = column.storageClass
                if storage == .null {
                    if read.isRequired { throw refusal(row, at: position, entity: entity, index: index, key: key, table: table) }
                    continue
                }
                if let target {
                    switch Self.decode(column, storage, as: read.decoding, into: target.slots[index], of: target.base) {
                    case .stored: continue
                    case .refused: throw refusal(row, at: position, entity: entity, index: index, key: key, table: table)
                    case .notHandled: break
                    }
                }
                guard let value = decode(row, at: position, storage, as: read.decoding) else {
                    throw refusal(row, at: position, entity: entity, index: index, key: key, table: table)
                }
                values.attribute(value, at: index)
            case .toOne:
                let column = row.column(at: position)
                guard column.storageClass != .null, let unretainedDestination = read.unretainedDestination else { continue }
                // The destination borrowed from the schema, which holds it: a reference taken
                // per row would be an atomic retain and release.
                try unretainedDestination._withUnsafeGuaranteedRef { destination in
                    // SQLite would read text as 0 and a real truncated: a record that is not there, or another one.
                    func badKey() -> PersistenceError {
                        PersistenceError(
                            .operationFailed,
                            message: "the record \(key) of \(entity.name) in \(table) holds \(Self.describeStoredValue(row.value(at: position))) in "
                                + "\(entity.name).\(entity.properties[index].name), which is not a primary key of \(destination.name)",
                            objectID: objectID(entity, key), sql: row.sql)
                    }
                    if read.entityPosition >= 0, !row.isNull(at: read.entityPosition) {
                        let targetName = row.text(at: read.entityPosition)
                        guard let named = model.entity(named: targetName), named.isKindOf(entity: destination) else {
                            throw PersistenceError(
                                .operationFailed,
                                message: "the record \(key) of \(entity.name) in \(table) names the entity \(targetName) in "
                                    + "\(entity.name).\(entity.properties[index].name), which is not \(destination.name) or one of its subentities",
                                objectID: objectID(entity, key), sql: row.sql)
                        }
                        guard let targetKey = column.key else { throw badKey() }
                        values.toOne(named, key: ManagedObjectID.Key(store: identityAddress, number: targetKey), at: index)
                    } else {
                        guard let targetKey = column.key else { throw badKey() }
                        values.toOne(destination, key: ManagedObjectID.Key(store: identityAddress, number: targetKey), at: index)
                    }
                }
            case .toMany:
                values.toMany(at: index)
            }
        }
        return (key, version)
    }

    /// The error for a row of `table` whose `Z_PK` is not a positive integer.
    private func badKey(_ row: SQLiteStatement, table: String) -> PersistenceError {
        PersistenceError(
            .operationFailed, message: "a row of \(table) holds \(Self.describeStoredValue(row.value(at: 0))) in Z_PK, which is not a positive integer",
            sql: row.sql)
    }

    /// A column's value as an attribute's type; nil when the column holds something the store
    /// would not have written for the type (see ``SQLSchema/Decoding``). `storage` is the
    /// column's storage class, not NULL.
    func decode(
        _ row: SQLiteStatement, at position: Int32, _ storage: SQLiteStorageClass, as decoding: SQLSchema.Decoding
    ) -> StoreValue? {
        switch decoding {
        case .integer(let min, let max):
            let integer: Int64
            switch storage {
            case .integer: integer = row.int64(at: position)
            case .real:
                // Another writer's real: only a whole number in range is the integer it looks like.
                guard let exact = Int64(exactly: row.double(at: position)) else { return nil }
                integer = exact
            default: return nil
            }
            return integer >= min && integer <= max ? .integer(integer) : nil
        case .boolean:
            guard storage == .integer || storage == .real else { return nil }
            switch row.double(at: position) {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            default: return nil
            }
        case .double:
            switch storage {
            case .real: return .double(row.double(at: position))
            case .integer: return Double(exactly: row.int64(at: position)).map(StoreValue.double)
            default: return nil
            }
        case .float:
            guard storage == .real || storage == .integer else { return nil }
            let double = row.double(at: position)
            // Past Float's range a finite number would read as an infinity.
            return double.isFinite && Float(double).isInfinite ? nil : .double(double)
        case .date:
            guard storage == .real || storage == .integer else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: row.double(at: position)))
        case .decimal:
            guard storage == .text, let text = row.validText(at: position), Self.isPlainDecimal(text),
                  let decimal = Decimal(string: text, locale: nil)
            else { return nil }
            return .decimal(decimal)
        case .string:
            guard storage == .text else { return nil }
            return row.validText(at: position).map(StoreValue.string)
        case .uri:
            guard storage == .text, let url = row.validText(at: position).flatMap({ URL(string: $0) }) else { return nil }
            return .uri(url)
        case .data:
            return storage == .blob ? .data(row.data(at: position)) : nil
        case .uuid:
            guard storage == .blob else { return nil }
            let bytes = row.data(at: position)
            guard bytes.count == 16 else { return nil }
            return .uuid(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case .none:
            return .null
        }
    }

    /// Whether `text` is a number as `Decimal.description` writes one (`-12.5`): a sign, digits
    /// and at most one point. `Decimal(string:)` alone reads a prefix (`"12abc"` is 12).
    static func isPlainDecimal(_ text: String) -> Bool {
        var digits = 0, points = 0, position = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where position == 0: break
            case UInt8(ascii: "."): points += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            default: return false
            }
            position += 1
        }
        return digits > 0 && points <= 1
    }

    /// The error for a row whose column at `position` breaks the attribute at `index` of
    /// `entity`: NULL in a required attribute, or a value of another type or range.
    func refusal(
        _ row: SQLiteStatement, at position: Int32, entity: EntityDescription, index: Int, key: Int64, table: String
    ) -> PersistenceError {
        let property = entity.properties[index]
        let type = (property as? AttributeDescription)?.attributeType
        let stored = row.value(at: position)
        let problem = if case .null = stored {
            "is NULL, but the attribute is required"
        } else {
            "holds " + Self.describeStoredValue(stored) + ", which is not "
                + (type.map { Self.describeRange(of: $0) } ?? "a value of its type")
        }
        return PersistenceError(
            .operationFailed,
            message: "\(entity.name).\(property.name) of the record \(key) in \(table) \(problem); "
                + "the store refuses to read the record rather than convert the value",
            objectID: objectID(entity, key),
            key: property.name, sql: row.sql)
    }

    /// A stored value (or a key) for a message: short, whatever it holds.
    static func describeStoredValue(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): "the integer \(integer)"
        case .real(let real): "the real \(real)"
        case .text(let text): "the text \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }

    /// What a column of an attribute of `type` holds, for a message.
    static func describeRange(of type: AttributeType) -> String {
        switch type {
        case .integer16: "an Int16 (-32768…32767)"
        case .integer32: "an Int32"
        case .integer64: "an Int64"
        case .boolean: "a Boolean (0 or 1)"
        case .double: "a Double"
        case .float: "a Float (within its range)"
        case .date: "a date (seconds since 2001)"
        case .decimal: "a decimal number"
        case .string: "UTF-8 text"
        case .uri: "a URI"
        case .binaryData, .transformable: "a blob"
        case .uuid: "a 16-byte UUID"
        default: "a value of type \(type)"
        }
    }
}
