import Foundation

/// What one evaluation of a predicate may still spend on nested iterations: see
/// ``KeyValuePredicate/maximumNestedElementVisits``.
struct EvaluationBudget {
    /// How many `SUBQUERY` iterations enclose the current point of the evaluation.
    var nesting = 0
    /// How many more elements nested iterations may visit.
    private var remainingNestedVisits = KeyValuePredicate.maximumNestedElementVisits

    /// Counts the visit of one element by a `SUBQUERY` or an `ANY`/`ALL` comparison, when it
    /// runs inside another `SUBQUERY`.
    ///
    /// - Throws: ``KeyValuePredicateError/Code/evaluationLimitExceeded`` past the limit.
    @inline(__always)
    mutating func visitElement() throws(KeyValuePredicateError) {
        guard nesting > 0 else { return }
        remainingNestedVisits -= 1
        guard remainingNestedVisits < 0 else { return }
        throw KeyValuePredicateError(
            .evaluationLimitExceeded,
            message: "nested SUBQUERY, ANY or ALL iterations visited more than \(KeyValuePredicate.maximumNestedElementVisits) elements in one evaluation")
    }
}
