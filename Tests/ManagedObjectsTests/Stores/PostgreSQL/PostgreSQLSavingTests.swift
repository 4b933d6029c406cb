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

        /// A save's records come in no particular order: those of one entity share statements
        /// even when others come between them.
        @Test func recordsOfOneEntityShareStatementsWhateverTheirOrder() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try makeTestModel()
            let store = try PostgreSQLStore(url: database.url, model: model)
            let employee = try #require(model.entity(named: "Employee")), department = try #require(model.entity(named: "Department"))
            func record(_ entity: EntityDescription, _ values: [StoreValue]) throws -> StoreRecord {
                let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
                return StoreRecord(
                    objectID: ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key)),
                    version: 1, values: values)
            }
            var changes = SaveChanges()
            for number in 0..<5 {
                changes.inserted.append(try record(employee, [.string("E\(number)"), .null, .double(1), .integer(30), .null, .toMany([]), .null]))
                if number < 3 { changes.inserted.append(try record(department, [.string("D\(number)"), .decimal(0), .toMany([]), .null])) }
            }
            let sql = try store.recordingSQL { try store.apply(changes) }
            // 5 = 4 + 1 and 3 = 2 + 1.
            #expect(sql.filter { $0.hasPrefix("INSERT INTO \"ZEMPLOYEE\"") }.count == 2)
            #expect(sql.filter { $0.hasPrefix("INSERT INTO \"ZDEPARTMENT\"") }.count == 2)
            let count = try database.connect().run("SELECT count(*) FROM \"ZEMPLOYEE\"").text(0, 0)
            #expect(count == "5")
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
