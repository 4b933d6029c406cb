import Foundation
import ModelObjects
import Testing

/// `predicateFormat` prints a format string that parses back to an equal predicate.
@Suite struct PredicateFormatTests {
    static let roundTrips: [String] = [
        "TRUEPREDICATE",
        "FALSEPREDICATE",
        "a == 1",
        "a != -1",
        "a < 2.5",
        "a <= 1e-05",
        "a > 5e+20",
        "a >= 0",
        "a == 9223372036854775807",
        "a == -9223372036854775808",
        "a == 123456789012345678901234567890",
        "a == CAST('0.1', 'NSDecimalNumber')",
        "a == CAST(-12.25, 'NSDecimalNumber')",
        "a == 1.0",
        "a == 0.1",
        // Found by the predicate fuzz target: NaN constants compared unequal, so the tree did not round-trip.
        "a == CAST('nan', 'NSNumber')",
        "a == TRUE",
        "a == NO",
        "a == nil",
        "a == 'plain'",
        "a == 'quote \" and \\\\ backslash'",
        "a == 'new\\nline\\ttab\\rreturn'",
        "a == '\\u0001 control'",
        "a == 'Ünïcødé 🎉'",
        "a == ''",
        "a == CAST(1234.5, 'NSDate')",
        "a == CAST(-1e10, 'NSDate')",
        "name BEGINSWITH 'a'",
        "name BEGINSWITH[c] 'a'",
        "name ENDSWITH[d] 'a'",
        "name CONTAINS[cd] 'a'",
        "name LIKE[n] 'a*b?'",
        "name MATCHES '^[a-z]+\\\\d$'",
        "name IN {'a', 'b', nil}",
        "name IN {}",
        "a IN {1, {2, 3}}",
        "'x' IN name",
        "tags CONTAINS 'x'",
        "a BETWEEN {1, 10}",
        "a BETWEEN {$LOW, $HIGH}",
        "a BETWEEN {CAST(0, 'NSDate'), CAST(100, 'NSDate')}",
        "ANY employees.salary > 5",
        "ALL employees.salary > 5",
        "NONE employees.salary > 5",
        "NOT ANY employees.salary > 5",
        "employees.@count > 5",
        "employees.@avg.salary < 1000",
        "employees.@distinctUnionOfObjects.lastName CONTAINS 'x'",
        "@count == 3",
        "SELF == 3",
        "SELF IN {1, 2}",
        "SELF.name == 'x'",
        "department.name == 'x'",
        "#in == 1",
        "#SELF == 1",
        "#first.last == 1",
        "box.first == 1",
        "$VAR == 1",
        "a == $VAR",
        "a == b",
        "a.b.c == d.e.f",
        "a == 1 AND b == 2",
        "a == 1 AND b == 2 AND c == 3",
        "a == 1 OR b == 2 OR c == 3",
        "a == 1 OR b == 2 AND c == 3",
        "(a == 1 OR b == 2) AND c == 3",
        "(a == 1 AND b == 2) AND c == 3",
        "a == 1 AND (b == 2 AND c == 3)",
        "(a == 1 OR b == 2) OR c == 3",
        "NOT a == 1",
        "NOT NOT a == 1",
        "NOT (a == 1 AND b == 2)",
        "NOT a == 1 AND NOT b == 2",
        "NOT TRUEPREDICATE OR FALSEPREDICATE",
        "SUBQUERY(employees, $e, $e.salary > 10).@count > 0",
        "SUBQUERY(employees, $e, $e.salary > 10 AND $e.lastName BEGINSWITH[c] $PREFIX).@count == 0",
        "SUBQUERY(departments, $d, SUBQUERY($d.employees, $e, $e.manager == $d.head).@count > 1).@count > 0",
        "SUBQUERY(employees, $e, $e == SELF).@count > 0",
        "SUBQUERY(employees, $e, TRUEPREDICATE) == {}",
        "$e.department.name == 'x'",
        "{a, b} == {1, 2}",
        "{1, a} == {1, 2}",
    ]

    @Test(arguments: roundTrips)
    func printedFormatParsesToAnEqualPredicate(format: String) throws {
        let predicate = try KeyValuePredicate(format: format)
        let printed = predicate.predicateFormat
        let reparsed = try KeyValuePredicate(format: printed)
        #expect(reparsed == predicate, "\(format) printed as \(printed)")
        #expect(reparsed.predicateFormat == printed, "printing is stable for \(format)")
    }

    @Test(arguments: [
        ("a=1", "a == 1"),
        ("a <> 1", "a != 1"),
        ("a =< 1 && b => 2", "a <= 1 AND b >= 2"),
        ("a == 1 || !(b == 2)", "a == 1 OR NOT b == 2"),
        ("name like[CD] 'x'", "name LIKE[cd] \"x\""),
        ("some a == 1", "ANY a == 1"),
        ("none a == 1", "NOT ANY a == 1"),
        ("a == yes", "a == TRUE"),
        ("a == NULL", "a == nil"),
        ("a == 0x10", "a == 16"),
        ("a == 'it''s'", ""),
        ("SELF.a.b == 1", "a.b == 1"),
        ("(((a == 1)))", "a == 1"),
        ("a IN {1, 2.5, 'x', TRUE}", "a IN {1, 2.5, \"x\", TRUE}"),
        ("truepredicate", "TRUEPREDICATE"),
        ("SUBQUERY(e, $x, $x.s > 1).@count > 0", "SUBQUERY(e, $x, $x.s > 1).@count > 0"),
    ])
    func printsInCocoaStyle(format: String, expected: String) throws {
        guard !expected.isEmpty else {
            #expect(throws: KeyValuePredicateError.self) { try KeyValuePredicate(format: format) }
            return
        }
        #expect(try KeyValuePredicate(format: format).predicateFormat == expected)
    }

    @Test func argumentsPrintAsLiterals() throws {
        let date = Date(timeIntervalSinceReferenceDate: 86_400.5)
        let predicate = try KeyValuePredicate(
            format: "%K == %@ AND start > %@ AND budget < %@ AND n IN %@ AND flag == %@ AND x == %@",
            "lastName", "O'Brien \"Jr\"", date, Decimal(string: "10.01")!, [1, 2], true, nil as Any?)
        let printed = predicate.predicateFormat
        #expect(printed == #"lastName == "O'Brien \"Jr\"" AND start > CAST(86400.5, "NSDate") AND budget < CAST("10.01", "NSDecimalNumber") AND n IN {1, 2} AND flag == TRUE AND x == nil"#)
        #expect(try KeyValuePredicate(format: printed) == predicate)
    }

    @Test func descriptionIsThePredicateFormat() throws {
        let predicate = try KeyValuePredicate(format: "a == 1 AND b BEGINSWITH[c] 'x'")
        #expect(predicate.description == predicate.predicateFormat)
        #expect("\(predicate)" == "a == 1 AND b BEGINSWITH[c] \"x\"")
        #expect(predicate.subpredicates[1].comparison?.description == "b BEGINSWITH[c] \"x\"")
        #expect(KeyValueExpression.subquery(collection: .keyPath("e"), variable: "x", predicate: .truePredicate).description == "SUBQUERY(e, $x, TRUEPREDICATE)")
    }

    @Test func programmaticTreesRoundTrip() throws {
        let trees: [KeyValuePredicate] = [
            .and([.or([KeyValuePredicate(.keyPath("a"), .equalTo, .constant(1)), .truePredicate]), .not(.falsePredicate)]),
            KeyValuePredicate(.keyPath("in"), .in, .constant(["x", 2, 3.5] as [Any])),
            KeyValuePredicate(.keyPathOn(.variable("v"), "first"), .like, .constant("a*"), modifier: .all, options: .caseInsensitive),
            KeyValuePredicate(.keyPath("a"), .equalTo, .constant(Int8(5))),
            KeyValuePredicate(.keyPath("a"), .equalTo, .constant(Float(0.5))),
            KeyValuePredicate(.keyPath("a"), .equalTo, .constant(UInt64.max)),
            KeyValuePredicate(.keyPath("a"), .equalTo, .constant(Decimal(string: "-0.000123")!)),
            KeyValuePredicate(.keyPath("a"), .lessThan, .constant(Double.infinity)),
        ]
        for tree in trees {
            #expect(try KeyValuePredicate(format: tree.predicateFormat) == tree, "\(tree.predicateFormat)")
        }
    }
}
