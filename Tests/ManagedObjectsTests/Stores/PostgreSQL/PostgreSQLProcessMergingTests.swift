import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Another process (`StoreCrashWorker edit`) updates and deletes, in one save, records that
    /// a context with `automaticallyMergesChangesFromParent` has registered, some fired and
    /// some faults: the context refreshes the updated ones, removes the deleted ones, posts one
    /// objects-did-change notification listing them, and a live controller reports both.
    @Suite struct ProcessMergingTests {
        /// Batches numbered 1 to 4, saved and then fetched by a context that merges remote
        /// changes automatically; batches 2 and 4 turned back into faults.
        struct Fixture {
            let database: TemporaryPostgreSQLDatabase
            let context: ManagedObjectContext
            let center: NotificationCenter
            /// The four batches, in the order of their numbers.
            let batches: [ManagedObject]
            /// The request for the batches by number.
            let request: FetchRequest<ManagedObject>

            init() throws {
                database = try TemporaryPostgreSQLDatabase()
                let coordinator = PersistentStoreCoordinator(managedObjectModel: try StoreWorker.model())
                try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
                let seeding = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                for number in Int64(1)...4 { try seeding.insertNewObject(forEntityName: "Batch").setValue(number, forKey: "number") }
                try seeding.save()

                center = NotificationCenter()
                context = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
                context.automaticallyMergesChangesFromParent = true
                request = FetchRequest<ManagedObject>(entityName: "Batch", sortDescriptors: [KeyPathSortDescriptor(key: "number")])
                batches = try context.fetch(request)
                try #require(try batches.map { try $0.value(forKey: "number") as? Int64 } == [1, 2, 3, 4])
                context.refresh(batches[1], mergeChanges: false)
                context.refresh(batches[3], mergeChanges: false)
                try #require(batches.map(\.isFault) == [false, true, false, true])
                // The refreshes' own notification is posted before the tests record any.
                context.processPendingChanges()
            }

            /// The primary key of batch `index`.
            func key(_ index: Int) throws -> Int64 { try #require(batches[index].objectID.primaryKey) }

            /// Runs the worker: batch 1 numbered 11 and batch 2 numbered 12 (a fired object and
            /// a fault updated), batches 3 and 4 deleted (a fired object and a fault), one save.
            func editInAnotherProcess() throws {
                let worker = try StoreWorker.launch([
                    "edit", database.url.absoluteString, "\(try key(0))=11,\(try key(1))=12", "\(try key(2)),\(try key(3))",
                ])
                let finished = worker.finish()
                try #require(finished.status == 0, "worker failed: \(finished.errors)")
                try #require(finished.output == "saved\n")
            }
        }

        @Test func updatesAndDeletesOfAnotherProcessAreMergedWithExactNotificationSets() throws {
            let fixture = try Fixture()
            let batches = fixture.batches
            let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: fixture.center)
            try fixture.editInAnotherProcess()

            let deadline = Date().addingTimeInterval(20)
            while recorder.notifications.isEmpty && Date() < deadline {
                fixture.context.processPendingChanges()
                if recorder.notifications.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
            }
            // One save, one notification: as Core Data's objects-did-change after a merge, the
            // updated objects (the fault among them) refreshed, the deleted ones deleted.
            try #require(recorder.notifications.count == 1)
            #expect(recorder.objects(ManagedObjectContext.refreshedObjectsKey, at: 0) == [batches[0], batches[1]])
            #expect(recorder.objects(ManagedObjectContext.deletedObjectsKey, at: 0) == [batches[2], batches[3]])
            #expect(recorder.objects(ManagedObjectContext.insertedObjectsKey, at: 0).isEmpty)
            #expect(recorder.objects(ManagedObjectContext.updatedObjectsKey, at: 0).isEmpty)
            let keys = Set((recorder.notifications[0].userInfo ?? [:]).keys.compactMap { $0 as? String })
            #expect(keys == [ManagedObjectContext.refreshedObjectsKey, ManagedObjectContext.deletedObjectsKey])

            // The fired object holds the new value at once; the fault reads it when it fires.
            #expect(!batches[0].isFault)
            #expect(try batches[0].value(forKey: "number") as? Int64 == 11)
            #expect(try batches[1].value(forKey: "number") as? Int64 == 12)
            #expect(!batches[0].hasChanges && !batches[1].hasChanges)
            #expect(!fixture.context.hasChanges)

            // The deleted ones left the context; the fault among them cannot fire.
            #expect(fixture.context.registeredObjects.contains(batches[2]) == false)
            #expect(fixture.context.registeredObjects.contains(batches[3]) == false)
            #expect(batches[3].isFault)
            let error = #expect(throws: PersistenceError.self) { try batches[3].fireFault() }
            #expect(error?.code == .objectNotFound)
            #expect(error?.code.rawValue == 133_000)
            #expect(try fixture.context.fetch(fixture.request) == [batches[0], batches[1]])

            // Merged at the saved versions: the context's own next save does not conflict.
            try batches[0].setValue(Int64(21), forKey: "number")
            try fixture.context.save()
        }

        /// A controller over the batches, kept live by `mergeRemoteChangesUntilCancelled()` on
        /// the main actor, reports the other process's save as one change set.
        @MainActor @Test func aFetchedResultsControllerReportsAnotherProcesssUpdatesAndDeletes() async throws {
            let fixture = try Fixture()
            let batches = fixture.batches
            let controller = try FetchedResultsController(fetchRequest: fixture.request, managedObjectContext: fixture.context)
            try controller.performFetch()
            let log = BatchControllerLog()
            controller.delegate = log
            let context = fixture.context
            let merging = Task { @MainActor in await context.mergeRemoteChangesUntilCancelled() }
            defer { merging.cancel() }

            try fixture.editInAnotherProcess()
            let deadline = Date().addingTimeInterval(20)
            while log.changeSets.isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            try #require(log.changeSets.count == 1)
            #expect(log.changeSets[0].description == "delete [0, 3]\ndelete [0, 2]\nupdate [0, 0] -> [0, 0]\nupdate [0, 1] -> [0, 1]")
            #expect(log.changeSets[0].objectChanges.map(\.objectID) == [3, 2, 0, 1].map { batches[$0].objectID })
            #expect(controller.fetchedObjects == [batches[0], batches[1]])
            #expect(try controller.fetchedObjects?.map { try $0.value(forKey: "number") as? Int64 } == [11, 12])
            #expect(log.failures.isEmpty)
        }
    }
}

/// Records the change sets and failures a controller over batches reports.
private final class BatchControllerLog: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    var changeSets: [FetchedResultsChangeSet] = []
    var failures: [FetchedResultsError] = []

    func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeContentWith changes: FetchedResultsChangeSet) {
        changeSets.append(changes)
    }

    func controller(_ controller: FetchedResultsController<ManagedObject>, didFailWith error: FetchedResultsError) {
        failures.append(error)
    }
}
