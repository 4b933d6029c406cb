import Foundation
import Testing
@testable import ManagedObjects

/// What the objects-did-change notification announces as updated, and the flag that stands for
/// an object's entry in the context's unannounced updates (`UnannouncedUpdates`): set exactly
/// while the object is in them, whichever way it leaves.
@Suite struct UnannouncedUpdateTests {
    /// Whether `object`'s flag and its entry in `context`'s unannounced updates agree, and what
    /// they say.
    private func isUnannounced(_ object: ManagedObject, in context: ManagedObjectContext) -> Bool? {
        let flagged = object.flags.contains(.updateUnannounced)
        return flagged == context.unannouncedUpdated.objects.contains(object) ? flagged : nil
    }

    @Test func aSavedObjectChangedTwiceIsAnnouncedOnceAsUpdated() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 2000
        #expect(isUnannounced(ada, in: stack.context) == true)
        ada.salary = 3000
        #expect(stack.context.unannouncedUpdated.objects.count == 1)
        stack.context.processPendingChanges()
        #expect(recorder.notifications.count == 1)
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(isUnannounced(ada, in: stack.context) == false)
        #expect(ada.salary == 3000)
        #expect(ada.isUpdated)
    }

    @Test func aChangeAfterEachAnnouncementIsAnnouncedAgain() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        for salary in [2000.0, 3000, 4000] {
            ada.salary = salary
            stack.context.processPendingChanges()
        }
        #expect(recorder.notifications.count == 3)
        for index in 0..<3 { #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: index) == [ada]) }
    }

    @Test func aChangeAfterASaveIsAnnouncedAgain() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        ada.salary = 2000
        try stack.context.save()
        #expect(isUnannounced(ada, in: stack.context) == false)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 3000
        #expect(isUnannounced(ada, in: stack.context) == true)
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
    }

    @Test func aChangeAfterARollbackIsAnnouncedAgain() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        ada.salary = 2000
        stack.context.rollback()
        #expect(isUnannounced(ada, in: stack.context) == false)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 3000
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
    }

    @Test func aChangeAfterAResetIsAnnouncedAgain() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        ada.salary = 2000
        stack.context.reset()
        #expect(isUnannounced(ada, in: stack.context) == false)
        let again = try #require(try stack.context.existingObject(with: ada.objectID) as? TestEmployee)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        again.salary = 3000
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [again])
    }

    @Test func anObjectTurnedIntoAFaultKeepsItsWaitingAnnouncement() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        ada.salary = 2000
        stack.context.refresh(ada, mergeChanges: false)
        #expect(ada.isFault)
        #expect(isUnannounced(ada, in: stack.context) == true)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
        #expect(isUnannounced(ada, in: stack.context) == false)
    }

    @Test func theFlagIsClearedWhenTheContextGoesAway() throws {
        var stack: ManagedTestStack? = try ManagedTestStack()
        let ada = try #require(stack?.employee("Ada"))
        try stack?.context.save()
        ada.salary = 2000
        #expect(ada.flags.contains(.updateUnannounced))
        stack = nil
        #expect(ada.managedObjectContext == nil)
        #expect(!ada.flags.contains(.updateUnannounced))
    }

    @Test func aSetWithAnUndoManagerIsUndoneAndAnnounced() throws {
        let stack = try ManagedTestStack()
        let undo = ModelUndoManager()
        stack.context.undoManager = undo
        let ada = stack.employee("Ada")
        ada.salary = 1000
        try stack.context.save()
        ada.salary = 2000
        ada.salary = 3000
        stack.context.processPendingChanges()
        try undo.undo()
        #expect(ada.salary == 1000)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ada.salary = 4000
        stack.context.processPendingChanges()
        #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0) == [ada])
    }
}
