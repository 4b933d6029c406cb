import Foundation
import Testing
@testable import ManagedObjects

// A sequence that fails to end would hang its test: the limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct ContextAsyncNotificationTests {
    @Test func objectChangesYieldTheIDsOfEachProcessing() async throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        try stack.context.save()
        let changes = stack.context.objectChanges()
        ada.salary = 7
        stack.context.delete(grace)
        let alan = stack.employee("Alan")
        stack.context.processPendingChanges()
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == ContextChanges(
            insertedObjectIDs: [alan.objectID], updatedObjectIDs: [ada.objectID], deletedObjectIDs: [grace.objectID]))
    }

    @Test func savesYieldPermanentIDs() async throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        let saves = stack.context.saves()
        try stack.context.save()
        ada.salary = 9
        try stack.context.save()
        var iterator = saves.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        #expect(first?.insertedObjectIDs == [ada.objectID])
        #expect(first?.insertedObjectIDs.first?.isTemporaryID == false)
        #expect(second == ContextChanges(updatedObjectIDs: [ada.objectID]))
    }

    @Test func notificationsOfAnotherContextAreNotYielded() async throws {
        let stack = try ManagedTestStack()
        let other = stack.makeContext()
        let saves = stack.context.saves(bufferingPolicy: .unbounded)
        _ = stack.employee("Grace", in: other)
        try other.save()
        let ada = stack.employee("Ada")
        try stack.context.save()
        var iterator = saves.makeAsyncIterator()
        #expect(await iterator.next()?.insertedObjectIDs == [ada.objectID])
    }

    @Test func aConsumerOnAnotherTaskReceivesThem() async throws {
        let stack = try ManagedTestStack()
        let saves = stack.context.saves()
        let consumer = Task {
            for await saved in saves { return saved.insertedObjectIDs.count }
            return -1
        }
        _ = stack.employee("Ada")
        _ = stack.employee("Grace")
        try stack.context.save()
        #expect(await consumer.value == 2)
    }

    @Test func cancellingTheConsumerStopsListening() async throws {
        let stack = try ManagedTestStack()
        let saves = stack.context.saves()
        let consumer = Task {
            var count = 0
            for await _ in saves { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(await consumer.value == 0)
        _ = stack.employee("Ada")
        try stack.context.save()
        var iterator = saves.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func aSlowConsumerKeepsTheNewestByPolicy() async throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let changes = stack.context.objectChanges(bufferingPolicy: .bufferingNewest(1))
        for salary in 1...3 {
            ada.salary = Double(salary)
            stack.context.processPendingChanges()
        }
        let grace = stack.employee("Grace")
        stack.context.processPendingChanges()
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == ContextChanges(insertedObjectIDs: [grace.objectID]))
    }

    @Test func aSlowConsumerKeepsTheOldestByPolicy() async throws {
        let stack = try ManagedTestStack()
        let changes: AsyncStream<ContextChanges>
        var ids: [ManagedObjectID] = []
        do {
            let context = stack.makeContext()
            changes = context.objectChanges(bufferingPolicy: .bufferingOldest(2))
            for name in ["Ada", "Grace", "Alan"] {
                ids.append(stack.employee(name, in: context).objectID)
                context.processPendingChanges()
            }
        }
        var received: [ContextChanges] = []
        for await change in changes { received.append(change) }
        #expect(received == ids.prefix(2).map { ContextChanges(insertedObjectIDs: [$0]) })
    }

    @Test func theSequencesFinishWhenTheContextGoesAwayAfterWhatIsBuffered() async throws {
        let stack = try ManagedTestStack()
        weak var weakContext: ManagedObjectContext?
        let saves: AsyncStream<ContextChanges>
        let changes: AsyncStream<ContextChanges>
        do {
            let context = stack.makeContext()
            weakContext = context
            saves = context.saves()
            changes = context.objectChanges(bufferingPolicy: .unbounded)
            _ = stack.employee("Ada", in: context)
            try context.save()
        }
        #expect(weakContext == nil)
        var savesIterator = saves.makeAsyncIterator()
        #expect(await savesIterator.next()?.insertedObjectIDs.count == 1)
        #expect(await savesIterator.next() == nil)
        var count = 0
        for await _ in changes { count += 1 }
        #expect(count >= 1, "the insert's change was buffered before the context went")
    }

    @Test func aWaitingConsumerEndsWhenTheContextGoesAway() async throws {
        let stack = try ManagedTestStack()
        var context: ManagedObjectContext? = stack.makeContext()
        let saves = try #require(context?.saves())
        let consumer = Task {
            var count = 0
            for await _ in saves { count += 1 }
            return count
        }
        // Let the consumer start waiting, then release the context.
        await Task.yield()
        context = nil
        #expect(await consumer.value == 0)
    }

    @Test func aStreamCancelledBeforeItsContextGoesIsForgotten() async throws {
        let stack = try ManagedTestStack()
        let context = stack.makeContext()
        let consumer = Task { [saves = context.saves()] in
            for await _ in saves {}
        }
        consumer.cancel()
        await consumer.value
        let open = context.objectChanges()
        // One stream left open: the cancelled one has left the context's list.
        #expect(context.notificationStreams.count == 1)
        withExtendedLifetime(open) {}
    }

    @Test func aStreamDoesNotKeepItsContextAlive() throws {
        let stack = try ManagedTestStack()
        weak var weakContext: ManagedObjectContext?
        var streams: [AsyncStream<ContextChanges>] = []
        do {
            let context = stack.makeContext()
            weakContext = context
            streams = [context.objectChanges(), context.saves()]
        }
        #expect(weakContext == nil)
        #expect(streams.count == 2)
    }
}
