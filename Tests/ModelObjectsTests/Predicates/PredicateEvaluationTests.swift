import Foundation
import ModelObjects
import SampleModels
import Testing

/// Evaluation follows Cocoa's `NSComparisonPredicate` semantics on SampleModels' employees and
/// departments, dictionaries and plain values.
@Suite struct PredicateEvaluationTests {
    /// Ada Lovelace, 36, 120,000, in Engineering with Grace; Émile Zola, no age, 40,000, in
    /// Sales alone.
    final class Company {
        let engineering = Department(name: "Engineering", budget: Decimal(string: "1000000.50")!)
        let sales = Department(name: "Sales", budget: 250_000)
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 120_000)
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 95_000)
        let emile = Employee(firstName: "Émile", lastName: "Zola", employeeID: 3, salary: 40_000)

        init() {
            ada.age = 36
            ada.hasDriversLicense = true
            ada.startDate = Date(timeIntervalSinceReferenceDate: 1_000)
            grace.age = 45
            ada.department = engineering
            grace.department = engineering
            emile.department = sales
            grace.manager = ada
            ada.directReports = [grace]
            engineering.employees = [ada, grace]
            sales.employees = [emile]
        }
    }

    static let employeeCases: [(String, Bool)] = [
        // Numbers compare by value across Int, Double, Bool and Decimal.
        ("salary > 100000", true),
        ("salary == 120000", true),
        ("salary == 120000.0", true),
        ("salary >= 120000.5", false),
        ("salary < 1.2e5", false),
        ("salary <= 120000", true),
        ("salary != 120000", false),
        ("salary <> 5", true),
        ("age == 36", true),
        ("age == 36.0", true),
        ("employeeID == TRUE", true),
        ("hasDriversLicense == YES", true),
        ("hasDriversLicense == 1", true),
        ("hasDriversLicense == FALSE", false),
        ("department.budget > 1000000", true),
        ("department.budget == CAST('1000000.5', 'NSDecimalNumber')", true),
        ("department.budget < 1000000.6", true),
        ("salary BETWEEN {100000, 120000}", true),
        ("salary BETWEEN {120000.01, 200000}", false),
        ("age BETWEEN {36, 36}", true),
        // Strings, with and without options.
        ("lastName == 'Lovelace'", true),
        ("lastName == 'lovelace'", false),
        ("lastName ==[c] 'LOVELACE'", true),
        ("lastName BEGINSWITH 'Love'", true),
        ("lastName BEGINSWITH 'love'", false),
        ("lastName BEGINSWITH[c] 'love'", true),
        ("lastName BEGINSWITH ''", false),
        ("lastName ENDSWITH 'lace'", true),
        ("lastName ENDSWITH[c] 'LACE'", true),
        ("lastName CONTAINS 'vela'", true),
        ("lastName CONTAINS[c] 'VELA'", true),
        ("lastName CONTAINS 'x'", false),
        ("lastName LIKE 'L*e'", true),
        ("lastName LIKE 'L?velace'", true),
        ("lastName LIKE 'l*'", false),
        ("lastName LIKE[c] 'l*'", true),
        ("lastName LIKE '*'", true),
        ("lastName LIKE 'Love'", false),
        ("lastName MATCHES 'L[a-z]+'", true),
        ("lastName MATCHES 'Love'", false),
        ("lastName MATCHES '[a-z]+'", false),
        ("lastName MATCHES[c] '[a-z]+'", true),
        ("'vela' IN lastName", true),
        ("lastName IN {'Hopper', 'Lovelace'}", true),
        ("lastName IN {'Hopper', 'Zola'}", false),
        ("lastName IN[c] {'LOVELACE'}", true),
        ("lastName > 'Hopper'", true),
        ("lastName < 'hopper'", true),
        ("lastName <[c] 'hopper'", false),
        ("firstName BETWEEN {'A', 'B'}", true),
        // Dates.
        ("startDate == CAST(1000, 'NSDate')", true),
        ("startDate > CAST(999.5, 'NSDate')", true),
        ("startDate < CAST(0, 'NSDate')", false),
        // nil: equal only to nil, never ordered.
        ("manager == nil", true),
        ("manager != nil", false),
        ("manager.lastName == nil", true),
        ("manager.lastName < 'z'", false),
        ("manager.lastName > 'z'", false),
        ("manager.lastName BEGINSWITH 'z'", false),
        ("manager.lastName IN {'a'}", false),
        ("manager.lastName CONTAINS 'a'", false),
        ("nil == nil", true),
        ("lastName != nil", true),
        // Relationships, collection operators, modifiers.
        ("department.name == 'Engineering'", true),
        ("department.employees.@count == 2", true),
        ("directReports.@count > 0", true),
        ("department.employees.@avg.salary > 100000", true),
        ("department.employees.@max.salary == 120000", true),
        ("department.employees.@sum.salary == 215000", true),
        ("ANY directReports.lastName == 'Hopper'", true),
        ("SOME directReports.lastName == 'Zola'", false),
        ("ALL department.employees.salary > 90000", true),
        ("ALL department.employees.salary > 100000", false),
        ("NONE department.employees.salary > 200000", true),
        ("NONE department.employees.lastName BEGINSWITH 'H'", false),
        ("ALL manager.directReports.salary > 1", true),
        ("ANY manager.directReports.salary > 1", false),
        ("department.employees.lastName CONTAINS 'Hopper'", true),
        ("department.employees CONTAINS SELF", true),
        ("SELF IN department.employees", true),
        ("SELF IN directReports", false),
        ("SUBQUERY(department.employees, $e, $e.salary > 100000).@count == 1", true),
        ("SUBQUERY(department.employees, $e, $e.lastName BEGINSWITH 'H' AND $e.age > 40).@count == 1", true),
        ("SUBQUERY(directReports, $x, SUBQUERY($x.department.employees, $y, $y.salary > $x.salary).@count == 1).@count == 1", true),
        // Compounds and booleans.
        ("TRUEPREDICATE", true),
        ("FALSEPREDICATE", false),
        ("salary > 100000 AND lastName BEGINSWITH[c] 'l'", true),
        ("salary > 200000 OR lastName BEGINSWITH[c] 'l'", true),
        ("salary > 200000 OR lastName BEGINSWITH[c] 'x'", false),
        ("NOT salary > 200000", true),
        ("!(salary > 100000 && age < 40)", false),
        ("SELF == SELF", true),
        ("{1, 2} == {1, 2}", true),
        ("{1, 2} == {2, 1}", false),
    ]

    @Test(arguments: employeeCases)
    func evaluatesWithAnEmployee(format: String, expected: Bool) throws {
        let company = Company()
        let predicate = try KeyValuePredicate(format: format)
        #expect(try predicate.evaluate(with: company.ada) == expected, "\(format)")
    }

    static let diacriticCases: [(String, Bool)] = [
        ("firstName == 'Emile'", false),
        ("firstName ==[d] 'Emile'", true),
        ("firstName ==[cd] 'EMILE'", true),
        ("firstName BEGINSWITH[d] 'Em'", true),
        ("firstName BEGINSWITH 'Em'", false),
        ("firstName BEGINSWITH[c] 'éM'", true),
        ("firstName ENDSWITH[cd] 'ILE'", true),
        ("firstName CONTAINS[d] 'mil'", true),
        ("firstName LIKE[cd] 'e*E'", true),
        ("firstName MATCHES[d] 'Emile'", true),
        ("firstName IN[cd] {'emile'}", true),
        ("department.budget == 250000", true),
        ("age == nil", true),
        ("age > 0", false),
        ("age < 0", false),
        ("manager == nil AND directReports.@count == 0", true),
        ("ANY directReports.salary > 0", false),
        ("ALL directReports.salary > 0", true),
    ]

    @Test(arguments: diacriticCases)
    func evaluatesDiacriticsAndEmptyValues(format: String, expected: Bool) throws {
        let company = Company()
        #expect(try KeyValuePredicate(format: format).evaluate(with: company.emile) == expected, "\(format)")
    }

    @Test func evaluatesWithADepartment() throws {
        let company = Company()
        let predicate = try KeyValuePredicate(format: "employees.@count > 1 AND ANY employees.firstName == 'Grace'")
        #expect(try predicate.evaluate(with: company.engineering))
        #expect(try !predicate.evaluate(with: company.sales))
        #expect(try KeyValuePredicate(format: "totalSalary == 215000").evaluate(with: company.engineering))
    }

    @Test func evaluatesWithDictionariesAndPlainValues() throws {
        let person: [String: Any] = ["name": "Ann", "age": 30, "tags": ["a", "b"], "address": ["city": "Oslo"]]
        #expect(try KeyValuePredicate(format: "name == 'Ann' AND age >= 30").evaluate(with: person))
        #expect(try KeyValuePredicate(format: "address.city BEGINSWITH 'O'").evaluate(with: person))
        #expect(try KeyValuePredicate(format: "tags CONTAINS 'b' AND tags.@count == 2").evaluate(with: person))
        #expect(try KeyValuePredicate(format: "missing == nil").evaluate(with: person))
        #expect(try KeyValuePredicate(format: "SELF > 3").evaluate(with: 4))
        #expect(try KeyValuePredicate(format: "SELF BEGINSWITH 'a'").evaluate(with: "abc"))
        #expect(try KeyValuePredicate(format: "SELF == nil").evaluate(with: nil))
        #expect(try KeyValuePredicate(format: "SELF IN %@", ["x": 1, "y": 2]).evaluate(with: 2))
    }

    @Test func stringsInStringsAreSubstrings() throws {
        #expect(try KeyValuePredicate(format: "SELF IN 'abcdef'").evaluate(with: "cde"))
        #expect(try !KeyValuePredicate(format: "SELF IN 'abcdef'").evaluate(with: "CDE"))
        #expect(try KeyValuePredicate(format: "SELF IN[c] 'abcdef'").evaluate(with: "CDE"))
        #expect(try !KeyValuePredicate(format: "SELF IN 'abcdef'").evaluate(with: ""))
    }

    @Test func likeEscapesAndBacktracks() throws {
        func like(_ string: String, _ pattern: String, _ options: KeyValuePredicate.Comparison.Options = []) throws -> Bool {
            try KeyValuePredicate(.evaluatedObject, .like, .constant(pattern), options: options).evaluate(with: string)
        }
        #expect(try like("a*b", #"a\*b"#))
        #expect(try !like("axb", #"a\*b"#))
        #expect(try like("a?", #"a\?"#))
        #expect(try like("", "*"))
        #expect(try !like("", "?"))
        #expect(try like("abcabcabd", "*abd"))
        #expect(try like("mississippi", "m*iss*ppi"))
        #expect(try !like("mississippi", "m*iss*ppx"))
        #expect(try like(String(repeating: "a", count: 200), String(repeating: "*a", count: 50) + "*"))
        #expect(try !like(String(repeating: "a", count: 200) + "b", String(repeating: "*a", count: 50)))
        #expect(try like("Ünïcödé", "*ïc?d*"))
    }

    @Test func matchesIsAWholeStringICURegularExpression() throws {
        func matches(_ string: String, _ pattern: String) throws -> Bool {
            try KeyValuePredicate(format: "SELF MATCHES %@", pattern).evaluate(with: string)
        }
        #expect(try matches("ab", "a|ab"))
        #expect(try !matches("abc", "ab"))
        #expect(try !matches("xab", "ab"))
        #expect(try matches("ab\n", "ab\\n"))
        #expect(try !matches("ab\n", "ab"))
        #expect(try matches("2024-01-05", "\\d{4}-\\d{2}-\\d{2}"))
        let dynamic = try KeyValuePredicate(format: "lastName MATCHES firstName")
        #expect(try dynamic.evaluate(with: ["lastName": "aaa", "firstName": "a+"]))
    }

    @Test func variablesComeFromTheEvaluation() throws {
        let company = Company()
        let predicate = try KeyValuePredicate(format: "department.name == $DEPT AND salary > $MIN")
        #expect(try predicate.evaluate(with: company.ada, substitutionVariables: ["DEPT": "Engineering", "MIN": 100])) 
        #expect(try !predicate.evaluate(with: company.emile, substitutionVariables: ["DEPT": "Engineering", "MIN": 100]))
        #expect(try predicate.withSubstitutionVariables(["DEPT": "Sales", "MIN": 0]).evaluate(with: company.emile))
        #expect(try KeyValuePredicate(format: "manager == $M").evaluate(with: company.ada, substitutionVariables: ["M": nil]))
    }

    @Test func objectsCompareByIdentity() throws {
        let company = Company()
        #expect(try KeyValuePredicate(format: "department == %@", company.engineering).evaluate(with: company.ada))
        #expect(try !KeyValuePredicate(format: "department == %@", company.sales).evaluate(with: company.ada))
        #expect(try KeyValuePredicate(format: "manager IN %@", [company.ada]).evaluate(with: company.grace))
        #expect(try KeyValuePredicate(format: "ANY directReports == %@", company.grace).evaluate(with: company.ada))
    }

    @Test func filtersArraysAndSets() throws {
        let company = Company()
        let everyone = [company.ada, company.grace, company.emile]
        let wellPaid = try KeyValuePredicate(format: "salary > %d", 50_000)
        #expect(try everyone.filtered(using: wellPaid) == [company.ada, company.grace])
        #expect(try Set(everyone).filtered(using: wellPaid) == [company.ada, company.grace])
        #expect(try wellPaid.filter(everyone.reversed()) == [company.grace, company.ada])
        var people = everyone
        try people.filter(using: KeyValuePredicate(format: "department.name == 'Sales'"))
        #expect(people == [company.emile])
        #expect(try [1, 5, 10, 15].filtered(using: KeyValuePredicate(format: "SELF BETWEEN {5, 10}")) == [5, 10])
        #expect(try ["apple", "Banana", "avocado"].filtered(using: KeyValuePredicate(format: "SELF BEGINSWITH[c] 'a'")) == ["apple", "avocado"])
    }

    @Test func expressionsEvaluateOnTheirOwn() throws {
        let company = Company()
        #expect(try KeyValueExpression.keyPath("department.name").value(with: company.ada) as? String == "Engineering")
        #expect(try KeyValueExpression.variable("X").value(with: nil, substitutionVariables: ["X": 3]) as? Int == 3)
        let subquery = KeyValueExpression.subquery(
            collection: .keyPath("employees"), variable: "e",
            predicate: KeyValuePredicate(.keyPathOn(.variable("e"), "salary"), .lessThan, .constant(100_000)))
        let found = try subquery.value(with: company.engineering) as? [Employee]
        #expect(found == [company.grace])
    }

    @Test func programmaticComparisonsEvaluate() throws {
        let company = Company()
        let predicate = KeyValuePredicate.and([
            KeyValuePredicate(.keyPath("lastName"), .beginsWith, .constant("l"), options: .caseInsensitive),
            KeyValuePredicate(.keyPath("department.employees.salary"), .greaterThan, .constant(90_000), modifier: .all),
        ])
        #expect(try predicate.evaluate(with: company.ada))
        #expect(try KeyValuePredicate.and([]).evaluate(with: nil))
        #expect(try !KeyValuePredicate.or([]).evaluate(with: nil))
    }

    @Test func largeIntegersCompareExactlyWithDoubles() throws {
        let big = 9_007_199_254_740_993  // 2^53 + 1, which no Double holds
        #expect(try !KeyValuePredicate(format: "SELF == %f", 9_007_199_254_740_992.0).evaluate(with: big))
        #expect(try KeyValuePredicate(format: "SELF > %f", 9_007_199_254_740_992.0).evaluate(with: big))
        #expect(try KeyValuePredicate(format: "SELF == %d", big).evaluate(with: big))
        #expect(try KeyValuePredicate(format: "SELF < 1e300").evaluate(with: Int.max))
        #expect(try KeyValuePredicate(format: "SELF > %@", UInt64.max - 1).evaluate(with: UInt64.max))
    }
}

/// The byte-wise and early-rejection paths of `BEGINSWITH` agree with full Unicode folding.
@Suite struct PredicateStringFastPathTests {
    static let cases: [(String, String, String, Bool)] = [
        ("Smith", "[c]", "s", true),
        ("smith", "", "S", false),
        ("Élan", "[c]", "e", false),
        ("Élan", "[cd]", "e", true),
        ("Élan", "[d]", "E", true),
        ("ſtraße", "[c]", "st", true),
        ("ßa", "[c]", "ss", true),
        ("\u{212A}elvin", "[c]", "k", true),
        ("ﬁne", "[c]", "fi", true),
        ("se\u{301}", "", "se", false),
        ("se\u{301}x", "[c]", "s", true),
        ("e\u{301}", "[cd]", "e", true),
        ("\r\nx", "", "\r", false),
        ("ab", "[c]", "abc", false),
        ("", "[c]", "a", false),
        ("日本語", "[c]", "日本", true),
        ("日本語", "[c]", "n", false),
    ]

    @Test(arguments: cases)
    func beginsWithMatchesFullFolding(string: String, options: String, prefix: String, expected: Bool) throws {
        let predicate = try KeyValuePredicate(format: "SELF BEGINSWITH\(options) %@", prefix)
        #expect(try predicate.evaluate(with: string) == expected, "\(string.debugDescription) BEGINSWITH\(options) \(prefix.debugDescription)")
        let employee = Employee()
        employee.lastName = string
        let direct = try KeyValuePredicate(format: "lastName BEGINSWITH\(options) %@", prefix)
        #expect(try direct.evaluate(with: employee) == expected)
    }
}
