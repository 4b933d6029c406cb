import Foundation
import ManagedObjects
import Testing

/// The actions a context records hold its changed objects, as Core Data's undo manager keeps
/// strong references to changed managed objects, and leave with the actions.
@Suite struct ContextUndoLifetimeTests {
    @Test func theUndoStackKeepsASavedObjectAliveUntilItsActionsAreRemoved() throws {
        let stack = try ManagedTestStack(undo: true)
        let undoManager = try #require(stack.context.undoManager)
        weak var weakEmployee: TestEmployee?
        do {
            let employee = stack.employee("Ada")
            weakEmployee = employee
            try stack.context.save()
        }
        #expect(weakEmployee != nil)
        undoManager.removeAllActions()
        #expect(weakEmployee == nil)
    }

    @Test func undoAfterASaveRevertsAnObjectNobodyElseHolds() throws {
        let stack = try ManagedTestStack(undo: true)
        let undoManager = try #require(stack.context.undoManager)
        let id: ManagedObjectID
        do {
            let employee = stack.employee("Ada")
            try stack.context.save()
            stack.context.processPendingChanges()
            employee.salary = 2_000
            stack.context.processPendingChanges()
            try stack.context.save()
            id = employee.objectID
        }
        try undoManager.undo()
        let employee = try #require(stack.context.registeredObject(for: id) as? TestEmployee)
        #expect(employee.salary == 1_000)
        #expect(employee.isUpdated)
    }

    @Test func removingAnObjectsActionsReleasesIt() throws {
        let stack = try ManagedTestStack(undo: true)
        let undoManager = try #require(stack.context.undoManager)
        let department = stack.department("Research")
        weak var weakEmployee: TestEmployee?
        do {
            let employee = stack.employee("Ada")
            weakEmployee = employee
            try stack.context.save()
            undoManager.removeAllActions(withTarget: employee)
        }
        #expect(weakEmployee == nil)
        // The department's own actions stay.
        #expect(undoManager.canUndo)
        #expect(department.name == "Research")
    }
}
