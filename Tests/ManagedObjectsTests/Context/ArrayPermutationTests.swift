import Foundation
import Testing
@testable import ManagedObjects

/// `permute(taking:)`, which puts a save's unordered to-many IDs in key order by swaps: every
/// element ends where the positions say, none is lost or repeated, and the elements are moved,
/// never copied.
@Suite struct ArrayPermutationTests {
    private final class Box {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    @Test func eachPositionTakesTheElementItNames() {
        var letters = ["a", "b", "c", "d", "e"]
        letters.permute(taking: [2, 0, 1, 4, 3])
        #expect(letters == ["c", "a", "b", "e", "d"])
    }

    @Test func theIdentityAndTheEmptyArrayStayAsTheyAre() {
        var numbers = [1, 2, 3]
        numbers.permute(taking: [0, 1, 2])
        #expect(numbers == [1, 2, 3])
        var empty: [Int] = []
        empty.permute(taking: [])
        #expect(empty.isEmpty)
    }

    @Test(arguments: [1, 2, 7, 100, 1_000])
    func randomPermutationsGiveWhatMappingGives(count: Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let positions = Array(0..<count).shuffled(using: &generator)
            let original = (0..<count).map { "element \($0)" }
            var permuted = original
            permuted.permute(taking: positions)
            #expect(permuted == positions.map { original[$0] })
        }
    }

    @Test func theElementsAreMovedNotCopied() {
        var boxes = (0..<50).map(Box.init)
        let identities = boxes.map(ObjectIdentifier.init)
        let positions = Array((0..<50).reversed())
        boxes.permute(taking: positions)
        #expect(boxes.map(\.number) == positions)
        #expect(boxes.map(ObjectIdentifier.init) == positions.map { identities[$0] })
        // Each box is held by the array alone: a copy left behind would hold a second reference.
        for index in boxes.indices { #expect(isKnownUniquelyReferenced(&boxes[index])) }
    }
}

/// What the store is given for an unordered to-many relationship: its IDs in key order,
/// whatever order the relationship's set holds them in.
@Suite struct SavedToManyOrderTests {
    @Test func aSavedUnorderedToManyHandsItsIDsToTheStoreInKeyOrder() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        let store = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let department = insertDepartment("Research", employees: 200, named: { "E\($0)" }, into: context)
        try context.save()
        let record = try #require(try store.record(for: department.objectID))
        let employees = try #require(department.entity.propertiesByName["employees"]).index
        guard case .toMany(let ids) = record.values[employees] else {
            Issue.record("the employees are \(record.values[employees])")
            return
        }
        let keys = ids.compactMap(\.primaryKey)
        #expect(keys.count == 200)
        #expect(keys == keys.sorted())
        #expect(Set(ids) == Set(department.employees.map(\.objectID)))
    }
}
