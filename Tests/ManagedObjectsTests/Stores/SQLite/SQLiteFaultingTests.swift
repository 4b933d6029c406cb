import Foundation
import Testing
@testable import ManagedObjects

/// Faults over SQLite load in batches and prefetching reads each relationship in one go: the
/// number of SQL statements does not grow with the number of objects.
@Suite struct SQLiteFaultingTests {
    /// The records of `saveTenDepartmentsOfTenEmployees(in:)` in a new SQLite store.
    private func makeStore() throws -> (PersistentStoreCoordinator, SQLiteStore, URL) {
        try makeSQLiteStoreOfTenDepartments(prefix: "faulting")
    }

    @Test func readingBatchedFaultsCostsStatementsPerBatchNotPerObject() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.fetchBatchSize = 25
        let before = store.statementCount
        let employees = try context.fetch(request)
        #expect(employees.count == 100)
        #expect(employees.allSatisfy { $0.isFault })
        let afterFetch = store.statementCount
        let names = employees.map(\.firstName)
        let reading = store.statementCount - afterFetch
        #expect(names.compactMap { $0 }.count == 100)
        // Four batches, each one statement for the rows (to-many relationships stay faults).
        #expect(reading == 4, "\(reading) statements to read 100 batched faults")
        #expect(afterFetch - before <= 4)
    }

    /// A batched fetch whose request SQL applies whole reads only the keys; rows are read once,
    /// a batch at a time, when a fault of the batch fires.
    @Test func aBatchedFetchReadsKeysThenEachBatchOnce() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "age >= 25"),
            sortDescriptors: [KeyPathSortDescriptor(key: "age", ascending: false)])
        request.fetchBatchSize = 20
        var employees: [TestEmployee] = []
        let fetchSQL = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(employees.count == 50)
        #expect(fetchSQL.count == 1, "\(fetchSQL)")
        let keysOnly = #"SELECT "ZEMPLOYEE"."Z_PK", "ZEMPLOYEE"."Z_ENT" FROM"#
        #expect(fetchSQL.first?.hasPrefix(keysOnly) == true, "\(fetchSQL)")
        #expect(employees.allSatisfy { $0.isFault })
        let readSQL = store.recordingSQL { _ = employees.map(\.firstName) }
        let rowReads = readSQL.filter { $0.contains("ZFIRSTNAME") }
        #expect(rowReads.count == 3, "one row read per batch of 20: \(readSQL)")
        #expect(employees.map(\.age) == employees.map(\.age).sorted(by: >))
        #expect(employees.allSatisfy { $0.age >= 25 })
    }

    /// Firing an employee gives it its department as a fault: nothing of the department is
    /// read until one of its properties is.
    @Test func toOneTargetsArriveAsFaults() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = try #require(try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'E3-4'"))).first)
        #expect(employee.firstName == "E3-4")
        var department: TestDepartment?
        let fired = store.recordingSQL { department = employee.department }
        let target = try #require(department)
        #expect(target.isFault)
        #expect(fired.isEmpty, "\(fired)")
        let read = store.recordingSQL { _ = target.name }
        #expect(target.name == "D3")
        #expect(!target.isFault)
        #expect(read.contains { $0.contains(#"FROM "ZDEPARTMENT""#) }, "\(read)")
    }

    @Test func prefetchingReadsEachRelationshipOnce() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.relationshipKeyPathsForPrefetching = ["department"]
        let before = store.statementCount
        let employees = try context.fetch(request)
        let afterFetch = store.statementCount
        #expect(afterFetch - before == 2, "\(afterFetch - before) statements for the fetch and its prefetch")
        let departments = Set(employees.compactMap { $0.department?.name })
        #expect(departments.count == 10)
        #expect(store.statementCount == afterFetch, "reading prefetched departments ran SQL")
    }

    @Test func prefetchingAToManyRelationshipReadsItsRecordsByTheirOwners() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestDepartment>(entityName: "Department")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        var departments: [TestDepartment] = []
        let fetching = try store.recordingSQL { departments = try context.fetch(request) }
        #expect(fetching.contains { $0.contains(#""ZEMPLOYEE"."ZDEPARTMENT" IN ("#) }, "\(fetching)")
        #expect(!fetching.contains { $0.contains(#""ZEMPLOYEE"."Z_PK" IN ("#) }, "not by ID: \(fetching)")
        #expect(fetching.count == 2, "the departments, then the employees with their owners: \(fetching)")
        var names: Set<String> = []
        let reading = store.recordingSQL {
            for department in departments { for employee in department.employees { names.insert(employee.firstName ?? "") } }
        }
        #expect(reading.isEmpty, "\(reading)")
        #expect(names.count == 100)
        #expect(departments.allSatisfy { $0.employees.allSatisfy { !$0.isFault } })
    }

    @Test func prefetchingFromObjectsFiredAloneReadsTheirRelationshipsTogether() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let ids = try reader.fetchObjectIDs(FetchRequest<TestDepartment>(entityName: "Department"))
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let held = try ids.map { try context.existingObject(with: $0) }  // fired alone: employees unread
        #expect(held.allSatisfy { $0.hasFault(forRelationshipNamed: "employees") })
        var request = FetchRequest<TestDepartment>(entityName: "Department")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        var departments: [TestDepartment] = []
        let fetching = try store.recordingSQL { departments = try context.fetch(request) }
        #expect(fetching.count == 2, "not one statement per department: \(fetching)")
        let reading = store.recordingSQL { _ = departments.flatMap { $0.employees.map(\.firstName) } }
        #expect(reading.isEmpty, "\(reading)")
    }

    @Test func firingOneFaultOfABatchReadsTheBatchsRowsInOneStatement() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.fetchBatchSize = 20
        let employees = try context.fetch(request)
        let firing = try store.recordingSQL { try employees[0].fireFault() }
        #expect(firing.count == 1, "\(firing)")
        #expect(firing.first?.contains("ZFIRSTNAME") == true, "\(firing)")
        #expect(employees.prefix(20).allSatisfy { $0.hasFault(forRelationshipNamed: "projects") })
        let others = store.recordingSQL { _ = employees[1..<20].map(\.firstName) }
        #expect(others.isEmpty, "the rest of the batch fires from its rows: \(others)")
    }

    @Test func aFetchOfLoadedObjectsIsOneStatementAndItsFaultsFireFromTheRows() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestDepartment>(entityName: "Department")
        request.returnsObjectsAsFaults = false
        var departments: [TestDepartment] = []
        let fetching = try store.recordingSQL { departments = try context.fetch(request) }
        #expect(fetching.count == 1, "\(fetching)")
        #expect(departments.count == 10 && departments.allSatisfy { !$0.isFault })
        #expect(departments.allSatisfy { $0.hasFault(forRelationshipNamed: "employees") })

        let faults = try ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            .fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let firing = store.recordingSQL { _ = faults.map(\.firstName) }
        #expect(firing.isEmpty, "\(firing)")
        #expect(faults.allSatisfy { $0.hasFault(forRelationshipNamed: "projects") })
    }

    @Test func eachToManyRelationshipIsReadInOneStatementWhenFirstUsed() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let departments = try context.fetch(FetchRequest<TestDepartment>(
            entityName: "Department", sortDescriptors: [KeyPathSortDescriptor(key: "name", ascending: true)]))
        let department = departments[3]
        #expect(store.recordingSQL { _ = department.name }.isEmpty)
        var names: [String] = []
        let reading = store.recordingSQL { names = department.employees.compactMap(\.firstName) }
        // One statement for the IDs, then the employees' rows (faults fire one by one).
        #expect(reading.count == 1 + 10, "\(reading)")
        #expect(reading.first?.contains(#"FROM "ZEMPLOYEE" WHERE "ZDEPARTMENT" = ?"#) == true, "\(reading)")
        #expect(Set(names) == Set((0..<10).map { "E3-\($0)" }))
        #expect(!department.hasFault(forRelationshipNamed: "employees"))
        #expect(store.recordingSQL { _ = department.employees.count }.isEmpty, "read once")
        #expect(departments[4].hasFault(forRelationshipNamed: "employees"), "the others stay faults")
    }

    @Test func prefetchingIsOneStatementPerKeyPath() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "age < 22"))
        request.relationshipKeyPathsForPrefetching = ["department", "projects", "department.employees"]
        var employees: [TestEmployee] = []
        let fetching = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(employees.count == 20)
        // The employees, their departments, their projects, the departments' employees.
        #expect(fetching.count == 4, "\(fetching)")
        let reading = store.recordingSQL {
            for employee in employees {
                _ = employee.projects.count
                _ = employee.department?.employees.map(\.firstName)
            }
        }
        #expect(reading.isEmpty, "\(reading)")
    }

    @Test func prefetchingAnOrderedRelationshipKeepsEachOwnersOrder() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let store = try #require(stack.sqliteStore)
        let orders = [["c", "a", "b"], ["z", "x"], []]
        for (index, titles) in orders.enumerated() {
            let project = TestProject(context: stack.context)
            project.title = "P\(index)"
            project.milestones = titles.map { title in
                let milestone = TestMilestone(context: stack.context)
                milestone.title = title
                return milestone
            }
        }
        try stack.context.save()
        let context = stack.makeContext()
        var request = FetchRequest<TestProject>(entityName: "Project", sortDescriptors: [KeyPathSortDescriptor(key: "title")])
        request.relationshipKeyPathsForPrefetching = ["milestones", "members"]
        var projects: [TestProject] = []
        let fetching = try store.recordingSQL { projects = try context.fetch(request) }
        #expect(fetching.count == 3, "\(fetching)")
        var titles: [[String]] = []
        let reading = store.recordingSQL { titles = projects.map { $0.milestones.compactMap(\.title) } }
        #expect(reading.isEmpty, "\(reading)")
        #expect(titles == orders)
        #expect(projects.allSatisfy { $0.members.isEmpty && !$0.hasFault(forRelationshipNamed: "members") })
    }

    /// Firing faults one by one reads each one's row, in exactly one statement, and none of its
    /// to-many relationships: those stay relationship faults, each read in one statement when
    /// first used.
    @Test func firingFaultsOneByOneReadsEachRowInOneStatementAndNoToManyRelationship() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employeeIDs = try reader.fetchObjectIDs(FetchRequest<TestEmployee>(entityName: "Employee"))
        let departmentIDs = try reader.fetchObjectIDs(FetchRequest<TestDepartment>(entityName: "Department"))
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var fired: [ManagedObject] = []
        for id in Array(employeeIDs.prefix(10)) + Array(departmentIDs.prefix(5)) {
            let fault = context.object(with: id)
            let firing = try store.recordingSQL { try fault.fireFault() }
            #expect(firing.count == 1, "one statement for \(id): \(firing)")
            let table = id.entity.name == "Employee" ? #"FROM "ZEMPLOYEE" WHERE "ZEMPLOYEE"."Z_PK" = ?"#
                : #"FROM "ZDEPARTMENT" WHERE "ZDEPARTMENT"."Z_PK" = ?"#
            #expect(firing.first?.contains(table) == true, "the row by its key: \(firing)")
            #expect(!firing.contains { $0.contains("Z_EMPLOYEE_PROJECTS") || $0.contains(#""ZDEPARTMENT" = ?"#) }, "\(firing)")
            fired.append(fault)
        }
        let employees = fired.prefix(10).compactMap { $0 as? TestEmployee }
        let departments = fired.suffix(5).compactMap { $0 as? TestDepartment }
        #expect(employees.count == 10 && departments.count == 5)
        #expect(fired.allSatisfy { !$0.isFault })
        #expect(employees.allSatisfy { $0.hasFault(forRelationshipNamed: "projects") })
        #expect(departments.allSatisfy { $0.hasFault(forRelationshipNamed: "employees") })
        let reading = store.recordingSQL { _ = departments[0].employees.count }
        #expect(reading.count == 1 && reading[0].contains(#"FROM "ZEMPLOYEE" WHERE "ZDEPARTMENT" = ?"#), "\(reading)")
    }

    /// A batch of 1,000 faults (`fetchBatchSize` 1,000) reads its rows in one statement when
    /// one of its faults fires, and no to-many relationship of any of them.
    @Test func aBatchOfAThousandFaultsReadsItsRowsInOneStatement() throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: directory.file()) as? SQLiteStore)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        insertDepartment("D", employees: 1_200, named: { "E\($0)" }, into: writer)
        try writer.save()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        request.fetchBatchSize = 1_000
        var employees: [TestEmployee] = []
        let fetching = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(employees.count == 1_200 && fetching.count == 1, "the keys: \(fetching)")
        let firstBatch = try store.recordingSQL { try employees[0].fireFault() }
        #expect(firstBatch.count == 1, "\(firstBatch.count) statements: \(firstBatch.map { $0.prefix(120) })")
        #expect(firstBatch.first?.contains(#"FROM "ZEMPLOYEE" WHERE "ZEMPLOYEE"."Z_PK" IN ("#) == true)
        let rest = store.recordingSQL { _ = employees[1..<1_000].map(\.firstName) }
        #expect(rest.isEmpty, "the rest of the batch fires from its rows: \(rest.count) statements")
        let secondBatch = store.recordingSQL { _ = employees[1_000...].map(\.firstName) }
        #expect(secondBatch.count == 1, "\(secondBatch.count) statements")
        #expect(employees.allSatisfy { !$0.isFault && $0.hasFault(forRelationshipNamed: "projects") })
        #expect(employees.map(\.firstName) == (0..<1_200).map { "E\($0)" }.sorted())
    }

    /// Entities sharing one table (a parent and its subentities) each fire from their own row,
    /// one statement per fault, however the faults of the two kinds alternate.
    @Test func faultsOfEntitiesSharingATableFireOneByOneFromTheirOwnRows() throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SQLiteRelationshipTests.makeInheritanceModel())
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: directory.file()) as? SQLiteStore)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var shapes: [(ManagedObject, String)] = []
        for index in 0..<3 {
            let square = try writer.insertNewObject(forEntityName: "Square")
            try square.setValue("square \(index)", forKey: "name")
            let circle = try writer.insertNewObject(forEntityName: "Circle")
            try circle.setValue("circle \(index)", forKey: "name")
            try circle.setValue(Double(index), forKey: "radius")
            shapes += [(square, "square \(index)"), (circle, "circle \(index)")]
        }
        try writer.save()
        let ids = shapes.map { ($0.0.objectID, $0.1) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for (id, name) in ids {
            let fault = context.object(with: id)
            let before = store.statementCount
            try fault.fireFault()
            #expect(store.statementCount - before == 1)
            #expect(fault.entity.name == id.entity.name)
            #expect(try fault.value(forKey: "name") as? String == name)
        }
        #expect(try context.object(with: ids[5].0).value(forKey: "radius") as? Double == 2)
    }
}
