// A save loop for the crash tests: `StoreCrashWorker <store type> <path or URL>` opens the store
// (a file path, or a postgresql:// URL for the PostgreSQL store) and
// saves batches of rows until it is killed, printing "saved N" after each save returns. The test
// kills it with SIGKILL at a random moment, reopens the store and checks that every batch it
// reported is there, whole, and that no batch is there in part.
//
// `StoreCrashWorker history <path> <count>` opens the SQLite store with persistent history
// tracking and saves `count` batches as author "worker", then exits: the persistent history
// tests read the history while it saves.
//
// `StoreCrashWorker increment <postgresql URL> <updates> <worker>` increments counters that
// other workers increment too, retrying on conflict (see Increments.swift).
//
// `StoreCrashWorker edit <postgresql URL> <key=number,…> <key,…>` updates and deletes batches
// in one save, then exits (see Edits.swift).

import Foundation
import ManagedObjects

/// Runs one mode of the worker and exits: 0 when it succeeds, 1 with the error on standard error.
func finish(_ mode: () throws -> Void) -> Never {
    do {
        try mode()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("StoreCrashWorker: \(error)\n".utf8))
        exit(1)
    }
}

let arguments = CommandLine.arguments
if arguments.count == 5 && arguments[1] == "increment" {
    guard let location = URL(string: arguments[2]), let updates = Int(arguments[3]), let worker = Int(arguments[4]), worker >= 0 else {
        FileHandle.standardError.write(Data("usage: StoreCrashWorker increment <URL> <updates> <worker>\n".utf8))
        exit(2)
    }
    finish { try runIncrements(at: location, updates: updates, worker: worker) }
}
if arguments.count == 5 && arguments[1] == "edit" {
    guard let location = URL(string: arguments[2]), let updates = editUpdates(arguments[3]), let deletions = editDeletions(arguments[4]) else {
        FileHandle.standardError.write(Data("usage: StoreCrashWorker edit <URL> <key=number,…|-> <key,…|->\n".utf8))
        exit(2)
    }
    finish { try runEdit(at: location, updating: updates, deleting: deletions) }
}
let historyMode = arguments.count == 4 && arguments[1] == "history"
guard arguments.count == 3 || historyMode, !historyMode || Int(arguments[3]) != nil else {
    FileHandle.standardError.write(
        Data(
            ("usage: StoreCrashWorker <InMemory|SQLite|Binary|PostgreSQL> <path or URL> | history <path> <count>"
                + " | increment <URL> <updates> <worker> | edit <URL> <key=number,…> <key,…>\n").utf8))
    exit(2)
}

/// The model the crash tests use: batches and their rows.
func crashTestModel() throws -> ManagedObjectModel {
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

/// The payload of a row: its batch and position, padded to 200 bytes.
func crashTestPayload(batch: Int64, position: Int64) -> String {
    let head = "batch \(batch) row \(position) "
    return head + String(repeating: "x", count: max(0, 200 - head.utf8.count))
}

do {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try crashTestModel())
    let location = arguments[2].contains("://") ? URL(string: arguments[2]) : URL(fileURLWithPath: arguments[2])
    try coordinator.addPersistentStore(
        type: historyMode ? .sqlite : PersistentStoreType(rawValue: arguments[1]), at: location,
        options: historyMode ? .persistentHistoryTracking : [])
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    context.transactionAuthor = "worker"
    let existing = try context.count(for: FetchRequest<ManagedObject>("Batch"))
    var number = existing
    let last = historyMode ? existing + (Int(arguments[3]) ?? 0) : Int.max
    while number < last {
        number += 1
        let batch = try context.insertNewObject(forEntityName: "Batch")
        try batch.setValue(number, forKey: "number")
        let rows = try batch.mutableSetValue(forKey: "rows")
        for position in 0..<20 {
            let row = try context.insertNewObject(forEntityName: "Row")
            try row.setValue(position, forKey: "position")
            // Names its batch and position, so a reopened store can check every row's contents.
            try row.setValue(crashTestPayload(batch: Int64(number), position: Int64(position)), forKey: "payload")
            try rows.insert(row)
        }
        try context.save()
        context.reset()
        FileHandle.standardOutput.write(Data("saved \(number)\n".utf8))  // unbuffered
    }
} catch {
    FileHandle.standardError.write(Data("StoreCrashWorker: \(error)\n".utf8))
    exit(1)
}
