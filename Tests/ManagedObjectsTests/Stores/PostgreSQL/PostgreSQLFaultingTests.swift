import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Faults over PostgreSQL load in batches and prefetching reads each relationship key path in
    /// one statement, as over SQLite: the number of statements does not grow with the number of
    /// objects.
    @Suite struct FaultingTests {
        /// The records of `saveTenDepartmentsOfTenEmployees(in:)` in a new database.
        private func makeStore() throws -> (TemporaryPostgreSQLDatabase, PersistentStoreCoordinator, PostgreSQLStore) {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            let store = try #require(try coordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
            let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            try saveTenDepartmentsOfTenEmployees(in: writer)
            return (database, coordinator, store)
        }

        @Test func readingBatchedFaultsCostsAStatementPerBatchNotPerObject() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestEmployee>(entityName: "Employee")
            request.fetchBatchSize = 25
            let employees = try context.fetch(request)
            #expect(employees.count == 100)
            let reading = store.recordingSQL { _ = employees.map(\.firstName) }
            // Four batches, each one statement for the rows (to-many relationships stay faults).
            #expect(reading.count == 4, "\(reading)")
            #expect(reading.allSatisfy { $0.contains(#""ZEMPLOYEE"."Z_PK" = ANY($1::bigint[])"#) }, "\(reading)")
            #expect(Set(employees.compactMap(\.firstName)).count == 100)
        }

        /// `includesPropertyValues = false`: one statement reading only the keys, faults holding
        /// no row, each fired by a statement of its own.
        @Test func aFetchWithoutPropertyValuesReadsKeysThenEachFiredFaultItsRecord() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestEmployee>(
                entityName: "Employee", predicate: try KeyValuePredicate(format: "age == 23"),
                sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
            request.includesPropertyValues = false
            var employees: [TestEmployee] = []
            let fetching = try store.recordingSQL { employees = try context.fetch(request) }
            #expect(fetching.count == 1, "\(fetching)")
            let keysOnly = #"SELECT "ZEMPLOYEE"."Z_PK", "ZEMPLOYEE"."Z_ENT" FROM"#
            #expect(fetching.first?.hasPrefix(keysOnly) == true, "\(fetching)")
            #expect(employees.count == 10 && employees.allSatisfy { $0.isFault && !$0.fetchedRow.hasBuffer })
            let reading = store.recordingSQL { _ = employees.prefix(2).map(\.firstName) }
            #expect(reading.count == 2, "\(reading)")
            #expect(employees.prefix(2).map(\.firstName) == ["E0-3", "E1-3"])
        }

        /// `propertiesToFetch`: one statement reading the keys and those columns, the others
        /// NULL; reading a fetched property runs none, reading another fires the fault.
        @Test func aPartialFetchReadsThoseColumnsAndAnswersFromThem() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestEmployee>(
                entityName: "Employee", predicate: try KeyValuePredicate(format: "age == 24"),
                sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
            request.propertiesToFetch = ["age", "department"]
            var employees: [TestEmployee] = []
            let fetching = try store.recordingSQL { employees = try context.fetch(request) }
            #expect(fetching.count == 1, "\(fetching)")
            let columns = fetching.first?.components(separatedBy: " FROM ").first ?? ""
            #expect(columns.contains(#""ZAGE""#) && columns.contains(#""ZDEPARTMENT""#) && !columns.contains(#""ZFIRSTNAME""#), "\(fetching)")
            #expect(employees.count == 10 && employees.allSatisfy { $0.isFault && $0.holdsPartialRow })
            var ages: [Int16] = [], departments: [String] = []
            let reading = store.recordingSQL {
                ages = employees.map(\.age)
                departments = employees.compactMap { $0.department?.objectID.uriRepresentation().absoluteString }
            }
            #expect(reading.isEmpty, "\(reading)")
            #expect(ages == Array(repeating: 24, count: 10) && Set(departments).count == 10)
            let firing = store.recordingSQL { #expect(employees[0].firstName == "E0-4") }
            #expect(firing.count == 1, "\(firing)")
            #expect(!employees[0].isFault && employees[1].isFault)
        }

        @Test func prefetchingAToOneRelationshipIsOneStatement() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestEmployee>(entityName: "Employee")
            request.relationshipKeyPathsForPrefetching = ["department"]
            var employees: [TestEmployee] = []
            let fetching = try store.recordingSQL { employees = try context.fetch(request) }
            #expect(fetching.count == 2, "the fetch and its prefetch: \(fetching)")
            var names: Set<String> = []
            let reading = store.recordingSQL { names = Set(employees.compactMap { $0.department?.name }) }
            #expect(names.count == 10)
            #expect(reading.isEmpty, "reading prefetched departments ran SQL: \(reading)")
        }

        @Test func prefetchingAToManyRelationshipReadsItsRecordsByTheirOwnersInOneStatement() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestDepartment>(entityName: "Department")
            request.relationshipKeyPathsForPrefetching = ["employees"]
            var departments: [TestDepartment] = []
            let fetching = try store.recordingSQL { departments = try context.fetch(request) }
            #expect(fetching.count == 2, "the departments, then the employees with their owners: \(fetching)")
            #expect(fetching.contains { $0.contains(#""ZEMPLOYEE"."ZDEPARTMENT" = ANY($1::bigint[])"#) }, "\(fetching)")
            #expect(!fetching.contains { $0.contains(#""ZEMPLOYEE"."Z_PK" = ANY("#) }, "not by ID: \(fetching)")
            var names: Set<String> = []
            let reading = store.recordingSQL {
                for department in departments { for employee in department.employees { names.insert(employee.firstName ?? "") } }
            }
            #expect(reading.isEmpty, "\(reading)")
            #expect(names.count == 100)
            #expect(departments.allSatisfy { $0.employees.count == 10 && $0.employees.allSatisfy { !$0.isFault } })
        }

        @Test func prefetchingIsOneStatementPerKeyPath() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "age < 22"))
            request.relationshipKeyPathsForPrefetching = ["department", "projects", "department.employees"]
            var employees: [TestEmployee] = []
            let fetching = try store.recordingSQL { employees = try context.fetch(request) }
            #expect(employees.count == 20)
            // The employees, their departments, their projects (through the join table), the
            // departments' employees.
            #expect(fetching.count == 4, "\(fetching)")
            let reading = store.recordingSQL {
                for employee in employees {
                    _ = employee.projects.count
                    _ = employee.department?.employees.map(\.firstName)
                }
            }
            #expect(reading.isEmpty, "\(reading)")
        }

        @Test func prefetchingAnOrderedAndAManyToManyRelationshipKeepsEachOwnersRecords() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let people = try writer.fetch(FetchRequest<TestEmployee>(
                entityName: "Employee", predicate: try KeyValuePredicate(format: "age == 20"),
                sortDescriptors: [KeyPathSortDescriptor(key: "firstName")]))
            let orders = [["c", "a", "b"], ["z", "x"], []]
            for (index, titles) in orders.enumerated() {
                let project = TestProject(context: writer)
                project.title = "P\(index)"
                project.milestones = titles.map { title in
                    let milestone = TestMilestone(context: writer)
                    milestone.title = title
                    return milestone
                }
                project.members = Set(people.prefix(index))
            }
            try writer.save()
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var request = FetchRequest<TestProject>(entityName: "Project", sortDescriptors: [KeyPathSortDescriptor(key: "title")])
            request.relationshipKeyPathsForPrefetching = ["milestones", "members"]
            var projects: [TestProject] = []
            let fetching = try store.recordingSQL { projects = try context.fetch(request) }
            #expect(fetching.count == 3, "\(fetching)")
            var titles: [[String]] = [], members: [Int] = []
            let reading = store.recordingSQL {
                titles = projects.map { $0.milestones.compactMap(\.title) }
                members = projects.map { $0.members.compactMap(\.firstName).count }
            }
            #expect(reading.isEmpty, "\(reading)")
            #expect(titles == orders)
            #expect(members == [0, 1, 2])
        }

        @Test func recordsByIDReadOneStatementPerTableAndLeaveOutOtherStoresIDs() throws {
            let (database, coordinator, store) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let employees = try context.fetchObjectIDs(FetchRequest<TestEmployee>(entityName: "Employee"))
            let departments = try context.fetchObjectIDs(FetchRequest<TestDepartment>(entityName: "Department"))
            let entity = try #require(coordinator.managedObjectModel.entity(named: "Employee"))
            let foreign = ManagedObjectID(entity: entity, storeIdentifier: "another-store", primaryKey: 1)
            var found: [ManagedObjectID: StoreRecord] = [:]
            let reading = try store.recordingSQL { found = try store.faultRecords(for: employees + departments + [foreign]) }
            #expect(reading.count == 2, "one statement per table: \(reading)")
            #expect(Set(found.keys) == Set(employees + departments))
        }

        /// Squares and circles share one table: an ID naming a square's row as a circle is left
        /// out, also when the same key is asked for under both entities; a key asked twice is
        /// read once; no ID of the store reads nothing.
        @Test func recordsByIDLeaveOutIDsWhoseRowIsOfAnotherEntity() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try ManagedObjectModel {
                Entity("Shape", abstract: true) { Property("name", .string) }
                Entity("Square", parent: "Shape") { Property("side", .double) }
                Entity("Circle", parent: "Shape") { Property("radius", .double) }
            }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try #require(try coordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let square = try context.insertNewObject(forEntityName: "Square")
            try square.setValue("square", forKey: "name")
            let circle = try context.insertNewObject(forEntityName: "Circle")
            try circle.setValue("circle", forKey: "name")
            try context.save()
            let circleEntity = try #require(model.entity(named: "Circle"))
            let squareKey = try #require(square.objectID.primaryKey)
            let squareAsCircle = ManagedObjectID(entity: circleEntity, storeIdentifier: store.identifier, primaryKey: squareKey)

            var found: [ManagedObjectID: StoreRecord] = [:]
            let reading = try store.recordingSQL {
                found = try store.faultRecords(for: [squareAsCircle, square.objectID, circle.objectID, square.objectID])
            }
            #expect(reading.count == 1, "one statement for the shared table: \(reading)")
            #expect(Set(found.keys) == [square.objectID, circle.objectID])
            #expect(found[square.objectID]?.objectID.entity.name == "Square")
            #expect(try store.faultRecords(for: [squareAsCircle]).isEmpty)
            #expect(try store.records(for: [square.objectID, squareAsCircle]).keys.map(\.self) == [square.objectID])
            let none = try store.recordingSQL { found = try store.faultRecords(for: []) }
            #expect(none.isEmpty && found.isEmpty)
        }
    }
}
