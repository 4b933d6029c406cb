import Foundation
import Observation

// Plain Swift classes with the same properties as SampleModels' Employee and Department, and the
// cheapest reasonable way to reach their properties by string key without a library: a
// dictionary of key paths. They live in their own module so that the benchmarks reach them
// across a module boundary, as they reach ModelObjects and SampleModels.

/// A plain employee: stored properties, no property wrappers, no key-value coding.
public final class PlainEmployee {
    public var firstName = ""
    public var lastName = ""
    public var employeeID = 0
    public var salary = 0.0
    public var age: Int? = nil
    public var hasDriversLicense = false
    public var startDate = Date(timeIntervalSinceReferenceDate: 0)
    public var department: PlainDepartment?
    public var manager: PlainEmployee?
    public var directReports: [PlainEmployee] = []

    public init() {}

    public init(firstName: String, lastName: String, employeeID: Int, salary: Double) {
        self.firstName = firstName
        self.lastName = lastName
        self.employeeID = employeeID
        self.salary = salary
    }
}

/// A plain department.
public final class PlainDepartment {
    public var name = ""
    public var budget: Decimal = 0
    public var employees: [PlainEmployee] = []

    public init() {}

    public init(name: String, budget: Decimal = 0) {
        self.name = name
        self.budget = budget
    }
}

/// An object with one stored property that skips Swift's run-time exclusivity check.
///
/// Reading or writing a stored property of a class calls `swift_beginAccess` (dynamic
/// exclusivity enforcement, on by default in release builds), which costs more than the load or
/// store itself. ModelObjects' property wrappers reach their storage without that check, so this
/// class is the stricter baseline for typed access: a bare load or store behind a call.
public final class UncheckedPlainEmployee {
    @exclusivity(unchecked) public var salary = 0.0

    public init(salary: Double) {
        self.salary = salary
    }
}

// The accessors live in this module: accesses compiled in another module still called
// `swift_beginAccess` despite `@exclusivity(unchecked)` (Swift 6.3.1).

/// Reads `salary` with a bare load.
@inline(never)
public func readSalary(_ employee: UncheckedPlainEmployee) -> Double { employee.salary }

/// Writes `salary` with a bare store.
@inline(never)
public func writeSalary(_ employee: UncheckedPlainEmployee, _ salary: Double) { employee.salary = salary }

// MARK: - Key-path tables

// The tables are immutable and key paths are immutable objects, but `PartialKeyPath` is not
// `Sendable`, hence `nonisolated(unsafe)`.

extension PlainEmployee {
    /// Every property by name, as a table of key paths returning `Any`.
    nonisolated(unsafe) public static let keyPaths: [String: PartialKeyPath<PlainEmployee>] = [
        "firstName": \PlainEmployee.firstName,
        "lastName": \PlainEmployee.lastName,
        "employeeID": \PlainEmployee.employeeID,
        "salary": \PlainEmployee.salary,
        "age": \PlainEmployee.age,
        "hasDriversLicense": \PlainEmployee.hasDriversLicense,
        "startDate": \PlainEmployee.startDate,
        "department": \PlainEmployee.department,
        "manager": \PlainEmployee.manager,
        "directReports": \PlainEmployee.directReports,
    ]

    /// The writable `Double` properties by name.
    nonisolated(unsafe) public static let doubleKeyPaths: [String: ReferenceWritableKeyPath<PlainEmployee, Double>] = [
        "salary": \PlainEmployee.salary,
    ]

    /// The value for `key` through the key-path table; nil for an unknown key.
    @inline(never)
    public func value(forKey key: String) -> Any? {
        guard let keyPath = Self.keyPaths[key] else { return nil }
        return self[keyPath: keyPath]
    }

    /// Sets a `Double` property through the writable key-path table; false when the key is
    /// unknown or the value is not a `Double`.
    @inline(never)
    @discardableResult
    public func setDouble(_ value: Any?, forKey key: String) -> Bool {
        guard let keyPath = Self.doubleKeyPaths[key], let double = value as? Double else { return false }
        self[keyPath: keyPath] = double
        return true
    }
}

extension PlainDepartment {
    /// Every property by name, as a table of key paths returning `Any`.
    nonisolated(unsafe) public static let keyPaths: [String: PartialKeyPath<PlainDepartment>] = [
        "name": \PlainDepartment.name,
        "budget": \PlainDepartment.budget,
        "employees": \PlainDepartment.employees,
    ]

    /// The value for `key` through the key-path table; nil for an unknown key.
    @inline(never)
    public func value(forKey key: String) -> Any? {
        guard let keyPath = Self.keyPaths[key] else { return nil }
        return self[keyPath: keyPath]
    }
}

/// The value at a two-key path such as `"department.name"`: split at the dot, look the first key
/// up in the employee's table, cast the result to a department and look the second key up in the
/// department's table. Nil when a key is unknown or the employee has no department.
@inline(never)
public func plainValue(of employee: PlainEmployee, forTwoKeyPath path: String) -> Any? {
    guard let dot = path.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
    let first = String(path[..<dot])
    let second = String(path[path.utf8.index(after: dot)...])
    guard let department = employee.value(forKey: first) as? PlainDepartment else { return nil }
    return department.value(forKey: second)
}

/// The sum of the salaries of a department's employees, by hand.
@inline(never)
public func plainSumOfSalaries(in department: PlainDepartment) -> Double {
    var sum = 0.0
    for employee in department.employees { sum += employee.salary }
    return sum
}

/// The Observation framework's own model class: the baseline of the Observation benchmarks.
@Observable
public final class ObservablePlainEmployee {
    public var salary = 0.0

    public init() {}
}
