import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Subscribing nests one call per key of the observed key path, so an observed key path (and
/// each key path it depends on) holds at most `maximumObservedKeyPathLength` keys; a longer
/// one throws `keyPathTooComplex` before anything is registered.
@Suite struct LongKeyPathObservationTests {
    private func managerPath(keys: Int) -> String {
        Array(repeating: "manager", count: keys - 1).joined(separator: ".") + ".salary"
    }

    /// Ada managing herself, so that a path of any length through `manager` leads somewhere.
    private func selfManagedAda() -> Employee {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        ada.manager = ada
        return ada
    }

    @Test func observingAFiftyThousandKeyPathThrowsKeyPathTooComplex() {
        let ada = selfManagedAda()
        let path = managerPath(keys: 50_000)
        var heard = 0
        let error = expectKVCError(.keyPathTooComplex) {
            _ = try ada.observe(path, options: [.initial]) { _, _ in heard += 1 }
        }
        #expect(error?.key == path)
        let observer = ChangeLog()
        expectKVCError(.keyPathTooComplex) { try ada.addObserver(observer, forKeyPath: path, options: [.initial]) }
        ada.salary = 200
        #expect(heard == 0)
        #expect(observer.entries.isEmpty)
        let removal = #expect(throws: KeyValueObservingError.self) { try ada.removeObserver(observer, forKeyPath: path) }
        #expect(removal?.code == .observerNotRegistered)
        ada.manager = nil
    }

    @Test func keyPathOfExactlyTheMaximumIsObservedAndNotifies() throws {
        let ada = selfManagedAda()
        let maximum = ModelObject.maximumObservedKeyPathLength
        var salaries: [Double] = []
        let token = try ada.observe(managerPath(keys: maximum), options: [.new]) { _, change in
            if let salary = change.newValue as? Double { salaries.append(salary) }
        }
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: managerPath(keys: maximum), options: [.new])
        ada.salary = 200
        #expect(salaries == [200])
        #expect(observer.entries.count == 1)
        expectKVCError(.keyPathTooComplex) {
            _ = try ada.observe(managerPath(keys: maximum + 1)) { _, _ in }
        }
        token.invalidate()
        try ada.removeObserver(observer, forKeyPath: managerPath(keys: maximum))
        ada.manager = nil
    }

    @Test func overlongDependentKeyPathThrowsAndRegistersNothing() {
        let employee = LongDependencyEmployee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        employee.manager = employee
        let observer = ChangeLog()
        let error = expectKVCError(.keyPathTooComplex) {
            try employee.addObserver(observer, forKeyPath: "fullName")
        }
        #expect(error?.key == LongDependencyEmployee.longPath)
        employee.firstName = "Augusta"
        #expect(observer.entries.isEmpty)
        expectKVCError(.keyPathTooComplex) { _ = try employee.observe("fullName") { _, _ in } }
        employee.manager = nil
    }
}

/// An employee whose `fullName` depends on a key path longer than observation allows.
private final class LongDependencyEmployee: Employee {
    static let longPath = Array(repeating: "manager", count: 50_000).joined(separator: ".") + ".salary"

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        var keyPaths = super.keyPathsForValuesAffectingValue(forKey: key)
        if key == "fullName" { keyPaths.insert(longPath) }
        return keyPaths
    }
}
