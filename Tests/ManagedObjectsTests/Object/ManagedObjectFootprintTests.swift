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

    @Test func aManagedPropertyCostsTwoBytesPerObject() {
        #expect(MemoryLayout<Managed<Double>>.size == 2)
        #expect(MemoryLayout<Managed<Set<Slim>>>.size == 2)
    }

    #if canImport(Glibc)
    @Test func anObjectWithFiveManagedPropertiesFitsItsAllocationBound() throws {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        // glibc's `malloc_usable_size`, which its Swift module does not import.
        let symbol = try #require(dlsym(nil, "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let model = try makeModel()
        let entity = try #require(model.entity(named: "Slim"))
        let object = Slim(entity: entity, insertInto: nil)
        let size = usableSize(Unmanaged.passUnretained(object).toOpaque())
        #expect(size <= 200, "allocation of \(size) bytes")
    }

    /// What a fetched, fired employee of the sample model costs, allocation by allocation: the
    /// object (104 usable bytes: a 112-byte chunk, glibc's 8-byte header included; its ID is two
    /// words), and the one buffer its values and snapshot share (120: a 128-byte chunk; the
    /// unread `directReports` is a one-word slot).
    @Test func aFiredEmployeeAndItsOneBufferFitTheirAllocationBounds() throws {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(nil, "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let written = ManagedEmployee(context: writer)
        written.firstName = "Ada"
        written.salary = 100
        try writer.save()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = try #require(try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee")).first)
        #expect(employee.salary == 100)
        let snapshot = try #require(employee.snapshot)
        #expect(employee.values.isIdentical(to: snapshot))
        let object = usableSize(Unmanaged.passUnretained(employee).toOpaque())
        let identity = try #require(employee.values.bufferIdentity)
        let buffer = usableSize(UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: identity)))
        #expect(object <= 104, "object of \(object) bytes")
        #expect(buffer <= 120, "buffer of \(buffer) bytes")
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
