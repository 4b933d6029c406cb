import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// A fetch that asks for no order, limit or offset reads its rows in the order the server
    /// gives them (no `ORDER BY`, which would make the plan an index scan or a sort); any other
    /// keeps its order, with the key last, so that a limit takes the same records as in memory.
    @Suite struct FetchOrderTests {
        /// 12 employees named `E0` to `E11` saved in one save, then three renamed (`E0!` …), which
        /// moves their rows to the end of the table; their names in key order.
        private func makeStore() throws -> (TemporaryPostgreSQLDatabase, PersistentStoreCoordinator, PostgreSQLStore, [String]) {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            let store = try #require(try coordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
            let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var employees: [TestEmployee] = []
            for index in 0..<12 {
                let employee = TestEmployee(context: writer)
                employee.firstName = "E\(index)"
                employees.append(employee)
            }
            try writer.save()
            for employee in employees.prefix(3) { employee.firstName = (employee.firstName ?? "") + "!" }
            try writer.save()
            let inKeyOrder = employees.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            return (database, coordinator, store, inKeyOrder.map { $0.firstName ?? "" })
        }

        private func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
            ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        @Test func aFetchWithoutSortLimitOrOffsetAsksForNoOrderAndReadsEveryRecord() throws {
            let (database, coordinator, store, names) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            // The context stays alive while its objects are read.
            let reader = context(coordinator)
            var employees: [TestEmployee] = []
            let sql = try store.recordingSQL {
                employees = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: KeyValuePredicate(format: "firstName != nil")))
            }
            #expect(sql.count == 1, "\(sql)")
            #expect(sql.allSatisfy { !$0.contains("ORDER BY") }, "\(sql)")
            #expect(employees.map { $0.firstName ?? "" }.sorted() == names.sorted())
            // The store's records too.
            let entity = try #require(coordinator.managedObjectModel.entity(named: "Employee"))
            let records = try store.fetch(StoreFetchRequest(entity: entity))
            #expect(records.records.count == 12)
            #expect(Set(records.records.map(\.objectID)) == Set(employees.map(\.objectID)))
        }

        @Test func aFetchWithALimitOrAnOffsetTakesTheRecordsInKeyOrder() throws {
            let (database, coordinator, store, names) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            var request = FetchRequest<TestEmployee>(entityName: "Employee")
            request.fetchLimit = 4
            let reader = context(coordinator)
            var first: [TestEmployee] = []
            let limited = try store.recordingSQL { first = try reader.fetch(request) }
            #expect(limited.count == 1 && limited[0].contains(#"ORDER BY "ZEMPLOYEE"."Z_PK" LIMIT"#), "\(limited)")
            // The four lowest keys, wherever their rows are in the table.
            #expect(first.map { $0.firstName ?? "" } == Array(names.prefix(4)))
            request.fetchLimit = 0
            request.fetchOffset = 10
            let rest = try reader.fetch(request)
            #expect(rest.map { $0.firstName ?? "" } == Array(names.suffix(2)))
        }

        @Test func aSortedFetchKeepsItsOrderWithTheKeyLast() throws {
            let (database, coordinator, store, names) = try makeStore()
            defer { withExtendedLifetime(database) {} }
            let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName", ascending: false)])
            let reader = context(coordinator)
            var employees: [TestEmployee] = []
            let sql = try store.recordingSQL { employees = try reader.fetch(request) }
            #expect(sql.count == 1 && sql[0].contains(#""ZFIRSTNAME" DESC NULLS LAST, "ZEMPLOYEE"."Z_PK""#), "\(sql)")
            #expect(employees.map { $0.firstName ?? "" } == names.sorted(by: >))
        }
    }
}
