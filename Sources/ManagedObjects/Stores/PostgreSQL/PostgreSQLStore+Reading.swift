import Foundation

extension PostgreSQLStore {
    /// The record for `objectID`: one statement for the row, one per to-many relationship.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try record(for: objectID, readsToMany: true)
    }

    /// The record for `objectID` without its to-many relationships
    /// (``StoreRecord/omittedRelationships``): one statement.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func faultRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try record(for: objectID, readsToMany: false)
    }

    private func record(for objectID: ManagedObjectID, readsToMany: Bool) throws -> StoreRecord? {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey,
              let mapping = schema.entities[objectID.entity.name]
        else { return nil }
        return try withConnection(.operationFailed) { connection, _ in
            try readRecords(
                connection, table: mapping.table, where: "\(mapping.table).\"Z_PK\" = $1 AND \(mapping.table).\"Z_ENT\" = $2",
                bindings: [.text(String(key)), .text(objectID.entity.name)], readsToMany: readsToMany
            ).first
        }
    }

    /// The records of `objectIDs` that exist: one statement per table for the rows (the keys go
    /// as one array parameter) and one per to-many relationship.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        try records(for: objectIDs, readsToMany: true)
    }

    /// The records of `objectIDs` that exist without their to-many relationships: one
    /// statement per table, what a batch of faults reads.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func faultRecords(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        try records(for: objectIDs, readsToMany: false)
    }

    private func records(for objectIDs: [ManagedObjectID], readsToMany: Bool) throws -> [ManagedObjectID: StoreRecord] {
        let wanted = IDsByTable(objectIDs, of: self)
        guard !wanted.tables.isEmpty else { return [:] }
        return try withConnection(.operationFailed) { connection, _ in
            var found: [ManagedObjectID: StoreRecord] = [:]
            found.reserveCapacity(objectIDs.count)
            for group in wanted.tables.sorted(by: { $0.table < $1.table }) {
                var records = try readRecords(
                    connection, table: group.table, where: "\(group.table).\"Z_PK\" = ANY($1::bigint[])",
                    bindings: [Self.keyArray(group.keys)], readsToMany: readsToMany)
                // A row whose entity is not the asked ID's (another writer's row, a wrong ID) is
                // left out. Each record moves out of the array into the result (no copy of its values).
                while let record = records.popLast() {
                    let id = record.objectID
                    guard let key = id.primaryKey else { continue }
                    if let asked = group.ids[key], asked == id {
                        found[asked] = record
                    } else if wanted.others.contains(id) {
                        found[id] = record
                    }
                }
            }
            return found
        }
    }

    /// The IDs among those a read by ID is given that this store gave, grouped by table and
    /// keyed by primary key: one dictionary lookup by entity name per run of IDs of one entity
    /// (not per ID), and integer keys to match the rows with.
    struct IDsByTable {
        /// Per table, its keys in the order given and the ID asked for each.
        var tables: [(table: String, keys: [Int64], ids: [Int64: ManagedObjectID])] = []
        /// IDs whose key another ID of the same table had already (the same row asked for
        /// under two entities): matched by equality.
        var others: Set<ManagedObjectID> = []

        init(_ objectIDs: [ManagedObjectID], of store: PostgreSQLStore) {
            var lastEntity: EntityDescription?
            let expected = objectIDs.count
            var slot = -1
            for id in objectIDs where id.storeIdentifier == store.identifier {
                guard let key = id.primaryKey else { continue }
                if id.entity !== lastEntity {
                    guard let mapping = store.schema.entities[id.entity.name] else { continue }
                    lastEntity = id.entity
                    if let index = tables.firstIndex(where: { $0.table == mapping.table }) {
                        slot = index
                    } else {
                        var keys: [Int64] = [], ids: [Int64: ManagedObjectID] = [:]
                        if tables.isEmpty {
                            keys.reserveCapacity(expected)
                            ids.reserveCapacity(expected)
                        }
                        tables.append((mapping.table, keys, ids))
                        slot = tables.count - 1
                    }
                }
                if let existing = tables[slot].ids[key] {
                    if existing != id { others.insert(id) }
                } else {
                    tables[slot].ids[key] = id
                    tables[slot].keys.append(key)
                }
            }
        }
    }

    /// The records a to-many relationship of `owners` relates them to, with each owner's
    /// related IDs, for prefetching: one statement (the owners' keys go as one array
    /// parameter), selecting by the inverse foreign key (or through the join table) and reading
    /// the owner's key with each row; the records leave their own to-many relationships out.
    /// Nil for a relationship this store does not keep that way.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    ///
    /// Corresponds to what Core Data's SQLite store reads for `relationshipKeyPathsForPrefetching`.
    public func records(relatedTo owners: [ManagedObjectID], through relationship: RelationshipDescription) throws -> StoreRelatedRecords? {
        try withConnection(.operationFailed) { connection, _ in
            try schema.relatedRecords(of: owners, through: relationship, storeIdentifier: identifier) { query, keys in
                try readRows(
                    connection, table: query.table, from: query.from, where: "\(query.ownerColumn) = ANY($1::bigint[])",
                    bindings: [Self.keyArray(keys)], orderAndLimit: query.order, ownerColumn: query.ownerColumn)
            }
        }
    }

    /// The records of `entity` (and its subentities), in primary-key order.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        guard let mapping = schema.entities[entity.name] else { return [] }
        let (condition, bindings) = schema.entityCondition(mapping, includesSubentities: includesSubentities)
        return try withConnection(.operationFailed) { connection, _ in
            try readRecords(
                connection, table: mapping.table, where: condition, bindings: bindings.map(Self.parameter),
                orderAndLimit: " ORDER BY \(mapping.table).\"Z_PK\"")
        }
    }

    /// The IDs `relationship` of the record of `objectID` relates it to, in one statement; nil
    /// for an ID this store did not give.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func relatedObjectIDs(of objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]? {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey,
              let mapping = schema.entities[objectID.entity.name]
        else { return nil }
        guard relationship.index < mapping.storage.count, let query = toManyQuery(mapping.storage[relationship.index]) else {
            return []
        }
        return try withConnection(.operationFailed) { connection, _ in
            try relatedIDs(connection, sql: query.head + "= ANY($1::bigint[])" + query.tail, keys: [key])[key] ?? []
        }
    }

    /// The versions (`Z_OPT`) of the records that exist among `objectIDs`; remembered, so that
    /// the ``apply(_:)`` that follows checks inside its transaction that no other process
    /// changed them in between.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] {
        try withConnection(.operationFailed) { connection, state in
            let current = try currentVersions(of: objectIDs, connection, locking: false)
            var reported: [ManagedObjectID: Int64?] = [:]
            for id in objectIDs { reported[id] = .some(current[id]) }
            state.reportedVersions = reported
            return current
        }
    }

    /// The `Z_OPT` of the rows of `ids` that exist, one statement per table; with `locking`,
    /// the rows stay locked until the transaction ends (`FOR UPDATE`).
    func currentVersions(of ids: [ManagedObjectID], _ connection: PostgreSQLConnection, locking: Bool) throws -> [ManagedObjectID: Int64] {
        var byTable: [String: [Int64: ManagedObjectID]] = [:]
        for id in ids where id.storeIdentifier == identifier {
            guard let key = id.primaryKey, let mapping = schema.entities[id.entity.name] else { continue }
            byTable[mapping.table, default: [:]][key] = id
        }
        var versions: [ManagedObjectID: Int64] = [:]
        for (table, ids) in byTable.sorted(by: { $0.key < $1.key }) {
            // Locked in key order, so two savers of overlapping rows wait instead of deadlocking.
            let result = try connection.run(
                "SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\" FROM \(table) WHERE \"Z_PK\" = ANY($1::bigint[]) ORDER BY \"Z_PK\""
                    + (locking ? " FOR UPDATE" : ""),
                [Self.keyArray(ids.keys.sorted())])
            for row in 0..<result.rowCount {
                guard let key = result.int64(row, 0), let id = ids[key], result.text(row, 1) == id.entity.name,
                      let version = result.int64(row, 2)
                else { continue }
                versions[id] = version
            }
        }
        return versions
    }

    // MARK: - Rows

    /// The query of a to-many relationship's related IDs around the condition on the owner's
    /// key; nil for other storage.
    func toManyQuery(_ storage: SQLSchema.Storage) -> (head: String, tail: String)? {
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

    /// Runs a to-many query for the owners `keys` (its condition is `= ANY($1::bigint[])`),
    /// grouping the related IDs by owner key.
    func relatedIDs(_ connection: PostgreSQLConnection, sql: String, keys: [Int64]) throws -> [Int64: [ManagedObjectID]] {
        let result = try connection.run(sql, [Self.keyArray(keys)], resultFormat: .binary)
        var related: [Int64: [ManagedObjectID]] = [:]
        var entities: [String: EntityDescription] = [:]
        for row in 0..<result.rowCount {
            guard let owner = result.int64(row, 0), let key = result.int64(row, 1), let name = result.text(row, 2) else {
                throw PersistenceError(.operationFailed, message: "a to-many relationship reads a row without keys", sql: sql)
            }
            guard let entity = entities[name] ?? model.entity(named: name) else {
                throw PersistenceError(.operationFailed, message: "row \(key) names an entity the model does not have: \(name)", sql: sql)
            }
            entities[name] = entity
            related[owner, default: []].append(ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: identifier, primaryKey: key)))
        }
        return related
    }

    /// Reads the rows of `table` (selected `from` it, or a join with it) matching `condition`
    /// into records that leave their to-many relationships out; with `ownerColumn`, also that
    /// column's value of each row.
    ///
    /// The values come in binary format: numbers, Booleans, UUIDs and bytes are read from their
    /// bytes, never through text. The rows of one entity (the usual case) cost no `String` for
    /// `Z_ENT`: each row's name is compared with the last one's bytes.
    func readRows(
        _ connection: PostgreSQLConnection, table: String, from: String? = nil, where condition: String,
        bindings: [PostgreSQLParameter], orderAndLimit: String = "", ownerColumn: String? = nil
    ) throws -> (records: [StoreRecord], owners: [Int64]) {
        var records: [StoreRecord] = []
        var owners: [Int64] = []
        try forEachRow(
            connection, table: table, from: from, where: condition, bindings: bindings, orderAndLimit: orderAndLimit,
            ownerColumn: ownerColumn
        ) { reader, row in
            if records.isEmpty { records.reserveCapacity(Int(reader.result.rowCount)) }
            var values = RecordRowValues(count: row.entity.properties.count)
            let objectID = try reader.decode(row, into: &values)
            records.append(
                StoreRecord(objectID: objectID, version: row.version, values: values.values, omittedRelationships: row.entity.toManyIndexes))
            if ownerColumn != nil {
                guard let owner = reader.result.int64(row.index, reader.result.columnCount - 1) else {
                    throw PersistenceError(.operationFailed, message: "a related row of \(table) has no owner key", sql: reader.sql)
                }
                owners.append(owner)
            }
        }
        return (records, owners)
    }

    /// Runs the query of the rows of `table` (selected `from` it, or a join with it) matching
    /// `condition`, and calls `body` with each row whose key, version and entity it checked;
    /// `body` decodes the row's values with ``RowReader/decode(_:into:)``. With `partial`, the
    /// names of the only properties to read, the other columns are selected as NULL and the rows'
    /// reads are those of these properties (see `SQLSchema.selectList(of:holding:model:)`).
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` for a row without a positive key or
    ///   version, or naming an entity the model does not have or whose records are in another
    ///   table; what `body` throws.
    func forEachRow(
        _ connection: PostgreSQLConnection, table: String, from: String? = nil, where condition: String,
        bindings: [PostgreSQLParameter], orderAndLimit: String = "", ownerColumn: String? = nil, holding partial: Set<String>? = nil,
        _ body: (RowReader, CheckedRow) throws -> Void
    ) throws {
        // A partial fetch selects only the columns of its properties (the others read NULL) and
        // decodes only those.
        guard let select = partial.flatMap({ schema.selectList(of: table, holding: $0, model: model) }) ?? schema.selectLists[table]?.sql
        else { return }
        let sql = "SELECT \(select)" + (ownerColumn.map { ", " + $0 } ?? "") + " FROM \(from ?? table)"
            + (condition.isEmpty ? "" : " WHERE " + condition) + orderAndLimit
        let result = try connection.run(sql, bindings, resultFormat: .binary)
        let reader = RowReader(store: self, result: result, table: table, sql: sql)
        // The entity of the last row and how its properties are read (not the whole mapping: a
        // copy of it per row would retain each of its arrays).
        var last: EntityDescription?
        var reads: [SQLSchema.Read] = []
        var entities: [String: (EntityDescription, SQLSchema.EntityMapping)] = [:]
        for row in 0..<result.rowCount {
            guard let key = result.int64(row, 0), key > 0 else {
                throw PersistenceError(.operationFailed, message: "a row of \(table) has no positive Z_PK", sql: sql)
            }
            guard let version = result.int64(row, 2), version >= 1 else {
                throw PersistenceError(
                    .operationFailed, message: "the record \(key) in \(table) has a version (Z_OPT) that is not a positive integer", sql: sql)
            }
            if last.map({ result.textEquals(row, 1, $0.name) }) != true {
                let name = result.text(row, 1) ?? ""
                if entities[name] == nil {
                    guard let entity = model.entity(named: name), let mapping = schema.entities[name] else {
                        throw PersistenceError(
                            .operationFailed, message: "row \(key) of \(table) names an entity the model does not have: \(name)", sql: sql)
                    }
                    guard mapping.table == table else {
                        throw PersistenceError(
                            .operationFailed,
                            message: "the record \(key) in \(table) names the entity \(name), whose records are in \(mapping.table)", sql: sql)
                    }
                    entities[name] = (entity, mapping)
                }
                guard let (entity, mapping) = entities[name] else { continue }
                last = entity
                reads = partial.map { SQLSchema.reads(mapping.reads, of: entity, holding: $0) } ?? mapping.reads
            }
            guard let entity = last else { continue }
            try body(reader, CheckedRow(index: row, entity: entity, reads: reads, key: key, version: version))
        }
    }

    /// A row of a result whose key, version and entity ``forEachRow(_:table:from:where:bindings:orderAndLimit:ownerColumn:_:)`` checked.
    struct CheckedRow {
        /// The row's position in the result.
        let index: Int32
        /// The row's entity (its `Z_ENT`) and how its properties read from the row.
        let entity: EntityDescription
        let reads: [SQLSchema.Read]
        /// The row's key (`Z_PK`) and version (`Z_OPT`).
        let key: Int64
        let version: Int64
    }

    /// Decodes the rows of one result: the one implementation of the rules a row's values must
    /// follow, whether they become a record or an object's typed storage.
    struct RowReader {
        let store: PostgreSQLStore
        let result: PostgreSQLResult
        let table: String
        let sql: String
        /// The store's interned identity, looked up once: each row's IDs then cost no lookup.
        let storeAddress: UInt

        init(store: PostgreSQLStore, result: PostgreSQLResult, table: String, sql: String) {
            self.store = store
            self.result = result
            self.table = table
            self.sql = sql
            storeAddress = ManagedObjectID.Key.permanent(storeIdentifier: store.identifier, primaryKey: 0).store
        }

        /// The ID of a record of `entity` with `key` in this store.
        func objectID(_ entity: EntityDescription, _ key: Int64) -> ManagedObjectID {
            ManagedObjectID(entity: entity, key: ManagedObjectID.Key(store: storeAddress, number: key))
        }

        /// Decodes the values of `row` into `values`, NULL columns skipped; returns the row's
        /// object ID.
        ///
        /// - Throws: ``PersistenceError/Code/operationFailed`` for NULL in a required
        ///   attribute, a value of another type or range than its attribute's, or a to-one
        ///   relationship naming an entity that is not its destination's kind.
        func decode(_ row: CheckedRow, into values: inout some DecodedRowValues) throws -> ManagedObjectID {
            let entity = row.entity, key = row.key, index = row.index
            let objectID = objectID(entity, key)
            // Values going straight into an object's slots skip the `StoreValue` where the slot
            // takes the decoded value as it is (binary results: what every store read asks for).
            let target = result.format == .binary ? values.slotTarget : nil
            for read in row.reads {
                let property = read.index, position = read.position, decoding = read.decoding
                switch read.kind {
                case .attribute:
                    if let target, decoding.hasColumn {
                        let outcome = result.withBytes(index, position) { bytes in
                            bytes.map { PostgreSQLStore.decode(binary: $0, as: decoding, into: target.slots[property], of: target.base) }
                        }
                        switch outcome {
                        case .stored?: continue
                        case .refused?: throw store.refusal(result, index, position, objectID: objectID, index: property, table: table)
                        case nil:
                            // NULL.
                            if read.isRequired { throw store.refusal(result, index, position, objectID: objectID, index: property, table: table) }
                            continue
                        case .notHandled?: break
                        }
                    }
                    // The value is read first; only a column that gives none is asked whether it
                    // is NULL (one look at the column for the usual, non-NULL value).
                    if let value = PostgreSQLStore.decode(result, index, position, as: decoding) {
                        if case .null = value {
                            // A type the store keeps no column for.
                            if read.isRequired && result.isNull(index, position) {
                                throw store.refusal(result, index, position, objectID: objectID, index: property, table: table)
                            }
                            continue
                        }
                        values.attribute(value, at: property)
                    } else if !result.isNull(index, position) || read.isRequired {
                        throw store.refusal(result, index, position, objectID: objectID, index: property, table: table)
                    }
                case .toOne:
                    guard let targetKey = result.int64(index, position), let destination = read.destination else { continue }
                    var target = destination
                    let entityPosition = read.entityPosition
                    if entityPosition >= 0, !result.isNull(index, entityPosition),
                       !result.textEquals(index, entityPosition, destination.name) {
                        let targetName = result.text(index, entityPosition) ?? ""
                        guard let named = store.model.entity(named: targetName), named.isKindOf(entity: destination) else {
                            throw PersistenceError(
                                .operationFailed,
                                message: "the record \(key) of \(entity.name) in \(table) names the entity \(targetName) in "
                                    + "\(entity.name).\(entity.properties[property].name), which is not \(destination.name) or one of its subentities",
                                objectID: objectID, sql: sql)
                        }
                        target = named
                    }
                    values.toOne(target, key: ManagedObjectID.Key(store: storeAddress, number: targetKey), at: property)
                case .toMany:
                    values.toMany(at: property)
                }
            }
            return objectID
        }
    }

    /// Reads the rows of `table` matching `condition` into records, then (with `readsToMany`)
    /// fills their to-many relationships with one statement per relationship.
    func readRecords(
        _ connection: PostgreSQLConnection, table: String, where condition: String, bindings: [PostgreSQLParameter],
        orderAndLimit: String = "", readsToMany: Bool = true
    ) throws -> [StoreRecord] {
        var records = try readRows(connection, table: table, where: condition, bindings: bindings, orderAndLimit: orderAndLimit).records
        guard readsToMany, !records.isEmpty else { return records }
        let keys = records.compactMap(\.objectID.primaryKey)
        var done = Set<String>()
        for name in Set(records.map(\.objectID.entity.name)).sorted() {
            guard let mapping = schema.entities[name] else { continue }
            for (index, storage) in mapping.storage.enumerated() {
                guard let query = toManyQuery(storage), done.insert("\(index) " + query.head).inserted else { continue }
                let related = try relatedIDs(connection, sql: query.head + "= ANY($1::bigint[])" + query.tail, keys: keys)
                for position in records.indices {
                    let entity = records[position].objectID.entity
                    guard let recordMapping = schema.entities[entity.name], index < recordMapping.storage.count,
                          toManyQuery(recordMapping.storage[index]).map({ $0.head + $0.tail }) == query.head + query.tail
                    else { continue }
                    records[position].values[index] = .toMany(related[records[position].objectID.primaryKey ?? 0] ?? [])
                    records[position].omittedRelationships.remove(index)
                }
            }
        }
        return records
    }

    /// The error for a row whose column at `position` breaks the attribute at `index`: NULL in
    /// a required attribute, or a value outside the attribute's type.
    fileprivate func refusal(
        _ result: PostgreSQLResult, _ row: Int32, _ position: Int32, objectID: ManagedObjectID, index: Int, table: String
    ) -> PersistenceError {
        let property = objectID.entity.properties[index]
        let problem = result.isNull(row, position)
            ? "is NULL, but the attribute is required"
            : "holds \(result.valueDescription(row, position)), which is not a value of its type"
        return PersistenceError(
            .operationFailed,
            message: "\(objectID.entity.name).\(property.name) of the record \(objectID.primaryKey ?? 0) in \(table) \(problem); "
                + "the store refuses to read the record rather than convert the value",
            objectID: objectID, key: property.name, sql: result.sql)
    }
}

private extension SQLSchema.Decoding {
    /// Whether the attribute has a column to read (not a type the store keeps no column for).
    var hasColumn: Bool {
        if case .none = self { return false }
        return true
    }
}
