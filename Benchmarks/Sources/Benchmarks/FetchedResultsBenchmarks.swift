import Foundation
import ManagedObjects
import ModelObjects
import SampleModels

/// A fetched-results controller over 10,000 employees in 26 sections (in-memory store): the
/// time of one `processPendingChanges()` that brings 100 changes (25 inserts, 25 deletes, 25
/// moves between sections, 25 in-place updates, some in and out of the predicate) into the
/// controller's results and reports the diff, against a 60 Hz frame (16.7 ms) and against
/// fetching the results again.
enum FetchedResultsBenchmarks {
    /// Counts what the delegate hears, so the reporting is part of the time.
    final class Counter: FetchedResultsControllerDelegate {
        var changes = 0
        func controller(_ controller: FetchedResultsController<ManagedEmployee>, didChangeContentWith changes: FetchedResultsChangeSet) {
            self.changes += changes.objectChanges.count
        }
    }

    static func report(runs: Int = 21) {
        let count = 10_000
        let letters = (65..<91).map { String(UnicodeScalar(UInt8($0))) }
        do {
            let model = try SampleModel.makeModel()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var random = SystemRandomNumberGenerator()
            var nextID: Int64 = 0
            func insert() {
                let employee = ManagedEmployee(context: context)
                employee.firstName = "First\(nextID)"
                employee.lastName = letters[Int(nextID) % letters.count]
                employee.employeeID = nextID
                employee.salary = Double(40_000 + Int(nextID) % 997)
                nextID += 1
            }
            for _ in 0..<count { insert() }
            try context.save()
            var request = FetchRequest<ManagedEmployee>(entityName: "Employee")
            request.predicate = try KeyValuePredicate(format: "salary >= 40010")
            request.sortDescriptors = [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "employeeID")]
            let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "lastName")
            let counter = Counter()
            controller.delegate = counter
            let fetchStart = now()
            try controller.performFetch()
            let fetchTime = Double(now() - fetchStart)
            let results = controller.fetchedObjects?.count ?? 0

            var times: [Double] = []
            for _ in 0..<runs {
                let employees = controller.fetchedObjects ?? []
                var picked = Set<ObjectIdentifier>()
                func pick() -> ManagedEmployee? {
                    for _ in 0..<10 {
                        guard let employee = employees.randomElement(using: &random) else { return nil }
                        if picked.insert(ObjectIdentifier(employee)).inserted { return employee }
                    }
                    return nil
                }
                for _ in 0..<25 { insert() }
                for _ in 0..<25 { if let employee = pick() { context.delete(employee) } }
                for _ in 0..<25 { pick()?.lastName = letters.randomElement(using: &random) ?? "A" }
                for index in 0..<25 { pick()?.salary = index % 5 == 0 ? 40_000 : Double(41_000 + index) }
                let start = now()
                context.processPendingChanges()
                times.append(Double(now() - start))
            }
            let refetchStart = now()
            try controller.performFetch()
            let refetchTime = Double(now() - refetchStart)
            times.sort()
            let best = times[0], median = times[times.count / 2]
            let frame = 16_666_667.0
            print("## Live fetched results (in-memory store)")
            print()
            print("\(results) results in 26 sections; each run changes 100 objects (25 inserted, 25 deleted, 25 moved between sections, 25 updated, some in or out of the predicate) and times one `processPendingChanges()`; \(runs) runs; \(counter.changes) object changes reported in all.")
            print()
            print("| Operation | Best | Median | Share of a 16.7 ms frame (median) |")
            print("|:--|--:|--:|--:|")
            print("| 100 changes processed and reported | \(formatDuration(best)) | \(formatDuration(median)) | \(String(format: "%.1f%%", median / frame * 100)) |")
            print("| performFetch() (first fetch, faults fire) | \(formatDuration(fetchTime)) | | \(String(format: "%.0f%%", fetchTime / frame * 100)) |")
            print("| performFetch() again (objects loaded) | \(formatDuration(refetchTime)) | | \(String(format: "%.0f%%", refetchTime / frame * 100)) |")
            print()
        } catch {
            print("fetched results benchmark failed: \(error)")
        }
    }
}
