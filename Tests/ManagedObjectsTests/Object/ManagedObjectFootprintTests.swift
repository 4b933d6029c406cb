#if canImport(Glibc)
import Foundation
import Glibc
import SampleModels
import Testing

@testable import ManagedObjects

/// What a fetched object costs in memory, allocation by allocation (glibc's usable size of
/// each block): issue 12's benchmark fetches a million of these, and a field added to
/// `ManagedObject` or to a row's header moves every one of them into a larger block.
@Suite struct ManagedObjectFootprintTests {
    /// An employee of the sample model (ten `@Managed` properties) saved, and fetched as a fault
    /// holding its row by a second context.
    private func fetchedEmployee() throws -> (object: ManagedEmployee, context: ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
        try coordinator.addPersistentStore(type: .inMemory)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = ManagedEmployee(context: writer)
        employee.firstName = "Ada"
        employee.lastName = "Lovelace"
        employee.salary = 52_000
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fetched = try reader.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee"))
        return (try #require(fetched.first), reader)
    }

    /// glibc's `malloc_usable_size` (in `malloc.h`, which the Glibc module leaves out), found
    /// by name.
    private typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int

    private func usableSize(_ object: AnyObject) throws -> Int {
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
        return unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test func aFetchedEmployeeFitsANinetySixByteBlock() throws {
        let (employee, context) = try fetchedEmployee()
        defer { withExtendedLifetime(context) {} }
        #expect(employee.isFault)
        // 88 usable bytes: glibc's 96-byte chunk. The object's own fields take 76 bytes, the
        // ten one-byte slots 10.
        let size = try usableSize(employee)
        #expect(size <= 88, "\(size)")
    }

    @Test func aFaultsRowCarriesItsReadAndBecomesTheFiredObjectsValues() throws {
        let (employee, context) = try fetchedEmployee()
        defer { withExtendedLifetime(context) {} }
        let row = try #require(employee.fetchedRow.storage)
        #expect(row.rowRead != nil)
        // 16 bytes of object header, 16 of buffer header (layout, read), 88 of slots: 120.
        let size = try usableSize(row)
        #expect(size <= 120, "\(size)")
        #expect(employee.salary == 52_000)
        #expect(!employee.isFault)
        #expect(employee.values.storage === row)
        #expect(employee.snapshot?.storage === row)
        #expect(!employee.fetchedRow.hasBuffer)
    }
}
#endif
