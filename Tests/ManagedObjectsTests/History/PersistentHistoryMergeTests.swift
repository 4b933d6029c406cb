import Foundation
import Testing
@testable import ManagedObjects

/// A second coordinator on the same file (another process, an extension) learns what changed
/// from history and merges it into its context.
@Suite struct PersistentHistoryMergeTests {
    /// The refreshed and deleted objects' IDs of each objects-did-change notification a context posts.
    private struct ChangeLog {
        let recorder: NotificationRecorder

        init(_ context: ManagedObjectContext) {
            recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: context.notificationCenter)
        }

        var refreshed: [Set<ManagedObjectID>] {
            recorder.notifications.indices.map { Set(recorder.objects(ManagedObjectContext.refreshedObjectsKey, at: $0).map(\.objectID)) }
        }

        var deleted: [Set<ManagedObjectID>] {
            recorder.notifications.indices.map { Set(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: $0).map(\.objectID)) }
        }
    }

    @Test func secondCoordinatorFetchesHistoryAfterItsTokenAndMergesIt() throws {
        let writer = try HistoryStack(.sqlite)
        let kept = try writer.insertNote("kept", body: "old")
        let doomed = try writer.insertNote("doomed")
        let (readerCoordinator, reader) = try writer.secondStack()
        var token = try readerCoordinator.currentPersistentHistoryToken()
        let readerKept = try reader.existingObject(with: kept.objectID)
        let readerDoomed = try reader.existingObject(with: doomed.objectID)
        let log = ChangeLog(reader)

        try kept.setValue("new", forKey: "body")
        writer.context.delete(doomed)
        let added = try writer.context.insertNewObject(forEntityName: "Note")
        try added.setValue("added", forKey: "title")
        try writer.context.save()

        let transactions = try reader.execute(.fetchHistory(after: token)).transactions
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.author == "app")
        #expect(transaction.updatedObjectIDs == [kept.objectID])
        #expect(transaction.deletedObjectIDs == [doomed.objectID])
        #expect(transaction.insertedObjectIDs == [added.objectID])
        reader.mergeChanges(from: transaction)
        token = transaction.token

        #expect(try readerKept.value(forKey: "body") as? String == "new")
        #expect(readerDoomed.managedObjectContext == nil)
        #expect(reader.registeredObject(for: doomed.objectID) == nil)
        #expect(log.refreshed == [[kept.objectID]])
        #expect(log.deleted == [[doomed.objectID]])
        #expect(try reader.existingObject(with: added.objectID).value(forKey: "title") as? String == "added")
        // The merged version is the stored one: the reader saves over it without a conflict.
        try readerKept.setValue("reader's", forKey: "body")
        try reader.save()
        #expect(try reader.execute(.fetchHistory(after: token)).transactions.map(\.changes.count) == [1])
    }

    @Test func mergingKeepsTheContextsUnsavedChanges() throws {
        let writer = try HistoryStack(.sqlite)
        let note = try writer.insertNote("title", body: "body")
        let (coordinator, reader) = try writer.secondStack()
        let token = try coordinator.currentPersistentHistoryToken()
        let copy = try reader.existingObject(with: note.objectID)
        try copy.setValue("unsaved title", forKey: "title")
        try note.setValue("saved body", forKey: "body")
        try writer.context.save()
        reader.mergeChanges(from: try reader.execute(.fetchHistory(after: token)).transactions)
        #expect(try copy.value(forKey: "title") as? String == "unsaved title")
        #expect(try copy.value(forKey: "body") as? String == "saved body")
        try reader.save()
    }

    @Test func objectIDNotificationMergesAsCoreDatasDoes() throws {
        let stack = try HistoryStack(.inMemory)
        let note = try stack.insertNote("gone")
        let other = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        let copy = try other.existingObject(with: note.objectID)
        let token = try stack.coordinator.currentPersistentHistoryToken()
        stack.context.delete(note)
        try stack.context.save()
        let transaction = try #require(try stack.history(after: token).first)
        let notification = transaction.objectIDNotification()
        #expect(notification.name == ManagedObjectContext.didSaveNotification)
        #expect(notification.userInfo?[ManagedObjectContext.deletedObjectIDsKey] as? Set<ManagedObjectID> == [note.objectID])
        #expect(notification.userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID> == [])
        other.mergeChanges(fromContextDidSave: notification)
        #expect(copy.managedObjectContext == nil)
    }

    @Test func mergingSeveralTransactionsPostsOneNotification() throws {
        let stack = try HistoryStack(.sqlite)
        let note = try stack.insertNote("a")
        let (coordinator, reader) = try stack.secondStack()
        let token = try coordinator.currentPersistentHistoryToken()
        let copy = try reader.existingObject(with: note.objectID)
        let log = ChangeLog(reader)
        try note.setValue("b", forKey: "title")
        try stack.context.save()
        stack.context.delete(note)
        try stack.context.save()
        let transactions = try reader.execute(.fetchHistory(after: token)).transactions
        #expect(transactions.count == 2)
        reader.mergeChanges(from: transactions)
        #expect(log.deleted == [[note.objectID]])
        #expect(log.refreshed == [[]])
        #expect(copy.managedObjectContext == nil)
    }

    @Test func transactionsDescribeThemselves() throws {
        let stack = try HistoryStack(.inMemory)
        let note = try stack.insertNote("t")
        try note.setValue("u", forKey: "title")
        try stack.context.save()
        let transactions = try stack.history()
        #expect(transactions[0].description.hasPrefix("transaction 1 by app (main) at "))
        #expect(transactions[0].description.hasSuffix(": 1 change"))
        #expect(transactions[1].changes[0].description == "update Note p\(note.objectID.primaryKey ?? 0) (title)")
        #expect(PersistentHistoryChangeType.delete.description == "delete")
    }
}
