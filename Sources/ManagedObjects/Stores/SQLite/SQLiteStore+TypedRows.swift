import Foundation

/// Where ``SQLiteStore/decodeRow(_:entity:reads:table:into:)`` hands the values of a row it
/// checked: a record's array, or an object's typed storage.
protocol DecodedRowValues {
    /// The value of the attribute at `index` (never `.null`: NULL columns are skipped).
    mutating func attribute(_ value: StoreValue, at index: Int)
    /// The record the to-one relationship at `index` relates the row to (NULL is skipped).
    mutating func toOne(_ id: ManagedObjectID, at index: Int)
    /// The to-many relationship at `index`, whose IDs the row does not hold.
    mutating func toMany(at index: Int)
}

/// A row's values as a record holds them.
struct RecordRowValues: DecodedRowValues {
    var values: [StoreValue]

    init(count: Int) { values = [StoreValue](repeating: .null, count: count) }

    mutating func attribute(_ value: StoreValue, at index: Int) { values[index] = value }
    mutating func toOne(_ id: ManagedObjectID, at index: Int) { values[index] = .toOne(id) }
    mutating func toMany(at index: Int) { values[index] = .toMany([]) }
}

/// A row's values written into the slots of an object's storage (see
/// ``PropertyValues/withUniqueSlots(_:)``): each slot holds an initialized `T?` of its kind's
/// type, assigned in place. Values a slot does not take as they are wait in `deferred` for the
/// sink's conversion, in the order of their indexes.
struct SlotRowValues<Sink: TypedRowSink>: DecodedRowValues {
    let slots: ContiguousArray<PropertyLayout.Slot>
    let base: UnsafeMutableRawPointer
    let sink: Sink
    var deferred: [(index: Int, value: StoreValue)] = []

    @inline(__always)
    private func write<T>(_ value: T, _ slot: UnsafeMutableRawPointer) {
        slot.assumingMemoryBound(to: T?.self).pointee = value
    }

    mutating func attribute(_ value: StoreValue, at index: Int) {
        let slot = base + slots[index].offset
        // The conversions `ManagedObjectContext.objectValue(_:for:of:)` makes without loss are
        // made here in place; anything else (a number the narrower type cannot hold, data for a
        // value transformer, an `Any` slot) takes the context's path.
        switch (value, slots[index].kind) {
        case (.integer(let integer), .int64): write(integer, slot)
        case (.integer(let integer), .int32):
            if let narrow = Int32(exactly: integer) { write(narrow, slot) } else { deferred.append((index, value)) }
        case (.integer(let integer), .int16):
            if let narrow = Int16(exactly: integer) { write(narrow, slot) } else { deferred.append((index, value)) }
        case (.double(let double), .double): write(double, slot)
        case (.double(let double), .float):
            let float = Float(double)
            if float.isInfinite && double.isFinite { deferred.append((index, value)) } else { write(float, slot) }
        case (.string(let string), .string): write(string, slot)
        case (.boolean(let bool), .boolean): write(bool, slot)
        case (.date(let date), .date): write(date, slot)
        case (.decimal(let decimal), .decimal): write(decimal, slot)
        case (.data(let data), .data): write(data, slot)
        case (.uuid(let uuid), .uuid): write(uuid, slot)
        case (.uri(let url), .url): write(url, slot)
        default: deferred.append((index, value))
        }
    }

    mutating func toOne(_ id: ManagedObjectID, at index: Int) {
        // Registers a fault for the related record when none is registered; that touches no
        // other buffer's slots than the new object's.
        base.advanced(by: slots[index].offset).assumingMemoryBound(to: ManagedObject?.self).pointee = sink.relatedObject(for: id)
    }

    mutating func toMany(at index: Int) {
        // Left nil: the context gives the object a relationship fault.
    }
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
        try withPlan(plan) { state in
            var kinds = EntityLookup()
            try forEachSelectedRow(
                state.connection, table: table, where: plan.condition, bindings: plan.sqliteBindings, orderAndLimit: plan.orderAndLimit
            ) { row in
                let (entity, reads) = try rowEntity(row, table: table, kinds: &kinds)
                try decodeRow(row, entity: entity, reads: reads, table: table, into: &sink)
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
        var values = PropertyValues(layout: entity.layout)
        let related = sink
        let (key, version, deferred) = try values.withUniqueSlots { slots, base in
            var writer = SlotRowValues(slots: slots, base: base, sink: related)
            let (key, version) = try decodeRow(row, entity: entity, reads: reads, table: table, into: &writer)
            return (key, version, writer.deferred)
        }
        let id = objectID(entity, key)
        if !deferred.isEmpty {
            let slots = entity.layout.slots
            for (index, value) in deferred.sorted(by: { $0.index < $1.index }) {
                try sink.storeConverted(value, for: entity.properties[index], kind: slots[index].kind, into: &values, of: id)
            }
        }
        try sink.receiveRow(id, version: version, values: consume values)
    }
}
