import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextUndoTests {
    @Test func undoAndRedoAnAttributeChange() throws {
        let stack = try ManagedTestStack(undo: true)
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        ada.salary = 2
        stack.context.processPendingChanges()
        var seen: [Double?] = []
        let token = try ada.observe("salary", options: [.new]) { _, change in seen.append(change.newValue as? Double) }
        try undo.undo()
        #expect(ada.salary == 1)
        try undo.redo()
        #expect(ada.salary == 2)
        #expect(seen == [1, 2])
        token.invalidate()
    }

    @Test func oneProcessPendingChangesIsOneUndoStep() throws {
        let stack = try ManagedTestStack(undo: true)
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        ada.salary = 2
        ada.firstName = "Augusta"
        stack.context.processPendingChanges()
        ada.salary = 3
        stack.context.processPendingChanges()
        try undo.undo()
        #expect(ada.salary == 2 && ada.firstName == "Augusta")
        try undo.undo()
        #expect(ada.salary == 1 && ada.firstName == "Ada")
        #expect(!undo.canUndo)
    }

    @Test func undoRestoresRelationshipChangesWithTheirInverses() throws {
        let stack = try ManagedTestStack(undo: true)
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        ada.department = sales
        stack.context.processPendingChanges()
        try undo.undo()
        #expect(ada.department === research)
        #expect(research.employees == [ada])
        #expect(sales.employees.isEmpty)
        try undo.redo()
        #expect(ada.department === sales)
        #expect(research.employees.isEmpty)
        #expect(sales.employees == [ada])
    }

    @Test func undoOfAManyToManyEdit() throws {
        let stack = try ManagedTestStack(undo: true)
        let ada = stack.employee("Ada")
        let compiler = TestProject(context: stack.context)
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        compiler.members.insert(ada)
        stack.context.processPendingChanges()
        try undo.undo()
        #expect(compiler.members.isEmpty && ada.projects.isEmpty)
        try undo.redo()
        #expect(compiler.members == [ada] && ada.projects == [compiler])
    }

    @Test func undoAnInsertRemovesTheObjectAndItsLinks() throws {
        let stack = try ManagedTestStack(undo: true)
        let research = stack.department("Research")
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        let ada = stack.employee("Ada")
        ada.department = research
        stack.context.processPendingChanges()
        try undo.undo()
        #expect(!stack.context.insertedObjects.contains(ada))
        #expect(ada.managedObjectContext == nil)
        #expect(research.employees.isEmpty)
        #expect(!stack.context.hasChanges || stack.context.updatedObjects == [research])
        try undo.redo()
        #expect(stack.context.insertedObjects.contains(ada))
        #expect(research.employees == [ada])
        try stack.context.save()
    }

    @Test func undoADeleteRestoresTheObjectAndNullifiedRelationships() throws {
        let stack = try ManagedTestStack(undo: true)
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        research.employees = [ada, grace]
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        stack.context.delete(research)
        stack.context.processPendingChanges()
        #expect(ada.department == nil)
        try undo.undo()
        #expect(!research.isDeleted)
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(ada.department === research && grace.department === research)
        #expect(research.employees == [ada, grace])
        try undo.redo()
        #expect(research.isDeleted)
        #expect(ada.department == nil)
        try stack.context.save()
        #expect(research.managedObjectContext == nil)
    }

    @Test func undoACascadeDelete() throws {
        let stack = try ManagedTestStack(employeesRule: .cascade, undo: true)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        stack.context.delete(research)
        stack.context.processPendingChanges()
        #expect(stack.context.deletedObjects == [research, ada])
        try undo.undo()
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(ada.department === research)
        #expect(!ada.isDeleted)
    }

    @Test func actionNamesAndPrimitiveChangesAreNotUndoable() throws {
        let stack = try ManagedTestStack(undo: true)
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        try ada.setPrimitiveValue(5.0, forKey: "salary")
        stack.context.processPendingChanges()
        #expect(!undo.canUndo)
        ada.salary = 6
        undo.setActionName("Raise")
        stack.context.processPendingChanges()
        #expect(undo.undoMenuItemTitle == "Undo Raise")
        try undo.undo()
        #expect(ada.salary == 5)
    }
}
