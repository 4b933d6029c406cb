import Foundation
import Testing
@testable import ManagedObjects

/// A child process saves into a SQLite file while this process reads its history: every save
/// arrives once, whole, in order, with its author.
@Suite(.serialized) struct PersistentHistoryProcessTests {

    @Test func historyReadWhileAnotherProcessSavesHasEverySaveOnceAndWhole() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try StoreWorker.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: .persistentHistoryTracking)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var token = try coordinator.currentPersistentHistoryToken()
        let saves = 30

        let worker = try StoreWorker.launch(["history", url.path, String(saves)])

        var transactions: [PersistentHistoryTransaction] = []
        var reads = 0
        let deadline = Date().addingTimeInterval(60)
        while transactions.count < saves && Date() < deadline {
            let fetched = try context.execute(.fetchHistory(after: token)).transactions
            reads += 1
            if let last = fetched.last { token = last.token }
            transactions += fetched
            context.mergeChanges(from: fetched)
            if fetched.isEmpty { Thread.sleep(forTimeInterval: 0.005) }
        }
        let finished = worker.finish()
        #expect(finished.status == 0, "worker failed: \(finished.errors)")
        transactions += try context.execute(.fetchHistory(after: token)).transactions

        #expect(transactions.count == saves)
        #expect(transactions.map(\.transactionNumber) == (1...Int64(saves)).map { $0 })
        #expect(transactions.allSatisfy { $0.author == "worker" })
        for transaction in transactions {
            // One batch and its 20 rows, all inserted by one save.
            #expect(transaction.changes.count == 21)
            #expect(transaction.changes.allSatisfy { $0.changeType == .insert })
            #expect(transaction.changes.filter { $0.changedObjectID.entity.name == "Batch" }.count == 1)
        }
        let inserted = Set(transactions.flatMap(\.insertedObjectIDs))
        #expect(inserted.count == saves * 21)
        // Every record history names is there to read.
        let batches = try context.fetch(FetchRequest<ManagedObject>("Batch"))
        #expect(Set(batches.map(\.objectID)) == Set(inserted.filter { $0.entity.name == "Batch" }))
        #expect(reads > 1)
    }
}
