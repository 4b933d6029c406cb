import Foundation
import ModelObjects
import SampleModels
import Testing

/// Sort descriptors order model objects by key path as Cocoa's `NSSortDescriptor` does.
@Suite struct KeyPathSortDescriptorTests {
    private func employee(_ first: String, _ last: String, _ id: Int, _ salary: Double, age: Int? = nil) -> Employee {
        let employee = Employee(firstName: first, lastName: last, employeeID: id, salary: salary)
        employee.age = age
        return employee
    }

    private func ids(_ employees: [Employee]) -> [Int] { employees.map(\.employeeID) }

    @Test func sortsAscendingAndDescending() throws {
        let staff = [employee("A", "b", 1, 30), employee("B", "a", 2, 10), employee("C", "c", 3, 20)]
        #expect(try ids(staff.sorted(using: KeyPathSortDescriptor(key: "salary"))) == [2, 3, 1])
        #expect(try ids(staff.sorted(using: KeyPathSortDescriptor(key: "salary", ascending: false))) == [1, 3, 2])
        #expect(try ids(staff.sorted(using: [KeyPathSortDescriptor(key: "lastName")])) == [2, 1, 3])
        #expect(try ids(staff.sorted(using: [KeyPathSortDescriptor(key: "lastName").reversed])) == [3, 1, 2])
        #expect(try ids(staff.sorted(using: [])) == [1, 2, 3])
    }

    @Test func descriptorsChain() throws {
        let staff = [
            employee("Ann", "Smith", 1, 50), employee("Bob", "Jones", 2, 70), employee("Cy", "Smith", 3, 70),
            employee("Di", "Jones", 4, 50), employee("Ed", "Smith", 5, 50),
        ]
        let sorted = try staff.sorted(using: [
            KeyPathSortDescriptor(key: "lastName"),
            KeyPathSortDescriptor(key: "salary", ascending: false),
            KeyPathSortDescriptor(key: "firstName", ascending: false),
        ])
        #expect(ids(sorted) == [2, 4, 3, 5, 1])
    }

    @Test func theSortIsStable() throws {
        let staff = (0..<200).map { employee("F\($0)", "L\($0 % 3)", $0, Double($0 % 2)) }
        let sorted = try staff.sorted(using: [KeyPathSortDescriptor(key: "salary")])
        #expect(ids(sorted) == ids(staff.filter { $0.salary == 0 }) + ids(staff.filter { $0.salary == 1 }))
        var inPlace = staff
        try inPlace.sort(using: [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "salary", ascending: false)])
        let expected = staff.enumerated().sorted { a, b in
            (a.element.lastName, -a.element.salary, a.offset) < (b.element.lastName, -b.element.salary, b.offset)
        }.map(\.element.employeeID)
        #expect(ids(inPlace) == expected)
    }

    @Test func nilSortsFirstAscendingAndLastDescending() throws {
        let staff = [employee("A", "a", 1, 0, age: 40), employee("B", "b", 2, 0), employee("C", "c", 3, 0, age: 20)]
        #expect(try ids(staff.sorted(using: KeyPathSortDescriptor(key: "age"))) == [2, 3, 1])
        #expect(try ids(staff.sorted(using: KeyPathSortDescriptor(key: "age", ascending: false))) == [1, 3, 2])
        let descriptor = KeyPathSortDescriptor(key: "age")
        #expect(try descriptor.compare(staff[1], staff[0]) == .orderedAscending)
        #expect(try descriptor.compare(staff[1], staff[1]) == .orderedSame)
        #expect(try descriptor.reversed.compare(staff[1], staff[0]) == .orderedDescending)
    }

    @Test func stringComparisonsFollowTheChosenMethod() throws {
        let names = ["b", "B", "a", "C", "file10", "file9", "é"]
        func sorted(_ comparison: KeyPathSortDescriptor.Comparison) throws -> [String] {
            try names.sorted(using: KeyPathSortDescriptor(key: "self", comparison: comparison))
        }
        #expect(try sorted(.default) == ["B", "C", "a", "b", "file10", "file9", "é"])
        #expect(try sorted(.caseInsensitive).filter { $0 != "é" } == ["a", "b", "B", "C", "file10", "file9"])
        #expect(try sorted(.localizedCaseInsensitive).prefix(4) == ["a", "b", "B", "C"])
        #expect(try sorted(.localizedStandard).firstIndex(of: "file9")! < sorted(.localizedStandard).firstIndex(of: "file10")!)
        #expect(try sorted(.localized).firstIndex(of: "é")! < sorted(.localized).firstIndex(of: "file10")!)
    }

    @Test func numbersDatesAndKeyPathsOrder() throws {
        let engineering = Department(name: "Engineering")
        let sales = Department(name: "Sales")
        let a = employee("A", "a", 1, 0), b = employee("B", "b", 2, 0), c = employee("C", "c", 3, 0)
        a.department = sales
        b.department = engineering
        a.startDate = Date(timeIntervalSinceReferenceDate: 30)
        b.startDate = Date(timeIntervalSinceReferenceDate: 10)
        c.startDate = Date(timeIntervalSinceReferenceDate: 20)
        #expect(try ids([a, b, c].sorted(using: KeyPathSortDescriptor(key: "department.name"))) == [3, 2, 1])
        #expect(try ids([a, b, c].sorted(using: KeyPathSortDescriptor(key: "startDate"))) == [2, 3, 1])
        engineering.employees = [b, c]
        sales.employees = [a]
        #expect(try [engineering, sales].sorted(using: KeyPathSortDescriptor(key: "employees.@count")).map(\.name) == ["Sales", "Engineering"])
        let mixed: [Any] = [3, 1.5, Decimal(2), true]
        #expect(try mixed.sorted(using: KeyPathSortDescriptor(key: "SELF")).map { "\($0)" } == ["true", "1.5", "2", "3"])
        let dictionaries: [[String: Any]] = [["n": 2], ["n": 1], [:]]
        #expect(try dictionaries.sorted(using: KeyPathSortDescriptor(key: "n")).map { $0["n"] as? Int } == [nil, 1, 2])
    }

    @Test func errorsAreThrown() throws {
        let staff = [employee("A", "a", 1, 0), employee("B", "b", 2, 0)]
        expectKVCError(.undefinedKey) { _ = try staff.sorted(using: KeyPathSortDescriptor(key: "nickname")) }
        let mixed: [Any] = ["a", 1]
        let error = #expect(throws: KeyValuePredicateError.self) { try mixed.sorted(using: KeyPathSortDescriptor(key: "self")) }
        #expect(error?.code == .invalidOperand)
    }

    @Test func descriptorsDescribeThemselvesAsCocoaDoes() {
        #expect(KeyPathSortDescriptor(key: "lastName", comparison: .caseInsensitive).description == "(lastName, ascending, caseInsensitiveCompare:)")
        #expect(KeyPathSortDescriptor(key: "salary", ascending: false).description == "(salary, descending, compare:)")
        #expect(KeyPathSortDescriptor(key: "a") == KeyPathSortDescriptor(key: "a", ascending: true, comparison: .default))
        #expect(KeyPathSortDescriptor(key: "a").reversed.reversed == KeyPathSortDescriptor(key: "a"))
    }
}
