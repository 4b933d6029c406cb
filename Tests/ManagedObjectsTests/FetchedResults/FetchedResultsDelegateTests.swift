import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

@Suite struct FetchedResultsDelegateTests {
    @Test func oneChangeSetCallsTheDelegateInTheDocumentedOrder() throws {
        let stack = try ManagedTestStack()
        let grace = stack.employee("Grace", "Hopper"), ada = stack.employee("Ada", "Lovelace")
        let augusta = stack.employee("Augusta", "Lovelace")
        stack.employee("Alan", "Turing")
        try stack.context.save()
        let controller = try employeeController(stack)
        let log = DelegateLog()
        controller.delegate = log
        let before = controller.snapshot
        stack.context.delete(grace)
        stack.employee("Charles", "Babbage")
        stack.employee("Anne", "Lovelace")
        ada.lastName = "Turing"
        augusta.salary = 500
        stack.context.processPendingChanges()
        #expect(log.lines == [
            "will",
            "delete section 0 Hopper (1)",
            "insert section 0 Babbage (1)",
            "delete Grace [0, 0] -> nil",
            "insert Charles nil -> [0, 0]",
            "insert Anne nil -> [1, 0]",
            "move Ada [1, 0] -> [2, 0]",
            "update Augusta [1, 1] -> [1, 1]",
            "changes",
            "did",
        ])
        let changes = try #require(log.changeSets.first)
        #expect(apply(changes, to: before) == controller.snapshot)
        #expect(changes.description.split(separator: "\n").first == "delete section 0 \"Hopper\"")
    }

    @Test func theControllerHoldsTheNewResultsDuringTheCalls() throws {
        final class Reader: FetchedResultsControllerDelegate {
            var seen: [[String?]] = []
            func controllerWillChangeContent(_ controller: FetchedResultsController<TestEmployee>) {
                seen.append(controller.fetchedObjects?.map(\.firstName) ?? [])
            }
        }
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace")
        let controller = try employeeController(stack)
        let reader = Reader()
        controller.delegate = reader
        stack.employee("Alan", "Turing")
        stack.context.processPendingChanges()
        #expect(reader.seen == [["Ada", "Alan"]])
    }

    @Test func changesMadeByTheDelegateAreReportedAfterTheCurrentOnes() throws {
        final class Renamer: FetchedResultsControllerDelegate {
            let log = DelegateLog()
            func controller(
                _ controller: FetchedResultsController<TestEmployee>, didChange object: TestEmployee, at indexPath: IndexPath?,
                for type: FetchedResultsChangeType, newIndexPath: IndexPath?
            ) {
                log.controller(controller, didChange: object, at: indexPath, for: type, newIndexPath: newIndexPath)
                // Rolling back announces a change set at once, while this one is reported.
                if type == .insert { object.managedObjectContext?.rollback() }
            }
        }
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let renamer = Renamer()
        controller.delegate = renamer
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        #expect(renamer.log.lines == ["insert Ada nil -> [0, 0]", "delete Ada [0, 0] -> nil"])
        #expect(controller.fetchedObjects == [])
    }

    @Test func noDelegateCallForChangesThatLeaveTheResultsAlone() throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack, predicate: "salary > 50")
        let log = DelegateLog()
        controller.delegate = log
        stack.employee("Poor", "Lovelace", salary: 1)
        stack.context.processPendingChanges()
        #expect(log.lines.isEmpty)
    }
}
