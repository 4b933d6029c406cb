import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// A class with a property key-value coding cannot name.
final class Ledger: ModelObject {
    @Attribute var balance = 0.0
    var doubled: Double { balance * 2 }
}

// A sequence that fails to end would hang its test: the limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct AsyncChangesTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    @Test func typedChangesCarryOldAndNewValuesInOrder() async throws {
        let ada = makeAda()
        let changes = try ada.changes(for: \.salary, options: [.old, .new])
        ada.salary = 110
        try ada.setValue(120, forKey: "salary")
        ada.salary = 130
        var iterator = changes.makeAsyncIterator()
        var seen: [ObservedChange<Double>] = []
        for _ in 0..<3 {
            if let change = await iterator.next() { seen.append(change) }
        }
        #expect(seen.map(\.oldValue) == [100, 110, 120])
        #expect(seen.map(\.newValue) == [110, 120, 130])
        #expect(seen.map(\.kind) == [.setting, .setting, .setting])
    }

    @Test func initialOptionYieldsTheCurrentValueFirst() async throws {
        let ada = makeAda()
        let changes = try ada.changes(for: \.salary, options: [.initial, .new])
        ada.salary = 110
        var iterator = changes.makeAsyncIterator()
        let initial = await iterator.next()
        let next = await iterator.next()
        #expect(initial?.newValue == 100)
        #expect(next?.newValue == 110)
    }

    @Test func stringKeyPathFollowsTheRelationship() async throws {
        let ada = makeAda(), research = Department(name: "Research")
        ada.department = research
        let changes = try ada.changes(forKeyPath: "department.name", as: String.self, options: [.new])
        research.name = "Engines"
        ada.department = Department(name: "Analytics")
        research.name = "Gone"
        ada.department = nil
        var iterator = changes.makeAsyncIterator()
        var names: [String?] = []
        for _ in 0..<3 { names.append(await iterator.next()?.newValue) }
        #expect(names == ["Engines", "Analytics", nil])
    }

    @Test func valuesOfAnotherTypeReadAsNil() async throws {
        let ada = makeAda()
        let changes = try ada.changes(forKeyPath: "salary", as: String.self)
        ada.salary = 1
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.kind == .setting)
        #expect(change?.newValue == nil)
    }

    @Test func theSequenceEndsWhenTheObjectGoesAwayAfterWhatIsBuffered() async throws {
        var changes: AsyncStream<ObservedChange<Double>>?
        do {
            let ada = makeAda()
            changes = try ada.changes(for: \.salary)
            ada.salary = 1
        }
        var iterator = try #require(changes).makeAsyncIterator()
        let first = await iterator.next()
        let end = await iterator.next()
        #expect(first?.newValue == 1)
        #expect(end == nil)
    }

    @Test func cancellingTheConsumerEndsItAndTheObservationGoesAtTheNextChange() async throws {
        let ada = makeAda()
        let changes = try ada.changes(for: \.salary)
        let consumer = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        consumer.cancel()
        let count = await consumer.value
        #expect(count == 0)
        #expect(ada.observationState != nil)
        ada.salary = 5
        #expect(ada.observationState == nil)
    }

    @Test func aConsumerOnAnotherTaskReceivesTheChanges() async throws {
        let ada = makeAda()
        let changes = try ada.changes(for: \.salary, bufferingPolicy: .unbounded)
        ada.salary = 1
        ada.salary = 2
        let consumer = Task {
            var values: [Double] = []
            for await change in changes {
                values.append(change.newValue ?? -1)
                if values.count == 2 { break }
            }
            return values
        }
        #expect(await consumer.value == [1, 2])
    }

    @Test(arguments: [
        (AsyncStream<ObservedChange<Double>>.Continuation.BufferingPolicy.bufferingNewest(2), [4.0, 5.0]),
        (.bufferingOldest(2), [1.0, 2.0]),
        (.unbounded, [1.0, 2.0, 3.0, 4.0, 5.0]),
    ])
    func bufferingPolicyDecidesWhichChangesWaitForASlowConsumer(
        policy: AsyncStream<ObservedChange<Double>>.Continuation.BufferingPolicy, expected: [Double]
    ) async throws {
        var changes: AsyncStream<ObservedChange<Double>>?
        do {
            let ada = makeAda()
            changes = try ada.changes(for: \.salary, bufferingPolicy: policy)
            for salary in 1...5 { ada.salary = Double(salary) }
        }
        var values: [Double] = []
        for await change in try #require(changes) { values.append(change.newValue ?? -1) }
        #expect(values == expected)
    }

    @Test func theDefaultBufferKeepsTheNewestHundred() async throws {
        var changes: AsyncStream<ObservedChange<Double>>?
        do {
            let ada = makeAda()
            changes = try ada.changes(for: \.salary)
            for salary in 1...150 { ada.salary = Double(salary) }
        }
        var values: [Double] = []
        for await change in try #require(changes) { values.append(change.newValue ?? -1) }
        #expect(values == (51...150).map(Double.init))
    }

    @Test func aKeyPathThatNamesNoPropertyThrows() {
        let ledger = Ledger()
        expectKVCError(.unmappableKeyPath) { _ = try ledger.changes(for: \.doubled) }
    }

    @Test func anOverlongKeyPathThrowsAndRegistersNothing() {
        let ada = makeAda()
        let path = Array(repeating: "manager", count: ModelObject.maximumObservedKeyPathLength + 1).joined(separator: ".")
        expectKVCError(.keyPathTooComplex) { _ = try ada.changes(forKeyPath: path, as: String.self) }
        #expect(ada.observationState == nil)
    }
}
