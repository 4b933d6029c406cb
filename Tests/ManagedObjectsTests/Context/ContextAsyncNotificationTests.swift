import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextAsyncNotificationTests {
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
