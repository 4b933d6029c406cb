import Foundation
import ModelObjects
import Synchronization
import Testing
@testable import ManagedObjects

/// The edges of the insert path's session-12 shortcuts: insertions staged in an array and joined
/// to the context's inserted set when it is next read; `willSave()` rounds that hash no object
/// when a round changes nothing; to-many slots read typed (`PropertyValues.toManyContents`) and
/// values taken out of `Any` without a dynamic cast when their type is exact.
@Suite struct StagedInsertionAndSaveRoundTests {
    private func stack(undo: Bool = false) throws -> (ManagedObjectContext, ManagedObjectModel) {
        let model = try makeTestModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        if undo { context.undoManager = ModelUndoManager(notificationCenter: NotificationCenter()) }
        return (context, model)
    }

    private func names(_ objects: Set<ManagedObject>) -> [String] {
        objects.compactMap { ($0 as? TestEmployee)?.firstName }.sorted()
    }

    private func employee(_ name: String, _ context: ManagedObjectContext) -> TestEmployee {
        let employee = TestEmployee(context: context)
        employee.firstName = name
        return employee
    }

    // MARK: - Staged insertions

    @Test func insertedObjectsHoldEveryInsertionOnceAcrossReadsAndDeletes() throws {
        let (context, _) = try stack()
        let ada = employee("Ada", context), grace = employee("Grace", context)
        #expect(names(context.insertedObjects) == ["Ada", "Grace"])
        let alan = employee("Alan", context)
        context.delete(grace)
        // Deleted before any read: it leaves the set the insertions are joined to.
        #expect(names(context.insertedObjects) == ["Ada", "Alan"])
        #expect(ada.isInserted && alan.isInserted && !grace.isInserted)
        context.insert(grace)
        context.insert(grace)
        #expect(names(context.insertedObjects) == ["Ada", "Alan", "Grace"])
        #expect(context.insertedObjects.count == 3)
        #expect(context.hasChanges)
    }

    @Test func anObjectInsertedAndDeletedBeforeAnyReadLeavesNothing() throws {
        let (context, _) = try stack()
        let ada = employee("Ada", context)
        context.delete(ada)
        context.processPendingChanges()
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
    }

    @Test func undoAndRedoOfInsertionsStagedSinceTheLastReadKeepTheSetRight() throws {
        let (context, _) = try stack(undo: true)
        let undo = try #require(context.undoManager)
        undo.beginUndoGrouping()
        _ = employee("Ada", context)
        _ = employee("Grace", context)
        try undo.endUndoGrouping()
        try undo.undo()
        #expect(context.insertedObjects.isEmpty)
        try undo.redo()
        #expect(names(context.insertedObjects) == ["Ada", "Grace"])
        undo.beginUndoGrouping()
        let alan = employee("Alan", context)
        context.delete(alan)
        try undo.endUndoGrouping()
        context.processPendingChanges()
        #expect(names(context.insertedObjects) == ["Ada", "Grace"])
        try undo.undo()
        #expect(names(context.insertedObjects) == ["Ada", "Grace"])
        try context.save()
        #expect(context.insertedObjects.isEmpty)
    }

    @Test func rollbackAndResetDropInsertionsStagedSinceTheLastRead() throws {
        let (context, _) = try stack()
        let ada = employee("Ada", context)
        context.rollback()
        #expect(context.insertedObjects.isEmpty)
        #expect(!ada.isInserted && ada.managedObjectContext == nil)
        let grace = employee("Grace", context)
        context.reset()
        #expect(context.insertedObjects.isEmpty)
        #expect(!grace.isInserted)
        _ = employee("Alan", context)
        try context.save()
        let fetched = try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(fetched.compactMap(\.firstName) == ["Alan"])
    }

    @Test func aFailedSaveKeepsEveryStagedInsertion() throws {
        let (context, _) = try stack()
        let ada = employee("Ada", context)
        ada.age = 5
        _ = employee("Grace", context)
        // `age` is at least 16 in the test model.
        #expect(throws: (any Error).self) { try context.save() }
        #expect(names(context.insertedObjects) == ["Ada", "Grace"])
        ada.age = 30
        try context.save()
        #expect(context.insertedObjects.isEmpty)
        #expect(!ada.isInserted)
    }

    // MARK: - willSave rounds

    /// Inserts one helper object from its first `willSave()`, and deletes `victim` from it.
    final class Spawner: ManagedObject {
        @Managed var name: String?
        @Managed var stamp: String?
        static let calls = Mutex<[String]>([])
        var victim: ManagedObject?

        override func willSave() {
            super.willSave()
            Self.calls.withLock { $0.append(name ?? "?") }
            guard let context = managedObjectContext, !isDeleted else { return }
            if name == "spawner", stamp == nil {
                stamp = "spawned"
                let child = Spawner(context: context)
                child.name = "child"
                if let victim { context.delete(victim) }
            }
        }
    }

    @Test func objectsThatJoinTheChangesDuringWillSaveGetTheirOwnWillSaveOnce() throws {
        let model = try ManagedObjectModel {
            Entity("Spawner", class: Spawner.self) {
                Property("name", .string)
                Property("stamp", .string)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let victim = Spawner(context: context)
        victim.name = "victim"
        try context.save()
        Spawner.calls.withLock { $0 = [] }
        let spawner = Spawner(context: context)
        spawner.name = "spawner"
        spawner.victim = victim
        try context.save()
        #expect(Spawner.calls.withLock { $0 } == ["spawner", "child", "victim"])
        #expect(victim.managedObjectContext == nil)
        let saved = try context.fetch(FetchRequest<Spawner>(entityName: "Spawner")).compactMap(\.name).sorted()
        #expect(saved == ["child", "spawner"])
        #expect(spawner.stamp == "spawned")
        #expect(!context.hasChanges)
    }

    // MARK: - Typed to-many reads

    @Test func toManyContentsReadsEachStateOfASlot() throws {
        let model = try makeTestModel()
        let department = try #require(model.entity(named: "Department"))
        let project = try #require(model.entity(named: "Project"))
        let employees = try #require(department.relationshipsByName["employees"]).index
        let milestones = try #require(project.relationshipsByName["milestones"]).index
        let name = try #require(department.propertiesByName["name"]).index

        var values = department.initialValues
        guard case .set(let empty) = values.toManyContents(at: employees) else {
            Issue.record("a new object's set reads as a set")
            return
        }
        #expect(empty.isEmpty)
        guard case .array(let none) = project.initialValues.toManyContents(at: milestones) else {
            Issue.record("a new object's ordered relationship reads as an array")
            return
        }
        #expect(none.isEmpty)
        #expect(values.toManyContents(at: name) == nil, "not a to-many slot")
        #expect(values.toManyContents(at: 999) == nil, "out of range")
        #expect(PropertyValues().toManyContents(at: employees) == nil, "a fault's empty storage")

        let ada = TestEmployee(entity: try #require(model.entity(named: "Employee")), insertInto: nil)
        values[employees] = Set<ManagedObject>([ada])
        guard case .set(let one) = values.toManyContents(at: employees) else {
            Issue.record("a set reads as a set")
            return
        }
        #expect(one.count == 1 && one.first === ada)
        // A set of a subclass is cast, not read as bytes.
        values[employees] = Set<TestEmployee>([ada])
        guard case .set(let cast) = values.toManyContents(at: employees) else {
            Issue.record("a set of a subclass reads as a set of managed objects")
            return
        }
        #expect(cast.first === ada)
        // An array in an unordered slot still reads (as the record path read it).
        values[employees] = [ada] as [ManagedObject]
        guard case .array(let array) = values.toManyContents(at: employees) else {
            Issue.record("an array reads as an array")
            return
        }
        #expect(array.first === ada)
        values[employees] = nil
        guard case .other(let nothing) = values.toManyContents(at: employees) else {
            Issue.record("nil reads as other(nil)")
            return
        }
        #expect(nothing == nil)
        values[employees] = RelationshipFault(ids: [], isOrdered: false)
        guard case .other(let fault?) = values.toManyContents(at: employees) else {
            Issue.record("a fault with IDs reads as other")
            return
        }
        #expect((fault as? RelationshipFault)?.ids == [])
        values.markUnreadRelationshipFault(at: employees)
        guard case .unread = values.toManyContents(at: employees) else {
            Issue.record("an unread fault reads as unread")
            return
        }
    }

    @Test func castReadsExactTypesAndFallsBackToTheRuntimeCast() {
        #expect(PropertyValues.cast("text" as Any, to: String.self) == "text")
        #expect(PropertyValues.cast(Int64(7) as Any, to: Int64.self) == 7)
        #expect(PropertyValues.cast(Int(7) as Any, to: Int64.self) == nil, "no conversion: another type")
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(PropertyValues.cast(date as Any, to: Date.self) == date)
        let decimal = Decimal(string: "12345678901234567890.5")
        #expect(PropertyValues.cast(decimal as Any, to: Decimal.self) == decimal)
        #expect(PropertyValues.cast(Optional(5) as Any, to: Int.self) == 5, "an optional in Any is unwrapped by the runtime cast")
        #expect(PropertyValues.cast(NSNumber(value: 3) as Any, to: NSNumber.self) == NSNumber(value: 3))
    }

    @Test func valuesSetByNameThroughAnyAreStoredExactlyOrRefused() throws {
        let (context, _) = try stack()
        let ada = employee("Ada", context)
        // `TestEmployee.awakeFromInsert` sets `lastName` by name (a String through `Any?`).
        #expect(ada.lastName == "New")
        try ada.setPrimitiveValue(Int16(40), forKey: "age")
        #expect(ada.age == 40)
        let department = TestDepartment(context: context)
        try department.setPrimitiveValue(Decimal(string: "7.25"), forKey: "budget")
        #expect(department.budget == Decimal(string: "7.25"))
        #expect(throws: (any Error).self) { try department.setPrimitiveValue(Date(), forKey: "budget") }
        #expect(department.budget == Decimal(string: "7.25"), "nothing changes")
    }
}
