import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Saves write new rows several a statement, in batches whose sizes are powers of two.
    @Suite struct SavingTests {
        /// A context on a new database with `count` new employees of one department, the one at
        /// `bad` named with a character PostgreSQL text cannot hold.
        private func employees(
            _ count: Int, badAt bad: Int? = nil
        ) throws -> (PersistentStoreCoordinator, ManagedObjectContext, TemporaryPostgreSQLDatabase) {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let department = TestDepartment(context: context)
            department.name = "Research"
            for number in 0..<count {
                let employee = TestEmployee(context: context)
                employee.firstName = number == bad ? "a\u{0}b" : "E\(number)"
                employee.salary = Double(number)
                employee.department = department
            }
            return (coordinator, context, database)
        }

        @Test func insertingManyObjectsWritesSeveralRowsAStatement() throws {
            let (coordinator, context, database) = try employees(700)
            defer { withExtendedLifetime(database) {} }
            let store = try #require(coordinator.persistentStores.first as? PostgreSQLStore)
            let sql = try store.recordingSQL { try context.save() }
            let inserts = sql.filter { $0.hasPrefix("INSERT INTO \"ZEMPLOYEE\"") }
            // 700 = 512 + 128 + 32 + 16 + 8 + 4.
            #expect(inserts.count == 6, "\(inserts.count) INSERT statements")
            #expect(sql.filter { $0.hasPrefix("INSERT INTO \"ZDEPARTMENT\"") }.count == 1)

            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let saved = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")]))
            #expect(saved.count == 700)
            #expect(saved.map(\.salary) == (0..<700).map(Double.init))
            #expect(saved.allSatisfy { $0.firstName == "E\(Int($0.salary))" && $0.department?.name == "Research" })
        }

        @Test func aBatchWithARowTheServerRefusesWritesNothing() throws {
            let (coordinator, context, database) = try employees(600, badAt: 550)
            defer { withExtendedLifetime(database) {} }
            let error = #expect(throws: PersistenceError.self) { try context.save() }
            #expect(error?.code == .saveFailed)
            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            #expect(try reader.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 0)
            #expect(try reader.count(for: FetchRequest<TestDepartment>(entityName: "Department")) == 0)
        }
    }
}
