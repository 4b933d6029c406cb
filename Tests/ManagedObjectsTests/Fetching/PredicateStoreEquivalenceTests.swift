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
        "NOT department.name == 'Research'", "NOT (department.name BEGINSWITH 'R') AND age > 30",
        "department.budget > 1000", "ANY projects.title == 'Compiler'", "ALL projects.title BEGINSWITH 'C'",
        "NONE projects.title == 'Compiler'", "projects.@count == 0", "projects.@count >= 1",
        "department.employees.@count > 2", "department.employees.@avg.salary > 110",
        "SUBQUERY(projects, $p, $p.title CONTAINS 'o').@count > 0", "age BETWEEN {30, 40} AND firstName LIKE '*a*'",
    ]

    /// A coordinator with one store of `type` (in a temporary directory, or a new PostgreSQL
    /// database, kept while the second value lives).
    private func makeCoordinator(_ type: PersistentStoreType) throws -> (PersistentStoreCoordinator, AnyObject) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        if type == .postgreSQL {
            let database = try TemporaryPostgreSQLDatabase()
            try coordinator.addPersistentStore(type: type, at: database.url)
            return (coordinator, database)
        }
        let directory = try TemporaryDirectory()
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        return (coordinator, directory)
    }

    private func populate(_ context: ManagedObjectContext) throws {
        let research = TestDepartment(context: context)
        research.name = "Research"
        research.budget = 5000
        let sales = TestDepartment(context: context)
        sales.name = "Sales"
        sales.budget = 500
        let compiler = TestProject(context: context), cobol = TestProject(context: context), engine = TestProject(context: context)
        let untitled = TestProject(context: context)  // a member whose value is nil
        compiler.title = "Compiler"
        cobol.title = "Cobol"
        engine.title = "Engine"
        let people: [(String, String?, Double, Int16, TestDepartment?, [TestProject])] = [
            ("Ada", "Lovelace", 120, 36, research, [engine]), ("Grace", "Hopper", 135, 45, research, [compiler, cobol]),
            ("Alan", "Turing", 110, 41, research, []), ("Barbara", nil, 90, 35, sales, [compiler]),
            ("Edsger", "Dijkstra", 100, 50, sales, [cobol]), ("Ida", "Rhodes", 95, 30, nil, [compiler, untitled]),
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
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
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

    /// Comparisons with objects: the fetching context's own objects (which a SQLite store
    /// compares by key), objects of another context and object IDs (which no record is), also
    /// with unsaved changes to see.
    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func objectComparisonsMatchInMemoryEvaluation(type: PersistentStoreType) throws {
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try populate(writer)
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let departments = try reader.fetch(FetchRequest<TestDepartment>(entityName: "Department"))
        let research = try #require(departments.first { $0.name == "Research" })
        let sales = try #require(departments.first { $0.name == "Sales" })
        let people = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let ada = try #require(people.first { $0.firstName == "Ada" })
        let grace = try #require(people.first { $0.firstName == "Grace" })
        let foreign = try #require(try writer.fetch(FetchRequest<TestDepartment>(entityName: "Department")).first { $0.name == "Research" })
        let cases: [(String, [Any])] = [
            ("department == %@", [research]), ("department != %@", [research]), ("NOT department == %@", [sales]),
            ("department IN %@", [[research, sales]]), ("department IN %@ AND salary > 100", [[sales]]),
            ("department IN %@", [Set([research])]),
            ("SELF == %@", [ada]), ("SELF IN %@", [[ada, grace]]), ("NOT SELF IN %@", [[ada, grace]]),
            ("department == %@ OR salary > 130", [sales]),
            ("department == %@", [foreign]), ("department IN %@", [[research, foreign]]), ("department == %@", [research.objectID]),
        ]
        func check(_ label: String) throws {
            let all = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
            for (format, arguments) in cases {
                let predicate = try KeyValuePredicate(format: format, argumentArray: arguments)
                let expected = Set(try predicate.filter(all).compactMap(\.firstName))
                let fetched = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: predicate))
                #expect(Set(fetched.compactMap(\.firstName)) == expected, "\(label): \(format)")
                #expect(try reader.count(for: FetchRequest<TestEmployee>(entityName: "Employee", predicate: predicate)) == expected.count, "\(label): \(format)")
            }
        }
        try check("saved")
        if let store = coordinator.persistentStores.first as? SQLiteStore {
            // The SQLite store compares the context's own objects by key: counting makes no employee.
            let counter = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let department = try counter.existingObject(with: research.objectID)
            let barbara = try counter.existingObject(with: try #require(people.first { $0.firstName == "Barbara" }).objectID)
            let request = FetchRequest<TestEmployee>(
                entityName: "Employee",
                predicate: try KeyValuePredicate(format: "department == %@ OR SELF IN %@", argumentArray: [department, [barbara]]))
            var counted = 0
            let statements = try store.recordingSQL { counted = try counter.count(for: request) }
            #expect(counted == 4)
            #expect(statements.count == 1 && statements[0].hasPrefix("SELECT COUNT(*)"), "\(statements)")
        }
        ada.department = sales  // unsaved changes the fetches must see
        grace.department = nil
        try check("pending")
    }

    /// Predicates over a to-many relationship's members fetched from its owner (departments
    /// through their employees, one department without any), on every store type: the SQLite
    /// store runs them as subqueries.
    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func toManyPredicatesOnOwnersMatchInMemoryEvaluation(type: PersistentStoreType) throws {
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try populate(writer)
        TestDepartment(context: writer).name = "Empty"
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let all = try reader.fetch(FetchRequest<TestDepartment>(entityName: "Department"))
        // Sums and averages of doubles stay in memory (their rounding depends on the order of addition).
        let inMemory: Set = ["employees.@avg.salary > 110", "employees.@sum.salary > 300"]
        let formats = [
            "employees.@avg.salary > 110", "employees.@sum.salary > 300", "employees.@avg.age > 40", "employees.@avg.age == nil",
            "employees.@sum.age > 80", "employees.@sum.age == 0", "employees.@max.age >= 45", "employees.@min.salary < 100",
            "employees.@min.age == nil", "NOT employees.@max.salary > 130", "employees.@count > 2", "employees.@count == 0",
            "ANY employees.salary > 130", "ALL employees.age > 36", "NONE employees.lastName == nil",
            "ANY employees.firstName BEGINSWITH[c] 'b'", "employees.@avg.age BETWEEN {35, 45}",
        ]
        let entity = try #require(coordinator.managedObjectModel.entity(named: "Department"))
        for format in formats {
            let predicate = try KeyValuePredicate(format: format)
            let expected = Set(try predicate.filter(all).compactMap(\.name))
            let fetched = try reader.fetch(FetchRequest<TestDepartment>(entityName: "Department", predicate: predicate))
            #expect(Set(fetched.compactMap(\.name)) == expected, "\(type): \(format)")
            if let store = coordinator.persistentStores.first as? SQLiteStore {
                let applied = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)).appliedPredicate
                #expect(applied == !inMemory.contains(format), "\(format)")
            }
        }
    }

    /// Sorting through a to-one relationship (employees without one first, as nil sorts in
    /// memory), with offsets and limits, on every store type.
    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func sortsThroughAToOneRelationshipMatchInMemorySorting(type: PersistentStoreType) throws {
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
        try populate(ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let all = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        for ascending in [true, false] {
            let sorts = [KeyPathSortDescriptor(key: "department.name", ascending: ascending), KeyPathSortDescriptor(key: "salary")]
            let expected = try all.sorted(using: sorts).compactMap(\.firstName)
            for (offset, limit) in [(0, 0), (1, 3), (4, 0)] {
                var request = FetchRequest<TestEmployee>(entityName: "Employee")
                request.sortDescriptors = sorts
                request.fetchOffset = offset
                request.fetchLimit = limit
                let wanted = Array(expected.dropFirst(offset).prefix(limit > 0 ? limit : expected.count))
                #expect(try reader.fetch(request).compactMap(\.firstName) == wanted, "\(type) \(ascending) \(offset) \(limit)")
                #expect(try reader.fetchDictionaries(request, properties: ["firstName"]).compactMap { $0["firstName"] as? String } == wanted)
            }
        }
        if let store = coordinator.persistentStores.first as? SQLiteStore, let entity = coordinator.managedObjectModel.entity(named: "Employee") {
            let result = try store.fetch(StoreFetchRequest(entity: entity, sortDescriptors: [KeyPathSortDescriptor(key: "department.name")]))
            #expect(result.appliedSortAndLimit)
        }
    }

    /// Counts, IDs and dictionaries (which a store may answer by itself, without making
    /// objects) agree with the objects a fetch returns, for every predicate, sort, offset and
    /// limit, on every store type.
    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func countsIDsAndDictionariesMatchFetchedObjects(type: PersistentStoreType) throws {
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
        try populate(ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
        let sorts: [[KeyPathSortDescriptor]] = [
            [], [KeyPathSortDescriptor(key: "salary", ascending: false)],
            [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "firstName", comparison: .caseInsensitive)],
        ]
        for format in Self.predicates {
            for (sortDescriptors, (offset, limit)) in zip(sorts + sorts, [(0, 0), (0, 0), (0, 0), (1, 2), (2, 0), (0, 3)]) {
                var request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: format))
                request.sortDescriptors = sortDescriptors
                request.fetchOffset = offset
                request.fetchLimit = limit
                let label = "\(format), sorted by \(sortDescriptors.map(\.key)), offset \(offset), limit \(limit)"
                let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                let objects = try reader.fetch(request)

                let counter = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                #expect(try counter.count(for: request) == objects.count, "\(label)")
                let identifier = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                let ids = try identifier.fetchObjectIDs(request)
                let dictionaries = try identifier.fetchDictionaries(request, properties: ["firstName", "lastName", "salary", "age"])
                if sortDescriptors.isEmpty {
                    #expect(Set(ids) == Set(objects.map(\.objectID)), "\(label)")
                } else {
                    #expect(ids == objects.map(\.objectID), "\(label)")
                    #expect(dictionaries.map { $0["firstName"] as? String } == objects.map(\.firstName), "\(label)")
                }
                let expected = Set(objects.map { "\($0.firstName ?? "-") \($0.lastName ?? "-") \($0.salary) \($0.age)" })
                let read = Set(dictionaries.map { row in
                    "\(row["firstName"] as? String ?? "-") \(row["lastName"] as? String ?? "-") \(row["salary"] as? Double ?? -1) \(row["age"] as? Int16 ?? -1)"
                })
                #expect(read == expected, "\(label)")
                #expect(!dictionaries.contains { $0["lastName"] is NSNull }, "nil values are left out")
                if type == .sqlite && !format.contains(".") && !format.contains("[") && !format.contains("LIKE")
                    && !format.contains("MATCHES") && sortDescriptors.count < 2 {
                    // Translated requests: the store answers alone, and no object is made.
                    #expect(counter.registeredObjects.isEmpty, "\(label)")
                    #expect(identifier.registeredObjects.isEmpty, "\(label)")
                }
            }
        }
    }

    /// With unsaved changes the request must see, counts, IDs and dictionaries come from the
    /// context's objects, not the store alone.
    @Test(arguments: [PersistentStoreType.inMemory, .sqlite])
    func countsIDsAndDictionariesIncludePendingChanges(type: PersistentStoreType) throws {
        let (coordinator, directory) = try makeCoordinator(type)
        defer { withExtendedLifetime(directory) {} }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try populate(context)
        let request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "salary > 100"))
        #expect(try context.count(for: request) == 3)
        let newcomer = TestEmployee(context: context)
        newcomer.firstName = "Linus"
        newcomer.salary = 150
        let ada = try #require(try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first { $0.firstName == "Ada" })
        ada.salary = 10
        #expect(try context.count(for: request) == 3)
        let names = try context.fetchDictionaries(request, properties: ["firstName"]).compactMap { $0["firstName"] as? String }
        #expect(Set(names) == ["Grace", "Alan", "Linus"])
        #expect(Set(try context.fetchObjectIDs(request)).contains(newcomer.objectID))

        var committed = request
        committed.includesPendingChanges = false
        #expect(try context.count(for: committed) == 3)
        let saved = try context.fetchDictionaries(committed, properties: ["firstName", "salary"])
        #expect(Set(saved.compactMap { $0["firstName"] as? String }) == ["Ada", "Grace", "Alan"])
        #expect(saved.first { $0["firstName"] as? String == "Ada" }?["salary"] as? Double == 120, "as saved, not the unsaved 10")
    }

    /// Dictionaries of key paths, relationships or unknown keys take the general path; an
    /// unknown key still throws.
    @Test func dictionariesOfKeyPathsAndUnknownKeys() throws {
        let (coordinator, directory) = try makeCoordinator(.sqlite)
        defer { withExtendedLifetime(directory) {} }
        try populate(ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'Ada'"))
        let rows = try context.fetchDictionaries(request, properties: ["firstName", "department.name"])
        #expect(rows.count == 1)
        #expect(rows.first?["department.name"] as? String == "Research")
        let undefined = #expect(throws: KeyValueCodingError.self) { try context.fetchDictionaries(request, properties: ["noSuchKey"]) }
        #expect(undefined?.code == .undefinedKey)
        request.entityName = "Nobody"
        #expect((#expect(throws: ModelError.self) { try context.count(for: request) })?.code == .unknownEntity)
        #expect((#expect(throws: ModelError.self) { try context.fetchObjectIDs(request) })?.code == .unknownEntity)
        #expect((#expect(throws: ModelError.self) { try context.fetchDictionaries(request, properties: ["firstName"]) })?.code == .unknownEntity)
    }
}
