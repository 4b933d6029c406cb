import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextDeleteRuleTests {
    @Test func nullifyRemovesTheDeletedObjectFromItsRelatedObjects() throws {
        let stack = try ManagedTestStack(employeesRule: .nullify)
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        research.employees = [ada, grace]
        try stack.context.save()
        stack.context.delete(research)
        try stack.context.save()
        #expect(ada.department == nil && grace.department == nil)
        #expect(!ada.isDeleted)
        let reread = try #require(try stack.makeContext().existingObject(with: ada.objectID) as? TestEmployee)
        #expect(reread.department == nil)
    }

    @Test func cascadeDeletesThroughChains() throws {
        let stack = try ManagedTestStack(employeesRule: .cascade)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        let project = TestProject(context: stack.context)
        let milestone = TestMilestone(context: stack.context)
        milestone.project = project
        project.members = [ada]
        // Person → Passport cascades too.
        let person = try stack.context.insertNewObject(forEntityName: "Person")
        let passport = try stack.context.insertNewObject(forEntityName: "Passport")
        try person.setValue(passport, forKey: "passport")
        try stack.context.save()
        stack.context.delete(research)
        stack.context.delete(project)
        stack.context.delete(person)
        stack.context.processPendingChanges()
        #expect(stack.context.deletedObjects == [research, ada, project, milestone, person, passport])
        try stack.context.save()
        #expect(stack.context.registeredObjects.isEmpty)
        let store = try #require(stack.coordinator.persistentStores.first)
        for name in ["Department", "Employee", "Project", "Milestone", "Person", "Passport"] {
            #expect(try store.records(of: #require(stack.model.entity(named: name)), includesSubentities: true).isEmpty)
        }
    }

    @Test func denyLeavesBothObjectsUntilTheRelatedObjectsAreGone() throws {
        let stack = try ManagedTestStack(employeesRule: .deny)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        stack.context.delete(research)
        #expect(throws: ValidationError.self) { try stack.context.save() }
        #expect(research.isDeleted)
        stack.context.delete(ada)
        try stack.context.save()
        #expect(stack.context.registeredObjects.isEmpty)
    }

    @Test func noActionLeavesTheRelatedObjectsPointingAtTheDeletedOne() throws {
        let stack = try ManagedTestStack(employeesRule: .noAction)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        stack.context.delete(research)
        try stack.context.save()
        #expect(ada.department === research)
        let other = stack.makeContext()
        let reread = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        let dangling = try #require(reread.value(forKey: "department") as? ManagedObject)
        #expect(throws: PersistenceError.self) { try dangling.fireFault() }
    }
}
