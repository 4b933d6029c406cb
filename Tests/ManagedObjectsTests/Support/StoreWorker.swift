import Foundation
import ManagedObjects
import Testing

/// The `StoreCrashWorker` executable (Sources/StoreCrashWorker), which the process tests run as
/// child processes: save loops killed mid-save, history written by another process, increments
/// racing other processes.
enum StoreWorker {
    /// The worker's model (as Sources/StoreCrashWorker declares it): batches of rows.
    static func model() throws -> ManagedObjectModel {
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
    /// The executable, built next to the test binary (or a few folders up, depending on how the
    /// tests were built); nil when it is not there.
    static var url: URL? {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("StoreCrashWorker")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts the worker with `arguments`, its standard output and error captured.
    static func launch(_ arguments: [String]) throws -> Launched {
        let worker = try #require(url, "StoreCrashWorker must be built next to the tests")
        let process = Process()
        process.executableURL = worker
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return Launched(process: process, output: output, errors: errors)
    }

    /// A running worker.
    struct Launched {
        let process: Process
        let output: Pipe
        let errors: Pipe

        /// Kills the worker at once (SIGKILL), as a crash would.
        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }

        /// Waits for the worker to end; returns its exit status and what it printed.
        func finish() -> (status: Int32, output: String, errors: String) {
            // Read before waiting, so that a worker printing more than a pipe holds does not
            // block on a full pipe while this process waits for it.
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, printed, complaints)
        }
    }
}
