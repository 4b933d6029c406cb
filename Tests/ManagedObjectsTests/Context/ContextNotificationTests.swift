import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextNotificationTests {
    @Test func objectsDidChangeListsInsertedUpdatedAndDeletedSinceTheLastProcessing() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 7
        stack.context.delete(grace)
        let alan = stack.employee("Alan")
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.notifications[0].object as? ManagedObjectContext === stack.context)
        #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [alan])
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [grace])
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
    }

    @Test func saveNotificationsCarryObjectsAndIDs() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        try stack.context.save()
        let willSave = NotificationRecorder(ManagedObjectContext.willSaveNotification, center: stack.center)
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        ada.salary = 7
        stack.context.delete(grace)
        let alan = stack.employee("Alan")
        try stack.context.save()
        #expect(willSave.notifications.count == 1)
        #expect(didSave.notifications.count == 1)
        #expect(didSave.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [alan])
        #expect(didSave.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(didSave.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [grace])
        let info = try #require(didSave.notifications[0].userInfo)
        #expect(info[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID> == [alan.objectID])
        #expect((info[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID>)?.first?.isTemporaryID == false)
        #expect(info[ManagedObjectContext.updatedObjectIDsKey] as? Set<ManagedObjectID> == [ada.objectID])
        #expect(info[ManagedObjectContext.deletedObjectIDsKey] as? Set<ManagedObjectID> == [grace.objectID])
    }

    @Test func aFailedSavePostsNoDidSave() throws {
        let stack = try ManagedTestStack()
        _ = TestDepartment(context: stack.context)
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        #expect(throws: ValidationError.self) { try stack.context.save() }
        #expect(didSave.notifications.isEmpty)
    }

    @Test func savingWithoutAStoreThrows() throws {
        let model = try makeTestModel()
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(managedObjectModel: model))
        let department = TestDepartment(context: context)
        department.name = "Research"
        #expect(throws: PersistenceError.self) { try context.save() }
        #expect(department.isInserted)
    }
}
