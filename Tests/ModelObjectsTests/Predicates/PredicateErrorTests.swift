import Foundation
import ModelObjects
import SampleModels
import Testing

/// Malformed strings, missing arguments, unbound variables and impossible comparisons throw,
/// with the position and what was expected; no input traps.
@Suite struct PredicateErrorTests {
    @discardableResult
    private func expectError(
        _ code: KeyValuePredicateError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) -> KeyValuePredicateError? {
        let error = #expect(throws: KeyValuePredicateError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == code, "expected \(code), got \(error.map { "\($0)" } ?? "no error")", sourceLocation: sourceLocation)
        return error
    }

    static let syntaxErrors: [(format: String, offset: Int, expected: String)] = [
        ("", 0, "an expression"),
        ("   ", 3, "an expression"),
        ("salary >", 8, "an expression"),
        ("salary", 6, "a comparison operator"),
        ("salary 5", 7, "a comparison operator"),
        ("(salary > 5", 11, "')'"),
        ("(salary > 5))", 12, "AND, OR or the end"),
        ("salary > 5 AND", 14, "an expression"),
        ("salary > 5 salary", 11, "AND, OR or the end"),
        ("name == 'abc", 12, "a closing ' for the string"),
        ("name == \"abc\\", 13, "a character after"),
        ("name ==[x] 'a'", 8, "comparison options"),
        ("name ==[c 'a'", 10, "']'"),
        ("a == {1, 2", 10, "'}'"),
        ("a == 0x", 7, "a base-16 digit"),
        ("a == 12abc", 7, "a digit or the end of the number"),
        ("a == 'x' ^ b", 9, "a key, a value, an operator"),
        ("department. == 1", 12, "a key"),
        ("(a) == 1", 2, "a comparison operator"),
        ("a == $", 6, "a variable name"),
        ("a == 5 %", 7, "a format specifier"),
        ("IN == 1", 0, "an expression"),
        ("a == AND", 5, "an expression"),
        ("SUBQUERY(employees, e, e.salary > 1).@count > 0", 20, "a variable"),
        ("SUBQUERY(employees, $e, $e.salary > 1.@count > 0", 45, "')'"),
        ("a BETWEEN {1, 2, 3}", 10, "an array of two values"),
        ("a BETWEEN 5", 10, "an array of two values"),
        ("a == CAST(1, NSDate)", 13, "a class name string"),
        ("a == CAST('x', 'NSDate')", 10, "a value that converts to NSDate"),
        ("a == '\\u12'", 10, "4 hexadecimal digits"),
    ]

    @Test(arguments: syntaxErrors)
    func malformedStringsThrowWithOffsetAndExpectation(format: String, offset: Int, expected: String) {
        let error = expectError(.syntaxError) { _ = try KeyValuePredicate(format: format) }
        #expect(error?.offset == offset, "\(format): \(error.map { "\($0)" } ?? "")")
        #expect(error?.expected?.hasPrefix(expected) == true, "\(format): \(error.map { "\($0)" } ?? "")")
        #expect(error?.format == format)
    }

    @Test func theMessageSaysWhatAndWhere() throws {
        let error = expectError(.syntaxError) { _ = try KeyValuePredicate(format: "(salary > 5 AND age < 3") }
        #expect(error?.message == "expected ')' at offset 23, found the end of the format string")
        #expect(error?.description.contains("at offset 23") == true)
        let nsError = try #require(error.map { $0 as NSError })
        #expect(nsError.domain == KeyValuePredicateError.errorDomain)
        #expect(nsError.code == KeyValuePredicateError.Code.syntaxError.rawValue)
    }

    @Test func offsetsCountUnicodeScalars() {
        let error = expectError(.syntaxError) { _ = try KeyValuePredicate(format: "name == 'Émile' )") }
        #expect(error?.offset == 16)
    }

    @Test func missingArgumentsThrow() {
        let error = expectError(.missingArgument) { _ = try KeyValuePredicate(format: "a == %@ AND b == %@", 1) }
        #expect(error?.offset == 17)
        expectError(.missingArgument) { _ = try KeyValuePredicate(format: "%K == 1") }
    }

    @Test func argumentsOfTheWrongKindThrow() {
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "%K == 1", 5) }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "%K == 1", "") }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "a == %d", "five") }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "a == %d", 2.5) }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "a == %d", nil as Int?) }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "a == %f", "x") }
        expectError(.invalidArgument) { _ = try KeyValuePredicate(format: "a == %d", true) }
    }

    @Test func unboundVariablesThrowAtEvaluation() throws {
        let predicate = try KeyValuePredicate(format: "lastName == $NAME")
        let error = expectError(.unboundVariable) { _ = try predicate.evaluate(with: Employee()) }
        #expect(error?.variable == "NAME")
        let partly = predicate.withSubstitutionVariables(["OTHER": 1])
        expectError(.unboundVariable) { _ = try partly.evaluate(with: Employee()) }
    }

    @Test func unknownKeysThrowTheKeyValueCodingError() throws {
        let predicate = try KeyValuePredicate(format: "nickname == 'x'")
        expectKVCError(.undefinedKey) { _ = try predicate.evaluate(with: Employee()) }
        expectKVCError(.undefinedKey) { _ = try [Employee()].filtered(using: predicate) }
        expectKVCError(.unknownCollectionOperator) {
            _ = try KeyValuePredicate(format: "directReports.@median.salary > 1").evaluate(with: Employee())
        }
    }

    @Test func operatorsOnTheWrongKindOfValueThrow() throws {
        let employee = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 10)
        for format in [
            "salary BEGINSWITH '1'", "lastName ENDSWITH 1", "salary LIKE '1*'", "salary MATCHES '1'",
            "ANY lastName == 'x'", "ALL salary > 1", "lastName > 5", "startDate < 'yesterday'",
            "salary CONTAINS 1", "1 IN salary", "salary BETWEEN $B", "SUBQUERY(lastName, $x, $x == 1).@count > 0",
        ] {
            let predicate = try KeyValuePredicate(format: format)
            expectError(.invalidOperand) { _ = try predicate.evaluate(with: employee, substitutionVariables: ["B": [1]]) }
        }
    }

    @Test func invalidRegularExpressionsThrow() throws {
        let error = expectError(.invalidRegularExpression) { _ = try KeyValuePredicate(format: "name MATCHES '(['") }
        #expect(error?.offset == 13)
        let programmatic = KeyValuePredicate(.evaluatedObject, .matches, .constant("(["))
        expectError(.invalidRegularExpression) { _ = try programmatic.evaluate(with: "x") }
        let dynamic = try KeyValuePredicate(format: "SELF MATCHES $P")
        expectError(.invalidRegularExpression) { _ = try dynamic.evaluate(with: "x", substitutionVariables: ["P": "(["]) }
    }

    @Test func unsupportedCocoaSyntaxSaysSo() {
        for format in [
            "a + 1 > 2", "a[FIRST] == 1", "FUNCTION(a, 'x') == 1", "ANYKEY == 1", "a == -b",
            "a UTI-CONFORMS-TO 'public.text'", "a == FIRST", "a == CAST(b, 'NSDate')",
            "a == CAST(1, 'NSURL')",
        ] {
            expectError(.unsupportedSyntax) { _ = try KeyValuePredicate(format: format) }
        }
    }

    @Test func deepNestingThrowsInsteadOfOverflowing() {
        let depth = 10_000
        for format in [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            String(repeating: "NOT ", count: depth) + "a == 1",
            String(repeating: "!", count: depth) + "a == 1",
            "a IN " + String(repeating: "{", count: depth) + String(repeating: "}", count: depth),
            String(repeating: "SUBQUERY(a, $x, ", count: depth),
        ] {
            expectError(.nestingTooDeep) { _ = try KeyValuePredicate(format: format) }
        }
        let limit = KeyValuePredicate.maximumNestingDepth
        #expect(throws: Never.self) {
            _ = try KeyValuePredicate(format: String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit))
        }
    }

    @Test func randomGarbageNeverTraps() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "b.c", "==", "<", "(", ")", "{", "}", ",", "'x'", "\"", "'", "\\", "%@", "%K", "%d", "$v", "ANY",
                      "NOT", "AND", "OR", "SUBQUERY", "(", "BETWEEN", "IN", "[cd]", "[", "]", "@count", ".", "#", "1", "-",
                      "0x", "1e", "CAST", "nil", "TRUE", "SELF", " ", "é", "\u{301}", "\0"]
        for _ in 0..<3_000 {
            let count = Int.random(in: 1...12, using: &generator)
            let format = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined(separator: Bool.random(using: &generator) ? " " : "")
            if let predicate = try? KeyValuePredicate(format: format, "k", "v", 1) {
                _ = try? predicate.evaluate(with: ["a": 1, "b": ["c": "x"], "k": [1, 2]])
                _ = try? KeyValuePredicate(format: predicate.predicateFormat)
            }
        }
    }
}
