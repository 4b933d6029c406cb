import ModelObjects
import SampleModels
import Testing

/// Holds the example of the "Predicates" article (ModelObjects.docc), so that it keeps
/// compiling and printing what the article says.
@Suite struct PredicateReadmeExampleTests {
    @Test func readmeExampleRuns() throws {
        let engineering = Department(name: "Engineering")
        let staff = [
            Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 120_000),
            Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 95_000),
            Employee(firstName: "Alan", lastName: "Smith", employeeID: 3, salary: 40_000),
        ]
        for employee in staff { employee.department = engineering }
        engineering.employees = staff

        let wellPaid = try KeyValuePredicate(format: "salary > %d AND department.name BEGINSWITH[c] %@", 50_000, "eng")
        let found = try staff.filtered(using: wellPaid)
        let sorted = try found.sorted(using: [KeyPathSortDescriptor(key: "lastName", comparison: .localizedCaseInsensitive)])
        #expect(sorted.map(\.lastName) == ["Hopper", "Lovelace"])
        #expect(wellPaid.description == #"salary > 50000 AND department.name BEGINSWITH[c] "eng""#)

        let template = try KeyValuePredicate(format: "ANY employees.lastName == $NAME")
        #expect(try template.evaluate(with: engineering, substitutionVariables: ["NAME": "Hopper"]))
    }
}
