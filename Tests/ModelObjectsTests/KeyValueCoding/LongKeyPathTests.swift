import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Key paths of any length are walked in a loop (no stack frame per key); collection operators,
/// which nest an evaluation each, are limited to 32 per path.
@Suite struct LongKeyPathTests {
    private let keys = 50_000

    private func longPath(_ key: String, count: Int) -> String {
        Array(repeating: key, count: count).joined(separator: ".")
    }

    @Test func longKeyPathAgainstADictionaryDoesNotGrowTheStack() throws {
        let path = longPath("a", count: keys)
        #expect(try KeyValuePath.value(of: ["b": 1], forKeyPath: Substring(path), fullPath: path) == nil)
        let nested: [String: Any] = ["a": ["a": NSNull()]]
        #expect(try KeyValuePath.value(of: nested, forKeyPath: Substring(path), fullPath: path) == nil)
        // A malformed end is still found.
        expectKVCError(.malformedKeyPath) { _ = try KeyValuePath.value(of: [:] as [String: Any], forKeyPath: Substring(path + "."), fullPath: path + ".") }
    }

    @Test func longKeyPathThroughValueForKeyPath() throws {
        let employee = Employee()
        #expect(try employee.value(forKeyPath: "manager." + longPath("a", count: keys)) == nil)
        employee.manager = employee
        #expect(try employee.value(forKeyPath: longPath("manager", count: keys) + ".employeeID") as? Int == 0)
        let department = Department(name: "R")
        department.employees = [employee]
        let values = try #require(try department.value(forKeyPath: "employees." + longPath("manager", count: keys) + ".employeeID") as? [Any])
        #expect(values.count == 1)
    }

    @Test func longKeyPathInAPredicate() throws {
        let employee = Employee()
        let predicate = try KeyValuePredicate(format: "manager.\(longPath("a", count: keys)) == nil")
        #expect(try predicate.evaluate(with: employee))
        #expect(try predicate.evaluate(with: ["manager": ["x": 1]] as [String: Any]))
        #expect(try KeyValuePredicate(format: predicate.predicateFormat) == predicate)
    }

    @Test func moreThan32CollectionOperatorsThrowKeyPathTooComplex() throws {
        let employee = Employee()
        employee.salary = 10
        let department = Department(name: "R")
        department.employees = [employee]
        employee.department = department
        // Each `@unionOfObjects` nests one evaluation of the rest of the path.
        let level = "employees.@unionOfObjects.department"
        let allowed = longPath(level, count: KeyValuePath.maximumCollectionOperators) + ".name"
        #expect(try department.value(forKeyPath: allowed) as? [Any] != nil)
        let tooMany = longPath(level, count: 5_000) + ".name"
        let error = expectKVCError(.keyPathTooComplex) { _ = try department.value(forKeyPath: tooMany) }
        #expect(error?.key == tooMany)
        expectKVCError(.keyPathTooComplex) { _ = try KeyValuePredicate(format: "\(tooMany) == nil").evaluate(with: department) }
    }
}
