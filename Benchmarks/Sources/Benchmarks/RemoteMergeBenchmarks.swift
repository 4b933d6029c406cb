import Foundation
import ManagedObjects
import ModelObjects

/// How long a save in one process takes to show in a context of another process that merges
/// remote changes automatically (`automaticallyMergesChangesFromParent`, kept live by
/// `mergeRemoteChangesUntilCancelled()`), through PostgreSQL's `LISTEN`/`NOTIFY`.
///
/// This process makes a fresh database with one counter record, opens a reader context on it,
/// and starts itself again as the writer (`Benchmarks --remote-merge-writer <URL> <count>`), which
/// sets the counter to 1, 2, … `count`, saving each time, 20 ms apart, and prints the wall-clock
/// time at which each save started. The reader notes the wall-clock time at which each merge
/// posted its objects-did-change notification; the latency is the difference (same machine,
/// same clock).
enum RemoteMergeBenchmarks {
    static let saves = 100
    static let writerFlag = "--remote-merge-writer"

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Counter") {
                Property("value", .integer64)
            }
        }
    }

    /// Wall-clock nanoseconds, comparable between processes on one machine.
    static func wallClock() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The merge times the reader noted, in order.
    // SAFETY: `times` is read and written only inside `lock.withLock`.
    final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Int64] = []
        func add(_ time: Int64) { lock.withLock { times.append(time) } }
        var all: [Int64] { lock.withLock { times } }
    }

    /// The writer side, run in the child process.
    static func runWriter(url: URL, count: Int) -> Int32 {
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            guard let counter = try context.fetch(FetchRequest<ManagedObject>("Counter")).first else { return 1 }
            for value in 1...max(1, count) {
                Thread.sleep(forTimeInterval: 0.02)
                let started = wallClock()
                try counter.setValue(Int64(value), forKey: "value")
                try context.save()
                print("\(value) \(started)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("remote merge writer: \(error)\n".utf8))
            return 1
        }
    }

    static func report() {
        guard let base = ProcessInfo.processInfo.environment["MODELOBJECTS_POSTGRES_URL"], !base.isEmpty,
              let baseURL = URL(string: base)
        else {
            print("## PostgreSQL remote merge latency: skipped (set MODELOBJECTS_POSTGRES_URL to a server's postgresql:// URL)")
            print()
            return
        }
        guard let admin = PostgreSQLBenchmarks.Server(base: baseURL) else { return }
        defer { admin.dropAll() }
        guard let url = admin.createDatabase() else {
            print("## PostgreSQL remote merge latency: could not create a database")
            return
        }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: url)
            let setup = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            try setup.insertNewObject(forEntityName: "Counter").setValue(Int64(0), forKey: "value")
            try setup.save()
        } catch {
            print("## PostgreSQL remote merge latency: setup failed: \(error)")
            return
        }

        let arrivals = Arrivals()
        let listening = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let reader = Task.detached {
            do {
                let center = NotificationCenter()
                let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
                try coordinator.addPersistentStore(type: .postgreSQL, at: url)
                let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
                let counter = try context.fetch(FetchRequest<ManagedObject>("Counter")).first
                let token = center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification, object: nil, queue: nil) { _ in
                    arrivals.add(wallClock())
                }
                context.automaticallyMergesChangesFromParent = true
                listening.signal()
                await context.mergeRemoteChangesUntilCancelled()
                center.removeObserver(token)
                _ = counter
            } catch {
                print("## PostgreSQL remote merge latency: reader failed: \(error)")
                listening.signal()
            }
            finished.signal()
        }
        listening.wait()

        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        writer.arguments = [writerFlag, url.absoluteString, String(saves)]
        let output = Pipe()
        writer.standardOutput = output
        do {
            try writer.run()
        } catch {
            print("## PostgreSQL remote merge latency: could not start the writer: \(error)")
            reader.cancel()
            finished.wait()
            return
        }
        let written = output.fileHandleForReading.readDataToEndOfFile()
        writer.waitUntilExit()
        Thread.sleep(forTimeInterval: 0.5)
        reader.cancel()
        finished.wait()

        let starts = String(decoding: written, as: UTF8.self).split(separator: "\n").compactMap { line -> Int64? in
            let fields = line.split(separator: " ")
            return fields.count == 2 ? Int64(fields[1]) : nil
        }
        let merges = arrivals.all
        guard writer.terminationStatus == 0, starts.count == saves, merges.count == saves else {
            print("## PostgreSQL remote merge latency: \(starts.count) saves and \(merges.count) merges seen (expected \(saves) each)")
            print()
            return
        }
        let latencies = zip(starts, merges).map { Double($0.1 - $0.0) / 1e6 }.sorted()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print("## PostgreSQL remote merge latency")
        print()
        print("| Saves | Median | 90th percentile | Max | Min |")
        print("|--:|--:|--:|--:|--:|")
        print(String(
            format: "| %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms |", saves, percentile(0.5), percentile(0.9),
            latencies.last ?? 0, latencies.first ?? 0))
        print()
    }
}
