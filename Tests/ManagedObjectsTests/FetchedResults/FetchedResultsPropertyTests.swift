import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// SplitMix64: a small seeded generator, so that a failing sequence replays exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random edit sequences: after each processing, the reported change set applied to a copy of
/// the previous results must give exactly the new results, which must be what a fetch gives.
@Suite struct FetchedResultsPropertyTests {
    @Test(arguments: [1, 2, 3, 2026] as [UInt64])
    func eachDiffTurnsThePreviousResultsIntoTheNewOnesInSections(seed: UInt64) throws {
        try runRandomEdits(seed: seed, sectioned: true, steps: 300)
    }

    @Test(arguments: [7, 8] as [UInt64])
    func eachDiffTurnsThePreviousResultsIntoTheNewOnesInOneSection(seed: UInt64) throws {
        try runRandomEdits(seed: seed, sectioned: false, steps: 200)
    }

    @Test func eachDiffTurnsThePreviousResultsIntoTheNewOnesOverSQLite() throws {
        try TestStore.$kind.withValue(.sqlite) { try runRandomEdits(seed: 99, sectioned: true, steps: 150) }
    }

    private func runRandomEdits(seed: UInt64, sectioned: Bool, steps: Int) throws {
        var random = SeededGenerator(seed: seed)
        let stack = try ManagedTestStack()
        let lastNames = ["A", "B", "C", "D", "E", "F", "G", "H"]
        var serial = 0
        func uniqueFirstName() -> String {
            serial += 1
            return String(format: "%05d-%d", Int.random(in: 0..<100_000, using: &random), serial)
        }
        func insert() {
            let employee = stack.employee(uniqueFirstName(), salary: Double(Int.random(in: 0..<200, using: &random)))
            employee.lastName = lastNames.randomElement(using: &random)
        }
        for _ in 0..<40 { insert() }
        try stack.context.save()
        let controller = try employeeController(stack, predicate: "salary >= 50", sectioned: sectioned)
        let log = DelegateLog()
        controller.delegate = log
        var copy = controller.snapshot
        var kinds: [String: Int] = [:]

        for step in 0..<steps {
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let employees = stack.context.registeredObjects.compactMap { $0 as? TestEmployee }.filter { !$0.isDeleted }
                    .sorted { ($0.firstName ?? "") < ($1.firstName ?? "") }
                guard let someone = employees.randomElement(using: &random) else {
                    insert()
                    continue
                }
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<20: insert()
                case 20..<35: stack.context.delete(someone)
                case 35..<55: someone.salary = Double(Int.random(in: 0..<200, using: &random))  // in and out of the predicate
                case 55..<75: someone.lastName = lastNames.randomElement(using: &random)  // between sections
                case 75..<90: someone.firstName = uniqueFirstName()  // within a section
                default: someone.age = Int16.random(in: 20..<60, using: &random)  // in place
                }
            }
            if Int.random(in: 0..<30, using: &random) == 0 { stack.context.rollback() }
            stack.context.processPendingChanges()

            let changeSets = log.changeSets
            log.changeSets = []
            #expect(changeSets.count <= 1)
            for changes in changeSets {
                for change in changes.objectChanges { kinds["\(change.type)", default: 0] += 1 }
                for change in changes.sectionChanges { kinds["\(change.type) section", default: 0] += 1 }
                copy = try #require(apply(changes, to: copy), "step \(step): the change set does not apply:\n\(changes)")
            }
            try #require(copy == controller.snapshot, "step \(step)")
            let fetched = try stack.context.fetch(controller.fetchRequest)
            if fetched.map(\.objectID) != controller.fetchedObjects?.map(\.objectID) {
                func names(_ list: [TestEmployee]) -> String { list.map { "\($0.lastName ?? "nil") \($0.firstName ?? "nil") \($0.salary)" }.joined(separator: "; ") }
                Issue.record("step \(step): a fetch disagrees:\nfetch      \(names(fetched))\ncontroller \(names(controller.fetchedObjects ?? []))")
                return
            }
            for (section, info) in (controller.sections ?? []).enumerated() {
                for (row, object) in info.objects.enumerated() {
                    try #require(controller.indexPath(forObject: object) == [section, row])
                }
            }
            if step % 40 == 39 {
                try stack.context.save()
                #expect(log.changeSets.isEmpty)
                copy = controller.snapshot  // IDs became permanent
            }
        }
        // Every kind of change happened.
        for kind in ["insert", "delete", "move", "update"] { #expect(kinds[kind, default: 0] > 0, "no \(kind)") }
        if sectioned { for kind in ["insert section", "delete section"] { #expect(kinds[kind, default: 0] > 0, "no \(kind)") } }
    }
}
