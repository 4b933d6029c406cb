import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// `FetchRequest.propertiesToFetch` on a fetch of objects: partial faults, as Core Data makes
/// them ("faults partially pre-populated with the named properties"). The store reads the keys
/// and those columns only; reading one of those properties runs no statement and leaves the
/// fault a fault; reading any other fires it with one read of its whole record.
@Suite struct SQLitePartialFaultTests {
    /// The records of `saveTenDepartmentsOfTenEmployees(in:)` in a new SQLite store.
    private func makeStore() throws -> (PersistentStoreCoordinator, SQLiteStore, URL) {
        try makeSQLiteStoreOfTenDepartments(prefix: "partial")
    }

    private func makeContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    /// Employees aged `age`, by first name, reading `properties` only.
    private func request(age: Int, properties: [String]?) throws -> FetchRequest<TestEmployee> {
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "age == %d", age),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        request.propertiesToFetch = properties
        return request
    }

    @Test func isNilByDefaultAsInCoreData() {
        #expect(FetchRequest<TestEmployee>(entityName: "Employee").propertiesToFetch == nil)
    }

    @Test func theStoreReadsTheKeysAndThoseColumnsOnly() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        var employees: [TestEmployee] = []
        let sql = try store.recordingSQL { employees = try context.fetch(request(age: 23, properties: ["salary", "department"])) }
        #expect(employees.count == 10)
        #expect(sql.count == 1, "\(sql)")
        let select = try #require(sql.first)
        #expect(select.hasPrefix(#"SELECT "ZEMPLOYEE"."Z_PK", "ZEMPLOYEE"."Z_ENT", "ZEMPLOYEE"."Z_OPT""#), "\(select)")
        let columns = select.components(separatedBy: " FROM ").first ?? ""
        #expect(columns.contains(#""ZSALARY""#) && columns.contains(#""ZDEPARTMENT""#), "\(select)")
        #expect(!columns.contains(#""ZLASTNAME""#) && !columns.contains(#""ZAGE""#) && columns.contains("NULL"), "\(select)")
        #expect(employees.allSatisfy { $0.isFault && $0.holdsPartialRow })
    }

    @Test func readingAFetchedPropertyRunsNoStatementAndLeavesTheFault() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let employees = try context.fetch(request(age: 24, properties: ["salary", "department"]))
        var salaries: [Double] = [], departments: [String?] = [], byKey: [Any?] = []
        let reading = try store.recordingSQL {
            salaries = employees.map(\.salary)
            departments = employees.map { $0.department?.objectID.uriRepresentation().lastPathComponent }
            byKey = try employees.map { try $0.value(forKey: "salary") }
        }
        #expect(reading.isEmpty, "\(reading)")
        #expect(salaries == Array(repeating: 4_000, count: 10))
        #expect(Set(departments.compactMap { $0 }).count == 10)
        #expect(byKey.compactMap { $0 as? Double } == salaries)
        #expect(employees.allSatisfy { $0.isFault })
    }

    @Test func readingAnyOtherPropertyFiresTheFaultWithItsWholeRecord() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let employees = try context.fetch(request(age: 25, properties: ["salary"]))
        let first = try #require(employees.first)
        let typed = store.recordingSQL { #expect(first.lastName == "L5") }
        #expect(typed.count == 1, "\(typed)")
        #expect(!first.isFault && !first.holdsPartialRow)
        #expect(first.firstName == "E0-5" && first.age == 25 && first.salary == 5_000)
        let second = employees[1]
        var name: Any?
        let byKey = try store.recordingSQL { name = try second.value(forKey: "firstName") }
        #expect(name as? String == "E1-5")
        #expect(byKey.count == 1, "\(byKey)")
        #expect(!second.isFault)
    }

    @Test func objectsWantedLoadedStayPartialFaults() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        var request = try request(age: 26, properties: ["salary"])
        request.returnsObjectsAsFaults = false
        var employees: [TestEmployee] = []
        let sql = try store.recordingSQL { employees = try context.fetch(request) }
        #expect(sql.count == 1, "no record read one by one: \(sql)")
        #expect(employees.count == 10 && employees.allSatisfy { $0.isFault && $0.holdsPartialRow })
    }

    @Test func aPartialRowDoesNotTakeThePlaceOfAWholeOne() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let whole = try context.fetch(request(age: 27, properties: nil))
        let partial = try context.fetch(request(age: 27, properties: ["salary"]))
        #expect(zip(whole, partial).allSatisfy { $0 === $1 })
        #expect(partial.allSatisfy { $0.isFault && !$0.holdsPartialRow })
        let reading = store.recordingSQL { _ = partial.map(\.lastName) }
        #expect(reading.isEmpty, "fired from the whole rows: \(reading)")
    }

    /// Another context's save makes the partial row stale: the read fires the fault, which reads
    /// the saved values.
    @Test func aSavedChangeIsReadFromTheStoreNotFromThePartialRow() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let employee = try #require(try context.fetch(request(age: 28, properties: ["salary"])).first)
        let other = makeContext(coordinator)
        let twin = try #require(other.object(with: employee.objectID) as? TestEmployee)
        twin.salary = 99
        try other.save()
        let reading = store.recordingSQL { #expect(employee.salary == 99) }
        #expect(reading.count == 1, "\(reading)")
        #expect(!employee.isFault)
    }

    @Test func aChangeFiresTheFaultAndSaves() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let employee = try #require(try context.fetch(request(age: 29, properties: ["salary"])).first)
        employee.salary = 12_345
        #expect(!employee.isFault && employee.hasChanges && employee.firstName == "E0-9")
        #expect(employee.changedValues().keys.sorted() == ["salary"])
        try context.save()
        let reader = makeContext(coordinator)
        let reread = try #require(try reader.fetch(request(age: 29, properties: nil)).first)
        #expect(reread.salary == 12_345 && reread.lastName == "L9")
    }

    @Test func namesThatAreNotAttributesOrToOneRelationshipsThrow() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        for names in [["salary", "nickname"], ["projects"], ["nope"]] {
            #expect(throws: KeyValueCodingError.self) { try context.fetch(request(age: 20, properties: names)) }
            do {
                _ = try context.fetch(request(age: 20, properties: names))
            } catch let error as KeyValueCodingError {
                #expect(error.code == .undefinedKey && error.key == names.last)
            }
        }
    }

    @Test func dictionariesReadTheRequestsPropertiesWhenGivenNone() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = try makeContext(coordinator).fetchDictionaries(request(age: 21, properties: ["firstName", "salary"]))
        #expect(rows.count == 10)
        #expect(rows.allSatisfy { Set($0.keys) == ["firstName", "salary"] })
        #expect(rows.first?["firstName"] as? String == "E0-1")
    }

    /// A batched fetch, and one that prefetches, read whole rows.
    @Test func batchedAndPrefetchingFetchesReadWholeRows() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        var batched = try request(age: 22, properties: ["salary"])
        batched.fetchBatchSize = 5
        let employees = try context.fetch(batched)
        let reading = store.recordingSQL { _ = employees.map(\.lastName) }
        #expect(reading.count == 2, "one read per batch of 5: \(reading)")
        var prefetching = try request(age: 23, properties: ["salary"])
        prefetching.relationshipKeyPathsForPrefetching = ["department"]
        let prefetcher = makeContext(coordinator)
        let others = try prefetcher.fetch(prefetching)
        #expect(others.count == 10 && others.allSatisfy { !$0.holdsPartialRow })
    }

    /// A key path through a fetched to-one reads it from the partial row: only the related
    /// object fires.
    @Test func aKeyPathThroughAFetchedToOneFiresOnlyTheRelatedObject() throws {
        let (coordinator, store, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let employee = try #require(try context.fetch(request(age: 21, properties: ["department"])).first)
        var name: Any?
        let reading = try store.recordingSQL { name = try employee.value(forKeyPath: "department.name") }
        #expect(name as? String == "D0")
        #expect(reading.count == 1 && reading.first?.contains(#""ZDEPARTMENT""#) == true, "the department's row: \(reading)")
        #expect(employee.isFault && employee.department?.isFault == false)
    }

    /// A child context, and a store that keeps whole records, give whole objects: the request's
    /// properties only narrow what a store reads when it can.
    @Test func aChildContextAndTheInMemoryStoreGiveWholeRows() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parent = makeContext(coordinator)
        let child = ManagedObjectContext(parent: parent)
        let employees = try child.fetch(request(age: 22, properties: ["salary"]))
        #expect(employees.count == 10 && employees.allSatisfy { !$0.holdsPartialRow })
        #expect(employees.map(\.lastName) == Array(repeating: "L2", count: 10))

        let memory = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        try memory.addPersistentStore(type: .inMemory)
        let writer = makeContext(memory)
        try saveTenDepartmentsOfTenEmployees(in: writer)
        let reader = makeContext(memory)
        let fromMemory = try reader.fetch(request(age: 22, properties: ["salary"]))
        #expect(fromMemory.count == 10 && fromMemory.allSatisfy { !$0.holdsPartialRow })
        #expect(fromMemory.map(\.salary) == Array(repeating: 2_000, count: 10) && fromMemory[0].lastName == "L2")
    }

    /// Rows of a subentity, fetched with their parent entity, hold the named properties too:
    /// read by name, the subentity's own properties fire the fault.
    @Test func subentityRowsHoldTheNamedPropertiesToo() throws {
        let model = try ManagedObjectModel {
            Entity("Shape") {
                Property("name", .string)
                Property("color", .string)
            }
            Entity("Square", parent: "Shape") { Property("side", .double) }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: directory.file()) as? SQLiteStore)
        let writer = makeContext(coordinator)
        for (entity, name) in [("Shape", "a"), ("Square", "b"), ("Square", "c")] {
            let shape = try writer.insertNewObject(forEntityName: entity)
            try shape.setValue(name, forKey: "name")
            try shape.setValue("red", forKey: "color")
            if entity == "Square" { try shape.setValue(2.5, forKey: "side") }
        }
        try writer.save()
        let context = makeContext(coordinator)
        var request = FetchRequest<ManagedObject>(entityName: "Shape", sortDescriptors: [KeyPathSortDescriptor(key: "name")])
        request.propertiesToFetch = ["name"]
        let shapes = try context.fetch(request)
        #expect(shapes.map(\.entity.name) == ["Shape", "Square", "Square"])
        #expect(shapes.allSatisfy { $0.isFault && $0.holdsPartialRow })
        var names: [String?] = []
        let reading = try store.recordingSQL { names = try shapes.map { try $0.value(forKey: "name") as? String } }
        #expect(names == ["a", "b", "c"] && reading.isEmpty, "\(reading)")
        var side: Any?
        let firing = try store.recordingSQL { side = try shapes[1].value(forKey: "side") }
        #expect(side as? Double == 2.5 && firing.count == 1, "\(firing)")
        #expect(try shapes[2].value(forKey: "color") as? String == "red")
    }

    /// With unsaved changes to see, the predicate and the order are applied in memory too: a
    /// partial fault is asked for what its row lacks.
    @Test func unsavedChangesAreMatchedAndSortedOnWhatTheRowsLack() throws {
        let (coordinator, _, directory) = try makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = makeContext(coordinator)
        let new = TestEmployee(context: context)
        new.firstName = "A-new"
        new.lastName = "L0"
        new.age = 40
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "lastName == 'L0'"),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName", ascending: false)])
        request.propertiesToFetch = ["salary"]
        let employees = try context.fetch(request)
        #expect(employees.count == 11)
        #expect(employees.map(\.firstName) == ["E9-0", "E8-0", "E7-0", "E6-0", "E5-0", "E4-0", "E3-0", "E2-0", "E1-0", "E0-0", "A-new"])
    }
}
