import Foundation

/// A logical condition on key-value-coding objects, parsed from Cocoa's predicate format strings
/// or built in code, that evaluates against model objects, dictionaries and plain values and
/// filters arrays and sets.
///
/// ```swift
/// let predicate = try KeyValuePredicate(format: "salary > %d AND lastName BEGINSWITH[c] %@", 50_000, "s")
/// let wellPaid = try employees.filtered(using: predicate)
/// try predicate.evaluate(with: employee)       // true or false
/// predicate.predicateFormat                     // salary > 50000 AND lastName BEGINSWITH[c] "s"
/// ```
///
/// The predicate is a public tree, so that other code (a SQL translator, a query planner) can
/// walk it: a predicate is `TRUEPREDICATE`, `FALSEPREDICATE`, a ``Comparison`` of two
/// ``KeyValueExpression``s, or an `AND`, `OR` or `NOT` of other predicates. Parse once and
/// evaluate many times: a comparison prepares what it can when it is made (a regular expression,
/// a `LIKE` pattern, a numeric constant).
///
/// Two predicates are equal when their trees are: same structure, operators, options and
/// modifiers, equal key paths and variables, and equal constants (numbers compare by value and
/// kind, objects by identity). ``predicateFormat`` prints a format string that parses back to an
/// equal predicate, for every predicate the parser can produce.
///
/// Not `Sendable`: constants may hold model objects and other values of any type.
///
/// Corresponds to Cocoa's `NSPredicate` with its subclasses `NSComparisonPredicate` and
/// `NSCompoundPredicate`; differences: errors are thrown, never raised; `NONE` parses, as in
/// Cocoa, to `NOT ANY`; the name avoids Foundation's `Predicate` and `NSPredicate`.
public indirect enum KeyValuePredicate {
    /// `TRUEPREDICATE`: true for every object.
    case truePredicate
    /// `FALSEPREDICATE`: false for every object.
    case falsePredicate
    /// A comparison of two expressions, such as `salary > 50000` or `ANY employees.lastName == "Smith"`.
    case comparison(Comparison)
    /// True when every subpredicate is true (true when there are none); `a AND b AND c`.
    /// Evaluation stops at the first false subpredicate.
    case and([KeyValuePredicate])
    /// True when one subpredicate is true (false when there are none); `a OR b OR c`.
    /// Evaluation stops at the first true subpredicate.
    case or([KeyValuePredicate])
    /// True when the subpredicate is false; `NOT a`.
    case not(KeyValuePredicate)

    /// How deeply a format string may nest parentheses, `NOT`s, arrays and subqueries; deeper
    /// strings throw ``KeyValuePredicateError/Code/nestingTooDeep`` rather than exhaust the stack.
    public static let maximumNestingDepth = 100

    /// How many collection elements one evaluation may visit in `SUBQUERY`s and `ANY`/`ALL`
    /// comparisons that run inside another `SUBQUERY` (100,000). Nested iterations multiply:
    /// twelve nested subqueries over four elements would visit 4^12 elements, for minutes;
    /// past this limit evaluation throws ``KeyValuePredicateError/Code/evaluationLimitExceeded``
    /// instead, in a fraction of a second. An iteration that is not nested visits as many
    /// elements as its collection holds.
    public static let maximumNestedElementVisits = 100_000

    /// Parses a predicate format string, substituting `arguments` for its format specifiers in
    /// order.
    ///
    /// `%@` takes a value of any type (a string, a number, a date, an array, a model object,
    /// nil); `%K` a key path string; `%d`, `%i`, `%ld`, `%lld`, `%u`, `%lu`, `%llu` an integer;
    /// `%f`, `%lf` a number. Quoted specifiers (`"%@"`) are literal text, as in Cocoa.
    ///
    /// ```swift
    /// let predicate = try KeyValuePredicate(format: "%K == %@ AND age > %d", "lastName", "Lovelace", 30)
    /// ```
    ///
    /// - Throws: ``KeyValuePredicateError`` with ``KeyValuePredicateError/Code/syntaxError``
    ///   (with the offset and what was expected there),
    ///   ``KeyValuePredicateError/Code/missingArgument``,
    ///   ``KeyValuePredicateError/Code/invalidArgument``,
    ///   ``KeyValuePredicateError/Code/nestingTooDeep``,
    ///   ``KeyValuePredicateError/Code/unsupportedSyntax``, or
    ///   ``KeyValuePredicateError/Code/invalidRegularExpression`` for a constant `MATCHES`
    ///   pattern that is not a valid regular expression.
    /// - Complexity: O(*n*) in the length of the format string.
    ///
    /// Corresponds to Cocoa's `+[NSPredicate predicateWithFormat:]`; differences: arguments are
    /// Swift values, not C varargs, and extra arguments are ignored, as in Cocoa.
    public init(format: String, _ arguments: Any?...) throws {
        var parser = PredicateParser(format: format, arguments: arguments)
        self = try parser.parsePredicate()
    }

    /// Parses a predicate format string, substituting the values of `argumentArray` for its
    /// format specifiers in order.
    ///
    /// - Throws: What ``init(format:_:)`` throws.
    ///
    /// Corresponds to Cocoa's `+[NSPredicate predicateWithFormat:argumentArray:]`.
    public init(format: String, argumentArray: [Any?]) throws {
        var parser = PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parsePredicate()
    }

    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    ///
    /// Corresponds to Cocoa's `+[NSPredicate predicateWithValue:]`.
    public init(value: Bool) {
        self = value ? .truePredicate : .falsePredicate
    }

    /// A comparison predicate: `left op right`, with a modifier and string options.
    ///
    /// ```swift
    /// let predicate = KeyValuePredicate(.keyPath("lastName"), .beginsWith, .constant("S"), options: .caseInsensitive)
    /// ```
    ///
    /// Corresponds to Cocoa's `-[NSComparisonPredicate initWithLeftExpression:rightExpression:modifier:type:options:]`.
    public init(
        _ left: KeyValueExpression, _ operatorType: Comparison.Operator, _ right: KeyValueExpression,
        modifier: Comparison.Modifier = .direct, options: Comparison.Options = []
    ) {
        self = .comparison(Comparison(left, operatorType, right, modifier: modifier, options: options))
    }

    /// The comparison, when the predicate is one.
    public var comparison: Comparison? {
        if case .comparison(let comparison) = self { return comparison }
        return nil
    }

    /// The subpredicates of an `AND`, `OR` or `NOT`; empty for other predicates.
    ///
    /// Corresponds to Cocoa's `-[NSCompoundPredicate subpredicates]`.
    public var subpredicates: [KeyValuePredicate] {
        switch self {
        case .and(let predicates), .or(let predicates): predicates
        case .not(let predicate): [predicate]
        case .truePredicate, .falsePredicate, .comparison: []
        }
    }

    /// The predicate with `$variables` replaced by the values of `variables`; variables with no
    /// value are left in place (evaluating them throws ``KeyValuePredicateError/Code/unboundVariable``).
    /// The variable of a `SUBQUERY` is never replaced inside it. A nil value substitutes `nil`.
    ///
    /// ```swift
    /// let template = try KeyValuePredicate(format: "lastName == $NAME")
    /// let smiths = try template.withSubstitutionVariables(["NAME": "Smith"])
    /// ```
    ///
    /// Corresponds to Cocoa's `-[NSPredicate predicateWithSubstitutionVariables:]`; differences:
    /// Cocoa raises for a variable missing from the dictionary.
    public func withSubstitutionVariables(_ variables: [String: Any?]) -> KeyValuePredicate {
        substituting(variables, shadowed: [])
    }

    func substituting(_ variables: [String: Any?], shadowed: Set<String>) -> KeyValuePredicate {
        switch self {
        case .truePredicate, .falsePredicate:
            return self
        case .comparison(let comparison):
            return .comparison(Comparison(
                comparison.leftExpression.substituting(variables, shadowed: shadowed),
                comparison.operatorType,
                comparison.rightExpression.substituting(variables, shadowed: shadowed),
                modifier: comparison.modifier, options: comparison.options))
        case .and(let predicates):
            return .and(predicates.map { $0.substituting(variables, shadowed: shadowed) })
        case .or(let predicates):
            return .or(predicates.map { $0.substituting(variables, shadowed: shadowed) })
        case .not(let predicate):
            return .not(predicate.substituting(variables, shadowed: shadowed))
        }
    }
}

/// Constants may hold model objects, which belong to one isolation domain.
@available(*, unavailable)
extension KeyValuePredicate: Sendable {}
