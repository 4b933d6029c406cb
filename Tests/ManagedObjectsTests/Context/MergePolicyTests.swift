import Foundation
import Testing
@testable import ManagedObjects

@Suite struct MergePolicyTests {
    /// Ada saved in context A, then changed and saved in context B (first name and salary),
    /// while A changes salary and last name.
    private func conflict(policy: MergePolicy) throws -> (ManagedTestStack, TestEmployee) {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        ada.lastName = "Byron"
        try stack.context.save()
        let other = stack.makeContext()
        let theirs = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        theirs.firstName = "Augusta"
        theirs.salary = 2
        try other.save()
        stack.context.mergePolicy = policy
        ada.salary = 3
        ada.lastName = "Lovelace"
        return (stack, ada)
    }

    private func stored(_ stack: ManagedTestStack, _ ada: TestEmployee) throws -> TestEmployee {
        try #require(try stack.makeContext().existingObject(with: ada.objectID) as? TestEmployee)
    }

    @Test func errorPolicyReportsTheConflictsAndWritesNothing() throws {
        let (stack, ada) = try conflict(policy: .error)
        do {
            try stack.context.save()
            Issue.record("expected a merge conflict")
        } catch let error as PersistenceError {
            #expect(error.code == .mergeConflict)
            #expect(error.conflicts.map(\.objectID) == [ada.objectID])
            #expect(error.conflicts.first?.oldVersion == 1)
            #expect(error.conflicts.first?.newVersion == 2)
            #expect((error as NSError).code == 133_020)
        }
        let saved = try stored(stack, ada)
        #expect(saved.salary == 2 && saved.lastName == "Byron")
        #expect(ada.isUpdated)
    }

    @Test func storeTrumpKeepsTheirChangesAndSavesOurOthers() throws {
        let (stack, ada) = try conflict(policy: .storeTrump)
        try stack.context.save()
        let saved = try stored(stack, ada)
        #expect(saved.firstName == "Augusta" && saved.salary == 2 && saved.lastName == "Lovelace")
        #expect(ada.salary == 2 && ada.firstName == "Augusta")
    }

    @Test func objectTrumpKeepsOurChangesAndTakesTheirOthers() throws {
        let (stack, ada) = try conflict(policy: .objectTrump)
        try stack.context.save()
        let saved = try stored(stack, ada)
        #expect(saved.firstName == "Augusta" && saved.salary == 3 && saved.lastName == "Lovelace")
        #expect(ada.firstName == "Augusta")
    }

    @Test func overwriteWritesOurObjectWhole() throws {
        let (stack, ada) = try conflict(policy: .overwrite)
        try stack.context.save()
        let saved = try stored(stack, ada)
        #expect(saved.firstName == "Ada" && saved.salary == 3 && saved.lastName == "Lovelace")
    }

    @Test func rollbackDropsOurChangesForTheObjectsInConflict() throws {
        let (stack, ada) = try conflict(policy: .rollback)
        let grace = stack.employee("Grace")
        try stack.context.save()
        let saved = try stored(stack, ada)
        #expect(saved.firstName == "Augusta" && saved.salary == 2 && saved.lastName == "Byron")
        #expect(ada.salary == 2 && ada.lastName == "Byron")
        #expect(!ada.isUpdated)
        #expect(!grace.objectID.isTemporaryID)
    }

    @Test func mergeChangesFromContextDidSaveBringsTheOtherContextsSavedValues() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1), grace = stack.employee("Grace")
        try stack.context.save()
        let other = stack.makeContext()
        let otherAda = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        let otherGrace = try other.existingObject(with: grace.objectID)
        let recorder = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        ada.salary = 10
        stack.context.delete(grace)
        try stack.context.save()
        var salaries: [Double?] = []
        let observation = try otherAda.observe("salary", options: [.new]) { _, change in salaries.append(change.newValue as? Double) }
        otherAda.firstName = "Augusta"  // an unsaved change of the other context survives the merge
        other.mergeChanges(fromContextDidSave: try #require(recorder.notifications.last))
        #expect(otherAda.salary == 10)
        #expect(salaries == [10])
        #expect(otherAda.firstName == "Augusta")
        #expect(otherGrace.managedObjectContext == nil)
        #expect(other.registeredObject(for: grace.objectID) == nil)
        try other.save()  // the merged version does not conflict
        observation.invalidate()
    }

    @Test func theSameIsolationRulesAllowABackgroundContextFromTheCoordinator() async throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let id = ada.objectID
        let coordinator = stack.coordinator
        let salary = try await Task.detached {
            let background = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let object = try background.existingObject(with: id)
            try object.setValue(42.0, forKey: "salary")
            try background.save()
            return try object.value(forKey: "salary") as? Double
        }.value
        #expect(salary == 42)
        stack.context.refresh(ada, mergeChanges: false)
        #expect(ada.salary == 42)
    }
}
