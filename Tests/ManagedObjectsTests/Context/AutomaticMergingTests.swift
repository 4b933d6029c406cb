import Foundation
import Testing
@testable import ManagedObjects

/// `automaticallyMergesChangesFromParent` where there is nothing remote to listen to (the
/// PostgreSQL suites cover the merging itself).
@Suite struct AutomaticMergingTests {
    private func inMemoryContext() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    @Test func aChildContextDoesNotListen() throws {
        let parent = try inMemoryContext()
        let child = ManagedObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        #expect(!child.automaticallyMergesChangesFromParent)
    }

    /// With no PostgreSQL store there is nothing to merge: the flag holds, processing pending
    /// changes posts nothing remote, and awaiting merges ends when the flag is turned off.
    @MainActor @Test func aContextWithoutAPostgreSQLStoreMergesNothing() async throws {
        let context = try inMemoryContext()
        context.automaticallyMergesChangesFromParent = true
        #expect(context.automaticallyMergesChangesFromParent)
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: context.notificationCenter)
        context.processPendingChanges()
        #expect(recorder.notifications.isEmpty)
        let merging = Task { @MainActor in await context.mergeRemoteChangesUntilCancelled() }
        try await Task.sleep(for: .milliseconds(20))
        context.automaticallyMergesChangesFromParent = false
        await merging.value
        #expect(recorder.notifications.isEmpty)
    }
}
