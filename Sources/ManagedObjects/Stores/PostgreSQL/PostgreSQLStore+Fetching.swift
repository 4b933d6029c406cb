import Foundation

extension PostgreSQLStore {
    /// The records a fetch asks for, with as much of the request as SQL does exactly: what
    /// `SQLPredicateTranslator` translates in PostgreSQL's dialect (comparisons of numbers,
    /// Booleans, dates and strings (equality and order of their NFC forms), `nil`, to-one and
    /// `SELF` comparisons with the context's objects, `ANY`/`ALL`/`NONE` and aggregates over
    /// to-many relationships, `AND`/`OR`/`NOT`, sorts, limit and offset). Conjuncts with string
    /// options, `LIKE`, `MATCHES`, `BEGINSWITH`, `ENDSWITH` or `CONTAINS` stay with in-memory
    /// evaluation, and then so do sorting, limit and offset.
    ///
    /// One statement: the records leave their to-many relationships out.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        guard let plan = SQLFetchPlan(request, schema: schema, storeIdentifier: identifier) else {
            return StoreFetchResult(records: [], appliedPredicate: true, appliedSortAndLimit: true)
        }
        let records = try withConnection(.operationFailed) { connection, _ in
            try readRecords(
                connection, table: plan.mapping.table, where: plan.condition, bindings: plan.bindings.map(Self.parameter),
                orderAndLimit: Self.orderAndLimit(of: plan, for: request), readsToMany: false)
        }
        return StoreFetchResult(records: records, appliedPredicate: plan.appliedPredicate, appliedSortAndLimit: plan.appliedSortAndLimit)
    }

    /// The ORDER BY and LIMIT clause a fetch of `request` runs with: `plan`'s, or none when the
    /// request asks for no order, limit or offset. Its rows are then in the order the server
    /// reads them (Core Data's fetches without sort descriptors promise no order either): a
    /// sequential scan, where `ORDER BY "Z_PK"` would make the plan an index scan or a sort of
    /// every matching row.
    static func orderAndLimit(of plan: SQLFetchPlan, for request: StoreFetchRequest) -> String {
        request.sortDescriptors.isEmpty && request.fetchLimit <= 0 && request.fetchOffset <= 0 ? "" : plan.orderAndLimit
    }

    /// Counts with `SELECT count(*)` when the whole predicate translates; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func count(for request: StoreFetchRequest) throws -> Int? {
        guard let plan = SQLFetchPlan(request, schema: schema, storeIdentifier: identifier) else { return 0 }
        guard plan.appliedPredicate else { return nil }
        let sql = "SELECT count(*) FROM \(plan.mapping.table)" + (plan.condition.isEmpty ? "" : " WHERE " + plan.condition)
        let total = try withConnection(.operationFailed) { connection, _ in
            try connection.run(sql, plan.bindings.map(Self.parameter)).int64(0, 0) ?? 0
        }
        let afterOffset = max(0, Int(clamping: total) - max(0, request.fetchOffset))
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    /// Reads the keys and the attributes' columns, nothing else, when the predicate and the sort
    /// descriptors translate; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed``; ``PersistenceError/Code/connectionFailed``.
    public func fetchAttributes(_ attributes: [AttributeDescription], for request: StoreFetchRequest) throws -> StoreAttributeRows? {
        guard let plan = SQLFetchPlan(request, schema: schema, storeIdentifier: identifier) else {
            return StoreAttributeRows(objectIDs: [], values: [], attributeCount: attributes.count)
        }
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
        return try withConnection(.operationFailed) { connection, _ in
            let result = try connection.run(sql, plan.bindings.map(Self.parameter), resultFormat: .binary)
            var rows = StoreAttributeRows(objectIDs: [], values: [], attributeCount: attributes.count)
            rows.objectIDs.reserveCapacity(Int(result.rowCount))
            rows.values.reserveCapacity(Int(result.rowCount) * attributes.count)
            // The last row's entity: a row of the same entity costs no `String` for its name.
            var last: EntityDescription?
            // The store's interned identity, looked up once: each row's ID then costs no lookup.
            let store = ManagedObjectID.Key.permanent(storeIdentifier: identifier, primaryKey: 0).store
            for row in 0..<result.rowCount {
                guard let key = result.int64(row, 0), !result.isNull(row, 1) else {
                    throw PersistenceError(.operationFailed, message: "a row of \(table) has no key or entity", sql: sql)
                }
                if last.map({ result.textEquals(row, 1, $0.name) }) != true {
                    let name = result.text(row, 1) ?? ""
                    guard let named = model.entity(named: name), schema.entities[name]?.table == table else {
                        throw PersistenceError(
                            .operationFailed, message: "row \(key) of \(table) names an entity whose records are not there: \(name)", sql: sql)
                    }
                    last = named
                }
                guard let entity = last else { continue }
                let objectID = ManagedObjectID(entity: entity, key: ManagedObjectID.Key(store: store, number: key))
                rows.objectIDs.append(objectID)
                for (offset, column) in columns.enumerated() {
                    let position = Int32(offset + 2)
                    if result.isNull(row, position) {
                        guard !column.isRequired else {
                            throw PersistenceError(
                                .operationFailed,
                                message: "\(entity.name).\(attributes[offset].name) of the record \(key) in \(table) is NULL, "
                                    + "but the attribute is required",
                                objectID: objectID, key: attributes[offset].name, sql: sql)
                        }
                        rows.values.append(.null)
                        continue
                    }
                    guard let value = Self.decode(result, row, position, as: column.decoding) else {
                        throw PersistenceError(
                            .operationFailed,
                            message: "\(entity.name).\(attributes[offset].name) of the record \(key) in \(table) holds a value "
                                + "that is not of its type",
                            objectID: objectID, key: attributes[offset].name, sql: sql)
                    }
                    rows.values.append(value)
                }
            }
            return rows
        }
    }
}
