import Foundation
import Observation
import Synchronization
import Testing
@testable import ManagedObjects
import ModelObjects

final class ObservedTeam: ManagedObject {
    @Managed var name: String?
    @Managed var members: Set<ObservedMember>
}

final class ObservedMember: ManagedObject {
    @Managed var name: String?
    @Managed var salary: Double
    @Managed var team: ObservedTeam?
}

/// Counts the `onChange` calls of Observation trackings.
private final class ChangeCount: Sendable {
    private let calls = Mutex(0)
    var value: Int { calls.withLock { $0 } }
    func increment() { calls.withLock { $0 += 1 } }
}

@discardableResult
private func tracking<T>(_ count: ChangeCount, _ apply: () -> T) -> T {
    withObservationTracking(apply, onChange: { count.increment() })
}

/// A store and two contexts over a team/member model.
private struct ObservedStack {
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let center = NotificationCenter()
    let directory: TemporaryDirectory?

    init(undo: Bool = false) throws {
        let model = try ManagedObjectModel {
            Entity("Team", class: ObservedTeam.self) {
                Property("name", .string)
                Property("members", to: "Member", inverse: "team", toMany: true)
            }
            Entity("Member", class: ObservedMember.self) {
                Property("name", .string)
                Property("salary", .double, defaultValue: 0.0)
                Property("team", to: "Team", inverse: "members")
            }
        }
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        directory = try TestStore.add(to: coordinator)
        context = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
        if undo { context.undoManager = ModelUndoManager(notificationCenter: center) }
    }

    func makeContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
    }

    func member(_ name: String, salary: Double = 100, in context: ManagedObjectContext? = nil) -> ObservedMember {
        let member = ObservedMember(context: context ?? self.context)
        member.name = name
        member.salary = salary
        return member
    }
}

@Suite struct ManagedObservationTrackingTests {
    @Test func typedSetCallsOnChangeOnce() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        let count = ChangeCount()
        #expect(tracking(count) { ada.salary } == 100)
        ada.salary = 120
        ada.salary = 130
        #expect(count.value == 1)
        #expect(ada.salary == 130)
    }

    @Test func setValueForKeyCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        let count = ChangeCount()
        tracking(count) { _ = ada.name }
        try ada.setValue("Augusta", forKey: "name")
        #expect(count.value == 1)
    }

    @Test func anotherKeyOrObjectDoesNotCallOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada"), grace = stack.member("Grace")
        let count = ChangeCount()
        tracking(count) { _ = ada.salary }
        ada.name = "Augusta"
        grace.salary = 1
        #expect(count.value == 0)
    }

    @Test func inverseMaintenanceCallsOnChangeOfTheOtherSide() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada"), team = ObservedTeam(context: stack.context)
        let count = ChangeCount()
        tracking(count) { _ = team.members.count }
        ada.team = team
        #expect(count.value == 1)
        #expect(team.members == [ada])
    }

    @Test func proxyMutationCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada"), team = ObservedTeam(context: stack.context)
        let count = ChangeCount()
        tracking(count) { _ = ada.team }
        try team.mutableSetValue(forKey: "members").insert(ada)
        #expect(count.value == 1)
        #expect(ada.team === team)
    }

    @Test func undoCallsOnChange() throws {
        let stack = try ObservedStack(undo: true)
        let ada = stack.member("Ada")
        try stack.context.save()
        ada.salary = 200
        stack.context.processPendingChanges()
        let count = ChangeCount()
        tracking(count) { _ = ada.salary }
        try stack.context.undoManager?.undo()
        #expect(count.value == 1)
        #expect(ada.salary == 100)
    }

    @Test func rollbackCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        try stack.context.save()
        ada.salary = 200
        let count = ChangeCount()
        tracking(count) { _ = ada.salary }
        stack.context.rollback()
        #expect(count.value == 1)
        #expect(ada.salary == 100)
    }

    @Test func mergeFromAnotherContextCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        try stack.context.save()
        let other = stack.makeContext()
        let otherAda = try #require(try other.existingObject(with: ada.objectID) as? ObservedMember)
        let count = ChangeCount()
        tracking(count) { _ = ada.salary }
        otherAda.salary = 300
        let saved = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        try other.save()
        #expect(count.value == 0)
        stack.context.mergeChanges(fromContextDidSave: try #require(saved.notifications.last))
        #expect(count.value == 1)
        #expect(ada.salary == 300)
    }

    @Test func refreshingIntoAFaultCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        try stack.context.save()
        let count = ChangeCount()
        tracking(count) { _ = ada.salary }
        stack.context.refresh(ada, mergeChanges: false)
        #expect(count.value == 1)
        #expect(ada.isFault)
        #expect(ada.salary == 100)
    }

    @Test func resetCallsOnChange() throws {
        let stack = try ObservedStack()
        let ada = stack.member("Ada")
        try stack.context.save()
        let count = ChangeCount()
        tracking(count) { _ = ada.name }
        stack.context.reset()
        #expect(count.value == 1)
    }

    @Test func renderLoopSeesEveryChangeAndNoSpuriousOne() throws {
        let stack = try ObservedStack(undo: true)
        let ada = stack.member("Ada"), team = ObservedTeam(context: stack.context)
        team.name = "Research"
        ada.team = team
        try stack.context.save()
        let count = ChangeCount()
        var renders: [String] = []
        func render() {
            tracking(count) { renders.append("\(ada.name ?? "-") \(ada.salary) \(ada.team?.name ?? "-")") }
        }
        render()
        let changes: [() throws -> Void] = [
            { ada.salary = 110 },
            { try ada.setValue("Augusta", forKey: "name") },
            { team.name = "Engines" },
            { try stack.context.undoManager?.undo() },
            { ada.team = nil },
        ]
        for (index, change) in changes.enumerated() {
            try change()
            #expect(count.value == index + 1)
            // A change the render did not read: no onChange.
            _ = stack.member("Other \(index)")
            #expect(count.value == index + 1)
            // One undo group per change.
            stack.context.processPendingChanges()
            render()
        }
        #expect(renders == [
            "Ada 100.0 Research", "Ada 110.0 Research", "Augusta 110.0 Research", "Augusta 110.0 Engines",
            "Augusta 110.0 Research", "Augusta 110.0 -",
        ])
    }
}
