import Foundation

extension KeyValuePredicate {
    /// A comparison of two expressions: `left op[options] right`, optionally with `ANY` or
    /// `ALL` before it.
    ///
    /// ```swift
    /// let comparison = KeyValuePredicate.Comparison(.keyPath("lastName"), .beginsWith, .constant("s"), options: .caseInsensitive)
    /// comparison.operatorType         // .beginsWith
    /// comparison.leftExpression       // .keyPath("lastName")
    /// ```
    ///
    /// A comparison prepares, when it is made, what evaluation can reuse: a constant number on
    /// the right, a constant string folded for `[c]`/`[d]`, a compiled `LIKE` pattern or
    /// regular expression.
    ///
    /// Comparisons are immutable; a class, so that evaluation passes one reference around.
    ///
    /// Corresponds to Cocoa's `NSComparisonPredicate`; differences: no custom selectors.
    public final class Comparison {
        /// The operator of a comparison.
        ///
        /// Corresponds to Cocoa's `NSComparisonPredicate.Operator`.
        public enum Operator: String, CaseIterable, Hashable, Sendable {
            /// `<`
            case lessThan
            /// `<=` (or `=<`)
            case lessThanOrEqualTo
            /// `>`
            case greaterThan
            /// `>=` (or `=>`)
            case greaterThanOrEqualTo
            /// `==` (or `=`)
            case equalTo
            /// `!=` (or `<>`)
            case notEqualTo
            /// `MATCHES`: the left string matches the right ICU regular expression as a whole.
            /// The pattern must be valid on its own (`x)|(.*` is refused, not pasted between
            /// anchors), and a match that backtracks past about five million steps throws
            /// ``KeyValuePredicateError/Code/evaluationLimitExceeded`` rather than answer.
            case matches
            /// `LIKE`: the left string matches the right pattern as a whole, where `*` matches
            /// any run of characters and `?` one character (`\*` and `\?` match themselves).
            case like
            /// `BEGINSWITH`
            case beginsWith
            /// `ENDSWITH`
            case endsWith
            /// `IN`: the left value is an element of the right collection (a value of a
            /// dictionary), or the left string is a substring of the right string.
            case `in`
            /// `CONTAINS`: the right value is an element of the left collection, or the right
            /// string is a substring of the left string.
            case contains
            /// `BETWEEN`: the left value lies between the two values of the right array,
            /// bounds included.
            case between

            /// The operator as the format string writes it.
            public var symbol: String {
                switch self {
                case .lessThan: "<"
                case .lessThanOrEqualTo: "<="
                case .greaterThan: ">"
                case .greaterThanOrEqualTo: ">="
                case .equalTo: "=="
                case .notEqualTo: "!="
                case .matches: "MATCHES"
                case .like: "LIKE"
                case .beginsWith: "BEGINSWITH"
                case .endsWith: "ENDSWITH"
                case .in: "IN"
                case .contains: "CONTAINS"
                case .between: "BETWEEN"
                }
            }
        }

        /// How a comparison applies to a collection on its left.
        ///
        /// Corresponds to Cocoa's `NSComparisonPredicate.Modifier`.
        public enum Modifier: String, CaseIterable, Hashable, Sendable {
            /// The left value is compared as it is.
            case direct
            /// `ANY` (or `SOME`): true when the comparison is true for one element of the
            /// collection on the left; false for an empty collection.
            case any
            /// `ALL`: true when the comparison is true for every element of the collection on
            /// the left; true for an empty collection.
            case all
        }

        /// String options of a comparison: `[c]`, `[d]`, `[n]`.
        ///
        /// Corresponds to Cocoa's `NSComparisonPredicate.Options`.
        public struct Options: OptionSet, Hashable, Sendable {
            /// The option bits.
            public var rawValue: Int
            /// Creates options from their bits.
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// `[c]`: case-insensitive.
            public static let caseInsensitive = Options(rawValue: 1)
            /// `[d]`: diacritic-insensitive.
            public static let diacriticInsensitive = Options(rawValue: 2)
            /// `[n]`: the strings are known to be normalized; accepted and printed, and has no
            /// other effect (Swift strings always compare by canonical equivalence).
            public static let normalized = Options(rawValue: 4)

            /// The options as the format string writes them after an operator: `"[cd]"`, or
            /// the empty string.
            public var formatSuffix: String {
                guard !isEmpty else { return "" }
                var letters = ""
                if contains(.caseInsensitive) { letters += "c" }
                if contains(.diacriticInsensitive) { letters += "d" }
                if contains(.normalized) { letters += "n" }
                return "[\(letters)]"
            }
        }

        /// The expression on the left of the operator.
        public let leftExpression: KeyValueExpression
        /// The expression on the right of the operator.
        public let rightExpression: KeyValueExpression
        /// The operator.
        public let operatorType: Operator
        /// `ANY`, `ALL` or neither.
        public let modifier: Modifier
        /// String options.
        public let options: Options
        /// What evaluation reuses.
        let prepared: PreparedComparison

        /// Creates a comparison.
        ///
        /// A `MATCHES` with a constant pattern that is not a valid regular expression is
        /// accepted here and throws ``KeyValuePredicateError/Code/invalidRegularExpression``
        /// when evaluated (the parser reports it when parsing).
        ///
        /// Corresponds to Cocoa's `-[NSComparisonPredicate initWithLeftExpression:rightExpression:modifier:type:options:]`.
        public convenience init(
            _ left: KeyValueExpression, _ operatorType: Operator, _ right: KeyValueExpression,
            modifier: Modifier = .direct, options: Options = []
        ) {
            self.init(
                left, operatorType, right, modifier: modifier, options: options,
                prepared: PreparedComparison(operatorType: operatorType, left: left, right: right, modifier: modifier, options: options))
        }

        private init(
            _ left: KeyValueExpression, _ operatorType: Operator, _ right: KeyValueExpression,
            modifier: Modifier, options: Options, prepared: PreparedComparison
        ) {
            self.leftExpression = left
            self.rightExpression = right
            self.operatorType = operatorType
            self.modifier = modifier
            self.options = options
            self.prepared = prepared
        }
    }
}
