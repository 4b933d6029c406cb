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
                state.connection, table: plan.mapping.table, where: plan.condition, bindings: plan.bindings,
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
            try state.connection.cachedStatement(sql).forEachRow(plan.bindings) { row in total = row.int64(at: 0) }
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
        var columns: [(column: String, decoding: SQLiteSchema.Decoding, isRequired: Bool)] = []
        for attribute in attributes {
            guard attribute.index < plan.mapping.storage.count,
                  case .attribute(let column, let type) = plan.mapping.storage[attribute.index]
            else { return nil }
            columns.append((column, SQLiteSchema.Decoding(type), !attribute.isOptional))
        }
        let table = plan.mapping.table
        let sql = "SELECT \(table).\"Z_PK\", \(table).\"Z_ENT\"" + columns.map { ", \(table).\($0.column)" }.joined()
            + " FROM \(table)" + (plan.condition.isEmpty ? "" : " WHERE " + plan.condition) + plan.orderAndLimit
        return try withPlan(plan) { state in
            var rows = StoreAttributeRows(objectIDs: [], values: [], attributeCount: attributes.count)
            var last: (name: String, entity: EntityDescription)?
            // Without subentities every row is of the request's entity: its name is not read.
            let onlyEntity = request.includesSubentities && !request.entity.subentities.isEmpty ? nil : request.entity
            try state.connection.cachedStatement(sql).forEachRow(plan.bindings) { row in
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

    /// A request in SQL: the table, the condition with its bindings, the ORDER BY and LIMIT
    /// clause, and how much of the request they apply. Nil when the store has no table for the
    /// entity (no records).
    private func plan(_ request: StoreFetchRequest) -> FetchPlan? {
        guard let mapping = schema.entities[request.entity.name] else { return nil }
        var translator = SQLitePredicateTranslator(entity: request.entity, mapping: mapping, schema: schema, storeIdentifier: identifier)
        let (entityCondition, entityBindings) = entityCondition(mapping, includesSubentities: request.includesSubentities)
        var conditions = entityCondition.isEmpty ? [] : [entityCondition]
        var bindings = entityBindings
        var appliedPredicate = true
        if let predicate = request.predicate {
            let conjuncts: [KeyValuePredicate]
            if case .and(let parts) = predicate { conjuncts = parts } else { conjuncts = [predicate] }
            for conjunct in conjuncts {
                if let sql = translator.translate(conjunct) {
                    conditions.append(sql)
                } else {
                    appliedPredicate = false
                }
            }
            bindings += translator.bindings
        }
        let comparisons = translator.evaluatedComparisons
        var order: [String] = []
        var sortTranslated = true
        for descriptor in request.sortDescriptors {
            guard let column = translator.sortColumn(descriptor) else {
                sortTranslated = false
                break
            }
            order.append(column + (descriptor.ascending ? " ASC" : " DESC"))
        }
        let appliedSortAndLimit = appliedPredicate && sortTranslated
        var orderAndLimit = " ORDER BY " + ((appliedSortAndLimit ? order : []) + ["\(mapping.table).\"Z_PK\""]).joined(separator: ", ")
        if appliedSortAndLimit && (request.fetchLimit > 0 || request.fetchOffset > 0) {
            orderAndLimit += " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(max(0, request.fetchOffset))"
        }
        return FetchPlan(
            mapping: mapping, condition: conditions.joined(separator: " AND "), bindings: bindings, orderAndLimit: orderAndLimit,
            appliedPredicate: appliedPredicate, appliedSortAndLimit: appliedSortAndLimit, evaluatedComparisons: comparisons)
    }

    /// Runs `body` with the connection, the plan's comparisons in the slots `mo_compare` reads.
    /// When `mo_compare` stops a statement at a row whose value is not text, the error is the
    /// one reading that row gives (naming its entity, attribute and record).
    private func withPlan<Result>(_ plan: FetchPlan, _ body: (inout State) throws -> Result) throws -> Result {
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

    /// A fetch request in SQL; see ``plan(_:)``.
    private struct FetchPlan {
        var mapping: SQLiteSchema.EntityMapping
        var condition: String
        var bindings: [SQLiteValue]
        var orderAndLimit: String
        var appliedPredicate: Bool
        var appliedSortAndLimit: Bool
        /// The comparisons the condition evaluates with `mo_compare`, by slot.
        var evaluatedComparisons: [SQLiteComparisonFunction.Slot]
    }
}

/// Turns the parts of a predicate that SQL can evaluate exactly as in-memory evaluation does
/// into a condition on one table; nil for the rest.
struct SQLitePredicateTranslator {
    let entity: EntityDescription
    let mapping: SQLiteSchema.EntityMapping
    let schema: SQLiteSchema
    /// The store's identifier: object IDs of other stores name no record here.
    let storeIdentifier: String
    /// The values of the `?` placeholders of the conditions made so far, in order.
    private(set) var bindings: [SQLiteValue] = []
    /// The comparisons the conditions made so far evaluate with ``SQLiteComparisonFunction``,
    /// by slot.
    private(set) var evaluatedComparisons: [SQLiteComparisonFunction.Slot] = []

    init(entity: EntityDescription, mapping: SQLiteSchema.EntityMapping, schema: SQLiteSchema, storeIdentifier: String) {
        self.entity = entity
        self.mapping = mapping
        self.schema = schema
        self.storeIdentifier = storeIdentifier
    }

    /// An attribute column a comparison reads: on the fetched table, or (`via`) on the table of
    /// a to-one relationship's destination, reached through the foreign key.
    private struct Column {
        var sql: String
        var kind: Kind
        var row: RowOfColumn
        var via: (foreignKey: String, table: String)?
    }

    /// The row a column is read from, for `mo_compare` to name a record whose value it refuses:
    /// the row's key (qualified by the table or alias the column is) and its table.
    struct RowOfColumn {
        var key: String
        var table: String

        init(_ qualifier: String, table: String) {
            key = qualifier + ".\"Z_PK\""
            self.table = table
        }
    }

    /// The alias of the destination table inside a to-one subquery.
    /// (Aliases hold a space, which no table name can: names have no whitespace.)
    private static let destinationAlias = "\"Z DESTINATION\""

    /// The kinds of column a constant can be compared with.
    private enum Kind { case number, boolean, string, date }

    /// The condition for `predicate`, or nil when part of it cannot be translated (then no
    /// bindings are added).
    mutating func translate(_ predicate: KeyValuePredicate) -> String? {
        let saved = (bindings, evaluatedComparisons)
        guard let sql = condition(predicate) else {
            (bindings, evaluatedComparisons) = saved
            return nil
        }
        return sql
    }

    private mutating func condition(_ predicate: KeyValuePredicate) -> String? {
        switch predicate {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case .and(let parts), .or(let parts):
            var sql: [String] = []
            for part in parts {
                guard let translated = condition(part) else { return nil }
                sql.append(translated)
            }
            if sql.isEmpty { if case .and = predicate { return "1" } else { return "0" } }
            if case .and = predicate { return "(" + sql.joined(separator: " AND ") + ")" }
            return "(" + sql.joined(separator: " OR ") + ")"
        case .not(let inner):
            return condition(inner).map { "(NOT \($0))" }
        case .comparison(let comparison):
            return self.comparison(comparison)
        }
    }

    /// The column of an attribute key path, with the kind of constants it compares with:
    /// `salary`, or `department.name` through a to-one relationship.
    private func column(_ expression: KeyValueExpression) -> Column? {
        guard case .keyPath(let path) = expression else { return nil }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.count == 1 {
            return attributeColumn(keys[0], of: entity, in: mapping).map {
                Column(sql: "\(mapping.table).\($0.column)", kind: $0.kind, row: RowOfColumn(mapping.table, table: mapping.table))
            }
        }
        guard keys.count == 2, let (foreignKey, destination, destinationMapping) = toOne(keys[0]),
              let (column, kind) = attributeColumn(keys[1], of: destination, in: destinationMapping)
        else { return nil }
        return Column(
            sql: "\(Self.destinationAlias).\(column)", kind: kind, row: RowOfColumn(Self.destinationAlias, table: destinationMapping.table),
            via: (foreignKey, destinationMapping.table))
    }

    /// A stored attribute of `entity` with a type whose comparisons SQL makes exactly.
    private func attributeColumn(
        _ key: String, of entity: EntityDescription, in mapping: SQLiteSchema.EntityMapping
    ) -> (column: String, kind: Kind)? {
        guard let property = entity.propertiesByName[key], property.index < mapping.storage.count,
              case .attribute(let column, let type) = mapping.storage[property.index]
        else { return nil }
        switch type {
        case .integer16, .integer32, .integer64, .double, .float: return (column, .number)
        case .boolean: return (column, .boolean)
        case .string: return (column, .string)
        case .date: return (column, .date)
        default: return nil
        }
    }

    /// A to-one relationship of the fetched entity: its foreign key column (qualified), its
    /// destination and the destination's mapping.
    private func toOne(_ key: String) -> (String, EntityDescription, SQLiteSchema.EntityMapping)? {
        guard let relationship = entity.relationshipsByName[key], !relationship.isToMany,
              relationship.index < mapping.storage.count,
              case .toOne(let column, _, _) = mapping.storage[relationship.index],
              let destination = relationship.destinationEntity, let destinationMapping = schema.entities[destination.name]
        else { return nil }
        return ("\(mapping.table).\(column)", destination, destinationMapping)
    }

    /// A constant as a bound value for a column of `kind`; nil when the comparison would not
    /// mean the same in SQL.
    private func value(_ constant: Any, for kind: Kind) -> SQLiteValue? {
        switch kind {
        case .string:
            if let string = constant as? String { return .text(string) }
            if let string = constant as? Substring { return .text(String(string)) }
            return nil
        case .date:
            return (constant as? Date).map { .real($0.timeIntervalSinceReferenceDate) }
        case .number, .boolean:
            if constant is String || constant is Date || constant is Decimal { return nil }
            if let value = constant as? Bool { return .integer(value ? 1 : 0) }
            if let value = constant as? Int { return .integer(Int64(value)) }
            if let value = constant as? Int64 { return .integer(value) }
            if let value = constant as? Int32 { return .integer(Int64(value)) }
            if let value = constant as? Int16 { return .integer(Int64(value)) }
            if let value = constant as? Int8 { return .integer(Int64(value)) }
            if let value = constant as? UInt8 { return .integer(Int64(value)) }
            if let value = constant as? UInt16 { return .integer(Int64(value)) }
            if let value = constant as? UInt32 { return .integer(Int64(value)) }
            if let value = constant as? Double { return value.isNaN ? nil : .real(value) }
            if let value = constant as? Float { return value.isNaN ? nil : .real(Double(value)) }
            return nil
        }
    }

    private mutating func bind(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?"
    }

    private static func isNil(_ value: Any?) -> Bool {
        value == nil || value is NSNull
    }

    private mutating func comparison(_ comparison: KeyValuePredicate.Comparison) -> String? {
        if let sql = toManyComparison(comparison) { return sql }
        if comparison.modifier == .direct
            && (!comparison.options.isEmpty || comparison.operatorType == .like || comparison.operatorType == .matches) {
            return evaluatedComparison(comparison)
        }
        guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
        if let sql = relationshipComparison(comparison) { return sql }
        var op = comparison.operatorType
        var left = comparison.leftExpression, right = comparison.rightExpression
        if column(left) == nil, column(right) != nil, right.isConstant == false {
            // constant OP keyPath: swap the sides.
            swap(&left, &right)
            switch op {
            case .lessThan: op = .greaterThan
            case .lessThanOrEqualTo: op = .greaterThanOrEqualTo
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqualTo: op = .lessThanOrEqualTo
            case .equalTo, .notEqualTo: break
            default: return nil
            }
        }
        guard let found = self.column(left), case .constant(let constant) = right else { return nil }
        guard let via = found.via else { return condition(op, column: found.sql, kind: found.kind, constant: constant, row: found.row) }
        // Through a to-one relationship: a record without a related object compares as a nil
        // value does in memory (the NULL form), the others through the destination's rows.
        guard let whenNil = condition(op, column: "NULL", kind: found.kind, constant: constant, row: nil),
              let whenRelated = condition(op, column: found.sql, kind: found.kind, constant: constant, row: found.row)
        else { return nil }
        // CASE keeps the result two-valued: `fk IN (…)` alone is NULL for a NULL key, and NOT
        // of NULL would drop the row where in-memory evaluation keeps it.
        return "(CASE WHEN \(via.foreignKey) IS NULL THEN \(whenNil) ELSE \(via.foreignKey) IN "
            + "(SELECT \(Self.destinationAlias).\"Z_PK\" FROM \(via.table) AS \(Self.destinationAlias) WHERE \(whenRelated)) END)"
    }

    /// A comparison of a string attribute with string constants that SQL evaluates through
    /// `mo_compare`, which runs the predicate module's own evaluation on the column's value
    /// (see ``SQLiteComparisonFunction``); nil for other comparisons.
    private mutating func evaluatedComparison(_ comparison: KeyValuePredicate.Comparison) -> String? {
        guard let found = column(comparison.leftExpression), found.kind == .string,
              let (call, whenNil) = evaluatedCall(comparison, column: found.sql, row: found.row)
        else { return nil }
        guard let via = found.via else { return call }
        return "(CASE WHEN \(via.foreignKey) IS NULL THEN \(whenNil ? 1 : 0) ELSE \(via.foreignKey) IN "
            + "(SELECT \(Self.destinationAlias).\"Z_PK\" FROM \(via.table) AS \(Self.destinationAlias) WHERE \(call)) END)"
    }

    /// The `mo_compare` call evaluating `comparison` on `column`, a string column, and what the
    /// comparison gives for nil; nil when its constant is not strings, or when it throws (a
    /// `MATCHES` pattern that does not compile stays with in-memory evaluation, which reports
    /// the error).
    private mutating func evaluatedCall(
        _ comparison: KeyValuePredicate.Comparison, column: String, row: RowOfColumn?
    ) -> (call: String, whenNil: Bool)? {
        guard case .constant(let constant) = comparison.rightExpression, let constant,
              constant is String || (Self.elements(constant).map { !$0.isEmpty && $0.allSatisfy { $0 is String } } ?? false),
              let whenNil = try? comparison.evaluate(leftValue: nil), (try? comparison.evaluate(leftValue: "")) != nil
        else { return nil }
        let slot = bind(.integer(Int64(evaluatedComparisons.count)))
        let call = "\(SQLiteComparisonFunction.name)(\(slot), \(column), \(row?.key ?? "NULL"))"
        evaluatedComparisons.append(SQLiteComparisonFunction.Slot(comparison: comparison, table: row?.table))
        return (call, whenNil)
    }

    /// The alias of a to-many relationship's members inside a subquery over them.
    private static let memberAlias = "\"Z MEMBER\"", linkAlias = "\"Z LINK\""

    /// The members of a to-many relationship of the fetched entity as seen from one of its
    /// rows: the FROM and WHERE of a subquery over them (alias `Z MEMBER`), and their entity.
    private func toMany(_ key: String) -> (members: String, destination: EntityDescription, mapping: SQLiteSchema.EntityMapping)? {
        guard let relationship = entity.relationshipsByName[key], relationship.isToMany, relationship.index < mapping.storage.count,
              let destination = relationship.destinationEntity, let destinationMapping = schema.entities[destination.name]
        else { return nil }
        let owner = "\(mapping.table).\"Z_PK\"", member = Self.memberAlias
        switch mapping.storage[relationship.index] {
        case .toManyByInverse(let table, let foreignKey, _):
            return ("FROM \(table) AS \(member) WHERE \(member).\(foreignKey) = \(owner)", destination, destinationMapping)
        case .toManyByJoin(let join, let own, let other, _, let table):
            return (
                "FROM \(join) AS \(Self.linkAlias) JOIN \(table) AS \(member) ON \(member).\"Z_PK\" = \(Self.linkAlias).\(other) "
                    + "WHERE \(Self.linkAlias).\(own) = \(owner)",
                destination, destinationMapping)
        default:
            return nil
        }
    }

    /// Comparisons through a to-many relationship, as subqueries over its members: `ANY` and
    /// `ALL` of a member attribute of an unordered relationship (`ANY projects.title == 'X'`;
    /// `NONE` is `NOT ANY`) and the relationship's count (`projects.@count > 2`). An empty
    /// relationship makes `ANY` false and `ALL` true, and members whose value is nil take no
    /// part (key-value coding leaves nil out of a set's values), as in memory.
    private mutating func toManyComparison(_ comparison: KeyValuePredicate.Comparison) -> String? {
        guard case .keyPath(let path) = comparison.leftExpression, case .constant(let constant) = comparison.rightExpression else {
            return nil
        }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.count == 3, let (members, destination, destinationMapping) = toMany(keys[0]) {
            return aggregateComparison(comparison, keys[1], keys[2], members: members, destination: destination, destinationMapping)
        }
        guard keys.count == 2, let (members, destination, destinationMapping) = toMany(keys[0]) else { return nil }
        if keys[1] == "@count" {
            guard comparison.modifier == .direct, comparison.options.isEmpty else { return nil }
            return condition(comparison.operatorType, column: "(SELECT COUNT(*) \(members))", kind: .number, constant: constant, row: nil)
        }
        guard comparison.modifier != .direct, entity.relationshipsByName[keys[0]]?.isOrdered == false,
              let (column, kind) = attributeColumn(keys[1], of: destination, in: destinationMapping)
        else { return nil }
        let memberColumn = "\(Self.memberAlias).\(column)"
        let memberRow = RowOfColumn(Self.memberAlias, table: destinationMapping.table)
        let element: String?
        if !comparison.options.isEmpty || comparison.operatorType == .like || comparison.operatorType == .matches {
            element = kind == .string ? evaluatedCall(comparison, column: memberColumn, row: memberRow)?.call : nil
        } else {
            element = condition(comparison.operatorType, column: memberColumn, kind: kind, constant: constant, row: memberRow)
        }
        guard let element else { return nil }
        return comparison.modifier == .any
            ? "EXISTS (SELECT 1 \(members) AND \(memberColumn) IS NOT NULL AND \(element))"
            : "NOT EXISTS (SELECT 1 \(members) AND \(memberColumn) IS NOT NULL AND NOT \(element))"
    }

    /// `relationship.@min.key` and `@max` of a number or date attribute of the members, and
    /// `@sum` and `@avg` of a 16- or 32-bit integer one, compared with a constant, with
    /// key-value coding's semantics: `@sum` of no members is 0, and ignores nil; `@avg` divides
    /// by every member, nil ones counting as 0, and is nil without members; `@min` and `@max`
    /// ignore nil and are nil without members. (Sums of 64-bit integers, which memory carries
    /// on in `Decimal` past `Int64`, and of floating-point numbers, whose rounding depends on
    /// the order of addition, stay in memory.)
    private mutating func aggregateComparison(
        _ comparison: KeyValuePredicate.Comparison, _ function: String, _ key: String, members: String,
        destination: EntityDescription, _ destinationMapping: SQLiteSchema.EntityMapping
    ) -> String? {
        guard comparison.modifier == .direct, comparison.options.isEmpty, case .constant(let constant) = comparison.rightExpression,
              let (column, kind) = attributeColumn(key, of: destination, in: destinationMapping)
        else { return nil }
        let value = "\(Self.memberAlias).\(column)"
        let type = destination.attributesByName[key]?.attributeType
        let exactSum = type == .integer16 || type == .integer32
        let aggregate: String
        switch (function, kind) {
        case ("@sum", .number) where exactSum: aggregate = "COALESCE(SUM(\(value)), 0)"
        case ("@avg", .number) where exactSum:
            aggregate = "CASE WHEN COUNT(*) = 0 THEN NULL ELSE CAST(SUM(\(value)) AS REAL) / COUNT(*) END"
        case ("@min", .number), ("@min", .date): aggregate = "MIN(\(value))"
        case ("@max", .number), ("@max", .date): aggregate = "MAX(\(value))"
        default: return nil
        }
        return condition(comparison.operatorType, column: "(SELECT \(aggregate) \(members))", kind: kind, constant: constant, row: nil)
    }

    /// `column OP constant` with in-memory semantics, or nil (no bindings added then). `row`
    /// is the row a string column belongs to (nil for a value that is not a column).
    private mutating func condition(
        _ op: KeyValuePredicate.Comparison.Operator, column: String, kind: Kind, constant: Any?, row: RowOfColumn?
    ) -> String? {
        let saved = (bindings, evaluatedComparisons)
        let sql = kind == .string
            ? stringCondition(op, column: column, constant: constant, row: row)
            : plainCondition(op, column: column, kind: kind, constant: constant)
        guard let sql else {
            (bindings, evaluatedComparisons) = saved
            return nil
        }
        return sql
    }

    /// `column OP constant` on a string column, exactly as in memory, where Swift compares
    /// strings by canonical equivalence, character by character: SQL compares bytes, which is
    /// the same for ASCII values and ASCII constants only. So ASCII rows are compared in SQL
    /// and the others with `mo_compare`; `BEGINSWITH`, `ENDSWITH` and `CONTAINS` (where "\r\n"
    /// is one character in memory) and non-ASCII constants always go through `mo_compare`.
    private mutating func stringCondition(
        _ op: KeyValuePredicate.Comparison.Operator, column: String, constant: Any?, row: RowOfColumn?
    ) -> String? {
        if Self.isNil(constant) { return plainCondition(op, column: column, kind: .string, constant: constant) }
        guard let constant else { return nil }
        let strings = (constant as? String).map { [$0] } ?? Self.elements(constant)?.compactMap { $0 as? String }
        guard let strings, !strings.isEmpty, (constant is String || strings.count == Self.elements(constant)?.count) else { return nil }
        let comparison = KeyValuePredicate.Comparison(.keyPath("value"), op, .constant(constant))
        switch op {
        case .beginsWith, .endsWith, .contains:
            return evaluatedCall(comparison, column: column, row: row)?.call
        default:
            guard strings.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) else {
                return evaluatedCall(comparison, column: column, row: row)?.call
            }
            guard let plain = plainCondition(op, column: column, kind: .string, constant: constant),
                  let call = evaluatedCall(comparison, column: column, row: row)?.call
            else { return nil }
            // A text's length in characters equals its length in bytes when it is all ASCII.
            // (Another writer's non-text value is read as text, so it goes to `mo_compare` too.)
            return "(CASE WHEN typeof(\(column)) = 'text' AND length(\(column)) = length(CAST(\(column) AS BLOB)) "
                + "THEN \(plain) ELSE \(call) END)"
        }
    }

    private mutating func plainCondition(_ op: KeyValuePredicate.Comparison.Operator, column: String, kind: Kind, constant: Any?) -> String? {
        if Self.isNil(constant) {
            switch op {
            case .equalTo: return "\(column) IS NULL"
            case .notEqualTo: return "\(column) IS NOT NULL"
            default: return nil
            }
        }
        guard let constant else { return nil }
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let value = value(constant, for: kind) else { return nil }
            let placeholder = bind(value)
            switch op {
            // IS and IS NOT compare NULL as a value: two-valued, as in memory.
            case .equalTo: return "\(column) IS \(placeholder)"
            case .notEqualTo: return "\(column) IS NOT \(placeholder)"
            case .lessThan: return "(\(column) IS NOT NULL AND \(column) < \(placeholder))"
            case .lessThanOrEqualTo: return "(\(column) IS NOT NULL AND \(column) <= \(placeholder))"
            case .greaterThan: return "(\(column) IS NOT NULL AND \(column) > \(placeholder))"
            default: return "(\(column) IS NOT NULL AND \(column) >= \(placeholder))"
            }
        case .between:
            guard let bounds = Self.elements(constant), bounds.count == 2,
                  let low = value(bounds[0], for: kind), let high = value(bounds[1], for: kind)
            else { return nil }
            return "(\(column) IS NOT NULL AND \(column) >= \(bind(low)) AND \(column) <= \(bind(high)))"
        case .in:
            guard let elements = Self.elements(constant), !elements.isEmpty, elements.count <= 500 else { return nil }
            var placeholders: [String] = []
            for element in elements {
                guard !Self.isNil(element), let value = value(element, for: kind) else { return nil }
                placeholders.append(bind(value))
            }
            return "(\(column) IS NOT NULL AND \(column) IN (\(placeholders.joined(separator: ", "))))"
        case .beginsWith, .endsWith, .contains:
            guard kind == .string, let text = constant as? String, !text.isEmpty else { return nil }
            let placeholder = bind(.text(text))
            switch op {
            // instr is case-sensitive and byte-exact, unlike LIKE.
            case .beginsWith: return "(\(column) IS NOT NULL AND instr(\(column), \(placeholder)) = 1)"
            case .contains: return "(\(column) IS NOT NULL AND instr(\(column), \(placeholder)) > 0)"
            default:
                let again = bind(.text(text))
                return "(\(column) IS NOT NULL AND substr(\(column), -length(\(placeholder))) = \(again))"
            }
        default:
            return nil
        }
    }

    /// `relationship == nil` and `relationship != nil` for a to-one relationship (its foreign
    /// key), and comparisons of a to-one relationship or `SELF` with objects the context
    /// registered (``StoreObjectReference``s): `==`, `!=`, `IN`. Other objects stay in memory.
    private mutating func relationshipComparison(_ comparison: KeyValuePredicate.Comparison) -> String? {
        var left = comparison.leftExpression, right = comparison.rightExpression
        if case .constant = left, !right.isConstant {
            // `constant IN relationship` asks something else than `relationship IN constant`.
            guard comparison.operatorType == .equalTo || comparison.operatorType == .notEqualTo else { return nil }
            swap(&left, &right)
        }
        guard case .constant(let constant) = right else { return nil }
        let column: String, target: EntityDescription
        switch left {
        case .keyPath(let key):
            guard let (foreignKey, destination, _) = toOne(key) else { return nil }
            if Self.isNil(constant) {
                switch comparison.operatorType {
                case .equalTo: return "\(foreignKey) IS NULL"
                case .notEqualTo: return "\(foreignKey) IS NOT NULL"
                default: return nil
                }
            }
            (column, target) = (foreignKey, destination)
        case .evaluatedObject:
            (column, target) = ("\(mapping.table).\"Z_PK\"", entity)
        default:
            return nil
        }
        /// The key of a record of this store that the column can hold; nil otherwise.
        func key(_ value: Any?) -> Int64? {
            guard let id = (value as? StoreObjectReference)?.objectID, id.storeIdentifier == storeIdentifier,
                  id.entity.isKindOf(entity: target)
            else { return nil }
            return id.primaryKey
        }
        let saved = bindings
        switch comparison.operatorType {
        case .equalTo, .notEqualTo:
            guard let key = key(constant) else { return nil }
            return "\(column) IS\(comparison.operatorType == .notEqualTo ? " NOT" : "") \(bind(.integer(key)))"
        case .in:
            guard let elements = Self.elements(constant ?? []), !elements.isEmpty, elements.count <= 500 else { return nil }
            var placeholders: [String] = []
            for element in elements {
                guard let key = key(element) else {
                    bindings = saved
                    return nil
                }
                placeholders.append(bind(.integer(key)))
            }
            return "(\(column) IS NOT NULL AND \(column) IN (\(placeholders.joined(separator: ", "))))"
        default:
            return nil
        }
    }

    /// The elements of a constant array or set.
    private static func elements(_ constant: Any) -> [Any]? {
        if let array = constant as? [Any] { return array }
        if let set = constant as? Set<AnyHashable> { return Array(set) }
        return nil
    }

    /// The ORDER BY term of a sort descriptor on an attribute with the default comparison, also
    /// through a to-one relationship (`department.name`: the destination's value, NULL without
    /// a related object, so that it sorts first as nil does in memory).
    func sortColumn(_ descriptor: KeyPathSortDescriptor) -> String? {
        guard descriptor.comparison == .default, let column = column(.keyPath(descriptor.key)) else { return nil }
        guard let via = column.via else { return column.sql }
        return "(SELECT \(column.sql) FROM \(via.table) AS \(Self.destinationAlias) "
            + "WHERE \(Self.destinationAlias).\"Z_PK\" = \(via.foreignKey))"
    }
}
