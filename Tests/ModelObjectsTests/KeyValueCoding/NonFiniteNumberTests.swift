import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Infinities and NaN meeting `Decimal`, which holds no infinity: conversions throw, orderings
/// put −∞ before every decimal, +∞ after, and NaN first (as Foundation's `compare:` does).
@Suite struct NonFiniteNumberTests {
    /// A department archived by hand, its budget written as an XML `<real>`.
    private func departmentArchive(budget: Double) throws -> Data {
        try PropertyListEncoding.encode(.dictionary([
            (key: "$version", value: .integer(100_000)),
            (key: "$archiver", value: .string("NSKeyedArchiver")),
            (key: "$top", value: .dictionary([(key: "root", value: .uid(1))])),
            (key: "$objects", value: .array([
                .string("$null"),
                .dictionary([(key: "name", value: .uid(3)), (key: "budget", value: .real(budget)), (key: "$class", value: .uid(2))]),
                classDictionary("SampleModels.Department"),
                .string("Research"),
            ])),
        ]), format: .xml)
    }

    @Test func unarchivingAnInfiniteDecimalThrowsTypeMismatch() throws {
        let data = try departmentArchive(budget: .infinity)
        #expect(String(decoding: data, as: UTF8.self).contains("<real>+infinity</real>"))
        let error = #expect(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == "budget")
        let finite = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: departmentArchive(budget: 1250.5)))
        #expect(finite.budget == Decimal(string: "1250.5"))
    }

    @Test(arguments: [Double.infinity, -Double.infinity, 1e300, -1e300, 1e-300])
    func settingADoubleDecimalCannotHoldThrowsTypeMismatch(_ value: Double) {
        let department = Department(name: "Research", budget: 7)
        expectKVCError(.typeMismatch) { _ = try department.setValue(value, forKey: "budget") }
        expectKVCError(.typeMismatch) { _ = try department.setValue(NSNumber(value: value), forKey: "budget") }
        #expect(department.budget == 7)
    }

    @Test func settingNaNOnADecimalGivesDecimalNaN() throws {
        let department = Department(name: "Research")
        try department.setValue(Double.nan, forKey: "budget")
        #expect(department.budget.isNaN)
        try department.setValue(0.1, forKey: "budget")
        #expect(department.budget == Decimal(string: "0.1"))
    }

    @Test func exactDecimalOfEveryKindOfDouble() {
        #expect(exactDecimal(0.1) == Decimal(string: "0.1"))
        #expect(exactDecimal(-0.0) == 0)
        #expect(exactDecimal(1e16) == Decimal(string: "10000000000000000"))
        #expect(exactDecimal(-2.5e-7) == Decimal(string: "-0.00000025"))
        #expect(exactDecimal(.nan)?.isNaN == true)
        #expect(exactDecimal(.infinity) == nil)
        #expect(exactDecimal(-.infinity) == nil)
        #expect(exactDecimal(1e300) == nil)
        #expect(exactDecimal(.leastNonzeroMagnitude) == nil)
    }

    @Test func infiniteLiteralComparesWithAHugeIntegerLiteral() throws {
        #expect(try KeyValuePredicate(format: "1e999 > 99999999999999999999").evaluate(with: nil))
        #expect(try KeyValuePredicate(format: "-1e999 < 99999999999999999999").evaluate(with: nil))
        #expect(try !KeyValuePredicate(format: "1e999 == 99999999999999999999").evaluate(with: nil))
    }

    @Test(arguments: ["CAST(1e999, 'NSDecimalNumber')", "CAST(-1e999, \"NSDecimalNumber\")", "CAST('-inf', 'NSDecimalNumber')", "CAST('12abc', 'NSDecimalNumber')"])
    func castOfANonFiniteNumberToDecimalIsASyntaxError(_ cast: String) {
        expectPredicateError(.syntaxError) { _ = try KeyValuePredicate(format: "budget == \(cast)") }
    }

    @Test func castOfNaNToDecimalGivesDecimalNaN() throws {
        let predicate = try KeyValuePredicate(format: "budget == CAST('nan', 'NSDecimalNumber')")
        #expect(try predicate.evaluate(with: Department(name: "R", budget: .nan)))
        #expect(try !predicate.evaluate(with: Department(name: "R", budget: 0)))
    }

    @Test func infiniteDoublePropertyComparesWithADecimalConstant() throws {
        let employee = Employee()
        let above = try KeyValuePredicate(format: "salary > CAST('1000.5', 'NSDecimalNumber')")
        let below = try KeyValuePredicate(format: "salary < CAST('1000.5', 'NSDecimalNumber')")
        let equal = try KeyValuePredicate(format: "salary == CAST('0', 'NSDecimalNumber')")
        employee.salary = .infinity
        #expect(try above.evaluate(with: employee) && !below.evaluate(with: employee))
        employee.salary = -.infinity
        #expect(try below.evaluate(with: employee) && !above.evaluate(with: employee))
        #expect(try !equal.evaluate(with: employee))
        // Through the general path too (a dictionary, not a model object).
        #expect(try above.evaluate(with: ["salary": Double.infinity]))
        #expect(try !equal.evaluate(with: ["salary": -Double.infinity]))
        #expect(try below.evaluate(with: ["salary": -Double.infinity]))
    }

    @Test func negativeInfinityIsNotEqualToZeroDecimal() throws {
        let predicate = try KeyValuePredicate(format: "%@ == %@", -Double.infinity, Decimal(0))
        #expect(try !predicate.evaluate(with: nil))
        #expect(try KeyValuePredicate(format: "%@ < %@", -Double.infinity, Decimal(0)).evaluate(with: nil))
        #expect(try KeyValuePredicate(format: "%@ > %@", 1e300, Decimal(string: "1e100") ?? 0).evaluate(with: nil))
        #expect(try KeyValuePredicate(format: "%@ < %@", 1e-300, Decimal(string: "1e-100") ?? 0).evaluate(with: nil))
    }

    @Test func numbersOrderTotallyWithNaNFirst() {
        let values: [KeyValueNumber] = [
            .double(.nan), .decimal(.nan), .double(-.infinity), .signed(-5), .decimal(-1), .double(0.5),
            .unsigned(.max), .decimal(Decimal(string: "1e100") ?? 0), .double(1e300), .double(.infinity),
        ]
        for (i, left) in values.enumerated() {
            for (j, right) in values.enumerated() {
                let expected: ComparisonResult = i < 2 && j < 2 ? .orderedSame : (i < j ? .orderedAscending : (i > j ? .orderedDescending : .orderedSame))
                #expect(compareKeyValueNumbers(left, right) == expected, "\(left) vs \(right)")
            }
        }
    }

    private func value(_ rows: [Any], _ path: String) throws -> Any? {
        try KeyValuePath.value(of: rows.map { ["v": $0] }, forKeyPath: Substring(path), fullPath: path)
    }

    @Test func sumOfADecimalAndAnInfinityThrows() throws {
        let values: [Any] = [Decimal(1), Double.infinity]
        expectKVCError(.unrepresentableNumber) { _ = try value(values, "@sum.v") }
        expectKVCError(.unrepresentableNumber) { _ = try value(values, "@avg.v") }
        #expect(try value([Decimal(1), 2.5], "@sum.v") as? Decimal == Decimal(string: "3.5"))
        // Doubles alone may add up to an infinity.
        #expect(try value([1.0, Double.infinity], "@sum.v") as? Double == .infinity)
        let department = Department(name: "A")
        let employee = Employee()
        employee.salary = .infinity
        department.employees = [employee]
        #expect(try department.value(forKeyPath: "employees.@sum.salary") as? Double == .infinity)
    }

    @Test func maxAndMinOfDecimalsAndInfinities() throws {
        let values: [Any] = [Decimal(1), Double.infinity, -Double.infinity]
        #expect(try value(values, "@max.v") as? Double == .infinity)
        #expect(try value(values, "@min.v") as? Double == -.infinity)
    }

    @Test func sortingDecimalsAndInfinities() throws {
        let rows: [[String: Any]] = [
            ["v": Double.infinity], ["v": Decimal(1)], ["v": -Double.infinity], ["v": Double.nan], ["v": Decimal(-2)],
        ]
        let sorted = try rows.sorted(using: KeyPathSortDescriptor(key: "v"))
        let order = sorted.map { row -> String in describeKeyValue(row["v"]) }
        #expect(order == ["nan", "-inf", "-2", "1", "inf"])
        let descending = try rows.sorted(using: KeyPathSortDescriptor(key: "v", ascending: false))
        #expect(descending.map { describeKeyValue($0["v"]) } == ["inf", "1", "-2", "-inf", "nan"])
    }
}
