import Foundation
import SampleModels
import Testing
@testable import ManagedObjects

/// A non-optional typed accessor whose stored value is nil never stops the program: a `Date`
/// reads the reference date, whether the object is loaded with a NULL its model allows or new
/// with the value never set; key-value coding reads nil.
@Suite struct ManagedNilValueTests {
    @Test func aNewObjectsUnsetDateReadsTheReferenceDate() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = ManagedEmployee(context: context)
        try employee.setValue(nil, forKey: "startDate")
        #expect(employee.startDate == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try employee.value(forKey: "startDate") == nil)
    }

    @Test func aLoadedNullInAnOptionalDateAttributeReadsTheReferenceDate() throws {
        let store = try DamagedStore()
        try store.apply(StoreDamage("null date", sql: "UPDATE ZEMPLOYEE SET ZSTARTDATE = NULL"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(type: .sqlite, at: store.url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employees = try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee"))
        #expect(employees.count == 4)
        for employee in employees {
            #expect(employee.startDate == Date(timeIntervalSinceReferenceDate: 0))
            #expect(!employee.isFault)
            #expect(try employee.value(forKey: "startDate") == nil)
        }
    }
}
