import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// A controller whose request has a fetch limit or offset keeps the window true as the context
/// changes: the objects from the offset on, at most the limit of them, as a fresh fetch would
/// give; objects shifted in or out of it by changes elsewhere are insertions and deletions.
@Suite struct FetchedResultsWindowTests {
    private func request(limit: Int, offset: Int) -> FetchRequest<TestEmployee> {
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.sortDescriptors = [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "firstName")]
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    private func controller(
        _ stack: ManagedTestStack, limit: Int, offset: Int, sectioned: Bool = false
    ) throws -> FetchedResultsController<TestEmployee> {
        let controller = try FetchedResultsController(
            fetchRequest: request(limit: limit, offset: offset), managedObjectContext: stack.context,
            sectionNameKeyPath: sectioned ? "lastName" : nil)
        try controller.performFetch()
        return controller
    }

    /// What the window should show: every result, sorted in memory, cut at the offset and limit.
    private func expectedWindow(_ stack: ManagedTestStack, limit: Int, offset: Int) throws -> [TestEmployee] {
        let all = try stack.context.fetch(request(limit: 0, offset: 0))
        let sorted = all.sorted { ($0.lastName ?? "", $0.firstName ?? "") < ($1.lastName ?? "", $1.firstName ?? "") }
        let start = min(offset, sorted.count)
        let end = limit > 0 ? min(start + limit, sorted.count) : sorted.count
        return Array(sorted[start..<end])
    }

    @Test func theFirstFetchShowsTheWindowOfTheSortedResults() throws {
        let stack = try ManagedTestStack()
        let names = ["E", "B", "D", "A", "C", "F"]
        let employees = Dictionary(uniqueKeysWithValues: names.map { ($0, stack.employee($0, "Smith")) })
        try stack.context.save()
        let window = try controller(stack, limit: 3, offset: 1)
        #expect(window.fetchedObjects == ["B", "C", "D"].map { employees[$0] })
        #expect(window.sections?.first?.numberOfObjects == 3)
        #expect(try window.object(at: [0, 0]) === employees["B"])
        #expect(window.indexPath(forObject: try #require(employees["D"])) == [0, 2])
        // Followed but not shown: outside the window.
        #expect(window.indexPath(forObject: try #require(employees["A"])) == nil)
        #expect(try controller(stack, limit: 0, offset: 4).fetchedObjects == ["E", "F"].map { employees[$0] })
        #expect(try controller(stack, limit: 2, offset: 9).fetchedObjects == [])
    }

    @Test func anInsertionBeforeTheWindowShiftsTheLastObjectOut() throws {
        let stack = try ManagedTestStack()
        let b = stack.employee("B", "Smith"), c = stack.employee("C", "Smith"), d = stack.employee("D", "Smith")
        stack.employee("E", "Smith")
        try stack.context.save()
        let window = try controller(stack, limit: 2, offset: 1)
        #expect(window.fetchedObjects == [c, d])
        let log = DelegateLog()
        window.delegate = log
        let before = window.snapshot
        let a = stack.employee("A", "Smith")
        stack.context.processPendingChanges()
        // A goes before the window: B shifts in at the top, D shifts out at the bottom.
        #expect(window.fetchedObjects == [b, c])
        let changes = try #require(log.changeSets.last)
        #expect(changes.objectChanges.map(\.type) == [.delete, .insert])
        #expect(changes.objectChanges[0].objectID == d.objectID && changes.objectChanges[0].indexPath == [0, 1])
        #expect(changes.objectChanges[1].objectID == b.objectID && changes.objectChanges[1].newIndexPath == [0, 0])
        #expect(apply(changes, to: before) == window.snapshot)
        _ = a
    }

    @Test func aDeletionInAFullWindowRefillsItFromTheStore() throws {
        let stack = try ManagedTestStack()
        let employees = (0..<6).map { stack.employee("N\($0)", "Smith") }
        try stack.context.save()
        let window = try controller(stack, limit: 2, offset: 1)
        #expect(window.fetchedObjects == [employees[1], employees[2]])
        let log = DelegateLog()
        window.delegate = log
        let before = window.snapshot
        stack.context.delete(employees[1])
        stack.context.processPendingChanges()
        // N3, beyond the three rows followed, comes from a fetch.
        #expect(window.fetchedObjects == [employees[2], employees[3]])
        let changes = try #require(log.changeSets.last)
        #expect(changes.objectChanges.map(\.type) == [.delete, .insert])
        #expect(apply(changes, to: before) == window.snapshot)
        // A change past the followed rows is not reported.
        let count = log.changeSets.count
        employees[5].salary = 7
        stack.context.processPendingChanges()
        #expect(log.changeSets.count == count)
    }

    /// The refill fetch meets a row it cannot read (another writer put text in a number
    /// column): tracking fails with the store's error, the results are dropped, and a fetch
    /// once the row is repaired shows the window again.
    @Test func aRefillFetchThatFailsFailsTrackingWithTheStoresError() throws {
        try TestStore.$kind.withValue(.sqlite) {
            let stack = try ManagedTestStack()
            let employees = (0..<6).map { stack.employee("N\($0)", "Smith") }
            try stack.context.save()
            let window = try controller(stack, limit: 2, offset: 1)
            #expect(window.fetchedObjects == [employees[1], employees[2]])
            let url = try #require(stack.sqliteStore?.url)
            let connection = try SQLiteConnection(path: url.path, create: false)
            try connection.execute("UPDATE ZEMPLOYEE SET ZSALARY = 'lots' WHERE ZFIRSTNAME = 'N3'")
            let log = DelegateLog()
            window.delegate = log
            // N3 must come from the store to refill the window: its row cannot be read.
            stack.context.delete(employees[1])
            stack.context.processPendingChanges()
            #expect(log.lines == ["failed trackingFailed"])
            let failure = try #require(log.failures.first)
            #expect(failure.code == .trackingFailed)
            #expect((failure.underlyingError as? PersistenceError)?.code == .operationFailed)
            #expect(window.fetchedObjects == nil)
            // Nothing more is reported until the next fetch.
            employees[2].salary = 5
            stack.context.processPendingChanges()
            #expect(log.lines.count == 1)
            try connection.execute("UPDATE ZEMPLOYEE SET ZSALARY = 100 WHERE ZFIRSTNAME = 'N3'")
            try window.performFetch()
            #expect(window.fetchedObjects?.map(\.firstName) == ["N2", "N3"])
        }
    }

    @Test func anUpdatedObjectThatSortsPastTheFollowedRowsLeavesTheWindowForTheNextOne() throws {
        let stack = try ManagedTestStack()
        let employees = (0..<5).map { stack.employee("N\($0)", "Smith") }
        try stack.context.save()
        let window = try controller(stack, limit: 2, offset: 0)
        let log = DelegateLog()
        window.delegate = log
        let before = window.snapshot
        employees[0].lastName = "Zed"
        stack.context.processPendingChanges()
        #expect(window.fetchedObjects == [employees[1], employees[2]])
        let changes = try #require(log.changeSets.last)
        #expect(apply(changes, to: before) == window.snapshot)
    }

    @Test func sectionsAreThoseOfTheWindow() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", "Lovelace"), annie = stack.employee("Annie", "Hopper")
        let grace = stack.employee("Grace", "Hopper"), alan = stack.employee("Alan", "Turing")
        try stack.context.save()
        let window = try controller(stack, limit: 2, offset: 1, sectioned: true)
        #expect(window.snapshot == [
            SectionSnapshot(name: "Hopper", ids: [grace.objectID]), SectionSnapshot(name: "Lovelace", ids: [ada.objectID]),
        ])
        let log = DelegateLog()
        window.delegate = log
        let before = window.snapshot
        stack.context.delete(annie)
        stack.context.processPendingChanges()
        // Grace moves to the top (out of the window), Alan comes in with his section.
        #expect(window.snapshot == [
            SectionSnapshot(name: "Lovelace", ids: [ada.objectID]), SectionSnapshot(name: "Turing", ids: [alan.objectID]),
        ])
        let changes = try #require(log.changeSets.last)
        #expect(changes.sectionChanges.map(\.type) == [.delete, .insert])
        #expect(apply(changes, to: before) == window.snapshot)
    }

    /// Random inserts, deletions, renames and saves: after each, the window is what a fresh
    /// sort would show, and the change set turns the old window into the new one.
    @Test(arguments: [(3, 0), (4, 2), (0, 3), (1, 5)])
    func randomChangesKeepTheWindowTrue(limit: Int, offset: Int) throws {
        let stack = try ManagedTestStack()
        var generator = SeededGenerator(seed: UInt64(limit * 31 + offset + 7))
        var live: [TestEmployee] = []
        var serial = 0
        func name() -> String {
            serial += 1
            return String(format: "%03d-%d", Int(generator.next() % 1000), serial)
        }
        for _ in 0..<8 { live.append(stack.employee(name(), "L\(generator.next() % 3)")) }
        try stack.context.save()
        let window = try controller(stack, limit: limit, offset: offset)
        let log = DelegateLog()
        window.delegate = log
        #expect(window.fetchedObjects == (try expectedWindow(stack, limit: limit, offset: offset)))
        for round in 0..<120 {
            let before = window.snapshot
            let beforeObjects = window.fetchedObjects ?? []
            let reported = log.changeSets.count
            switch generator.next() % 5 {
            case 0, 1:
                live.append(stack.employee(name(), "L\(generator.next() % 3)"))
            case 2 where !live.isEmpty:
                stack.context.delete(live.remove(at: Int(generator.next() % UInt64(live.count))))
            case 3 where !live.isEmpty:
                live[Int(generator.next() % UInt64(live.count))].firstName = name()
            default:
                try stack.context.save()
            }
            stack.context.processPendingChanges()
            let expected = try expectedWindow(stack, limit: limit, offset: offset)
            #expect(window.fetchedObjects == expected, "round \(round)")
            if log.changeSets.count > reported, let changes = log.changeSets.last {
                #expect(apply(changes, to: before) == window.snapshot, "round \(round)")
            } else {
                // (A save makes the IDs permanent: the objects are compared.)
                #expect((window.fetchedObjects ?? []).elementsEqual(beforeObjects, by: ===), "round \(round): changed without a report")
            }
        }
    }
}
