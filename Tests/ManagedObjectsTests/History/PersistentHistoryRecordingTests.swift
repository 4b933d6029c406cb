import Foundation
import Testing
@testable import ManagedObjects

/// Every save and batch insert of a store that tracks history becomes one transaction, with the
/// saving context's author and name and the change of each record.
@Suite struct PersistentHistoryRecordingTests {
    @Test(arguments: HistoryStack.Kind.allCases)
    func saveRecordsTransactionWithAuthorContextNameAndInsertedRecords(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let before = Date()
        let note = try stack.insertNote("first")
        let transactions = try stack.history()
        let transaction = try #require(transactions.first)
        #expect(transactions.count == 1)
        #expect(transaction.author == "app")
        #expect(transaction.contextName == "main")
        #expect(transaction.storeIdentifier == stack.store.identifier)
        #expect(transaction.timestamp >= before.addingTimeInterval(-1) && transaction.timestamp <= Date().addingTimeInterval(1))
        #expect(transaction.changes.map(\.changeType) == [.insert])
        #expect(transaction.changes.map(\.changedObjectID) == [note.objectID])
        #expect(transaction.changes[0].updatedProperties == nil)
        #expect(transaction.changes[0].tombstone == nil)
        #expect(transaction.insertedObjectIDs == [note.objectID])
        #expect(transaction.token == (try stack.coordinator.currentPersistentHistoryToken()))
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func updateRecordsTheChangedPropertyNamesOnly(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let note = try stack.insertNote("first", body: "text")
        let folder = try stack.context.insertNewObject(forEntityName: "Folder")
        try folder.setValue("Inbox", forKey: "name")
        try stack.context.save()
        let token = try stack.coordinator.currentPersistentHistoryToken()
        try note.setValue("renamed", forKey: "title")
        try note.setValue("scratch", forKey: "draft")  // transient: not recorded
        try note.setValue(folder, forKey: "folder")
        try stack.context.save()
        let transaction = try #require(try stack.history(after: token).first)
        let updates = Dictionary(uniqueKeysWithValues: transaction.changes.map { ($0.changedObjectID, $0) })
        #expect(transaction.changes.allSatisfy { $0.changeType == .update })
        #expect(updates[note.objectID]?.updatedProperties == ["title", "folder"])
        // The inverse changed too.
        #expect(updates[folder.objectID]?.updatedProperties == ["notes"])
        #expect(transaction.updatedObjectIDs == [note.objectID, folder.objectID])
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func deleteRecordsATombstoneOfThePreservedAttributes(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let uuid = UUID()
        let note = try stack.insertNote("doomed", uuid: uuid, body: "not kept")
        let untitled = try stack.insertNote("untitled")
        try untitled.setValue(nil, forKey: "title")
        try stack.context.save()
        let folder = try stack.context.insertNewObject(forEntityName: "Folder")
        try stack.context.save()
        let token = try stack.coordinator.currentPersistentHistoryToken()
        let ids = (note.objectID, untitled.objectID, folder.objectID)
        stack.context.delete(note)
        stack.context.delete(untitled)
        stack.context.delete(folder)
        try stack.context.save()
        let transaction = try #require(try stack.history(after: token).first)
        let changes = Dictionary(uniqueKeysWithValues: transaction.changes.map { ($0.changedObjectID, $0) })
        #expect(transaction.changes.allSatisfy { $0.changeType == .delete && $0.updatedProperties == nil })
        #expect(changes[ids.0]?.tombstone == ["uuid": .uuid(uuid), "title": .string("doomed")])
        #expect(changes[ids.1]?.tombstone?["title"] == .null)
        // An entity that preserves nothing leaves no tombstone.
        #expect(changes[ids.2]?.tombstone == nil)
        #expect(transaction.deletedObjectIDs == [ids.0, ids.1, ids.2])
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func savesWithNothingToWriteRecordNothing(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        try stack.context.save()
        let note = try stack.context.insertNewObject(forEntityName: "Note")
        stack.context.delete(note)
        try stack.context.save()
        #expect(try stack.history().isEmpty)
        #expect(try stack.coordinator.currentPersistentHistoryToken().transactionNumber == 0)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func batchInsertIsOneTransactionWithTheRelatedRecordsUpdatedThroughTheirInverse(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let folder = try stack.context.insertNewObject(forEntityName: "Folder")
        try stack.context.save()
        let token = try stack.coordinator.currentPersistentHistoryToken()
        stack.context.transactionAuthor = "importer"
        let ids = try stack.context.execute(BatchInsertRequest(
            entityName: "Note", objects: [["title": "a", "folder": folder.objectID], ["title": "b"]]))
        let transactions = try stack.history(after: token)
        let transaction = try #require(transactions.first)
        #expect(transactions.count == 1)
        #expect(transaction.author == "importer")
        #expect(transaction.insertedObjectIDs == Set(ids))
        #expect(transaction.changes.first { $0.changeType == .update }?.changedObjectID == folder.objectID)
        #expect(transaction.changes.first { $0.changeType == .update }?.updatedProperties == ["notes"])
    }

    @Test func aSaveThatFailsRecordsNoTransaction() throws {
        let stack = try HistoryStack(.sqlite, model: try ManagedObjectModel {
            Entity("Reading") { Property("value", .double) }
        })
        let good = try stack.context.insertNewObject(forEntityName: "Reading")
        try good.setValue(1.0, forKey: "value")
        try stack.context.save()
        let bad = try stack.context.insertNewObject(forEntityName: "Reading")
        try bad.setValue(Double.nan, forKey: "value")  // SQLite refuses it after the history rows are written
        expectPersistenceError(.saveFailed) { try stack.context.save() }
        #expect(try stack.history().count == 1)
        #expect(try stack.coordinator.currentPersistentHistoryToken().transactionNumber == 1)
        try bad.setValue(2.0, forKey: "value")
        try stack.context.save()
        // The failed save's number was not used up.
        #expect(try stack.history().map(\.transactionNumber) == [1, 2])
    }

    @Test func aSaveWhoseKeysWereTakenRecordsOnlyItsRetry() throws {
        let stack = try HistoryStack(.sqlite)
        let url = try #require(stack.store.url)
        let first = try #require(stack.store as? SQLiteStore)
        let second = try SQLiteStore(url: url, model: stack.model, options: .persistentHistoryTracking)
        let note = try #require(stack.model.entity(named: "Note"))
        let key = try #require(try first.saveKeys(for: note, count: 1).first)
        _ = try second.newPrimaryKeys(for: note, count: 1)  // another writer takes the key
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(
            objectID: ManagedObjectID(entity: note, storeIdentifier: first.identifier, primaryKey: key), version: 1,
            values: [StoreValue](repeating: .null, count: note.properties.count))]
        #expect(throws: SaveKeysTaken.self) { try first.apply(changes) }
        #expect(try stack.history().isEmpty)
        // Applied again with keys of its own, as the saving context does: one transaction.
        let fresh = try #require(try first.newPrimaryKeys(for: note, count: 1).first)
        changes.inserted[0].objectID = ManagedObjectID(entity: note, storeIdentifier: first.identifier, primaryKey: fresh)
        try first.apply(changes)
        #expect(try stack.history().map(\.insertedObjectIDs) == [[changes.inserted[0].objectID]])
    }

    @Test func aMergeConflictRecordsNoTransaction() throws {
        let stack = try HistoryStack(.sqlite)
        let note = try stack.insertNote("shared")
        let (_, other) = try stack.secondStack()
        let copy = try other.existingObject(with: note.objectID)
        try copy.setValue("theirs", forKey: "title")
        try other.save()
        try note.setValue("mine", forKey: "title")
        expectPersistenceError(.mergeConflict) { try stack.context.save() }
        #expect(try stack.history().map(\.author) == ["app", nil])
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func storesWithoutTrackingRefuseHistoryRequests(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind, options: [])
        try stack.insertNote("untracked")
        let store = try #require(stack.store as? any PersistentHistoryStore)
        #expect(!store.tracksPersistentHistory)
        expectPersistenceError(.unsupportedRequest) { try stack.context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)) }
        expectPersistenceError(.unsupportedRequest) { try stack.context.execute(.deleteHistory(before: Date())) }
        expectPersistenceError(.unsupportedRequest) { try stack.coordinator.currentPersistentHistoryToken() }
    }

    @Test func binaryStoresRefuseHistoryTracking() throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try HistoryTestModel.make())
        expectPersistenceError(.unsupportedRequest) {
            try coordinator.addPersistentStore(type: .binary, at: directory.file("Store.binary"), options: .persistentHistoryTracking)
        }
        // Refused before any connection is made.
        expectPersistenceError(.unsupportedRequest) {
            try coordinator.addPersistentStore(
                type: .postgreSQL, at: URL(string: "postgresql://localhost/history"), options: .persistentHistoryTracking)
        }
        #expect(coordinator.persistentStores.isEmpty)
        try coordinator.addPersistentStore(type: .binary, at: directory.file("Store.binary"))
        // A store that cannot record history at all.
        expectPersistenceError(.unsupportedRequest) { try coordinator.currentPersistentHistoryToken() }
        expectPersistenceError(.unsupportedRequest) { try coordinator.execute(.fetchHistory(after: Date.distantPast)) }
    }

    @Test func historyRequestsWithoutAStoreThrowNoPersistentStore() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try HistoryTestModel.make())
        expectPersistenceError(.noPersistentStore) { try coordinator.currentPersistentHistoryToken() }
        expectPersistenceError(.noPersistentStore) { try coordinator.execute(.fetchHistory(after: Date.distantPast)) }
    }

    @Test func aSQLiteFileKeepsTrackingWhenOpenedWithoutTheOption() throws {
        let stack = try HistoryStack(.sqlite)
        try stack.insertNote("one")
        let (coordinator, context) = try stack.secondStack(options: [])
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        #expect(store.tracksPersistentHistory)
        context.transactionAuthor = "second"
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue("two", forKey: "title")
        try context.save()
        #expect(try stack.history().map(\.author) == ["app", "second"])
    }

    @Test func historyLivesInTablesOfItsOwn() throws {
        let stack = try HistoryStack(.sqlite)
        let note = try stack.insertNote("row", uuid: UUID(uuidString: "00000000-0000-0000-0000-000000000001") ?? UUID())
        stack.context.delete(note)
        try stack.context.save()
        let url = try #require(stack.store.url)
        #expect(try SQLiteProbe.query("SELECT \"Z_PK\", \"ZAUTHOR\", \"ZCONTEXTNAME\" FROM \"ATRANSACTION\" ORDER BY \"Z_PK\"", at: url) == [
            "1|app|main", "2|app|main",
        ])
        #expect(try SQLiteProbe.query(
            "SELECT \"ZTRANSACTIONID\", \"ZCHANGETYPE\", \"ZENTITY\", \"ZENTITYPK\", \"ZCOLUMNS\" FROM \"ACHANGE\" ORDER BY \"Z_PK\"", at: url) == [
            "1|0|Note|1|NULL", "2|2|Note|1|NULL",
        ])
        #expect(try SQLiteProbe.query("SELECT \"ZCHANGEID\", \"ZNAME\", \"ZVALUE\" FROM \"ATOMBSTONE\" ORDER BY \"ZNAME\"", at: url) == [
            "2|title|row", "2|uuid|00000000000000000000000000000001",
        ])
    }
}
