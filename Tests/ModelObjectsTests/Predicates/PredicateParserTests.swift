import Foundation
import ModelObjects
import Testing

/// The parser builds the tree Cocoa would for every construct of the format syntax.
@Suite struct PredicateParserTests {
    private func parse(_ format: String, _ arguments: Any?...) throws -> KeyValuePredicate {
        try KeyValuePredicate(format: format, argumentArray: arguments)
    }

    private func comparison(
        _ left: KeyValueExpression, _ operatorType: KeyValuePredicate.Comparison.Operator, _ right: KeyValueExpression,
        modifier: KeyValuePredicate.Comparison.Modifier = .direct, options: KeyValuePredicate.Comparison.Options = []
    ) -> KeyValuePredicate {
        KeyValuePredicate(left, operatorType, right, modifier: modifier, options: options)
    }

    @Test(arguments: [
        ("a == 1", KeyValuePredicate.Comparison.Operator.equalTo),
        ("a = 1", .equalTo),
        ("a != 1", .notEqualTo),
        ("a <> 1", .notEqualTo),
        ("a < 1", .lessThan),
        ("a <= 1", .lessThanOrEqualTo),
        ("a =< 1", .lessThanOrEqualTo),
        ("a > 1", .greaterThan),
        ("a >= 1", .greaterThanOrEqualTo),
        ("a => 1", .greaterThanOrEqualTo),
        ("a BEGINSWITH 1", .beginsWith),
        ("a endswith 1", .endsWith),
        ("a Contains 1", .contains),
        ("a LIKE 1", .like),
        ("a MATCHES 1", .matches),
        ("a IN 1", .in),
    ])
    func everyComparisonOperatorParses(format: String, operatorType: KeyValuePredicate.Comparison.Operator) throws {
        let predicate = try parse(format)
        #expect(predicate == comparison(.keyPath("a"), operatorType, .constant(1)))
        #expect(predicate.comparison?.operatorType == operatorType)
    }

    @Test func betweenTakesAnArrayOfTwoValues() throws {
        #expect(try parse("age BETWEEN {20, 30}") == comparison(.keyPath("age"), .between, .constant([20, 30])))
        #expect(try parse("age BETWEEN %@", [20, 30]) == comparison(.keyPath("age"), .between, .constant([20, 30])))
        #expect(try parse("age BETWEEN {$LOW, 30}") == comparison(.keyPath("age"), .between, .aggregate([.variable("LOW"), .constant(30)])))
    }

    static let optionSuffixes: [(String, KeyValuePredicate.Comparison.Options)] = [
        ("[c]", .caseInsensitive),
        ("[d]", .diacriticInsensitive),
        ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
        ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
        ("[CD]", [.caseInsensitive, .diacriticInsensitive]),
        ("[n]", .normalized),
        ("[cdn]", [.caseInsensitive, .diacriticInsensitive, .normalized]),
    ]

    @Test(arguments: optionSuffixes)
    func stringOptionsFollowTheOperator(suffix: String, options: KeyValuePredicate.Comparison.Options) throws {
        let predicate = try parse("name LIKE\(suffix) 'a*'")
        #expect(predicate == comparison(.keyPath("name"), .like, .constant("a*"), options: options))
        #expect(try parse("name ==\(suffix) 'a'").comparison?.options == options)
    }

    @Test func compoundsNestWithPrecedenceOrAndNot() throws {
        let a = comparison(.keyPath("a"), .equalTo, .constant(1))
        let b = comparison(.keyPath("b"), .equalTo, .constant(2))
        let c = comparison(.keyPath("c"), .equalTo, .constant(3))
        #expect(try parse("a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try parse("a == 1 && b == 2 || c == 3") == .or([.and([a, b]), c]))
        #expect(try parse("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try parse("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try parse("(a == 1 AND b == 2) AND c == 3") == .and([.and([a, b]), c]))
        #expect(try parse("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try parse("!(a == 1 || b == 2)") == .not(.or([a, b])))
        #expect(try parse("not not a == 1") == .not(.not(a)))
        #expect(try parse("((a == 1))") == a)
    }

    @Test func booleanPredicatesParse() throws {
        #expect(try parse("TRUEPREDICATE") == .truePredicate)
        #expect(try parse("falsepredicate") == .falsePredicate)
        #expect(try parse("TRUEPREDICATE AND a == 1").subpredicates.first == .truePredicate)
        #expect(KeyValuePredicate(value: true) == .truePredicate)
    }

    @Test func modifiersApplyToToManyKeyPaths() throws {
        let any = comparison(.keyPath("employees.lastName"), .equalTo, .constant("Smith"), modifier: .any)
        #expect(try parse("ANY employees.lastName == 'Smith'") == any)
        #expect(try parse("some employees.lastName == 'Smith'") == any)
        #expect(try parse("ALL employees.salary > 10") == comparison(.keyPath("employees.salary"), .greaterThan, .constant(10), modifier: .all))
        #expect(try parse("NONE employees.lastName == 'Smith'") == .not(any))
    }

    @Test func keyPathsKeepCollectionOperators() throws {
        #expect(try parse("employees.@count > 5") == comparison(.keyPath("employees.@count"), .greaterThan, .constant(5)))
        #expect(try parse("employees.@avg.salary < 1000") == comparison(.keyPath("employees.@avg.salary"), .lessThan, .constant(1000)))
        #expect(try parse("@count == 2") == comparison(.keyPath("@count"), .equalTo, .constant(2)))
        #expect(try parse("SELF == 2") == comparison(.evaluatedObject, .equalTo, .constant(2)))
        #expect(try parse("SELF.name == 2") == comparison(.keyPath("name"), .equalTo, .constant(2)))
        #expect(try parse("department.name == 2") == comparison(.keyPath("department.name"), .equalTo, .constant(2)))
    }

    @Test func reservedWordsAreKeysWhenEscapedOrAfterADot() throws {
        #expect(try parse("#in == 1") == comparison(.keyPath("in"), .equalTo, .constant(1)))
        #expect(try parse("#SELF.size == 1") == comparison(.keyPath("SELF.size"), .equalTo, .constant(1)))
        #expect(try parse("box.first == 1") == comparison(.keyPath("box.first"), .equalTo, .constant(1)))
    }

    @Test func literalsHaveSwiftTypes() throws {
        func right(_ format: String) throws -> KeyValueExpression? { try parse(format).comparison?.rightExpression }
        #expect(try right("a == 'single'") == .constant("single"))
        #expect(try right("a == \"double\"") == .constant("double"))
        #expect(try right(#"a == "q\"uote\\d\n\t\u00e9""#) == .constant("q\"uote\\d\n\té"))
        #expect(try right(#"a == 'it\'s'"#) == .constant("it's"))
        #expect(try right("a == 42") == .constant(42))
        #expect(try right("a == -42") == .constant(-42))
        #expect(try right("a == 4.5") == .constant(4.5))
        #expect(try right("a == 1e3") == .constant(1000.0))
        #expect(try right("a == 2.5E-3") == .constant(0.0025))
        #expect(try right("a == 0x1F") == .constant(31))
        #expect(try right("a == 0o17") == .constant(15))
        #expect(try right("a == 0b101") == .constant(5))
        #expect(try right("a == 123456789012345678901234567890") == .constant(Decimal(string: "123456789012345678901234567890")!))
        #expect(try right("a == TRUE") == .constant(true))
        #expect(try right("a == yes") == .constant(true))
        #expect(try right("a == FALSE") == .constant(false))
        #expect(try right("a == NO") == .constant(false))
        #expect(try right("a == nil") == .constant(nil))
        #expect(try right("a == NULL") == .constant(nil))
        #expect(try right("a IN {1, 'two', nil}") == .constant([1, "two", NSNull()] as [Any]))
        #expect(try right("a IN {}") == .constant([Any]()))
        #expect(try right("a == CAST(0, \"NSDate\")") == .constant(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(try right("a == CAST('1.10', 'NSDecimalNumber')") == .constant(Decimal(string: "1.1")!))
    }

    @Test func constantsOfDifferentKindsAreNotEqualTrees() throws {
        #expect(try parse("a == 1") != parse("a == 1.0"))
        #expect(try parse("a == 1") != parse("a == TRUE"))
        #expect(try parse("a == '1'") != parse("a == 1"))
        #expect(try parse("a == nil") == parse("a == NULL"))
    }

    @Test func formatArgumentsBecomeConstantsAndKeyPaths() throws {
        #expect(try parse("%K == %@", "lastName", "Smith") == comparison(.keyPath("lastName"), .equalTo, .constant("Smith")))
        #expect(try parse("%K.name == %@", "department", nil as String?) == comparison(.keyPath("department.name"), .equalTo, .constant(nil)))
        #expect(try parse("a == %d AND b == %i AND c == %ld AND d == %lld AND e == %u", 1, 2, 3, Int64(4), UInt(5)) == parse("a == 1 AND b == 2 AND c == 3 AND d == 4 AND e == 5"))
        #expect(try parse("a == %f", 2.5) == parse("a == 2.5"))
        #expect(try parse("a == %f", 2) == parse("a == 2.0"))
        #expect(try parse("a IN %@", [1, 2]) == parse("a IN {1, 2}"))
        #expect(try parse("a == '%@'", "x") == parse("a == \"%@\""))
        let variadic = try KeyValuePredicate(format: "name == %@ AND age > %d", "Ann", 30)
        #expect(variadic == (try parse("name == 'Ann' AND age > 30")))
    }

    @Test func variablesParseAndSubstitute() throws {
        let template = try parse("lastName == $NAME AND salary > $MIN")
        #expect(template == .and([
            comparison(.keyPath("lastName"), .equalTo, .variable("NAME")),
            comparison(.keyPath("salary"), .greaterThan, .variable("MIN")),
        ]))
        #expect(template.withSubstitutionVariables(["NAME": "Smith", "MIN": 10]) == (try parse("lastName == 'Smith' AND salary > 10")))
        #expect(template.withSubstitutionVariables(["NAME": nil]) == (try parse("lastName == nil AND salary > $MIN")))
        let values = try parse("a BETWEEN {$LOW, $HIGH}").withSubstitutionVariables(["LOW": 1, "HIGH": 2])
        #expect(values == (try parse("a BETWEEN {1, 2}")))
    }

    @Test func subqueriesBindTheirVariable() throws {
        let predicate = try parse("SUBQUERY(employees, $e, $e.salary > 10 AND $e.lastName == $NAME).@count > 0")
        let inner = KeyValuePredicate.and([
            comparison(.keyPathOn(.variable("e"), "salary"), .greaterThan, .constant(10)),
            comparison(.keyPathOn(.variable("e"), "lastName"), .equalTo, .variable("NAME")),
        ])
        let subquery = KeyValueExpression.subquery(collection: .keyPath("employees"), variable: "e", predicate: inner)
        #expect(predicate == comparison(.keyPathOn(subquery, "@count"), .greaterThan, .constant(0)))
        let substituted = predicate.withSubstitutionVariables(["e": 1, "NAME": "Smith"])
        #expect(substituted == (try parse("SUBQUERY(employees, $e, $e.salary > 10 AND $e.lastName == 'Smith').@count > 0")))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        #expect(try parse("a == 1 and b == 2 oR not c == 3") == parse("a == 1 AND b == 2 OR NOT c == 3"))
        #expect(try parse("any a beginswith[c] 'x'") == parse("ANY a BEGINSWITH[c] 'x'"))
        #expect(try parse("a == Nil") == parse("a == nil"))
    }

    @Test func treeIsInspectable() throws {
        let predicate = try parse("ANY employees.lastName BEGINSWITH[cd] $PREFIX")
        let comparison = try #require(predicate.comparison)
        #expect(comparison.modifier == .any)
        #expect(comparison.operatorType == .beginsWith)
        #expect(comparison.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(comparison.leftExpression.keyPathString == "employees.lastName")
        guard case .variable("PREFIX") = comparison.rightExpression else {
            Issue.record("expected a variable, got \(comparison.rightExpression)")
            return
        }
        #expect(try parse("a == 3").comparison?.rightExpression.constantValue as? Int == 3)
    }
}
