import Foundation

/// A row's values as a record holds them.
struct RecordRowValues: DecodedRowValues {
    var values: [StoreValue]

    init(count: Int) { values = [StoreValue](repeating: .null, count: count) }

    mutating func attribute(_ value: StoreValue, at index: Int) { values[index] = value }
    mutating func toOne(_ entity: EntityDescription, key: ManagedObjectID.Key, at index: Int) {
        values[index] = .toOne(ManagedObjectID(entity: entity, key: key))
    }
    mutating func toMany(at index: Int) { values[index] = .toMany([]) }
    var slotTarget: SlotTarget? { nil }
}

extension SQLiteStore: TypedRowReading {
    /// Decodes the row of `objectID` into `sink`, one statement, as ``faultRecord(for:)``
    /// reads it.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when the file cannot be read or a
    ///   value in it cannot be decoded; what the sink throws.
    package func readFaultRow(for objectID: ManagedObjectID, into sink: inout some TypedRowSink) throws -> Bool {
        // A temporary ID's key holds 0, another store's another address.
        guard objectID.key.store == identityAddress else { return false }
        let key = objectID.key.number, entity = objectID.entity
        return try withConnection(.operationFailed) { state in
            try faultRowReader(for: entity, &state)?.read(key: key, store: self, into: &sink) ?? false
        }
    }

    /// Decodes the rows of `objectIDs` into `sink`: one statement per table per 1,000 IDs, the
    /// statements ``faultRecords(for:)`` runs.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; what the sink throws.
    package func readFaultRows(for objectIDs: [ManagedObjectID], into sink: inout some TypedRowSink) throws {
        try withConnection(.operationFailed) { state in
            let connection = state.connection
            let chunkSize = min(Self.keysPerStatement, connection.parameterLimit)
            try schema.forEachKeyChunk(of: objectIDs, storeIdentifier: identifier, chunkSize: chunkSize) { table, keys, _ in
                let statementKey = SQLiteConnection.StatementKey(purpose: 1, entityName: table, count: keys.count)
                var kinds = EntityLookup()
                try forEachKeyedRow(
                    connection, table: table,
                    where: "\(table).\"Z_PK\" IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))",
                    keys: keys, cacheKey: statementKey
                ) { row in
                    let (entity, reads) = try rowEntity(row, table: table, kinds: &kinds)
                    try decodeRow(row, entity: entity, reads: reads, table: table, into: &sink)
                }
            }
        }
    }

    /// Decodes the rows a fetch asks for into `sink`: the one statement ``fetch(_:)`` runs.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; what the sink throws.
    package func readFetchRows(
        _ request: StoreFetchRequest, into sink: inout some TypedRowSink
    ) throws -> (appliedPredicate: Bool, appliedSortAndLimit: Bool) {
        guard let plan = plan(request) else { return (true, true) }
        let table = plan.mapping.table
        // Rows of the fetched entity itself (most rows of most fetches) are decoded with its
        // entity and reads held for the whole fetch: `rowEntity` would hand each row its own
        // references to them, two atomic retains and releases per row.
        let modelEntity = model.entity(named: request.entity.name)
        let hasFetched = modelEntity != nil
        let fetched = modelEntity ?? request.entity
        // A partial fetch selects only the columns of its properties (the others read NULL) and
        // decodes only those.
        let partial = request.propertiesToFetch
        let selectList = partial.flatMap { schema.selectList(of: table, holding: $0, model: model) }
        let fetchedReads = partial.map { SQLSchema.reads(plan.mapping.reads, of: fetched, holding: $0) } ?? plan.mapping.reads
        var partialReads: [ObjectIdentifier: [SQLSchema.Read]] = [:]
        let fetchedName = Array(request.entity.name.utf8)
        try withPlan(plan) { state in
            var kinds = EntityLookup()
            try forEachSelectedRow(
                state.connection, table: table, where: plan.condition, bindings: plan.sqliteBindings, orderAndLimit: plan.orderAndLimit,
                selectList: selectList
            ) { row in
                if hasFetched, row.textEquals(fetchedName, at: 1) {
                    try decodeRow(row, entity: fetched, reads: fetchedReads, table: table, into: &sink)
                } else {
                    var (entity, reads) = try rowEntity(row, table: table, kinds: &kinds)
                    if let partial {
                        reads = partialReads[ObjectIdentifier(entity)] ?? SQLSchema.reads(reads, of: entity, holding: partial)
                        partialReads[ObjectIdentifier(entity)] = reads
                    }
                    try decodeRow(row, entity: entity, reads: reads, table: table, into: &sink)
                }
            }
        }
        return (plan.appliedPredicate, plan.appliedSortAndLimit)
    }

    /// Decodes one row of a record of `entity`, whose columns read as `reads`, into a new
    /// storage of the entity's layout and hands it to `sink`, with the checks and errors of
    /// ``decodeRow(_:entity:reads:table:)``.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; what the sink throws.
    func decodeRow(
        _ row: SQLiteStatement, entity: EntityDescription, reads: [SQLSchema.Read], table: String, into sink: inout some TypedRowSink
    ) throws {
        try sink.receiveDecodedRow(of: entity) { writer in
            let (key, version) = try decodeRow(row, entity: entity, reads: reads, table: table, into: &writer)
            return (objectID(entity, key), version)
        }
    }
}
