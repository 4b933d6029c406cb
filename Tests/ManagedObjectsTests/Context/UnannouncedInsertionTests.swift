import Foundation
import Testing
@testable import ManagedObjects

/// What the objects-did-change notification announces for objects changed while their insertion
/// is not yet announced, whichever way they leave the unannounced insertions.
@Suite struct UnannouncedInsertionTests {
    @Test func aNewObjectChangedBeforeItsInsertionIsAnnouncedIsAnnouncedOnlyAsInserted() throws {
        let stack = try ManagedTestStack()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada")
        ada.lastName = "Lovelace"
        ada.salary = 2000
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [ada])
        #expect(recorder.notifications[0].userInfo?[ManagedObjectContext.updatedObjectsKey] == nil)
    }

    @Test func aChangeAfterTheAnnouncementIsAnnouncedAsUpdatedOnceMore() throws {
        let stack = try ManagedTestStack()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada")
        ada.salary = 2000
        stack.context.processPendingChanges()
        ada.salary = 3000
        stack.context.processPendingChanges()
        ada.salary = 4000
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 3)
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 1) == [ada])
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 2) == [ada])
    }

    @Test func aNewObjectChangedThenDeletedBeforeTheAnnouncementIsAnnouncedAsUpdatedAndDeleted() throws {
        let stack = try ManagedTestStack()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada")
        let alan = TestEmployee(context: stack.context)  // never changed
        ada.salary = 2000
        stack.context.delete(ada)
        stack.context.delete(alan)
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0).isEmpty)
        // Only the one changed before its deletion is announced as updated.
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [ada, alan])
    }

    @Test func anInsertionUndoneBeforeTheAnnouncementAnnouncesItsChangesAsUpdates() throws {
        let stack = try ManagedTestStack()
        let undo = ModelUndoManager()
        stack.context.undoManager = undo
        stack.context.processPendingChanges()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada")
        ada.salary = 2000
        stack.context.undoInsertion(of: ada)
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0).isEmpty)
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [ada])
    }

    @Test func objectsLeaveTheUnannouncedInsertionsWithTheirFlagsCleared() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        ada.salary = 2000
        #expect(ada.flags.contains(.insertionUnannounced))
        #expect(ada.flags.contains(.changedWhileInsertionUnannounced))
        stack.context.processPendingChanges()
        #expect(!ada.flags.contains(.insertionUnannounced))
        #expect(!ada.flags.contains(.changedWhileInsertionUnannounced))
        let alan = stack.employee("Alan")
        stack.context.rollback()
        #expect(!alan.flags.contains(.insertionUnannounced))
        let grace = stack.employee("Grace")
        stack.context.reset()
        #expect(!grace.flags.contains(.insertionUnannounced))
    }

    @Test func aSavedInsertionChangedAgainIsAnnouncedAndSavedAsAnUpdate() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        ada.salary = 2000
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 3000
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(stack.context.updatedObjects == [ada])
    }
}
