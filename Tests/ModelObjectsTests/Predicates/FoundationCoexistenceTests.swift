import Foundation
import ModelObjects
import SampleModels
import Testing

/// Every public type of predicates and sorting is used unqualified in a file that imports both
/// Foundation and ModelObjects: none collides with Foundation's `Predicate`, `PredicateError`,
/// `PredicateExpression`, `NSPredicate`, `NSExpression`, `SortDescriptor` or `NSSortDescriptor`,
/// and the sorting and filtering methods are not ambiguous with Foundation's.
@Suite struct FoundationCoexistenceTests {
    @Test func everyPublicTypeIsUsableUnqualified() throws {
        let predicate: KeyValuePredicate = try KeyValuePredicate(format: "salary > %d AND lastName BEGINSWITH[c] %@", 50_000, "s")
        let comparison: KeyValuePredicate.Comparison = try #require(predicate.subpredicates.first?.comparison)
        let operatorType: KeyValuePredicate.Comparison.Operator = comparison.operatorType
        let modifier: KeyValuePredicate.Comparison.Modifier = comparison.modifier
        let options: KeyValuePredicate.Comparison.Options = comparison.options
        let expression: KeyValueExpression = comparison.leftExpression
        let code: KeyValuePredicateError.Code = .syntaxError
        let descriptor: KeyPathSortDescriptor = KeyPathSortDescriptor(key: "lastName", comparison: .caseInsensitive)
        let method: KeyPathSortDescriptor.Comparison = descriptor.comparison
        #expect(operatorType == .greaterThan && modifier == .direct && options.isEmpty)
        #expect(expression == .keyPath("salary"))
        #expect(method == .caseInsensitive)

        do {
            _ = try KeyValuePredicate(format: "salary >")
            Issue.record("expected a syntax error")
        } catch code {
        } catch let error as KeyValuePredicateError {
            Issue.record("unexpected \(error)")
        }

        // Foundation's own types stay usable alongside.
        let foundationPredicate = NSPredicate(value: true)
        let foundationDescriptor = SortDescriptor(\Employee.salary)
        #expect(foundationPredicate.evaluate(with: nil))
        _ = foundationDescriptor
    }

    @Test func filteringAndSortingCallsAreNotAmbiguous() throws {
        let staff = [
            Employee(firstName: "Sam", lastName: "Smith", employeeID: 1, salary: 60_000),
            Employee(firstName: "Ann", lastName: "Stone", employeeID: 2, salary: 90_000),
            Employee(firstName: "Bob", lastName: "Brown", employeeID: 3, salary: 70_000),
        ]
        let predicate = try KeyValuePredicate(format: "salary > 50000 AND lastName BEGINSWITH[c] 's'")
        let filtered = try staff.filtered(using: predicate)
        let sorted = try filtered.sorted(using: [KeyPathSortDescriptor(key: "salary", ascending: false)])
        let single = try filtered.sorted(using: KeyPathSortDescriptor(key: "lastName"))
        let filteredSet = try Set(staff).filtered(using: predicate)
        #expect(sorted.map(\.employeeID) == [2, 1])
        #expect(single.map(\.employeeID) == [1, 2])
        #expect(filteredSet.count == 2)
        // Foundation's SortComparator overload still resolves for its own types.
        let byFoundation = staff.sorted(using: SortDescriptor(\Employee.salary))
        #expect(byFoundation.map(\.employeeID) == [1, 3, 2])
    }
}
