import Foundation
@testable import ManagedObjects
import SampleModels
import Testing

/// A fetched object holds its row compact (`ObjectValueStorage`): its fault holds the row its
/// fetch read, firing makes the row its values and its snapshot in place, and typed and
/// key-value reads read it there. Anything that needs the values as a whole (a write, changed
/// and committed values, a to-many relationship, a refresh, a stale row) first moves the row
/// into a buffer, and then behaves as for any other object.
@Suite struct CompactRowTests {
    /// A SQLite store of one department and three employees, and a context of its coordinator
    /// that has fetched nothing yet.
    private final class Store {
        let directory: URL
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("CompactRow-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
            try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
            let writer = CompactRowTests.makeContext(coordinator)
            let department = ManagedDepartment(context: writer)
            department.name = "Research"
            for (index, name) in ["Ada", "Grace", "Edsger"].enumerated() {
                let employee = ManagedEmployee(context: writer)
                employee.firstName = name
                employee.lastName = "Name \(index)"
                employee.employeeID = Int64(index + 1)
                employee.salary = Double(1_000 * (index + 1))
                employee.startDate = Date(timeIntervalSinceReferenceDate: Double(index))
                employee.department = department
            }
            try writer.save()
            context = CompactRowTests.makeContext(coordinator)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// The employees, fetched as faults by `context` (the store's by default), by employee ID.
        func employees(in context: ManagedObjectContext? = nil) throws -> [ManagedEmployee] {
            var request = FetchRequest<ManagedEmployee>(entityName: "Employee")
            request.sortDescriptors = [KeyPathSortDescriptor(key: "employeeID", ascending: true)]
            return try (context ?? self.context).fetch(request)
        }
    }

    private static func makeContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    private func isCompactFault(_ object: ManagedObject) -> Bool {
        guard case .compactRow = object.rowState else { return false }
        return object.isFault && object.valueStorage.isCompact && object.valueStorage.buffer == nil
    }

    private func isCompactAndFired(_ object: ManagedObject) -> Bool {
        guard case .snapshotInValues = object.rowState else { return false }
        return !object.isFault && object.valueStorage.isCompact && object.valueStorage.buffer == nil
    }

    @Test func aFetchedFaultHoldsItsRowCompact() throws {
        let store = try Store()
        let employees = try store.employees()
        #expect(employees.count == 3)
        for employee in employees { #expect(isCompactFault(employee)) }
    }

    @Test func firingAndTypedReadsLeaveTheRowCompact() throws {
        let store = try Store()
        let grace = try #require(try store.employees().dropFirst().first)
        #expect(grace.salary == 2_000)
        #expect(isCompactAndFired(grace))
        #expect(grace.firstName == "Grace")
        #expect(grace.lastName == "Name 1")
        #expect(grace.employeeID == 2)
        #expect(grace.age == nil)
        #expect(grace.hasDriversLicense == false)
        #expect(grace.startDate == Date(timeIntervalSinceReferenceDate: 1))
        #expect(grace.department?.name == "Research")
        #expect(grace.manager == nil)
        #expect(isCompactAndFired(grace))
    }

    @Test func keyValueCodingAndPrimitiveReadsLeaveTheRowCompact() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(try ada.value(forKey: "firstName") as? String == "Ada")
        #expect(try ada.value(forKey: "salary") as? Double == 1_000)
        #expect(try ada.primitiveValue(forKey: "employeeID") as? Int64 == 1)
        #expect(try ada.value(forKey: "age") == nil)
        #expect(try (ada.value(forKey: "department") as? ManagedDepartment)?.name == "Research")
        #expect(try ada.value(forKeyPath: "department.name") as? String == "Research")
        #expect(isCompactAndFired(ada))
    }

    @Test func readingTheValuesAsAWholeMovesTheRowIntoOneBufferSharedWithTheSnapshot() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(ada.salary == 1_000)
        #expect(ada.changedValues().isEmpty)
        #expect(!ada.valueStorage.isCompact)
        let snapshot = try #require(ada.snapshot)
        #expect(ada.values.isIdentical(to: snapshot))
        #expect(ada.committedValues(forKeys: ["firstName", "salary"])["firstName"] as? String == "Ada")
        #expect(ada.salary == 1_000)
    }

    @Test func aWriteKeepsTheFetchedValuesAsTheSnapshotAndSaves() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(ada.salary == 1_000)
        ada.salary = 1_500
        #expect(!ada.valueStorage.isCompact)
        #expect(ada.changedValues().keys.sorted() == ["salary"])
        #expect(ada.committedValues(forKeys: ["salary"])["salary"] as? Double == 1_000)
        #expect(store.context.updatedObjects.contains(ada))
        try store.context.save()
        let rereading = Self.makeContext(store.coordinator)
        let reread = try #require(try store.employees(in: rereading).first)
        #expect(reread.salary == 1_500)
        #expect(reread.firstName == "Ada")
    }

    @Test func aWriteToACompactFaultFiresItFirst() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(isCompactFault(ada))
        try ada.setValue("Augusta", forKey: "firstName")
        #expect(!ada.isFault)
        #expect(ada.firstName == "Augusta")
        #expect(ada.lastName == "Name 0")
        #expect(ada.committedValues(forKeys: ["firstName"])["firstName"] as? String == "Ada")
    }

    @Test func observersOfACompactObjectSeeTheExactChange() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(ada.salary == 1_000)
        var log: [String] = []
        let token = try ada.observe("salary", options: [.old, .new, .prior]) { _, change in
            log.append("\(change.isPrior ? "prior" : "after") \(change.oldValue.map { "\($0)" } ?? "-") \(change.newValue.map { "\($0)" } ?? "-")")
        }
        ada.salary = 2_500
        #expect(log == ["prior 1000.0 -", "after 1000.0 2500.0"])
        withExtendedLifetime(token) {}
    }

    @Test func aToManyReadMovesTheRowIntoABufferAndLoadsTheRelationship() throws {
        let store = try Store()
        let department = try #require(try store.context.fetch(FetchRequest<ManagedDepartment>(entityName: "Department")).first)
        #expect(isCompactFault(department))
        #expect(department.name == "Research")
        #expect(isCompactAndFired(department))
        #expect(department.employees.map(\.firstName).sorted() == ["Ada", "Edsger", "Grace"])
        #expect(!department.valueStorage.isCompact)
        #expect(department.changedValues().isEmpty)
    }

    @Test func aCompactFaultFiresWithValuesAnotherContextSaved() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(isCompactFault(ada))
        let other = Self.makeContext(store.coordinator)
        let otherAda = try #require(try store.employees(in: other).first)
        otherAda.salary = 9_000
        try other.save()
        #expect(ada.salary == 9_000)
        #expect(ada.changedValues().isEmpty)
    }

    @Test func aCompactFaultWhoseRecordAnotherContextDeletedThrowsObjectNotFound() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(isCompactFault(ada))
        let other = Self.makeContext(store.coordinator)
        other.delete(try #require(try store.employees(in: other).first))
        try other.save()
        #expect(throws: PersistenceError.self) { try ada.fireFault() }
        #expect(ada.isFault)
    }

    @Test func aCompactRowPastTheStalenessIntervalIsReadAgain() throws {
        let store = try Store()
        store.context.stalenessInterval = 0
        let ada = try #require(try store.employees().first)
        #expect(isCompactFault(ada))
        #expect(ada.salary == 1_000)
        #expect(!ada.valueStorage.isCompact)
    }

    @Test func refreshingACompactObjectMakesItAFaultThatFiresAgain() throws {
        let store = try Store()
        let employees = try store.employees()
        let ada = try #require(employees.first)
        #expect(ada.salary == 1_000)
        store.context.refresh(ada, mergeChanges: false)
        #expect(ada.isFault)
        #expect(!ada.valueStorage.isCompact)
        #expect(ada.salary == 1_000)
        store.context.refresh(employees[1], mergeChanges: true)
        #expect(employees[1].firstName == "Grace")
    }

    /// A transient property starts at its default in a compact row as in a buffer.
    @Test func aCompactRowHoldsTransientPropertiesAtTheirDefaults() throws {
        let model = try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
                Property("draft", .string, transient: true, defaultValue: "unsaved")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CompactRow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
        let writer = Self.makeContext(coordinator)
        let note = try writer.insertNewObject(forEntityName: "Note")
        try note.setValue("Groceries", forKey: "title")
        try note.setValue("changed", forKey: "draft")
        try writer.save()
        let reader = Self.makeContext(coordinator)
        let fetched = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        #expect(isCompactFault(fetched))
        #expect(try fetched.value(forKey: "title") as? String == "Groceries")
        #expect(try fetched.value(forKey: "draft") as? String == "unsaved")
        #expect(isCompactAndFired(fetched))
    }

    @Test func aPartialFetchKeepsItsRowsInBuffers() throws {
        let store = try Store()
        var request = FetchRequest<ManagedEmployee>(entityName: "Employee")
        request.propertiesToFetch = ["firstName"]
        let ada = try #require(try store.context.fetch(request).first { $0.firstName == "Ada" })
        #expect(!ada.valueStorage.isCompact)
    }

    @Test func aCompactRowLetsGoOfItsValuesWithItsObject() throws {
        let store = try Store()
        weak var department: ManagedDepartment?
        weak var employee: ManagedEmployee?
        do {
            let employees = try store.employees()
            #expect(employees.map(\.salary) == [1_000, 2_000, 3_000])
            department = employees.first?.department
            employee = employees.first
            #expect(employees.allSatisfy(isCompactAndFired))
        }
        #expect(employee == nil)
        #expect(department == nil)
        #expect(store.context.registeredObjects.isEmpty)
    }

    @Test func aFaultLeftCompactLetsGoOfItsRowWithItsObject() throws {
        let store = try Store()
        weak var department: ManagedDepartment?
        do {
            let employees = try store.employees()
            #expect(employees.allSatisfy(isCompactFault))
            department = store.context.registeredObjects.compactMap { $0 as? ManagedDepartment }.first
            #expect(department != nil)
        }
        #expect(department == nil)
    }

    @Test func anObjectOutlivingItsContextKeepsReadingItsCompactRow() throws {
        let store = try Store()
        var context: ManagedObjectContext? = Self.makeContext(store.coordinator)
        let ada = try #require(try store.employees(in: context).first)
        #expect(ada.salary == 1_000)
        context = nil
        #expect(ada.managedObjectContext == nil)
        #expect(ada.salary == 1_000)
        #expect(ada.firstName == "Ada")
        #expect(isCompactAndFired(ada))
    }

    /// A reset invalidates the context's objects, as in Core Data: a compact one, too, reads
    /// its entity's initial values afterwards.
    @Test func aResetInvalidatesACompactObjectAsAnyOther() throws {
        let store = try Store()
        let ada = try #require(try store.employees().first)
        #expect(ada.salary == 1_000)
        store.context.reset()
        #expect(ada.managedObjectContext == nil)
        #expect(!ada.valueStorage.isCompact)
        #expect(ada.salary == 0)
        #expect(ada.firstName == "")
    }
}
