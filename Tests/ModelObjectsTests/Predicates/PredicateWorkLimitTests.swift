import Foundation
import Testing
@testable import ModelObjects

/// Evaluations that would take exponential time throw `evaluationLimitExceeded` quickly instead,
/// and `MATCHES` matches the whole string against the whole pattern.
@Suite struct PredicateWorkLimitTests {
    @Test(arguments: [26, 30, 40])
    func catastrophicBacktrackingThrowsInsteadOfAnsweringFalse(_ count: Int) throws {
        let predicate = try KeyValuePredicate(format: "%@ MATCHES '(a+)+c|.*b'", String(repeating: "a", count: count) + "b")
        // The limit counts the regular-expression engine's progress reports, not time.
        expectPredicateError(.evaluationLimitExceeded) { _ = try predicate.evaluate(with: nil) }
    }

    @Test func backtrackingAnswersTrueOrThrowsNeverFalse() throws {
        for count in [1, 10, 18, 22, 24] {
            let predicate = try KeyValuePredicate(format: "%@ MATCHES '(a+)+c|.*b'", String(repeating: "a", count: count) + "b")
            do {
                #expect(try predicate.evaluate(with: nil), "\(count) a's")
            } catch KeyValuePredicateError.Code.evaluationLimitExceeded {
                #expect(count > 18)
            }
        }
    }

    @Test func patternThatEscapesItsAnchorsIsRefused() throws {
        expectPredicateError(.invalidRegularExpression) { _ = try KeyValuePredicate(format: "name MATCHES 'x)|(.*'") }
        // The same pattern built without the parser, and one read from the object.
        let built = KeyValuePredicate.comparison(.init(.keyPath("name"), .matches, .constant("x)|(.*")))
        expectPredicateError(.invalidRegularExpression) { _ = try built.evaluate(with: ["name": "anything"]) }
        let fromObject = try KeyValuePredicate(format: "name MATCHES pattern")
        expectPredicateError(.invalidRegularExpression) { _ = try fromObject.evaluate(with: ["name": "anything", "pattern": "x)|(.*"]) }
        #expect(try fromObject.evaluate(with: ["name": "x)|(.*", "pattern": "x\\)\\|\\(\\.\\*"]))
        #expect(try !fromObject.evaluate(with: ["name": "y", "pattern": "x\\)\\|\\(\\.\\*"]))
    }

    @Test(arguments: [
        ("ab", "a|ab", true), ("a", "a|ab", true), ("xab", "a|ab", false), ("abx", "a|ab", false),
        ("b", "a|b", true), ("ab", "a|b", false), ("A", "(?i)a", true), ("A", "a", false),
    ])
    func matchesIsWholeStringAgainstWholePattern(_ string: String, _ pattern: String, _ expected: Bool) throws {
        #expect(try KeyValuePredicate(format: "%@ MATCHES %@", string, pattern).evaluate(with: nil) == expected)
    }

    /// Valid alone, but they swallow the closing parenthesis that anchors them: refused rather
    /// than matched differently.
    @Test(arguments: ["(?x)a#", "\\Qa)"])
    func patternThatSwallowsTheAnchorIsRefused(_ pattern: String) {
        expectPredicateError(.invalidRegularExpression) { _ = try KeyValuePredicate(format: "%@ MATCHES %@", "a", pattern) }
    }

    /// `SUBQUERY(items, $v1, SUBQUERY(items, $v2, … TRUEPREDICATE …).@count > 0).@count > 0`.
    private func nestedSubqueries(_ depth: Int) -> String {
        var format = "TRUEPREDICATE"
        for level in (1...depth).reversed() {
            format = "SUBQUERY(items, $v\(level), \(format)).@count > 0"
        }
        return format
    }

    @Test func twelveNestedSubqueriesThrowInsteadOfVisiting4To12Elements() throws {
        let predicate = try KeyValuePredicate(format: nestedSubqueries(12))
        let object: [String: Any] = ["items": [1, 2, 3, 4]]
        expectPredicateError(.evaluationLimitExceeded) { _ = try predicate.evaluate(with: object) }
    }

    /// The outer `SUBQUERY`'s visits are not nested; the inner one's are: n × n nested visits.
    /// 316 × 316 = 99,856 is within `maximumNestedElementVisits`, 317 × 317 = 100,489 is not.
    @Test func nestedVisitsAreCountedExactlyAgainstTheLimit() throws {
        #expect(KeyValuePredicate.maximumNestedElementVisits == 100_000)
        let predicate = try KeyValuePredicate(format: "SUBQUERY(items, $a, SUBQUERY(items, $b, $b == $a).@count == 1).@count > 0")
        #expect(try predicate.evaluate(with: ["items": Array(1...316)]))
        expectPredicateError(.evaluationLimitExceeded) { _ = try predicate.evaluate(with: ["items": Array(1...317)]) }
    }

    @Test func nestedAnyInsideSubqueriesCounts() throws {
        let predicate = try KeyValuePredicate(format: "SUBQUERY(items, $a, SUBQUERY(items, $b, SUBQUERY(items, $c, ANY items == 0).@count > 0).@count > 0).@count > 0")
        let object: [String: Any] = ["items": Array(1...60)]
        expectPredicateError(.evaluationLimitExceeded) { _ = try predicate.evaluate(with: object) }
    }

    @Test func iterationsWithinTheLimitAnswer() throws {
        // Not nested: any size.
        let flat = try KeyValuePredicate(format: "SUBQUERY(items, $x, $x > 150000).@count == 50000")
        #expect(try flat.evaluate(with: ["items": Array(1...200_000)]))
        #expect(try KeyValuePredicate(format: "ANY items == 200000").evaluate(with: ["items": Array(1...200_000)]))
        // Nested: 100 × 100 visits.
        let nested = try KeyValuePredicate(format: "SUBQUERY(items, $a, SUBQUERY(items, $b, $b > $a).@count == 0).@count == 1")
        #expect(try nested.evaluate(with: ["items": Array(1...100)]))
    }
}

/// Long and deeply nested format strings throw or parse without exhausting the stack.
@Suite struct LongPredicateFormatTests {
    private let count = 20_000

    @Test func longAndChainParsesPrintsAndEvaluates() throws {
        let format = Array(repeating: "a == 1", count: count).joined(separator: " AND ")
        let predicate = try KeyValuePredicate(format: format)
        #expect(try predicate.evaluate(with: ["a": 1]))
        #expect(try !predicate.evaluate(with: ["a": 2]))
        #expect(try KeyValuePredicate(format: predicate.predicateFormat) == predicate)
    }

    @Test(arguments: ["(", "NOT ", "!", "{", "SUBQUERY(a, $x, "])
    func deepNestingThrowsNestingTooDeep(_ opener: String) {
        let format = String(repeating: opener, count: count) + "TRUEPREDICATE"
        expectPredicateError(.nestingTooDeep) { _ = try KeyValuePredicate(format: format) }
    }

    @Test func longRunOfUnaryMinusIsUnsupported() {
        expectPredicateError(.unsupportedSyntax) { _ = try KeyValuePredicate(format: String(repeating: "-", count: count) + "1 == 1") }
    }
}
