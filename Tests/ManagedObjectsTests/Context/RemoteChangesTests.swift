import Foundation
import Testing

@testable import ManagedObjects

/// Changes written outside the contexts merge into each given context: updated objects are
/// refreshed, deleted ones leave, inserted ones are registered, and each context announces it.
@Suite struct RemoteChangesTests {
    @Test(arguments: BatchModel.storeTypes)
    func mergesIntoEveryContextGiven(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        let second = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: stack.center)
        let copy = try second.existingObject(with: logs[1].objectID)
        // Another coordinator on the same store writes, as another process would.
        let writer = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        try writer.existingObject(with: logs[1].objectID).setValue("remote", forKey: "message")
        writer.delete(try writer.existingObject(with: logs[2].objectID))
        let added = try writer.insertNewObject(forEntityName: "Log")
        try added.setValue("added", forKey: "message")
        try writer.save()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: RemoteChanges(inserted: [added.objectID], updated: [logs[1].objectID], deleted: [logs[2].objectID]),
            into: [stack.context, second])
        #expect(try logs[1].value(forKey: "message") as? String == "remote")
        #expect(try copy.value(forKey: "message") as? String == "remote")
        #expect(stack.context.registeredObject(for: logs[2].objectID) == nil)
        #expect(try stack.context.registeredObject(for: added.objectID)?.value(forKey: "message") as? String == "added")
        #expect(changes.notifications.count == 2, "one per context")
        #expect(changes.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [logs[2]])
        #expect(changes.objects(ManagedObjectContext.refreshedObjectsKey, at: 0) == [logs[1]])
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0).map(\.objectID) == [added.objectID])
        #expect(!stack.context.hasChanges, "registering what others inserted is not a change")
    }

    @Test func takesCoreDataStyleDictionariesOfIDsAndURIs() throws {
        let stack = try BatchModel.Stack(.sqlite)
        let logs = try stack.logs()
        let writer = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        try writer.existingObject(with: logs[0].objectID).setValue("by URI", forKey: "message")
        try writer.save()
        let uris: [Any] = [logs[0].objectID.uriRepresentation(), URL(string: "x-coredata://nowhere/Log/p1") as Any, 42]
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [ManagedObjectContext.updatedObjectsKey: uris, ManagedObjectContext.deletedObjectIDsKey: [logs[5].objectID]],
            into: [stack.context])
        #expect(try logs[0].value(forKey: "message") as? String == "by URI")
        #expect(logs[5].managedObjectContext == nil)
    }
}
