import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// Batch updates and deletes are recorded in persistent history as one transaction each, whether
/// the store runs them in SQL or through records.
@Suite struct PersistentHistoryBatchRequestTests {
    private func tags(_ stack: HistoryStack, _ labels: [String]) throws -> [ManagedObjectID] {
        let tags = try labels.map { label in
            let tag = try stack.context.insertNewObject(forEntityName: "Tag")
            try tag.setValue(label, forKey: "label")
            return tag
        }
        try stack.context.save()
        return tags.map(\.objectID)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func batchUpdateIsOneTransactionNamingTheUpdatedAttributes(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let ids = try tags(stack, ["a", "b", "c"])
        let token = try stack.coordinator.currentPersistentHistoryToken()
        stack.context.transactionAuthor = "janitor"
        try stack.context.execute(BatchUpdateRequest(
            entityName: "Tag", predicate: try KeyValuePredicate(format: "label != 'c'"), propertiesToUpdate: ["uses": 1]))
        let transactions = try stack.history(after: token)
        #expect(transactions.count == 1)
        #expect(transactions.first?.author == "janitor")
        #expect(transactions.first?.contextName == "main")
        #expect(transactions.first?.updatedObjectIDs == [ids[0], ids[1]])
        #expect(transactions.first?.changes.allSatisfy { $0.updatedProperties == ["uses"] } == true)
    }

    @Test(arguments: HistoryStack.Kind.allCases)
    func batchDeleteByPredicateRecordsTombstones(kind: HistoryStack.Kind) throws {
        let stack = try HistoryStack(kind)
        let ids = try tags(stack, ["keep", "drop"])
        let token = try stack.coordinator.currentPersistentHistoryToken()
        try stack.context.execute(BatchDeleteRequest(entityName: "Tag", predicate: try KeyValuePredicate(format: "label == 'drop'")))
        let transaction = try #require(try stack.history(after: token).first)
        #expect(transaction.deletedObjectIDs == [ids[1]])
        #expect(transaction.changes.first?.tombstone == ["label": .string("drop")])
        // Nothing matched: nothing recorded.
        try stack.context.execute(BatchDeleteRequest(entityName: "Tag", predicate: try KeyValuePredicate(format: "label == 'none'")))
        #expect(try stack.history(after: transaction.token).isEmpty)
    }

    @Test(arguments: HistoryStack.Kind.allCases, [false, true])
    func batchDeleteRecordsTheInversesItNullifies(kind: HistoryStack.Kind, byPredicate: Bool) throws {
        let stack = try HistoryStack(kind)
        let note = try stack.insertNote("filed")
        let folder = try stack.context.insertNewObject(forEntityName: "Folder")
        try note.setValue(folder, forKey: "folder")
        try stack.context.save()
        let token = try stack.coordinator.currentPersistentHistoryToken()
        // By predicate the SQLite store nullifies in SQL; by IDs the context goes record by record.
        try stack.context.execute(
            byPredicate
                ? BatchDeleteRequest(entityName: "Note", predicate: try KeyValuePredicate(format: "title == 'filed'"))
                : BatchDeleteRequest(objectIDs: [note.objectID]))
        let transaction = try #require(try stack.history(after: token).first)
        #expect(transaction.deletedObjectIDs == [note.objectID])
        #expect(transaction.changes.first { $0.changeType == .delete }?.tombstone?["title"] == .string("filed"))
        #expect(transaction.changes.first { $0.changeType == .update }?.changedObjectID == folder.objectID)
        #expect(transaction.changes.first { $0.changeType == .update }?.updatedProperties == ["notes"])
    }
}
