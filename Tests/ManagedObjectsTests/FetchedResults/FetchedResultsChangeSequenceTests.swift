import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

@Suite struct FetchedResultsChangeSequenceTests {
    @Test func changeSetsMadeBeforeReadingAreKeptInOrder() async throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        var rows = controller.snapshot
        let sequence = controller.changeSets()
        let ada = stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        stack.employee("Alan", "Turing")
        stack.context.processPendingChanges()
        ada.firstName = "Zoe"
        ada.lastName = "Turing"
        stack.context.processPendingChanges()
        var iterator = sequence.makeAsyncIterator()
        for _ in 0..<3 {
            let changes = try #require(try await iterator.next())
            rows = try #require(apply(changes, to: rows))
        }
        #expect(rows == controller.snapshot)
    }

    @Test func theSequenceEndsWhenTheControllerGoesAway() async throws {
        let stack = try ManagedTestStack()
        var controller: FetchedResultsController<TestEmployee>? = try employeeController(stack)
        let sequence = try #require(controller?.changeSets())
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        controller = nil
        var count = 0
        for try await _ in sequence { count += 1 }
        #expect(count == 1)
    }

    @Test func aWaitingReaderGetsTheNextChangeSet() async throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let sequence = controller.changeSets()
        let reader = Task { () -> Int? in
            var iterator = sequence.makeAsyncIterator()
            return try await iterator.next()?.insertedIndexPaths.count
        }
        // Let the reader start waiting, then change.
        try await Task.sleep(for: .milliseconds(20))
        stack.employee("Ada", "Lovelace")
        stack.employee("Alan", "Lovelace")
        stack.context.processPendingChanges()
        #expect(try await reader.value == 2)
    }

    @Test func cancellingTheReadingTaskEndsTheSequence() async throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let sequence = controller.changeSets()
        let reader = Task { () -> Int in
            var count = 0
            for try await _ in sequence { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        #expect(try await reader.value == 0)
        // Ended for good: later change sets are not kept.
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        var iterator = sequence.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(controller.buffers.isEmpty)
    }

    @Test func aReaderCancelledBeforeItStartsGetsNothing() async throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let sequence = controller.changeSets()
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        let reader = Task { () -> FetchedResultsChangeSet? in
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = sequence.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(try await reader.value == nil)
    }

    @Test func aChangeTheControllerCannotFollowIsThrownAfterTheChangeSetsBefore() async throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace", salary: 1)
        stack.employee("Augusta", "Lovelace", salary: 2)
        let alan = stack.employee("Alan", "Turing", salary: 3)
        stack.context.processPendingChanges()
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "lastName")
        try controller.performFetch()
        let sequence = controller.changeSets()
        alan.salary = 4
        stack.context.processPendingChanges()
        alan.salary = 1.5
        stack.context.processPendingChanges()
        var iterator = sequence.makeAsyncIterator()
        #expect(try await iterator.next()?.updatedIndexPaths == [[1, 0]])
        #expect((await #expect(throws: FetchedResultsError.self) { _ = try await iterator.next() })?.code == .trackingFailed)
        #expect(try await iterator.next() == nil)
    }

    @Test func aSequenceNobodyHoldsIsForgotten() throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        _ = controller.changeSets()
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        #expect(controller.buffers.isEmpty)
    }
}
