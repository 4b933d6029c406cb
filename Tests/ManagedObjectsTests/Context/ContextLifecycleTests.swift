import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextLifecycleTests {
    @Test func awakeFromInsertRunsOnceAndPrimitiveValuesSetThereAreBaseline() throws {
        let stack = try ManagedTestStack(undo: true)
        let log = HookLog()
        let entity = try #require(stack.model.entity(named: "Employee"))
        let ada = TestEmployee(entity: entity, insertInto: nil)
        ada.log = log
        stack.context.insert(ada)
        #expect(log.entries == ["awakeFromInsert"])
        #expect(ada.lastName == "New")
        stack.context.processPendingChanges()
        try stack.context.undoManager?.undo()
        #expect(!stack.context.insertedObjects.contains(ada))
        try stack.context.undoManager?.redo()
        #expect(stack.context.insertedObjects.contains(ada))
        #expect(log.entries == ["awakeFromInsert"])
        #expect(ada.lastName == "New")
    }

    @Test func willSaveAndDidSaveRunForEveryChangedObjectInOrder() throws {
        let stack = try ManagedTestStack()
        let log = HookLog()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        try stack.context.save()
        ada.log = log
        grace.log = log
        let alan = stack.employee("Alan")
        alan.log = log
        ada.salary = 2
        stack.context.delete(grace)
        try stack.context.save()
        #expect(log.entries.filter { $0.hasPrefix("willSave") }.sorted() == ["willSave deleted", "willSave inserted", "willSave updated"])
        #expect(log.entries.filter { $0 == "didSave" }.count == 3)
        let lastWillSave = try #require(log.entries.lastIndex { $0.hasPrefix("willSave") })
        let firstDidSave = try #require(log.entries.firstIndex(of: "didSave"))
        #expect(lastWillSave < firstDidSave)
        #expect(grace.managedObjectContext == nil)
    }

    @Test func changesMadeInWillSaveAreSaved() throws {
        final class Stamped: ManagedObject {
            @Managed var name: String?
            @Managed var stamp: String?
            override func willSave() {
                let expected = "saved:" + (name ?? "")
                if !isDeleted && stamp != expected { stamp = expected }  // idempotent, as Core Data requires
            }
        }
        let model = try ManagedObjectModel {
            Entity("Stamped", class: Stamped.self) {
                Property("name", .string)
                Property("stamp", .string)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = Stamped(context: context)
        object.name = "first"
        try context.save()
        #expect(object.stamp == "saved:first")
        #expect(!context.hasChanges)
        object.name = "again"
        try context.save()
        let reread = try ManagedObjectContext(coordinator: coordinator).existingObject(with: object.objectID)
        #expect(try reread.value(forKey: "stamp") as? String == "saved:again")
    }

    @Test func prepareForDeletionRunsBeforeDeleteRulesWithRelationshipsIntact() throws {
        let stack = try ManagedTestStack()
        let log = HookLog()
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.log = log
        ada.department = research
        stack.context.delete(ada)
        #expect(log.entries.isEmpty)
        stack.context.processPendingChanges()
        #expect(log.entries == ["prepareForDeletion department=Research"])
        #expect(research.employees.isEmpty)
    }

    @Test func refreshWithoutMergeTurnsIntoAFaultAndDropsChanges() throws {
        let stack = try ManagedTestStack()
        let log = HookLog()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        ada.log = log
        ada.salary = 99
        stack.context.refresh(ada, mergeChanges: false)
        #expect(log.entries == ["willTurnIntoFault", "didTurnIntoFault isFault=true"])
        #expect(ada.isFault)
        #expect(!stack.context.hasChanges)
        #expect(ada.salary == 1)
        #expect(log.entries.last == "awakeFromFetch")
    }

    @Test func refreshWithMergeKeepsUnsavedChangesOverFreshValues() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let other = stack.makeContext()
        let otherAda = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        otherAda.firstName = "Augusta"
        try other.save()
        ada.salary = 50
        stack.context.refresh(ada, mergeChanges: true)
        #expect(ada.firstName == "Augusta")
        #expect(ada.salary == 50)
        #expect(ada.isUpdated)
        try stack.context.save()  // the version was refreshed, so no conflict
    }

    @Test func insertThenDeleteBeforeSavingLeavesNothingBehind() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        try stack.context.save()
        let ada = stack.employee("Ada")
        ada.department = research
        stack.context.delete(ada)
        stack.context.processPendingChanges()
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(!stack.context.registeredObjects.contains(ada))
        #expect(research.employees.isEmpty)
        try stack.context.save()
        let records = try #require(stack.coordinator.persistentStores.first).records(
            of: #require(stack.model.entity(named: "Employee")), includesSubentities: true)
        #expect(records.isEmpty)
    }

    @Test func rollbackDiscardsInsertsDeletesAndUpdates() throws {
        let stack = try ManagedTestStack(undo: true)
        let research = stack.department("Research")
        let ada = stack.employee("Ada", salary: 1)
        ada.department = research
        try stack.context.save()
        ada.salary = 2
        let grace = stack.employee("Grace")
        grace.department = research
        stack.context.delete(ada)
        stack.context.processPendingChanges()
        var salaries: [Double?] = []
        let token = try ada.observe("salary", options: [.new]) { _, change in salaries.append(change.newValue as? Double) }
        stack.context.rollback()
        #expect(!stack.context.hasChanges)
        #expect(ada.salary == 1 && !ada.isDeleted)
        #expect(ada.department === research)
        #expect(research.employees == [ada])
        #expect(grace.managedObjectContext == nil)
        #expect(salaries == [1])
        #expect(stack.context.undoManager?.canUndo == false)
        token.invalidate()
    }

    @Test func resetForgetsEverything() throws {
        let stack = try ManagedTestStack(undo: true)
        let ada = stack.employee("Ada")
        try stack.context.save()
        ada.salary = 5
        let grace = stack.employee("Grace")
        stack.context.reset()
        #expect(stack.context.registeredObjects.isEmpty)
        #expect(!stack.context.hasChanges)
        #expect(ada.managedObjectContext == nil && grace.managedObjectContext == nil)
        let fresh = try #require(try stack.context.existingObject(with: ada.objectID) as? TestEmployee)
        #expect(fresh !== ada)
        #expect(fresh.salary == 1000)
    }

    @Test func uniquingGivesOneObjectPerRecordPerContext() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let other = stack.makeContext()
        let first = other.object(with: ada.objectID), second = try other.existingObject(with: ada.objectID)
        #expect(first === second)
        #expect(first !== ada)
        #expect(stack.context.object(with: ada.objectID) === ada)
    }

    @Test func awakeFromFetchChangesAreNotRecorded() throws {
        final class Counter: ManagedObject {
            @Managed var loads: Int32
            override func awakeFromFetch() { loads += 1 }
        }
        let model = try ManagedObjectModel {
            Entity("Counter", class: Counter.self) { Property("loads", .integer32, transient: true, defaultValue: 0) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = ModelUndoManager(notificationCenter: NotificationCenter())
        let counter = Counter(context: context)
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator)
        other.undoManager = ModelUndoManager(notificationCenter: NotificationCenter())
        let fetched = try #require(try other.existingObject(with: counter.objectID) as? Counter)
        #expect(fetched.loads == 1)
        #expect(!fetched.isUpdated)
        #expect(!other.hasChanges)
        #expect(other.undoManager?.canUndo == false)
    }
}
