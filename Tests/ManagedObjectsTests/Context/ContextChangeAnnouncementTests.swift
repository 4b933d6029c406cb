import Foundation
import Testing
@testable import ManagedObjects

/// What the objects-did-change notification announces after a rollback, and for inserted objects changed later.
@Suite struct ContextChangeAnnouncementTests {
    @Test func rollbackAnnouncesDiscardedInsertionsAsDeleted() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let alan = stack.employee("Alan")
        stack.context.delete(ada)
        stack.context.rollback()
        let last = recorder.notifications.count - 1
        #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: last) == [alan])
        #expect(recorder.objects(ManagedObjectContext.refreshedObjectsKey, at: last) == [ada])
    }

    @Test func rollbackAnnouncesAnInsertedObjectDeletedSinceAsDeleted() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        stack.context.processPendingChanges()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        stack.context.delete(ada)
        stack.context.rollback()
        #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [ada])
    }

    @Test func aChangeToAnInsertedObjectAfterItsInsertionWasAnnouncedIsAnnouncedAsUpdated() throws {
        let stack = try ManagedTestStack()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada")
        stack.context.processPendingChanges()
        ada.lastName = "Byron"
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 2)
        #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [ada])
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0).isEmpty)
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 1) == [ada])
        #expect(stack.context.updatedObjects.isEmpty)  // still an insertion to save
    }
}
