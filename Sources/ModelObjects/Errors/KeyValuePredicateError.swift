import Foundation

/// An error thrown while parsing or evaluating a ``KeyValuePredicate``: a malformed format
/// string, a missing or unusable format argument, an unbound `$variable`, or an operator applied
/// to values it cannot work on.
///
/// Cocoa raises `NSInvalidArgumentException` in these cases ("Unable to parse the format
/// string…", "Can't get value for 'X' in bindings…", "Can't do a substring operation with
/// something that isn't a string"); this library throws instead. Errors of key-value coding met
/// while evaluating a key path (an unknown key, a collection operator on a non-collection) are
/// not wrapped: they are thrown as the ``KeyValueCodingError`` that key-value coding throws.
///
/// Match errors by code:
/// ```swift
/// do { _ = try KeyValuePredicate(format: "salary > ") }
/// catch KeyValuePredicateError.Code.syntaxError { … }
/// ```
///
/// The name avoids Foundation's `PredicateError`, which belongs to `#Predicate`.
public struct KeyValuePredicateError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The format string is malformed: ``KeyValuePredicateError/offset`` says where and
        /// ``KeyValuePredicateError/expected`` what was expected there.
        public static let syntaxError = Code(rawValue: 1)
        /// The format string has more format specifiers (`%@`, `%K`, `%d`, …) than arguments.
        public static let missingArgument = Code(rawValue: 2)
        /// A format argument does not fit its specifier: `%K` with something other than a
        /// string, `%d` with something other than an integer, `%f` with something other than a
        /// number.
        public static let invalidArgument = Code(rawValue: 3)
        /// Evaluation met a `$variable` that has no value: pass it in `substitutionVariables` or
        /// substitute it first with ``KeyValuePredicate/withSubstitutionVariables(_:)``.
        public static let unboundVariable = Code(rawValue: 4)
        /// The format string nests parentheses, `NOT`s, arrays or subqueries deeper than the
        /// parser allows (``KeyValuePredicate/maximumNestingDepth``).
        public static let nestingTooDeep = Code(rawValue: 5)
        /// An operator was applied to values it cannot work on: a string operator to a number,
        /// `ANY`/`ALL` to something that is not a collection, `BETWEEN` without two bounds, an
        /// ordering of values that cannot be ordered (a string and a number).
        public static let invalidOperand = Code(rawValue: 6)
        /// The right-hand side of `MATCHES` is not a valid ICU regular expression.
        public static let invalidRegularExpression = Code(rawValue: 7)
        /// The format string uses a construct of Cocoa's syntax that this library does not
        /// support (arithmetic, functions, `FIRST`/`LAST` subscripts, `ANYKEY`, `FETCH`).
        public static let unsupportedSyntax = Code(rawValue: 8)
        /// Evaluation was stopped before it could answer, because it would take too long: a
        /// `MATCHES` pattern that backtracks past its step limit, or `SUBQUERY`/`ANY`/`ALL`
        /// nested so that one evaluation visits more than
        /// ``KeyValuePredicate/maximumNestedElementVisits`` elements in nested iterations.
        public static let evaluationLimitExceeded = Code(rawValue: 9)

        /// The code's name, such as `syntaxError`.
        public var description: String {
            switch self {
            case .syntaxError: "syntaxError"
            case .missingArgument: "missingArgument"
            case .invalidArgument: "invalidArgument"
            case .unboundVariable: "unboundVariable"
            case .nestingTooDeep: "nestingTooDeep"
            case .invalidOperand: "invalidOperand"
            case .invalidRegularExpression: "invalidRegularExpression"
            case .unsupportedSyntax: "unsupportedSyntax"
            case .evaluationLimitExceeded: "evaluationLimitExceeded"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch KeyValuePredicateError.Code.syntaxError`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? KeyValuePredicateError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// Where in the format string, for parse errors: the number of Unicode scalars before the
    /// offending token (the character offset, for ASCII text), from 0.
    public var offset: Int?
    /// What the parser expected at ``offset``, such as `"')'"` or `"an expression"`.
    public var expected: String?
    /// The format string being parsed, for parse errors.
    public var format: String?
    /// The variable involved, for ``Code/unboundVariable``.
    public var variable: String?
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(
        _ code: Code, message: String, offset: Int? = nil, expected: String? = nil,
        format: String? = nil, variable: String? = nil
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.expected = expected
        self.format = format
        self.variable = variable
    }

    /// The code, the offset when known, the message and the format string.
    public var description: String {
        var text = "KeyValuePredicateError.\(code)"
        if let offset { text += " at offset \(offset)" }
        text += ": \(message)"
        if let format { text += " in \"\(format)\"" }
        return text
    }
}

extension KeyValuePredicateError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}

extension KeyValuePredicateError: CustomNSError {
    /// The error domain when bridged to `NSError`.
    public static var errorDomain: String { "ModelObjects.KeyValuePredicateError" }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// `NSLocalizedDescriptionKey` with the description, and the offset and format when known.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let offset { info["offset"] = offset }
        if let format { info["format"] = format }
        return info
    }
}
