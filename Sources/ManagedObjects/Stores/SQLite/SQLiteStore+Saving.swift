import Foundation

extension SQLiteStore: InsertedRowWriting {
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
        try apply(changes, rows: nil)
    }

    /// Applies `changes` with the objects of `rows` inserted after the records of
    /// `changes.inserted`, their rows written from the objects' storage (see
    /// ``InsertedRowWriting``), in one transaction as ``apply(_:)``.
    package func apply(_ changes: SaveChanges, inserting rows: InsertedObjectRows) throws {
        try apply(changes, rows: rows)
    }

    private func apply(_ changes: SaveChanges, rows: InsertedObjectRows?) throws {
        try withConnection(.saveFailed) { state in
            let reported = state.reportedVersions
            let pendingKeys = state.pendingKeys
            state.reportedVersions = [:]
            state.pendingKeys = [:]
            guard !changes.isEmpty || !(rows?.isEmpty ?? true) else { return }
            let connection = state.connection
            do {
                try connection.transaction {
                    try claimSaveKeys(pendingKeys, connection)
                    try checkVersions(changes, reported: reported, connection)
                    if let rows, !rows.isEmpty {
                        try recordHistory(
                            deleted: changes.deleted, inserted: changes.inserted.map(\.objectID) + rows.ids,
                            updated: changes.updated.map { ($0.objectID, changes.history.updatedProperties(of: $0)) },
                            author: changes.history.author, contextName: changes.history.contextName, connection)
                    } else {
                        try recordHistory(changes, connection)
                    }
                    try writeRows(changes, rows, connection)
                }
            } catch let error as SaveKeysTaken {
                // The save is applied again with other keys: it needs the versions it checked.
                state.reportedVersions = reported
                throw error
            }
        }
    }

    private func writeRows(_ changes: SaveChanges, _ rows: InsertedObjectRows?, _ connection: SQLiteConnection) throws {
        for id in changes.deleted { try delete(id, connection) }
        // Updated rows before new ones: a value of a uniqueness constraint that an update
        // frees may be taken by an insert of the same save.
        try write(changes.updated, inserting: false, connection)
        try write(changes.inserted, inserting: true, connection)
        // Relationships after every row: an ordered one-to-many's positions are written into
        // the related rows, which may be new too.
        let recordsOfRows = try rows.map { try write($0, connection) } ?? []
        try writeRelationships(of: changes.inserted, isNew: true, connection)
        try writeRelationships(of: recordsOfRows, isNew: true, connection)
        try writeRelationships(of: changes.updated, isNew: false, connection)
    }

    /// Inserts the rows of the objects of `rows` from their storage, each run of objects of one
    /// entity through one cached statement. An object whose row cannot be written that way (a
    /// slot the store does not bind as it is, such as a transformable attribute's, or objects
    /// related through a join table or an ordered one-to-many) is written from its record,
    /// which is returned for its relationship writes.
    private func write(_ rows: InsertedObjectRows, _ connection: SQLiteConnection) throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        var start = rows.objects.startIndex
        while start < rows.objects.endIndex {
            // A run of objects of one entity: its mapping, statement and plan are locals of the
            // run, not copied out of an optional for each row (a copy retains each of their arrays).
            let entity = rows.ids[start].entity
            var end = start + 1
            while end < rows.objects.endIndex && rows.ids[end].entity === entity { end += 1 }
            let (mapping, _) = try mapping(of: rows.ids[start])
            let statement = try connection.cachedStatement(mapping.insertSQL)
            // Every parameter is bound for every row (see `write(_:inserting:_:)`), but for the
            // entity and version columns of rows written from storage: the same for the whole
            // run, they are bound once (a record's row binds them again, to the same values).
            statement.reset()
            // The text the rows bind without copying stays until the bindings are cleared: the
            // reset below runs first.
            var text = BorrowedTextBytes()
            defer { text.deallocate() }
            defer { statement.reset() }
            try statement.bind(entity.name, at: 2)
            try statement.bind(Int64(1), at: 3)
            let plan = StorageRowPlan(mapping, entity: entity, values: rows.objects[start].values)
            // `rows` holds every object for the walk: none is retained and released per row.
            try rows.objects.forEachUnretained(in: start..<end) { index, object in
                let id = rows.ids[index]
                // The object's values borrowed, not retained per row: the row's writing reads
                // them only (its related objects' IDs are looked up, nothing is written).
                let wrote = try object.withValuesUnretained { values -> Bool in
                    guard let plan, plan.fits(values), !plan.relatesBeyondRow(values) else { return false }
                    text.startRow()
                    try writeRow(
                        of: object, id: id, values: values, plan: plan, mapping: mapping, rows: rows, statement: statement, text: &text)
                    return true
                }
                if !wrote {
                    let record = try rows.record(object, id)
                    try write(record, mapping: mapping, statement: statement, inserting: true)
                    records.append(record)
                }
            }
            start = end
        }
        return records
    }

    /// Inserts the row of `object` (ID `id`) from its storage `values`, as
    /// `write(_:mapping:statement:inserting:)` inserts its record: the same bindings, the same
    /// errors. The entity and version columns (parameters 2 and 3) are bound by the caller, once
    /// for its run of rows of one entity; the text is bound from `text`, without SQLite copying it.
    private func writeRow(
        of object: ManagedObject, id: ManagedObjectID, values: borrowing PropertyValues, plan: StorageRowPlan,
        mapping: SQLSchema.EntityMapping, rows: InsertedObjectRows, statement: SQLiteStatement, text: inout BorrowedTextBytes
    ) throws {
        guard id.storeIdentifier == identifier, let key = id.primaryKey else {
            throw PersistenceError(.saveFailed, message: "\(id) is not an object ID of this store", objectID: id)
        }
        defer { statement.resetKeepingBindings() }
        try statement.bind(key, at: 1)
        var parameter: Int32 = 4
        // A to-one's entity column follows its key column: the related ID is found once.
        var relatedID: ManagedObjectID?
        // The plan's columns hold no references: the loop retains and releases nothing per column.
        for column in plan.columns {
            defer { parameter += 1 }
            let index = column.index
            if let relationship = column.relationship {
                if !column.isEntityColumn {
                    relatedID = try values.load(ManagedObject.self, at: index).map {
                        try rows.relatedID($0, relationship.takeUnretainedValue(), object)
                    }
                }
                if column.isEntityColumn {
                    if let relatedID { try text.bind(relatedID.entity.name, at: parameter, to: statement) } else { try statement.bind(.null, at: parameter) }
                } else if let key = relatedID?.primaryKey {
                    try statement.bind(key, at: parameter)
                } else {
                    try statement.bind(.null, at: parameter)
                }
                continue
            }
            func real(_ value: Double) throws -> SQLiteValue {
                guard value.isNaN else { return .real(value) }
                let name = id.entity.properties[index].name
                throw PersistenceError(
                    .saveFailed, message: "\(id.entity.name).\(name) of \(id) is NaN, which SQLite cannot keep", objectID: id, key: name)
            }
            switch column.kind {
            case .int16: try statement.bind(values.load(Int16.self, at: index).map { .integer(Int64($0)) } ?? .null, at: parameter)
            case .int32: try statement.bind(values.load(Int32.self, at: index).map { .integer(Int64($0)) } ?? .null, at: parameter)
            case .int64:
                if let value = values.load(Int64.self, at: index) { try statement.bind(value, at: parameter) } else { try statement.bind(.null, at: parameter) }
            case .double: try statement.bind(values.load(Double.self, at: index).map(real) ?? .null, at: parameter)
            // As key-value coding widens a `Float` (as the record path does).
            case .float:
                try statement.bind(
                    values.load(Float.self, at: index).flatMap { convertKeyValue($0, to: Double.self) }.map(real) ?? .null, at: parameter)
            case .boolean: try statement.bind(values.load(Bool.self, at: index).map { .integer($0 ? 1 : 0) } ?? .null, at: parameter)
            case .date: try statement.bind(values.load(Date.self, at: index).map { try real($0.timeIntervalSinceReferenceDate) } ?? .null, at: parameter)
            case .decimal: try statement.bind(values.load(Decimal.self, at: index).map { .text($0.description) } ?? .null, at: parameter)
            case .uuid:
                try statement.bind(
                    values.load(UUID.self, at: index).map { uuid in .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) } ?? .null, at: parameter)
            case .string:
                if let value = values.load(String.self, at: index) { try text.bind(value, at: parameter, to: statement) } else { try statement.bind(.null, at: parameter) }
            case .data: try statement.bind(values.load(Data.self, at: index).map(SQLiteValue.blob) ?? .null, at: parameter)
            case .url: try statement.bind(values.load(URL.self, at: index).map { .text($0.absoluteString) } ?? .null, at: parameter)
            // Not in a plan (see `StorageRowPlan`).
            case .object, .any, .toMany, .orderedToMany: try statement.bind(.null, at: parameter)
            }
        }
        while try statement.step() {}
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

/// The UTF-8 bytes of the text a run of rows binds without SQLite copying it (see
/// `SQLiteStatement.bindText(borrowing:count:at:)`): each row's strings are copied here, after
/// the previous row's (a copy of a few bytes, where SQLite would allocate and free a copy of
/// each). A chunk too small for a row is replaced and kept until `deallocate()`, since the
/// row's earlier parameters point into it. The owner clears the statement's bindings before it
/// deallocates the bytes.
private struct BorrowedTextBytes {
    private var chunk: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    private var retired: [UnsafeMutableRawPointer] = []

    init() {
        capacity = 512
        chunk = .allocate(byteCount: capacity, alignment: 1)
    }

    /// Starts a row: the previous row's parameters are all bound again before the statement
    /// runs, so their bytes may be overwritten.
    mutating func startRow() { used = 0 }

    /// Binds `string` at `parameter` of `statement` from a copy of its bytes here.
    ///
    /// - Throws: What binding it throws (a string too long for SQLite).
    mutating func bind(_ string: String, at parameter: Int32, to statement: SQLiteStatement) throws {
        var string = string
        try string.withUTF8 { bytes in
            // Too long for SQLite: the bind throws for the length before it reads a byte.
            guard bytes.count <= Int(Int32.max) else {
                return try statement.bindText(borrowing: chunk.assumingMemoryBound(to: CChar.self), count: bytes.count, at: parameter)
            }
            if used + bytes.count > capacity {
                retired.append(chunk)
                capacity = Swift.max(2 * capacity, bytes.count)
                chunk = .allocate(byteCount: capacity, alignment: 1)
                used = 0
            }
            // Never a null address, even for empty text (SQLite binds NULL for one).
            let target = chunk + used
            if let base = bytes.baseAddress { target.copyMemory(from: base, byteCount: bytes.count) }
            used += bytes.count
            try statement.bindText(borrowing: target.assumingMemoryBound(to: CChar.self), count: bytes.count, at: parameter)
        }
    }

    /// Frees the bytes; the statement's bindings must be cleared first.
    func deallocate() {
        chunk.deallocate()
        for chunk in retired { chunk.deallocate() }
    }
}

/// How the rows of one entity's objects are written from their storage: each written column's
/// slot kind, and its to-one relationship. Made only when every written column's slot holds its
/// value as the store binds it (no `Any` slot: transformable and undefined attributes).
private struct StorageRowPlan {
    /// One of the mapping's written columns, as a row binds it.
    struct Column {
        /// The property index of the column's slot.
        let index: Int
        /// Whether the column is a to-one's entity column (after its key column).
        let isEntityColumn: Bool
        /// The slot's kind.
        let kind: PropertySlotKind
        /// The column's to-one relationship, for a key or entity column. SAFETY: unretained;
        /// `relationships` holds it as long as the plan.
        let relationship: Unmanaged<RelationshipDescription>?
    }

    /// The mapping's written columns, in their order.
    let columns: [Column]
    /// The to-one relationships of the columns, held for `Column/relationship`.
    let relationships: [RelationshipDescription]
    /// The number of properties, which an object's storage must have.
    let count: Int
    /// The property indexes of the to-many relationships written beyond the row.
    let beyondRow: [Int]

    /// A plan from an object's `values`; nil when one of them cannot be written from storage.
    init?(_ mapping: SQLSchema.EntityMapping, entity: EntityDescription, values: PropertyValues) {
        let properties = entity.properties
        guard values.count == properties.count else { return nil }
        var columns: [Column] = [], relationships: [RelationshipDescription] = []
        for column in mapping.writtenColumns {
            guard column.index < properties.count, let kind = values.kind(at: column.index) else { return nil }
            let relationship = properties[column.index] as? RelationshipDescription
            if relationship != nil ? kind != .object : (kind == .object || kind == .any) { return nil }
            if let relationship { relationships.append(relationship) }
            columns.append(Column(
                index: column.index, isEntityColumn: column.isEntityColumn, kind: kind, relationship: relationship.map(Unmanaged.passUnretained)))
        }
        var beyondRow: [Int] = []
        for (index, storage) in mapping.storage.enumerated() {
            switch storage {
            case .toManyByJoin, .toManyByInverse(_, _, _?): beyondRow.append(index)
            default: continue
            }
            guard values.kind(at: index)?.isToMany == true else { return nil }
        }
        self.columns = columns
        self.relationships = relationships
        self.count = properties.count
        self.beyondRow = beyondRow
    }

    /// Whether `values` has the layout the plan was made from (an object's storage is laid
    /// out by its entity, or empty for a fault).
    func fits(_ values: borrowing PropertyValues) -> Bool { values.count == count }

    /// Whether a new object with `values` relates objects through a relationship written
    /// beyond its row; anything but an empty collection there counts as relating.
    func relatesBeyondRow(_ values: borrowing PropertyValues) -> Bool {
        for index in beyondRow {
            switch values.toManyContents(at: index) {
            case .set(let set): if !set.isEmpty { return true }
            case .array(let array): if !array.isEmpty { return true }
            // Nil relates nothing; an unread fault or anything else takes the record's path.
            case .other(nil), nil: continue
            case .unread, .other: return true
            }
        }
        return false
    }
}
