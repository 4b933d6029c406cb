import Foundation
import Testing
@testable import ManagedObjects

/// `includesPropertyValues = false`: the store reads only the keys of the matching records, the
/// objects come back as faults holding no row, and each fires with a read of its own record, as
/// Core Data's `NSFetchRequest.includesPropertyValues` documents.
@Suite struct SQLiteFetchWithoutValuesTests {
    private static let keysOnly = #"SELECT "ZEMPLOYEE"."Z_PK", "ZEMPLOYEE"."Z_ENT" FROM"#

    /// The records of `saveTenDepartmentsOfTenEmployees(in:)` in a new SQLite store.
    private func makeStore() throws -> (PersistentStoreCoordinator, SQLiteStore, URL) {
        try makeSQLiteStoreOfTenDepartments(prefix: "without-values")
    }

    private func makeContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    private func request(_ format: String, limit: Int = 0, offset: Int = 0) throws -> FetchRequest<TestEmployee> {
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: format),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName", ascending: false)])
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    @Test func isTrueByDefaultAsInCoreData() {
        #expect(FetchRequest<TestEmployee>(entityName: "Employee").includesPropertyValues)
    }

    @Test func readsOnlyTheKeysAndGivesFaultsHoldingNoRow() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("age >= 25")
        request.includesPropertyValues = false
        let context = makeContext(coordinator)
        var employees: [TestEmployee] = []
        let sql = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(sql.count == 1, "\(sql)")
        #expect(sql.first?.hasPrefix(Self.keysOnly) == true, "\(sql)")
        #expect(employees.count == 50)
        #expect(employees.allSatisfy { $0.isFault && !$0.fetchedRow.hasBuffer })

        // The same objects, in the same order, as a fetch with values gives.
        let withValues = try makeContext(coordinator).fetch(try self.request("age >= 25"))
        #expect(employees.map(\.objectID) == withValues.map(\.objectID))
    }

    @Test func eachFaultFiresWithAReadOfItsOwnRecord() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("department.name == 'D3'")
        request.includesPropertyValues = false
        let context = makeContext(coordinator)
        let employees = try context.fetch(request)
        #expect(employees.count == 10)
        let before = store.statementCount
        let names = employees.prefix(3).map(\.firstName)
        #expect(names == ["E3-9", "E3-8", "E3-7"])
        #expect(store.statementCount - before == 3, "one read per fault fired")
        #expect(employees.prefix(3).allSatisfy { !$0.isFault })
        #expect(employees.dropFirst(3).allSatisfy { $0.isFault })
    }

    @Test func withABatchSizeAFaultFiresItsWholeBatch() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("age < 22")
        request.includesPropertyValues = false
        request.fetchBatchSize = 5
        let context = makeContext(coordinator)
        let employees = try context.fetch(request)
        #expect(employees.count == 20)
        let readSQL = store.recordingSQL { _ = employees.map(\.firstName) }
        #expect(readSQL.filter { $0.contains("ZFIRSTNAME") }.count == 4, "one row read per batch of 5: \(readSQL)")
    }

    @Test func theStoreAppliesLimitAndOffset() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("age == 21", limit: 3, offset: 2)
        request.includesPropertyValues = false
        let context = makeContext(coordinator)
        var employees: [TestEmployee] = []
        let sql = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(sql.count == 1 && sql.first?.contains("LIMIT") == true, "\(sql)")
        #expect(employees.map(\.firstName) == ["E7-1", "E6-1", "E5-1"])
    }

    @Test func objectsWantedLoadedStillComeBackAsFaultsWithoutValues() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("age == 20")
        request.includesPropertyValues = false
        request.returnsObjectsAsFaults = false
        let context = makeContext(coordinator)
        var employees: [TestEmployee] = []
        let sql = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(sql.count == 1 && sql.first?.hasPrefix(Self.keysOnly) == true, "\(sql)")
        #expect(employees.count == 10 && employees.allSatisfy { $0.isFault })
    }

    /// Registered objects are not read again: a loaded one stays loaded, a changed one keeps its
    /// unsaved value.
    @Test func registeredObjectsComeBackAsTheyAre() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        var loaded = try request("firstName == 'E1-1' OR firstName == 'E2-2'")
        loaded.returnsObjectsAsFaults = false
        let (changed, kept) = try { () throws -> (TestEmployee, TestEmployee) in
            let objects = try context.fetch(loaded)
            return (objects[0], objects[1])
        }()
        changed.firstName = "Changed"
        var request = try request("age == 21 OR age == 22")
        request.includesPropertyValues = false
        request.includesPendingChanges = false
        let employees = try context.fetch(request)
        #expect(employees.count == 20)
        #expect(employees.contains { $0 === changed } && employees.contains { $0 === kept })
        #expect(!kept.isFault && !changed.isFault)
        #expect(changed.firstName == "Changed" && changed.hasChanges)
    }

    /// With unsaved changes to see, the rows are read to match them in memory; the answer is the
    /// one a fetch with values gives.
    @Test func unsavedChangesCountAsForAFetchWithValues() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let gone = try #require(try context.fetch(request("firstName == 'E4-0'")).first)
        context.delete(gone)
        let new = TestEmployee(context: context)
        new.firstName = "New"
        new.age = 20
        var request = try request("age == 20")
        request.includesPropertyValues = false
        let employees = try context.fetch(request)
        #expect(employees.count == 10)
        #expect(employees.contains { $0 === new } && !employees.contains { $0 === gone })
        #expect(employees.map(\.firstName) == (try context.fetch(self.request("age == 20"))).map(\.firstName))
    }

    /// A fault holding no row whose record another context deleted throws `objectNotFound`
    /// (133000) when it fires.
    @Test func aFaultWhoseRecordIsGoneThrowsWhenItFires() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = try request("firstName == 'E5-5'")
        request.includesPropertyValues = false
        let context = makeContext(coordinator)
        let employee = try #require(try context.fetch(request).first)
        let other = makeContext(coordinator)
        other.delete(other.object(with: employee.objectID))
        try other.save()
        #expect(employee.managedObjectContext === context)
        #expect { try employee.fireFault() } throws: { PersistenceError.Code.objectNotFound ~= $0 }
    }
}
