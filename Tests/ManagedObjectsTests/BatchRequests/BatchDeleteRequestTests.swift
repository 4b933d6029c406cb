import Foundation
import Testing

@testable import ManagedObjects

/// Batch deletes remove records straight from the store, all or nothing, applying the delete
/// rules as Core Data does for batch deletes: cascade and nullify through the store, deny
/// refuses.
@Suite struct BatchDeleteRequestTests {
    @Test(arguments: BatchModel.storeTypes)
    func deletesTheMatchingRecords(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        var request = BatchDeleteRequest(entityName: "Log", predicate: try KeyValuePredicate(format: "level < 4"))
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(Set(result.objectIDs ?? []) == Set(logs[..<4].map(\.objectID)))
        #expect(try stack.stored("Log", "level") == ["4", "5", "6", "7", "8", "9"])
        var fetch = FetchRequest<ManagedObject>(entityName: "Log")
        fetch.predicate = try KeyValuePredicate(format: "level == 9")
        var byFetch = BatchDeleteRequest(fetchRequest: fetch)
        byFetch.resultType = .count
        #expect(try stack.context.execute(byFetch).count == 1)
        #expect(try stack.context.execute(BatchDeleteRequest(objectIDs: [logs[4].objectID, logs[0].objectID])).objectIDs == nil)
        #expect(try stack.stored("Log", "level") == ["5", "6", "7", "8"])
    }

    @Test func sqlDeletesARelationshipFreeEntityInOneStatement() throws {
        let stack = try BatchModel.Stack(.sqlite)
        try stack.logs()
        let store = try #require(stack.sqliteStore)
        let sql = try store.recordingSQL { try stack.context.execute(BatchDeleteRequest(entityName: "Log")) }
        #expect(sql.filter { $0.hasPrefix("DELETE") } == ["DELETE FROM \"ZLOG\""], "\(sql)")
        #expect(try stack.stored("Log", "level").isEmpty)
    }

    @Test(arguments: BatchModel.storeTypes)
    func cascadeAndNullifyRulesApplyThroughTheStore(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let folder = try stack.insert("Folder", ["name": "Inbox"])
        let kept = try stack.insert("Folder", ["name": "Kept"])
        let tag = try stack.insert("Tag", ["label": "red"])
        let notes = try (0..<3).map { try stack.insert("Note", ["title": "n\($0)", "folder": folder, "tags": Set([tag])]) }
        let other = try stack.insert("Note", ["title": "other", "folder": kept, "tags": Set([tag])])
        try stack.context.save()
        var request = BatchDeleteRequest(entityName: "Folder", predicate: try KeyValuePredicate(format: "name == 'Inbox'"))
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(Set(result.objectIDs ?? []) == Set([folder.objectID] + notes.map(\.objectID)), "the notes cascaded")
        #expect(try stack.stored("Note", "title") == ["other"])
        stack.reader.reset()
        let storedTag = try stack.reader.existingObject(with: tag.objectID)
        #expect(ManagedObject.objects(inCollection: try storedTag.value(forKey: "notes")).map(\.objectID) == [other.objectID], "nullified")
        // The tag's version rose: the context's older copy conflicts.
        try tag.setValue("blue", forKey: "label")
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .mergeConflict)
    }

    @Test(arguments: BatchModel.storeTypes)
    func nullifyEmptiesTheInverseToOne(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let folder = try stack.insert("Folder", ["name": "F"])
        let note = try stack.insert("Note", ["title": "n", "folder": folder])
        try stack.context.save()
        try stack.context.execute(BatchDeleteRequest(objectIDs: [note.objectID]))
        stack.reader.reset()
        let stored = try stack.reader.existingObject(with: folder.objectID)
        #expect(ManagedObject.objects(inCollection: try stored.value(forKey: "notes")).isEmpty)
    }

    @Test(arguments: BatchModel.storeTypes)
    func denyRefusesTheWholeDelete(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let vault = try stack.insert("Vault", ["name": "V"])
        let empty = try stack.insert("Vault", ["name": "E"])
        let item = try stack.insert("Item", ["name": "gold", "vault": vault])
        try stack.context.save()
        let error = #expect(throws: ValidationError.self) { try stack.context.execute(BatchDeleteRequest(entityName: "Vault")) }
        #expect(error?.code == .relationshipDeniedDelete)
        #expect(error?.key == "items")
        #expect(try stack.stored("Vault", "name") == ["E", "V"], "nothing was deleted")
        // Deleting what it holds in the same request is allowed.
        try stack.context.execute(BatchDeleteRequest(objectIDs: [vault.objectID, item.objectID, empty.objectID]))
        #expect(try stack.stored("Vault", "name").isEmpty && stack.stored("Item", "name").isEmpty)
    }

    @Test(arguments: BatchModel.storeTypes)
    func mergingTheResultRemovesRegisteredObjects(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        var request = BatchDeleteRequest(entityName: "Log", predicate: try KeyValuePredicate(format: "level > 7"))
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(stack.context.registeredObject(for: logs[9].objectID) === logs[9], "bypassed until merged")
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: RemoteChanges(deleted: result.objectIDs ?? []), into: [stack.context])
        #expect(stack.context.registeredObject(for: logs[9].objectID) == nil)
        #expect(logs[9].managedObjectContext == nil)
        #expect(changes.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [logs[8], logs[9]])
    }

    @Test(arguments: BatchModel.storeTypes)
    func badRequestsDeleteNothing(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        #expect((#expect(throws: ModelError.self) { try stack.context.execute(BatchDeleteRequest(entityName: "Nothing")) })?.code == .unknownEntity)
        let unsaved = try stack.insert("Log", ["message": "new"])
        let error = #expect(throws: PersistenceError.self) {
            try stack.context.execute(BatchDeleteRequest(objectIDs: [logs[0].objectID, unsaved.objectID]))
        }
        #expect(error?.code == .objectNotFound)
        #expect(try stack.stored("Log", "level").count == 10)
    }

    @Test(arguments: BatchModel.storeTypes)
    func nullifyingDeletesByPredicateKeepRelatedRecordsRight(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let folder = try stack.insert("Folder", ["name": "F"])
        let tag = try stack.insert("Tag", ["label": "red"])
        let notes = try (0..<4).map { try stack.insert("Note", ["title": "n\($0)", "folder": folder, "tags": Set([tag])]) }
        try stack.context.save()
        var request = BatchDeleteRequest(entityName: "Note", predicate: try KeyValuePredicate(format: "title IN %@", ["n0", "n1", "n2"]))
        request.resultType = .objectIDs
        var deleted: [ManagedObjectID] = []
        if let store = stack.sqliteStore {
            let sql = try store.recordingSQL { deleted = try stack.context.execute(request).objectIDs ?? [] }
            #expect(sql.filter { $0.hasPrefix("DELETE FROM \"ZNOTE\"") }.count == 1, "one DELETE, not one per record: \(sql)")
        } else {
            deleted = try stack.context.execute(request).objectIDs ?? []
        }
        #expect(Set(deleted) == Set(notes[..<3].map(\.objectID)))
        stack.reader.reset()
        let storedFolder = try stack.reader.existingObject(with: folder.objectID)
        let storedTag = try stack.reader.existingObject(with: tag.objectID)
        #expect(ManagedObject.objects(inCollection: try storedFolder.value(forKey: "notes")).map(\.objectID) == [notes[3].objectID])
        #expect(ManagedObject.objects(inCollection: try storedTag.value(forKey: "notes")).map(\.objectID) == [notes[3].objectID])
        // Both related records got a new version.
        try folder.setValue("G", forKey: "name")
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .mergeConflict)
        stack.context.rollback()
        try tag.setValue("blue", forKey: "label")
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .mergeConflict)
    }

    @Test(arguments: BatchModel.storeTypes)
    func deletingTheOneSideNullifiesTheRelatedRecordsKeys(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let shelf = try stack.insert("Shelf", ["name": "S"])
        let books = try (0..<3).map { try stack.insert("Book", ["title": "b\($0)", "shelf": shelf]) }
        try stack.context.save()
        let sibling = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        let faults = try sibling.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
        var request = BatchDeleteRequest(entityName: "Shelf")
        request.resultType = .objectIDs
        #expect(try stack.context.execute(request).objectIDs == [shelf.objectID])
        #expect(try faults.allSatisfy { try $0.value(forKey: "shelf") == nil }, "the books' rows are read again")
        #expect(try stack.stored("Book", "title") == ["b0", "b1", "b2"])
        try books[0].setValue("changed", forKey: "title")
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .mergeConflict)
    }
}
