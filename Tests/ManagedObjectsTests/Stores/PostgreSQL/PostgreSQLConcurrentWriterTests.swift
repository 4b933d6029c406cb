import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Several processes updating the same records at once, each retrying the saves that
    /// conflict: optimistic locking loses no update.
    @Suite struct ConcurrentWriterTests {
        @Test func fourProcessesIncrementingOverlappingRecordsWithRetriesLoseNoUpdate() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try StoreWorker.model())
            let store = try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            // Three counters for four workers: every worker's updates overlap another's.
            let counters = 3, workers = 4, updates = 500
            for _ in 0..<counters { try context.insertNewObject(forEntityName: "Batch").setValue(Int64(0), forKey: "number") }
            try context.save()

            let launched = try (0..<workers).map { worker in
                try StoreWorker.launch(["increment", database.url.absoluteString, String(updates), String(worker)])
            }
            var committed = [Int](repeating: 0, count: counters)
            for worker in launched {
                let finished = worker.finish()
                #expect(finished.status == 0, "worker failed: \(finished.errors)")
                // "committed 167 167 166 conflicts 12": the last number counts the retried saves.
                let fields = finished.output.split(whereSeparator: \.isWhitespace)
                let numbers = fields.compactMap { Int($0) }
                try #require(fields.first == "committed" && numbers.count == counters + 1, "worker printed: \(finished.output)")
                for index in 0..<counters { committed[index] += numbers[index] }
            }
            #expect(committed.reduce(0, +) == workers * updates, "every worker committed each of its updates")

            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let batches = try reader.fetch(FetchRequest<ManagedObject>("Batch"))
                .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            let stored = try batches.map { try $0.value(forKey: "number") as? Int64 ?? -1 }
            #expect(stored == committed.map(Int64.init), "each counter holds every increment committed to it")
            #expect(stored.reduce(0, +) == Int64(workers * updates))
            // Each save's version check passed only for one writer of a record at a time.
            let versions = try store.versions(of: batches.map(\.objectID))
            #expect(batches.map { versions[$0.objectID] } == committed.map { Int64($0 + 1) }, "one version per committed save")
        }
    }
}
