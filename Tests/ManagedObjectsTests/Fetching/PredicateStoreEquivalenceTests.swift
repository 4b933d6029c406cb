import Foundation
import Testing
@testable import ManagedObjects

/// Predicates run through a store's fetch and through in-memory evaluation over the same
/// objects must select the same objects.
@Suite struct PredicateStoreEquivalenceTests {
    static let predicates: [String] = [
        "TRUEPREDICATE", "FALSEPREDICATE",
        "salary > 100", "salary >= 100", "salary < 100", "salary <= 100", "salary == 120", "salary != 120",
        "salary BETWEEN {95, 125}", "salary IN {90, 135}", "NOT salary IN {90, 135}",
        "age > 30 AND salary < 130", "age > 40 OR salary == 90", "NOT (age > 40)", "!(salary < 100) && age != 35",
        "firstName == 'Ada'", "firstName ==[c] 'ada'", "firstName != 'Ada'", "firstName BEGINSWITH 'A'",
        "firstName BEGINSWITH[c] 'a'", "firstName ENDSWITH 'a'", "firstName ENDSWITH[cd] 'Á'", "firstName CONTAINS 'ra'",
        "firstName CONTAINS[c] 'RA'", "firstName LIKE 'A*'", "firstName LIKE[c] '?da'", "firstName MATCHES '[A-E].*'",
        "firstName IN {'Ada', 'Alan'}", "lastName == nil", "lastName != nil", "lastName == NULL OR lastName BEGINSWITH 'L'",
        "firstName < 'B'", "firstName >= 'Edsger'",
        "department.name == 'Research'", "department.name != 'Research'", "department == nil", "department != nil",
        "department.budget > 1000", "ANY projects.title == 'Compiler'", "ALL projects.title BEGINSWITH 'C'",
        "NONE projects.title == 'Compiler'", "projects.@count == 0", "projects.@count >= 1",
        "department.employees.@count > 2", "department.employees.@avg.salary > 110",
        "SUBQUERY(projects, $p, $p.title CONTAINS 'o').@count > 0", "age BETWEEN {30, 40} AND firstName LIKE '*a*'",
    ]

    private func populate(_ context: ManagedObjectContext) throws {
        let research = TestDepartment(context: context)
        research.name = "Research"
        research.budget = 5000
        let sales = TestDepartment(context: context)
        sales.name = "Sales"
        sales.budget = 500
        let compiler = TestProject(context: context), cobol = TestProject(context: context), engine = TestProject(context: context)
        compiler.title = "Compiler"
        cobol.title = "Cobol"
        engine.title = "Engine"
        let people: [(String, String?, Double, Int16, TestDepartment?, [TestProject])] = [
            ("Ada", "Lovelace", 120, 36, research, [engine]), ("Grace", "Hopper", 135, 45, research, [compiler, cobol]),
            ("Alan", "Turing", 110, 41, research, []), ("Barbara", nil, 90, 35, sales, [compiler]),
            ("Edsger", "Dijkstra", 100, 50, sales, [cobol]), ("Ida", "Rhodes", 95, 30, nil, [compiler]),
        ]
        for (first, last, salary, age, department, projects) in people {
            let employee = TestEmployee(context: context)
            employee.firstName = first
            employee.lastName = last
            employee.salary = salary
            employee.age = age
            employee.department = department
            employee.projects = Set(projects)
        }
        try context.save()
    }

    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func storeFetchesMatchInMemoryEvaluation(type: PersistentStoreType) throws {
        #expect(Self.predicates.count >= 40)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("equivalence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : url)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try populate(writer)
        let all = try writer.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        for format in Self.predicates {
            let predicate = try KeyValuePredicate(format: format)
            let expected = Set(try predicate.filter(all).compactMap(\.firstName))
            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let fetched = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: predicate))
            #expect(Set(fetched.compactMap(\.firstName)) == expected, "\(format)")
        }
    }
}
