import Foundation
import ModelObjects

/// A fetch request in SQL: the table, the condition with its bindings, the ORDER BY and LIMIT
/// clause, and how much of the request they apply, in the schema's dialect.
///
/// Of a top-level `AND`, the conjuncts that translate are applied and the rest is left to the
/// context (``appliedPredicate`` is then false). Sorting, limit and offset are applied only
/// with the whole predicate and every sort descriptor; rows are otherwise in primary-key order.
struct SQLFetchPlan {
    var mapping: SQLSchema.EntityMapping
    /// The WHERE condition; empty for every row of the table.
    var condition: String
    var bindings: [SQLValue]
    /// ` ORDER BY …` and, when applied, ` LIMIT … OFFSET …`.
    var orderAndLimit: String
    var appliedPredicate: Bool
    var appliedSortAndLimit: Bool
    /// The comparisons the condition evaluates with the dialect's comparison function, by slot.
    var evaluatedComparisons: [SQLPredicateTranslator.EvaluatedComparison]

    /// The plan of `request`; nil when the schema has no table for the entity (no records).
    init?(_ request: StoreFetchRequest, schema: SQLSchema, storeIdentifier: String) {
        guard let mapping = schema.entities[request.entity.name] else { return nil }
        let (entityCondition, entityBindings) = schema.entityCondition(mapping, includesSubentities: request.includesSubentities)
        var translator = SQLPredicateTranslator(
            entity: request.entity, mapping: mapping, schema: schema, storeIdentifier: storeIdentifier,
            placeholderOffset: entityBindings.count)
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
        var order: [String] = []
        var sortTranslated = true
        for descriptor in request.sortDescriptors {
            guard let column = translator.sortColumn(descriptor) else {
                sortTranslated = false
                break
            }
            order.append(column + schema.dialect.direction(ascending: descriptor.ascending))
        }
        let appliedSortAndLimit = appliedPredicate && sortTranslated
        var orderAndLimit = " ORDER BY " + ((appliedSortAndLimit ? order : []) + ["\(mapping.table).\"Z_PK\""]).joined(separator: ", ")
        if appliedSortAndLimit && (request.fetchLimit > 0 || request.fetchOffset > 0) {
            orderAndLimit += schema.dialect.limit(request.fetchLimit, offset: request.fetchOffset)
        }
        self.mapping = mapping
        self.condition = conditions.joined(separator: " AND ")
        self.bindings = bindings
        self.orderAndLimit = orderAndLimit
        self.appliedPredicate = appliedPredicate
        self.appliedSortAndLimit = appliedSortAndLimit
        self.evaluatedComparisons = translator.evaluatedComparisons
    }
}

extension SQLSchema {
    /// The condition selecting rows of `mapping`'s entity (and its subentities), with its
    /// bindings (placeholders numbered from 1); empty when every row of the table matches.
    func entityCondition(_ mapping: EntityMapping, includesSubentities: Bool) -> (String, [SQLValue]) {
        if includesSubentities && mapping.isRoot { return ("", []) }
        let names = includesSubentities ? mapping.kindNames : [mapping.kindNames[0]]
        let placeholders = names.indices.map { dialect.placeholder($0 + 1, for: .text(names[$0])) }.joined(separator: ", ")
        return ("\(mapping.table).\"Z_ENT\" IN (\(placeholders))", names.map { .text($0) })
    }
}
