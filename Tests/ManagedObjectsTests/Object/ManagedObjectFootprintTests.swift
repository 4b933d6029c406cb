#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import ManagedObjects
import SampleModels
import Testing

/// A managed object's instance stays small: a fetch makes millions of faults, and each carries
/// every stored field of its class.
@Suite struct ManagedObjectFootprintTests {
    final class Slim: ManagedObject {
        @Managed var firstName: String?
        @Managed var lastName: String?
        @Managed var employeeID: Int64
        @Managed var salary: Double
        @Managed var manager: Slim?
    }

    private func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Slim", class: Slim.self) {
                Property("firstName", .string)
                Property("lastName", .string)
                Property("employeeID", .integer64, defaultValue: Int64(0))
                Property("salary", .double, defaultValue: 0.0)
                Property("manager", to: "Slim")
            }
        }
    }

    @Test func aManagedPropertyCostsOneBytePerObject() {
        #expect(MemoryLayout<Managed<Double>>.size == 1)
        #expect(MemoryLayout<Managed<Set<Slim>>>.size == 1)
    }

    /// The row state's cases (a snapshot, a fault's row, a save slot, a fault's batch, the rare
    /// state, a compact row's read) share one word: a batch's fault allocates nothing for its batch.
    @Test func theRowStateIsOneWord() {
        #expect(MemoryLayout<ManagedObjectRowState>.size == MemoryLayout<Int>.size)
    }

    /// An object's values, a buffer or a compact row, take one word.
    @Test func theValueStorageIsOneWord() {
        #expect(MemoryLayout<ObjectValueStorage>.size == MemoryLayout<Int>.size)
    }

    #if canImport(Glibc)
    /// glibc's `malloc_usable_size`, which its Swift module does not import, found by name.
    private func usableSize(_ pointer: UnsafeMutableRawPointer?) throws -> Int {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(nil, "malloc_usable_size"))
        return unsafeBitCast(symbol, to: UsableSize.self)(pointer)
    }

    @Test func anObjectWithFiveManagedPropertiesFitsItsAllocationBound() throws {
        let model = try makeModel()
        let entity = try #require(model.entity(named: "Slim"))
        let object = Slim(entity: entity, insertInto: nil)
        let size = try usableSize(Unmanaged.passUnretained(object).toOpaque())
        #expect(size <= 72, "allocation of \(size) bytes")
    }

    /// A fault of the sample model's employees, fetched by a second context, holding its row.
    private func fetchedEmployee() throws -> (employee: ManagedEmployee, context: ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let written = ManagedEmployee(context: writer)
        written.firstName = "Ada"
        written.salary = 100
        try writer.save()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = try #require(try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee")).first)
        return (employee, context)
    }

    /// What a fetched, fired employee of the sample model costs, allocation by allocation: the
    /// object (72 usable bytes: an 80-byte chunk, glibc's 8-byte header included; its fields take
    /// 61 bytes, its ten one-byte `@Managed` slots 10), and the compact row that is its values and
    /// its snapshot (88: a 96-byte chunk, the ten slots alone; the unread `directReports` is a
    /// one-word slot). Once its values are needed whole, they move into one buffer shared with
    /// the snapshot (120: a 128-byte chunk; a two-word object header, the layout and a read).
    @Test func aFiredEmployeeAndItsCompactRowFitTheirAllocationBounds() throws {
        let (employee, context) = try fetchedEmployee()
        defer { withExtendedLifetime(context) {} }
        #expect(employee.salary == 100)
        let object = try usableSize(Unmanaged.passUnretained(employee).toOpaque())
        let row = try #require(employee.valueStorage.compactRow)
        let rowSize = try usableSize(row.base)
        #expect(object <= 72, "object of \(object) bytes")
        #expect(rowSize <= 88, "compact row of \(rowSize) bytes")
        let snapshot = try #require(employee.snapshot)
        #expect(employee.values.isIdentical(to: snapshot))
        let identity = try #require(employee.values.bufferIdentity)
        let buffer = try usableSize(UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: identity)))
        #expect(buffer <= 120, "buffer of \(buffer) bytes")
    }

    /// A fault fetched without its values holds no buffer and no batch: its object is all it
    /// costs (with the registry's entry and the result's element).
    @Test func aFaultFetchedWithoutValuesIsItsObjectAlone() throws {
        let (coordinator, _, directory) = try makeSQLiteStoreOfTenDepartments(prefix: "Footprint")
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.includesPropertyValues = false
        let employee = try #require(try context.fetch(request).first)
        #expect(employee.isFault)
        #expect(!employee.values.hasBuffer)
        #expect(!employee.fetchedRow.hasBuffer)
        #expect(employee.faultBatch == nil)
    }

    /// A fault's row, once moved into a buffer (here by reading it as `fetchedRow`), carries
    /// when it was read (the object holds no word for it), and firing adopts that buffer as the
    /// object's values and snapshot.
    @Test func aFaultsRowCarriesItsReadAndBecomesTheFiredObjectsValues() throws {
        let (employee, context) = try fetchedEmployee()
        defer { withExtendedLifetime(context) {} }
        #expect(employee.isFault)
        let row = try #require(employee.fetchedRow.storage)
        #expect(row.rowRead != nil)
        #expect(employee.salary == 100)
        #expect(!employee.isFault)
        #expect(employee.values.storage === row)
        #expect(employee.snapshot?.storage === row)
        #expect(!employee.fetchedRow.hasBuffer)
    }
    #endif

    @Test func typedAccessorsStillReadAndWriteEachProperty() throws {
        let model = try makeModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let boss = Slim(context: context)
        let object = Slim(context: context)
        object.firstName = "Ada"
        object.lastName = "Lovelace"
        object.employeeID = 7
        object.salary = 1.5
        object.manager = boss
        #expect(object.firstName == "Ada")
        #expect(object.lastName == "Lovelace")
        #expect(object.employeeID == 7)
        #expect(object.salary == 1.5)
        #expect(object.manager === boss)
        #expect(try object.value(forKey: "employeeID") as? Int64 == 7)
    }
}
