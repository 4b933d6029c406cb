import Foundation
import ModelObjects

/// Turns the parts of a predicate that SQL can evaluate exactly as in-memory evaluation does
/// into a condition on one table, in the schema's dialect; nil for the rest.
///
/// String comparisons SQL cannot make exactly (options, `LIKE`, `MATCHES`, non-ASCII values)
/// go through the dialect's comparison function (``SQLDialect/comparisonFunction``); a dialect
/// without one leaves them to in-memory evaluation.
struct SQLPredicateTranslator {
    let entity: EntityDescription
    let mapping: SQLSchema.EntityMapping
    let schema: SQLSchema
    /// The store's identifier: object IDs of other stores name no record here.
    let storeIdentifier: String
    /// The SQL dialect (the schema's).
    let dialect: SQLDialect
    /// The number of parameters bound before the conditions made here (numbered placeholders
    /// continue after them).
    let placeholderOffset: Int
    /// The values of the placeholders of the conditions made so far, in order.
    private(set) var bindings: [SQLValue] = []
    /// The comparisons the conditions made so far evaluate with the dialect's comparison
    /// function, by slot.
    private(set) var evaluatedComparisons: [EvaluatedComparison] = []

    /// One comparison a condition evaluates with the dialect's comparison function, and the
    /// table of the rows whose values it compares.
    struct EvaluatedComparison {
        var comparison: KeyValuePredicate.Comparison
        /// Nil when the value compared is not a column (a constant NULL).
        var table: String?
    }

    init(
        entity: EntityDescription, mapping: SQLSchema.EntityMapping, schema: SQLSchema, storeIdentifier: String,
        placeholderOffset: Int = 0
    ) {
        self.entity = entity
        self.mapping = mapping
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        self.dialect = schema.dialect
        self.placeholderOffset = placeholderOffset
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
        case .truePredicate: return dialect.literal(true)
        case .falsePredicate: return dialect.literal(false)
        case .and(let parts), .or(let parts):
            var sql: [String] = []
            for part in parts {
                guard let translated = condition(part) else { return nil }
                sql.append(translated)
            }
            if sql.isEmpty { if case .and = predicate { return dialect.literal(true) } else { return dialect.literal(false) } }
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
                Column(sql: qualified(mapping.table, $0.column, $0.kind), kind: $0.kind, row: RowOfColumn(mapping.table, table: mapping.table))
            }
        }
        guard keys.count == 2, let (foreignKey, destination, destinationMapping) = toOne(keys[0]),
              let (column, kind) = attributeColumn(keys[1], of: destination, in: destinationMapping)
        else { return nil }
        return Column(
            sql: qualified(Self.destinationAlias, column, kind), kind: kind, row: RowOfColumn(Self.destinationAlias, table: destinationMapping.table),
            via: (foreignKey, destinationMapping.table))
    }

    /// `column` of the table or alias `qualifier`, as compared with constants of `kind`.
    private func qualified(_ qualifier: String, _ column: String, _ kind: Kind) -> String {
        kind == .boolean ? dialect.booleanAsNumber("\(qualifier).\(column)") : "\(qualifier).\(column)"
    }

    /// A stored attribute of `entity` with a type whose comparisons SQL makes exactly.
    private func attributeColumn(
        _ key: String, of entity: EntityDescription, in mapping: SQLSchema.EntityMapping
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
    private func toOne(_ key: String) -> (String, EntityDescription, SQLSchema.EntityMapping)? {
        guard let relationship = entity.relationshipsByName[key], !relationship.isToMany,
              relationship.index < mapping.storage.count,
              case .toOne(let column, _, _) = mapping.storage[relationship.index],
              let destination = relationship.destinationEntity, let destinationMapping = schema.entities[destination.name]
        else { return nil }
        return ("\(mapping.table).\(column)", destination, destinationMapping)
    }

    /// A constant as a bound value for a column of `kind`; nil when the comparison would not
    /// mean the same in SQL.
    private func value(_ constant: Any, for kind: Kind) -> SQLValue? {
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

    private mutating func bind(_ value: SQLValue) -> String {
        bindings.append(value)
        return dialect.placeholder(placeholderOffset + bindings.count, for: value)
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
    /// (see `SQLiteComparisonFunction`); nil for other comparisons, and in a dialect without
    /// the function.
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
        guard let function = dialect.comparisonFunction else { return nil }
        let slot = bind(.integer(Int64(evaluatedComparisons.count)))
        let call = "\(function)(\(slot), \(column), \(row?.key ?? "NULL"))"
        evaluatedComparisons.append(EvaluatedComparison(comparison: comparison, table: row?.table))
        return (call, whenNil)
    }

    /// The alias of a to-many relationship's members inside a subquery over them.
    private static let memberAlias = "\"Z MEMBER\"", linkAlias = "\"Z LINK\""

    /// The members of a to-many relationship of the fetched entity as seen from one of its
    /// rows: the FROM and WHERE of a subquery over them (alias `Z MEMBER`), and their entity.
    private func toMany(_ key: String) -> (members: String, destination: EntityDescription, mapping: SQLSchema.EntityMapping)? {
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
        let memberColumn = qualified(Self.memberAlias, column, kind)
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
        destination: EntityDescription, _ destinationMapping: SQLSchema.EntityMapping
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
            aggregate = "CASE WHEN COUNT(*) = 0 THEN NULL ELSE CAST(SUM(\(value)) AS \(dialect.realType)) / COUNT(*) END"
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
        if dialect.comparisonFunction == nil {
            // Without the function: equality and order of the NFC forms, which is how Swift
            // compares strings (canonical equivalence, then scalar by scalar); the columns'
            // byte order ("C" collation) is the scalars' order.
            switch op {
            case .beginsWith, .endsWith, .contains: return nil
            default: return plainCondition(op, column: dialect.normalized(column), kind: .string, constant: constant, normalizing: true)
            }
        }
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

    /// `column OP constant` in SQL; with `normalizing`, each string constant's placeholder in
    /// the dialect's NFC normalization (``SQLDialect/normalized(_:)``).
    private mutating func plainCondition(
        _ op: KeyValuePredicate.Comparison.Operator, column: String, kind: Kind, constant: Any?, normalizing: Bool = false
    ) -> String? {
        /// The placeholder of `value`, normalized when asked.
        func placeholder(_ value: SQLValue) -> String {
            normalizing ? dialect.normalized(bind(value)) : bind(value)
        }
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
            let placeholder = placeholder(value)
            switch op {
            // IS and IS NOT compare NULL as a value: two-valued, as in memory.
            case .equalTo: return dialect.isSame(column, placeholder)
            case .notEqualTo: return dialect.isSame(column, placeholder, negated: true)
            case .lessThan: return "(\(column) IS NOT NULL AND \(column) < \(placeholder))"
            case .lessThanOrEqualTo: return "(\(column) IS NOT NULL AND \(column) <= \(placeholder))"
            case .greaterThan: return "(\(column) IS NOT NULL AND \(column) > \(placeholder))"
            default: return "(\(column) IS NOT NULL AND \(column) >= \(placeholder))"
            }
        case .between:
            guard let bounds = Self.elements(constant), bounds.count == 2,
                  let low = value(bounds[0], for: kind), let high = value(bounds[1], for: kind)
            else { return nil }
            return "(\(column) IS NOT NULL AND \(column) >= \(placeholder(low)) AND \(column) <= \(placeholder(high)))"
        case .in:
            guard let elements = Self.elements(constant), !elements.isEmpty, elements.count <= 500 else { return nil }
            var placeholders: [String] = []
            for element in elements {
                guard !Self.isNil(element), let value = value(element, for: kind) else { return nil }
                placeholders.append(placeholder(value))
            }
            return "(\(column) IS NOT NULL AND \(column) IN (\(placeholders.joined(separator: ", "))))"
        case .beginsWith, .endsWith, .contains:
            guard kind == .string, let text = constant as? String, !text.isEmpty else { return nil }
            let placeholder = bind(.text(text))
            switch op {
            // instr and strpos are case-sensitive and byte-exact, unlike LIKE.
            case .beginsWith: return "(\(column) IS NOT NULL AND \(dialect.position(of: placeholder, in: column)) = 1)"
            case .contains: return "(\(column) IS NOT NULL AND \(dialect.position(of: placeholder, in: column)) > 0)"
            default:
                let again = bind(.text(text))
                return "(\(column) IS NOT NULL AND \(dialect.suffix(of: column, matching: placeholder)) = \(again))"
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
            return dialect.isSame(column, bind(.integer(key)), negated: comparison.operatorType == .notEqualTo)
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
