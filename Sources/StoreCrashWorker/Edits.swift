import Foundation
import ManagedObjects

/// `StoreCrashWorker edit <URL> <updates> <deletions>`: in one save, sets the `number` of the
/// batches `updates` lists (`key=number,key=number`, by primary key) and deletes the batches
/// `deletions` lists (`key,key`); either list may be `-`, none. Prints `saved` once the save
/// returned. The remote-merge tests watch another process's context merge that save.
func runEdit(at location: URL, updating updates: [Int64: Int64], deleting deletions: Set<Int64>) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try crashTestModel())
    try coordinator.addPersistentStore(type: PersistentStoreType.postgreSQL, at: location)
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    let batches = try context.fetch(FetchRequest<ManagedObject>("Batch"))
    let missing = Set(updates.keys).union(deletions).subtracting(batches.compactMap(\.objectID.primaryKey))
    guard missing.isEmpty else {
        FileHandle.standardError.write(Data("StoreCrashWorker: no batch with key \(missing.sorted())\n".utf8))
        exit(1)
    }
    for batch in batches {
        guard let key = batch.objectID.primaryKey else { continue }
        if let number = updates[key] { try batch.setValue(number, forKey: "number") }
        if deletions.contains(key) { context.delete(batch) }
    }
    try context.save()
    FileHandle.standardOutput.write(Data("saved\n".utf8))
}

/// The updates `argument` lists (`key=number,…`, or `-` for none); nil when one is malformed.
func editUpdates(_ argument: String) -> [Int64: Int64]? {
    guard argument != "-" else { return [:] }
    var updates: [Int64: Int64] = [:]
    for field in argument.split(separator: ",") {
        let parts = field.split(separator: "=")
        guard parts.count == 2, let key = Int64(parts[0]), let number = Int64(parts[1]) else { return nil }
        updates[key] = number
    }
    return updates
}

/// The keys `argument` lists (`key,…`, or `-` for none); nil when one is not an integer.
func editDeletions(_ argument: String) -> Set<Int64>? {
    guard argument != "-" else { return [] }
    var keys = Set<Int64>()
    for field in argument.split(separator: ",") {
        guard let key = Int64(field) else { return nil }
        keys.insert(key)
    }
    return keys
}
