import Foundation
import ManagedObjects
import ModelObjects
import SampleModels

/// Several processes saving into one PostgreSQL database at once: saves per second with 1, 2
/// and 4 writer processes, on disjoint records (each writer its own) and on overlapping ones
/// (every writer the same few), and the merge conflicts per second the overlap costs.
///
/// The writers are this executable launched again (`Benchmarks --postgres-writer …`): each
/// opens its own coordinator and store, waits for a common start time, then for a fixed time
/// changes one employee's salary per save, in a fresh context each save, saving again after
/// a merge conflict, and prints what it did.
enum PostgreSQLWriterBenchmarks {
    /// The first argument that makes the executable a writer.
    static let writerFlag = "--postgres-writer"
    /// Seconds each configuration runs.
    static let duration = 3.0
    /// The employees the writers share when they overlap.
    static let overlapping = 8
    /// The employees each writer has when they do not.
    static let perWriter = 200

    /// What one configuration measured.
    struct Figures {
        var saves = 0
        var conflicts = 0
        var seconds = 0.0
    }

    /// Fills the empty database `url` with 800 employees, runs every configuration on it and
    /// prints the table.
    static func report(database url: URL, model: ManagedObjectModel) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(type: .postgreSQL, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            fillEmployees(context, count: 4 * perWriter)
            try context.save()
        } catch {
            print("multi-writer setup failed: \(error)")
            return
        }
        print("| Writer processes | Records | Saves/s (all writers) | Saves/s per writer | Conflicts/s | Conflicts per save |")
        print("|--:|:--|--:|--:|--:|--:|")
        for overlap in [false, true] {
            for writers in [1, 2, 4] {
                guard let figures = run(url: url, writers: writers, overlap: overlap) else { continue }
                let savesPerSecond = Double(figures.saves) / figures.seconds
                let conflictsPerSecond = Double(figures.conflicts) / figures.seconds
                let records = overlap ? "overlapping (\(overlapping) shared)" : "disjoint (\(perWriter) each)"
                print("| \(writers) | \(records) | \(String(format: "%.0f", savesPerSecond)) | "
                    + "\(String(format: "%.0f", savesPerSecond / Double(writers))) | \(String(format: "%.1f", conflictsPerSecond)) | "
                    + "\(String(format: "%.3f", Double(figures.conflicts) / Double(max(figures.saves, 1)))) |")
            }
        }
        print()
        print("Each writer: its own process, coordinator and connection; per save a fresh context, `existingObject(with:)`, "
            + "`salary += 1`, `save()` (one transaction: versions locked with `SELECT … FOR UPDATE`, the UPDATE, the change `NOTIFY`); "
            + "a save throwing `mergeConflict` is counted and done again from a fresh read. Disjoint: writer w updates its own "
            + "\(perWriter) employees in turn; overlapping: every writer updates the same \(overlapping), starting at a different one. "
            + "\(Int(duration)) s per configuration, all writers started at one time.")
        print()
    }

    /// Launches `writers` writer processes and sums what they report.
    private static func run(url: URL, writers: Int, overlap: Bool) -> Figures? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // Time to start the processes and open their stores before the common start.
        let start = Date().timeIntervalSince1970 + 2.0
        var launched: [(Process, Pipe)] = []
        for writer in 0..<writers {
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                writerFlag, url.absoluteString, String(writer), overlap ? "overlap" : "disjoint", String(start), String(duration),
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            do {
                try process.run()
            } catch {
                print("cannot launch a writer: \(error)")
                return nil
            }
            launched.append((process, pipe))
        }
        var figures = Figures(seconds: duration)
        for (process, pipe) in launched {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            // "saves 1234 conflicts 56"
            let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            guard process.terminationStatus == 0, numbers.count == 2 else {
                print("a writer failed: \(output)")
                return nil
            }
            figures.saves += numbers[0]
            figures.conflicts += numbers[1]
        }
        return figures
    }

    /// The writer process: `--postgres-writer <URL> <writer> <overlap|disjoint> <start> <seconds>`.
    /// Prints `saves <n> conflicts <c>`; exits with 1 on any other error.
    static func runWriter(_ arguments: [String]) -> Never {
        guard arguments.count == 5, let url = URL(string: arguments[0]), let writer = Int(arguments[1]),
              let start = Double(arguments[3]), let seconds = Double(arguments[4])
        else {
            FileHandle.standardError.write(Data("usage: Benchmarks \(writerFlag) <URL> <writer> <overlap|disjoint> <start> <seconds>\n".utf8))
            exit(2)
        }
        let overlap = arguments[2] == "overlap"
        do {
            let model = try SampleModel.makeModel()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .postgreSQL, at: url)
            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let all = try reader.fetchObjectIDs(FetchRequest<ManagedEmployee>(entityName: "Employee"))
                .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
            let mine = overlap ? Array(all.prefix(overlapping)) : Array(all.dropFirst(writer * perWriter).prefix(perWriter))
            guard !mine.isEmpty else {
                FileHandle.standardError.write(Data("writer \(writer): no employees to update\n".utf8))
                exit(1)
            }
            let wait = start - Date().timeIntervalSince1970
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            let end = start + seconds
            var saves = 0, conflicts = 0, step = writer
            while Date().timeIntervalSince1970 < end {
                let id = mine[step % mine.count]
                step += 1
                while true {
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    guard let employee = try context.existingObject(with: id) as? ManagedEmployee else {
                        FileHandle.standardError.write(Data("writer \(writer): \(id) is not an employee\n".utf8))
                        exit(1)
                    }
                    employee.salary += 1
                    do {
                        try context.save()
                        break
                    } catch PersistenceError.Code.mergeConflict {
                        conflicts += 1
                    }
                }
                saves += 1
            }
            print("saves \(saves) conflicts \(conflicts)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("writer failed: \(error)\n".utf8))
            exit(1)
        }
    }
}
