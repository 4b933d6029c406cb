import Foundation
import Testing
@testable import ManagedObjects

/// A child process saves into a SQLite file while this process reads its history: every save
/// arrives once, whole, in order, with its author.
@Suite(.serialized) struct PersistentHistoryProcessTests {
    private static var workerURL: URL? {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("StoreCrashWorker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The worker's model (see Sources/StoreCrashWorker).
    private func workerModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Batch") {
                Property("number", .integer64)
                Property("rows", to: "Row", inverse: "batch", toMany: true, deleteRule: .cascade)
            }
            Entity("Row") {
                Property("position", .integer64)
                Property("payload", .string)
                Property("batch", to: "Batch", inverse: "rows")
            }
        }
    }

    @Test func historyReadWhileAnotherProcessSavesHasEverySaveOnceAndWhole() throws {
        let worker = try #require(Self.workerURL, "StoreCrashWorker must be built next to the tests")
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try workerModel())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: .persistentHistoryTracking)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var token = try coordinator.currentPersistentHistoryToken()
        let saves = 30

        let process = Process()
        process.executableURL = worker
        process.arguments = ["history", url.path, String(saves)]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()

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
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "worker failed: \(stderr)")
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
