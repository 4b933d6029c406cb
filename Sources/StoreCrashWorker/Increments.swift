import Foundation
import ManagedObjects

/// `StoreCrashWorker increment <URL> <updates> <worker>`: adds one to the `number` of a batch
/// `updates` times (batch `(worker + step) % batches` in key order, so that workers overlap),
/// each in its own context and save, saving again from a fresh read whenever the save throws
/// a merge conflict. Prints `committed <n0> <n1> … conflicts <c>`: how many increments it
/// committed to each batch, and how many saves conflicted.
func runIncrements(at location: URL, updates: Int, worker: Int) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try crashTestModel())
    try coordinator.addPersistentStore(type: PersistentStoreType.postgreSQL, at: location)
    let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    let ids = try reader.fetchObjectIDs(FetchRequest<ManagedObject>("Batch")).sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
    guard !ids.isEmpty else {
        FileHandle.standardError.write(Data("StoreCrashWorker: no batch to increment\n".utf8))
        exit(1)
    }
    var committed = [Int](repeating: 0, count: ids.count)
    var conflicts = 0
    for step in 0..<updates {
        let target = (worker + step) % ids.count
        while true {
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let batch = try context.existingObject(with: ids[target])
            let value = try batch.value(forKey: "number")
            let number = (value as? Int64) ?? (value as? Int).map(Int64.init) ?? 0
            try batch.setValue(number + 1, forKey: "number")
            do {
                try context.save()
                break
            } catch PersistenceError.Code.mergeConflict {
                conflicts += 1
            }
        }
        committed[target] += 1
    }
    print("committed " + committed.map(String.init).joined(separator: " ") + " conflicts \(conflicts)")
}
