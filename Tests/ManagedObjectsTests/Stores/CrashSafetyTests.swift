import Foundation
import Testing
@testable import ManagedObjects

/// A process killed with SIGKILL in the middle of its save loop loses no save that returned and
/// leaves no half-written save.
@Suite(.serialized) struct CrashSafetyTests {
    /// Runs the worker for `delay` seconds, runs `interrupt` (nothing by default), kills it, and
    /// returns the last save number it reported.
    private func runAndKill(
        type: PersistentStoreType, path: String, delay: Double, interrupt: () throws -> Void = {}
    ) throws -> Int {
        let worker = try StoreWorker.launch([type.rawValue, path])
        Thread.sleep(forTimeInterval: delay)
        try interrupt()
        worker.kill()
        let output = worker.finish().output
        let numbers = output.split(separator: "\n").compactMap { line in
            line.hasPrefix("saved ") ? Int(line.dropFirst(6)) : nil
        }
        return numbers.last ?? 0
    }

    @Test(arguments: [PersistentStoreType.binary, .sqlite])
    func killedSaveLoopsLoseNothingAndLeaveNoHalfSave(type: PersistentStoreType) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store").path
        try checkKilledSaveLoops(type: type, path: path, url: URL(fileURLWithPath: path))
    }

    /// Six rounds of running the worker on the store at `path` (its `url` for this process),
    /// interrupting it (`interrupt`, then SIGKILL), and checking every save it reported is there,
    /// whole.
    func checkKilledSaveLoops(type: PersistentStoreType, path: String, url: URL, interrupt: () throws -> Void = {}) throws {
        var acknowledged = 0
        for round in 0..<6 {
            let reported = try runAndKill(
                type: type, path: path, delay: Double.random(in: 0.15...0.6) + Double(round) * 0.05, interrupt: interrupt)
            acknowledged = max(acknowledged, reported)
            let model = try StoreWorker.model()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: type, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let batches = try context.fetch(FetchRequest<ManagedObject>("Batch"))
            let numbers = try batches.compactMap { try $0.value(forKey: "number") as? Int64 }.sorted()
            #expect(numbers.count >= acknowledged, "round \(round): a reported save was lost")
            #expect(numbers.count <= acknowledged + 1, "round \(round): more saves than the worker made")
            #expect(numbers == (0..<Int64(numbers.count)).map { $0 + 1 }, "round \(round): batches missing or repeated")
            for batch in batches {
                let number = try #require(try batch.value(forKey: "number") as? Int64)
                let rows = try #require(try batch.value(forKey: "rows") as? Set<ManagedObject>)
                #expect(rows.count == 20, "round \(round): a half-saved batch")
                let positions = try rows.compactMap { try $0.value(forKey: "position") as? Int64 }.sorted()
                #expect(positions == Array(0..<20), "round \(round): batch \(number) has rows missing or repeated")
                for row in rows {
                    let position = try #require(try row.value(forKey: "position") as? Int64)
                    let head = "batch \(number) row \(position) "
                    let expected = head + String(repeating: "x", count: 200 - head.utf8.count)
                    #expect(try row.value(forKey: "payload") as? String == expected, "round \(round): a damaged row")
                }
            }
            #expect(try context.count(for: FetchRequest<ManagedObject>("Row")) == numbers.count * 20)
            acknowledged = numbers.count
        }
        #expect(acknowledged > 0)
    }
}
