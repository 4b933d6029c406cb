import Foundation
import ModelObjects

extension SQLiteStore {
    /// The records a fetch asks for, with as much of the request as SQL can do exactly.
    ///
    /// Translated: comparisons of an attribute with a constant (`==`, `!=`, `<`, `<=`, `>`,
    /// `>=`, `BETWEEN`, `IN` a constant array; `BEGINSWITH`, `ENDSWITH`, `CONTAINS` on strings),
    /// also through a to-one relationship (`department.name`); string comparisons with `[c]`,
    /// `[d]` or `[n]` options, `LIKE` and `MATCHES`. Strings are compared by SQLite when value
    /// and constant are ASCII, else (and for `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, options,
    /// `LIKE`, `MATCHES`) through the SQL function `mo_compare`, which runs the predicate
    /// module's own comparison on each row's value;
    /// `nil` comparisons; a to-one relationship or `SELF` compared with the fetching context's
    /// own saved objects (``StoreObjectReference``: `==`, `!=`, `IN`); `ANY`, `ALL` and `NONE`
    /// of an attribute of an unordered to-many relationship's members, and a to-many
    /// relationship's `@count`, `@sum`, `@avg`, `@min` and `@max`, as subqueries; `AND`, `OR`, `NOT`,
    /// `TRUEPREDICATE`, `FALSEPREDICATE`; sort descriptors on attributes with the default
    /// comparison, also through a to-one relationship. Integer, floating-point, boolean, string
    /// and date attributes take part; decimals (kept as text), data, UUIDs and URIs do not. Comparisons keep the two-valued logic of
    /// in-memory evaluation: a nil value is never ordered against a constant, `!= x` is true
    /// for nil, and `NOT` of a comparison with a nil value is true.
    ///
    /// Of a top-level `AND`, the conjuncts that translate are applied and the rest is left to
    /// the context (``StoreFetchResult/appliedPredicate`` is then false). Limit and offset are
    /// applied only with the whole predicate and every sort descriptor.
    ///
    /// One statement: the records leave their to-many relationships out
    /// (``StoreRecord/omittedRelationships``), which the context reads when first used.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        guard let plan = plan(request) else {
            return StoreFetchResult(records: [], appliedPredicate: true, appliedSortAndLimit: true)
        }
        let records = try withPlan(plan) { state in
            try readRecords(
                state.connection, table: plan.mapping.table, where: plan.condition, bindings: plan.sqliteBindings,
                orderAndLimit: plan.orderAndLimit, readsToMany: false)
        }
        return StoreFetchResult(records: records, appliedPredicate: plan.appliedPredicate, appliedSortAndLimit: plan.appliedSortAndLimit)
    }

    /// Counts with `SELECT COUNT(*)` when the whole predicate translates to SQL; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func count(for request: StoreFetchRequest) throws -> Int? {
        guard let plan = plan(request) else { return 0 }
        guard plan.appliedPredicate else { return nil }
        let sql = "SELECT COUNT(*) FROM \(plan.mapping.table)" + (plan.condition.isEmpty ? "" : " WHERE " + plan.condition)
        let total = try withPlan(plan) { state in
            var total: Int64 = 0
            try state.connection.cachedStatement(sql).forEachRow(plan.sqliteBindings) { row in total = row.int64(at: 0) }
            return Int(total)
        }
        let afterOffset = max(0, total - max(0, request.fetchOffset))
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    /// Reads the keys and the attributes' columns, nothing else, when the predicate and the sort
    /// descriptors translate to SQL; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``.
    public func fetchAttributes(_ attributes: [AttributeDescription], for request: StoreFetchRequest) throws -> StoreAttributeRows? {
        guard let plan = plan(request) else { return StoreAttributeRows(objectIDs: [], values: [], attributeCount: attributes.count) }
        guard plan.appliedSortAndLimit else { return nil }
        var columns: [(column: String, decoding: SQLSchema.Decoding, isRequired: Bool)] = []
        for attribute in attributes {
            guard attribute.index < plan.mapping.storage.count,
                  case .attribute(let column, let type) = plan.mapping.storage[attribute.index]
            else { return nil }
            columns.append((column, SQLSchema.Decoding(type), !attribute.isOptional))
        }
        let table = plan.mapping.table
        let sql = "SELECT \(table).\"Z_PK\", \(table).\"Z_ENT\"" + columns.map { ", \(table).\($0.column)" }.joined()
            + " FROM \(table)" + (plan.condition.isEmpty ? "" : " WHERE " + plan.condition) + plan.orderAndLimit
        return try withPlan(plan) { state in
            var rows = StoreAttributeRows(objectIDs: [], values: [], attributeCount: attributes.count)
            var last: (name: String, entity: EntityDescription)?
            // Without subentities every row is of the request's entity: its name is not read.
            let onlyEntity = request.includesSubentities && !request.entity.subentities.isEmpty ? nil : request.entity
            try state.connection.cachedStatement(sql).forEachRow(plan.sqliteBindings) { row in
                guard let key = row.key(at: 0) else {
                    throw PersistenceError(
                        .operationFailed,
                        message: "a row of \(table) holds \(Self.describeStoredValue(row.value(at: 0))) in Z_PK, which is not a positive integer", sql: sql)
                }
                let entity: EntityDescription
                if let onlyEntity {
                    entity = onlyEntity
                } else {
                    let name = row.text(at: 1)
                    if let last, last.name == name {
                        entity = last.entity
                    } else {
                        guard let found = model.entity(named: name) else {
                            throw PersistenceError(
                                .operationFailed, message: "row \(key) of \(table) names an entity the model does not have: \(name)",
                                sql: sql)
                        }
                        let elsewhere = schema.entities[name]?.table ?? "no table"
                        guard elsewhere == table else {
                            throw PersistenceError(
                                .operationFailed, message: "the record \(key) in \(table) names the entity \(name), whose records are in \(elsewhere)",
                                sql: sql)
                        }
                        entity = found
                        last = (name, found)
                    }
                }
                rows.objectIDs.append(ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: identifier, primaryKey: key)))
                for (offset, column) in columns.enumerated() {
                    let position = Int32(offset + 2)
                    let storage = row.storageClass(at: position)
                    guard storage != .null || !column.isRequired,
                          let value = storage == .null ? .null : decode(row, at: position, storage, as: column.decoding)
                    else {
                        throw refusal(row, at: position, entity: entity, index: attributes[offset].index, key: key, table: table)
                    }
                    rows.values.append(value)
                }
            }
            return rows
        }
    }

    /// A request in SQL (see ``SQLFetchPlan``); nil when the store has no table for the entity
    /// (no records).
    func plan(_ request: StoreFetchRequest) -> SQLFetchPlan? {
        SQLFetchPlan(request, schema: schema, storeIdentifier: identifier)
    }

    /// Runs `body` with the connection, the plan's comparisons in the slots `mo_compare` reads.
    /// When `mo_compare` stops a statement at a row whose value is not text, the error is the
    /// one reading that row gives (naming its entity, attribute and record).
    func withPlan<Result>(_ plan: SQLFetchPlan, _ body: (inout State) throws -> Result) throws -> Result {
        try withConnection(.operationFailed) { state in
            state.comparisonFunction.comparisons = plan.evaluatedComparisons
            state.comparisonFunction.refused = nil
            defer {
                state.comparisonFunction.comparisons = []
                state.comparisonFunction.refused = nil
            }
            do {
                return try body(&state)
            } catch let error as SQLiteError {
                guard let refused = state.comparisonFunction.refused else { throw error }
                _ = try readRecords(
                    state.connection, table: refused.table, where: "\(refused.table).\"Z_PK\" = ?", bindings: [.integer(refused.key)],
                    readsToMany: false)
                throw error
            }
        }
    }
}

extension SQLFetchPlan {
    /// The bindings as SQLite binds them.
    var sqliteBindings: [SQLiteValue] { bindings.map(SQLiteValue.init) }
}

extension SQLiteValue {
    /// A translated condition's value.
    init(_ value: SQLValue) {
        switch value {
        case .null: self = .null
        case .integer(let integer): self = .integer(integer)
        case .real(let real): self = .real(real)
        case .text(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}
