import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// The insert path's session-13 shortcuts keep their general paths' meaning: values read out of
/// `Any` (and edited in place there) only when their type is exactly the one asked for; a
/// primitive value of the attribute's own type written straight into its slot; an object added
/// to an inverse to-many set in place, without touching a copy of the set taken before.
@Suite struct ExactValuePathTests {
    private func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    // MARK: - Reading out of `Any`

    @Test func theExistentialLayoutHoldsOnThisPlatform() {
        // Were it not to hold, every read below would answer nil and the callers would cast.
        #expect(ExactExistential.layoutHolds)
    }

    @Test func exactReadsAnswerOnlyTheHeldType() {
        #expect(ExactExistential.load("text" as Any, as: String.self) == "text")
        #expect(ExactExistential.load(String(repeating: "long ", count: 20) as Any, as: String.self) == String(repeating: "long ", count: 20))
        #expect(ExactExistential.load(Int64(-5) as Any, as: Int64.self) == -5)
        #expect(ExactExistential.load(Int(5) as Any, as: Int64.self) == nil, "another type, however close")
        #expect(ExactExistential.load(Optional(Int64(5)) as Any, as: Int64.self) == nil, "an optional of the type")
        let date = Date(timeIntervalSinceReferenceDate: 99.25)
        #expect(ExactExistential.load(date as Any, as: Date.self) == date)
        let decimal = Decimal(-12_345_678_901) / Decimal(8)
        #expect(ExactExistential.load(decimal as Any, as: Decimal.self) == decimal)
        let uuid = UUID()
        #expect(ExactExistential.load(uuid as Any, as: UUID.self) == uuid)
        let employee = TestEmployee(entity: TestEmployee.entity(), insertInto: nil)
        #expect(ExactExistential.load(employee as Any, as: ManagedObject.self) == nil, "a subclass is no exact match")
        #expect(ExactExistential.load(employee as Any, as: TestEmployee.self) === employee)
        let set: Set<ManagedObject> = [employee]
        #expect(ExactExistential.load(set as Any, as: Set<ManagedObject>.self) == set)
        #expect(ExactExistential.load(Set([employee]) as Any, as: Set<ManagedObject>.self) == nil, "a set of a subclass")
        // A value boxed out of line (larger than the container's buffer) is never read here.
        let wide = (Int64(1), Int64(2), Int64(3), Int64(4))
        #expect(ExactExistential.load(wide as Any, as: (Int64, Int64, Int64, Int64).self) == nil)

        var none: Any? = nil
        #expect(withUnsafeMutablePointer(to: &none) { ExactExistential.load($0, as: Set<ManagedObject>.self) } == nil)
        var some: Any? = set
        #expect(withUnsafeMutablePointer(to: &some) { ExactExistential.load($0, as: Set<ManagedObject>.self) } == set)
        #expect(withUnsafeMutablePointer(to: &some) { ExactExistential.load($0, as: [ManagedObject].self) } == nil)
    }

    @Test func anEditInPlaceChangesOnlyTheHeldValueAndLeavesCopiesAlone() {
        let first = TestEmployee(entity: TestEmployee.entity(), insertInto: nil)
        let second = TestEmployee(entity: TestEmployee.entity(), insertInto: nil)
        let before: Set<ManagedObject> = [first]
        var value: Any? = before
        let inserted = ExactExistential.withValue(in: &value, as: Set<ManagedObject>.self) { $0.insert(second).inserted }
        #expect(inserted == true)
        #expect((value as? Set<ManagedObject>)?.count == 2)
        #expect(before.count == 1, "the set shared before the edit is copied, not written")
        #expect(ExactExistential.withValue(in: &value, as: Set<ManagedObject>.self) { $0.insert(second).inserted } == false)

        var array: Any? = [first] as [ManagedObject]
        #expect(ExactExistential.withValue(in: &array, as: Set<ManagedObject>.self) { $0.insert(second).inserted } == nil)
        #expect((array as? [ManagedObject])?.count == 1, "another type: nothing called, nothing changed")
        var none: Any? = nil
        #expect(ExactExistential.withValue(in: &none, as: Set<ManagedObject>.self) { _ in true } == nil)
    }

    // MARK: - Primitive values of the attribute's own type

    @Test func aPrimitiveValueOfTheAttributesTypeIsStoredWithoutNotifyingOrRecording() throws {
        let context = try context()
        let employee = TestEmployee(context: context)
        let other = TestEmployee(context: context)
        try context.save()
        var notified: [String?] = []
        let token = try employee.observe("firstName", options: [.new]) { _, change in notified.append(change.newValue as? String) }

        try employee.setPrimitiveValue("Ada", forKey: "firstName")
        try employee.setPrimitiveValue(Int16(41), forKey: "age")
        try employee.setPrimitiveValue(1_000.5, forKey: "salary")
        #expect(try employee.primitiveValue(forKey: "firstName") as? String == "Ada")
        #expect(employee.age == 41 && employee.salary == 1_000.5)
        #expect(notified.isEmpty, "a primitive write notifies no observer")
        #expect(!employee.isUpdated && !context.hasChanges, "nor is it recorded as a change")
        #expect(other.firstName == nil && other.age == 30, "the entity's initial values, shared until written, stay as they were")
        #expect(employee.committedValues(forKeys: ["firstName"])["firstName"] is NSNull, "the snapshot keeps the saved value")
        token.invalidate()
    }

    @Test func aPrimitiveValueOfAnotherTypeConvertsAndAWrongOneThrowsChangingNothing() throws {
        let context = try context()
        let employee = TestEmployee(context: context)
        try employee.setPrimitiveValue(Int(52), forKey: "age")
        #expect(employee.age == 52, "an Int converts to the Int16 attribute")
        try employee.setPrimitiveValue(Int16(7), forKey: "salary")
        #expect(employee.salary == 7, "an Int16 converts to the Double attribute")
        try employee.setPrimitiveValue(nil, forKey: "firstName")
        #expect(employee.firstName == nil)
        #expect(throws: KeyValueCodingError.self) { try employee.setPrimitiveValue("old", forKey: "age") }
        #expect(employee.age == 52)
        #expect(throws: KeyValueCodingError.self) { try employee.setPrimitiveValue("x", forKey: "noSuchKey") }
    }

    @Test func aPrimitiveValueOnAFaultFiresItFirst() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let saved = TestEmployee(context: writer)
        saved.firstName = "Grace"
        saved.lastName = "Hopper"
        try writer.save()

        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fault = try #require(try reader.existingObject(with: saved.objectID) as? TestEmployee)
        reader.refresh(fault, mergeChanges: false)
        #expect(fault.isFault)
        try fault.setPrimitiveValue("Amazing Grace", forKey: "firstName")
        #expect(!fault.isFault)
        #expect(fault.firstName == "Amazing Grace")
        #expect(fault.lastName == "Hopper", "the other values are the record's")
    }

    // MARK: - Inverse sets edited in place

    @Test func anInverseSetGrowsInPlaceWithoutChangingCopiesOrTheSnapshot() throws {
        let context = try context()
        let department = TestDepartment(context: context)
        department.name = "Research"
        let first = TestEmployee(context: context)
        first.department = department
        try context.save()

        let copy = department.employees
        let second = TestEmployee(context: context)
        second.department = department
        #expect(department.employees.count == 2)
        #expect(department.employees.contains(second))
        #expect(copy.count == 1, "a copy taken before keeps its members")
        let committed = department.committedValues(forKeys: ["employees"])["employees"] as? Set<ManagedObject>
        #expect(committed?.count == 1, "the snapshot keeps the saved members")
        #expect(department.isUpdated, "the inverse change is recorded")
        // Setting the same department again adds nothing.
        second.department = department
        #expect(department.employees.count == 2)
    }
}
