import Foundation
import ModelObjects
import SampleModels
import Testing

@testable import ManagedObjects

/// A managed class with computed properties over its `@Managed` ones.
final class MKAccount: ManagedObject {
    @Managed var balance: Double
    @Managed var owner: String?
    var doubled: Double { balance * 2 }
    var initial: Character? {
        get { owner?.first }
        set { owner = newValue.map(String.init) }
    }
}

/// `changes(for:)` and `changes(forKeyPath:)` on managed objects: typed key paths of `@Managed`
/// properties, key paths through relationships, and the sequence's end.
// A sequence that fails to end would hang its test: the limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct ManagedObjectAsyncChangesTests {
    private func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    @Test func aTypedKeyPathOfAManagedPropertyYieldsItsChanges() async throws {
        let context = try context()
        let ada = ManagedEmployee(context: context)
        let changes = try ada.changes(for: \.salary, options: [.old, .new])
        ada.salary = 10
        try ada.setValue(20.0, forKey: "salary")
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        #expect(first?.oldValue == 0 && first?.newValue == 10)
        #expect(second?.oldValue == 10 && second?.newValue == 20)
    }

    @Test func aStringKeyPathFollowsTheRelationship() async throws {
        let context = try context()
        let ada = ManagedEmployee(context: context)
        let research = ManagedDepartment(context: context)
        research.name = "Research"
        let changes = try ada.changes(forKeyPath: "department.name", as: String.self)
        ada.department = research
        research.name = "Engines"
        ada.department = nil
        var iterator = changes.makeAsyncIterator()
        var names: [String?] = []
        for _ in 0..<3 { names.append(await iterator.next()?.newValue) }
        #expect(names == ["Research", "Engines", nil])
    }

    @Test func theSequenceEndsWhenTheObjectGoesAway() async throws {
        let context = try context()
        let changes: AsyncStream<ObservedChange<Double>>
        do {
            let ada = ManagedEmployee(context: context)
            changes = try ada.changes(for: \.salary)
            ada.salary = 5
            try context.save()
        }
        var salaries: [Double?] = []
        for await change in changes { salaries.append(change.newValue) }
        #expect(salaries == [5])
    }

    @Test func cancellingTheConsumerEndsItsLoop() async throws {
        let context = try context()
        let ada = ManagedEmployee(context: context)
        let changes = try ada.changes(for: \.salary)
        let consumer = Task {
            var count = 0
            for await _ in changes { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(await consumer.value == 0)
        ada.salary = 1
    }

    @Test func mappingAKeyPathChangesNothing() throws {
        let context = try context()
        let ada = ManagedEmployee(context: context)
        ada.salary = 3
        try context.save()
        #expect(try ada.key(for: \.salary) == "salary")
        #expect(try ada.key(for: \.department) == "department")
        #expect(!ada.hasChanges && !context.hasChanges)
    }

    @Test func computedPropertiesOverManagedOnesAreNotTakenForThemNorWritten() throws {
        let model = try ManagedObjectModel(classes: [MKAccount.self])
        let account = MKAccount(entity: try #require(model.entity(named: "MKAccount")), insertInto: nil)
        account.owner = "ada"
        #expect(try account.key(for: \.balance) == "balance")
        for error in [
            #expect(throws: KeyValueCodingError.self) { _ = try account.key(for: \.doubled) },
            #expect(throws: KeyValueCodingError.self) { _ = try account.key(for: \.initial) },
        ] {
            #expect(error?.code == .unmappableKeyPath)
        }
        #expect(account.owner == "ada", "mapping a key path wrote nothing")
    }
}
