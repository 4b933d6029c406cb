import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// One diff per kind of change, each checked by applying it to the old results.
@Suite struct FetchedResultsChangeTests {
    /// A stack with Hopper (Grace), Lovelace (Ada, Augusta), Turing (Alan), saved, and a
    /// controller by last name over salaries above 50, with a delegate log.
    struct Fixture {
        let stack: ManagedTestStack
        let grace: TestEmployee, ada: TestEmployee, augusta: TestEmployee, alan: TestEmployee
        let controller: FetchedResultsController<TestEmployee>
        let log = DelegateLog()
        var before: [SectionSnapshot]

        init(sectioned: Bool = true) throws {
            stack = try ManagedTestStack()
            grace = stack.employee("Grace", "Hopper")
            ada = stack.employee("Ada", "Lovelace")
            augusta = stack.employee("Augusta", "Lovelace")
            alan = stack.employee("Alan", "Turing")
            try stack.context.save()
            controller = try employeeController(stack, predicate: "salary > 50", sectioned: sectioned)
            controller.delegate = log
            before = controller.snapshot
        }

        /// Processes the pending changes and returns the one change set reported, after
        /// checking that applying it to the results before gives the results after.
        mutating func process() throws -> FetchedResultsChangeSet {
            stack.context.processPendingChanges()
            #expect(log.changeSets.count == 1)
            let changes = try #require(log.changeSets.last)
            #expect(apply(changes, to: before) == controller.snapshot)
            before = controller.snapshot
            log.changeSets = []
            return changes
        }
    }

    @Test func insertingIntoASectionInsertsARow() throws {
        var fixture = try Fixture()
        fixture.stack.employee("Anne", "Lovelace")
        let changes = try fixture.process()
        #expect(changes.insertedIndexPaths == [[1, 1]])
        #expect(changes.sectionChanges.isEmpty)
        #expect(fixture.log.changes == ["insert Anne nil -> [1, 1]"])
    }

    @Test func insertingANewSectionsFirstObjectInsertsTheSectionAndTheRow() throws {
        var fixture = try Fixture()
        fixture.stack.employee("Charles", "Babbage")
        let changes = try fixture.process()
        #expect(changes.insertedSections == [0])
        #expect(changes.insertedIndexPaths == [[0, 0]])
        #expect(fixture.log.changes == ["insert section 0 Babbage (1)", "insert Charles nil -> [0, 0]"])
    }

    @Test func deletingRemovesTheRow() throws {
        var fixture = try Fixture()
        fixture.stack.context.delete(fixture.ada)
        let changes = try fixture.process()
        #expect(changes.deletedIndexPaths == [[1, 0]])
        #expect(changes.objectChanges.first?.objectID == fixture.ada.objectID)
        #expect(fixture.log.changes == ["delete Ada [1, 0] -> nil"])
    }

    @Test func deletingASectionsLastObjectDeletesTheSectionAndTheRow() throws {
        var fixture = try Fixture()
        fixture.stack.context.delete(fixture.grace)
        let changes = try fixture.process()
        #expect(changes.deletedSections == [0])
        #expect(changes.deletedIndexPaths == [[0, 0]])
        #expect(fixture.log.changes == ["delete section 0 Hopper (1)", "delete Grace [0, 0] -> nil"])
    }

    @Test func changingAValueInPlaceIsAnUpdate() throws {
        var fixture = try Fixture()
        fixture.augusta.salary = 200
        let changes = try fixture.process()
        #expect(changes.updatedIndexPaths == [[1, 1]])
        #expect(changes.updates.map(\.to) == [[1, 1]])
        #expect(fixture.log.changes == ["update Augusta [1, 1] -> [1, 1]"])
    }

    @Test func anUpdateAfterADeletionGivesItsOldAndNewIndexPaths() throws {
        var fixture = try Fixture()
        fixture.stack.context.delete(fixture.ada)
        fixture.augusta.salary = 200
        let changes = try fixture.process()
        #expect(changes.deletedIndexPaths == [[1, 0]])
        #expect(changes.updatedIndexPaths == [[1, 1]])
        #expect(changes.updates.map(\.to) == [[1, 0]])
    }

    @Test func changingASortKeyMovesTheRowWithinItsSection() throws {
        var fixture = try Fixture()
        fixture.ada.firstName = "Zoe"
        let changes = try fixture.process()
        #expect(changes.movedIndexPaths.map(\.from) == [[1, 0]])
        #expect(changes.movedIndexPaths.map(\.to) == [[1, 1]])
        #expect(fixture.log.changes == ["move Zoe [1, 0] -> [1, 1]"])
    }

    @Test func changingTheSectionKeyMovesTheRowBetweenSections() throws {
        var fixture = try Fixture()
        fixture.ada.lastName = "Hopper"
        let changes = try fixture.process()
        #expect(changes.sectionChanges.isEmpty)
        #expect(fixture.log.changes == ["move Ada [1, 0] -> [0, 0]"])
    }

    @Test func movingIntoANewSectionIsADeletionAndAnInsertion() throws {
        var fixture = try Fixture()
        fixture.ada.lastName = "Byron"
        let changes = try fixture.process()
        #expect(changes.insertedSections == [0])
        #expect(changes.movedIndexPaths.isEmpty)
        #expect(fixture.log.changes == ["insert section 0 Byron (1)", "delete Ada [1, 0] -> nil", "insert Ada nil -> [0, 0]"])
    }

    @Test func movingOutOfASectionThatGoesIsADeletionAndAnInsertion() throws {
        var fixture = try Fixture()
        fixture.grace.lastName = "Lovelace"
        let changes = try fixture.process()
        #expect(changes.deletedSections == [0])
        #expect(fixture.log.changes == ["delete section 0 Hopper (1)", "delete Grace [0, 0] -> nil", "insert Grace nil -> [0, 2]"])
    }

    @Test func changingOutOfThePredicateDeletesAndBackInInserts() throws {
        var fixture = try Fixture()
        fixture.augusta.salary = 10
        var changes = try fixture.process()
        #expect(changes.deletedIndexPaths == [[1, 1]])
        fixture.augusta.salary = 60
        changes = try fixture.process()
        #expect(changes.insertedIndexPaths == [[1, 1]])
    }

    @Test func changesOutsideTheResultsReportNothing() throws {
        let fixture = try Fixture()
        let poor = fixture.stack.employee("Poor", "Lovelace", salary: 1)
        fixture.stack.context.processPendingChanges()
        poor.salary = 2
        _ = fixture.stack.department("Research")
        fixture.stack.context.processPendingChanges()
        #expect(fixture.log.lines.isEmpty)
        #expect(fixture.controller.snapshot == fixture.before)
    }

    @Test func aSectionThatChangesPlaceIsDeletedAndInserted() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", "Lovelace"), augusta = stack.employee("Augusta", "Lovelace")
        let alan = stack.employee("Alan", "Turing")
        ada.age = 20
        augusta.age = 20
        alan.age = 30
        let request = FetchRequest<TestEmployee>(
            entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "age"), KeyPathSortDescriptor(key: "firstName")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "lastName")
        try controller.performFetch()
        let log = DelegateLog()
        controller.delegate = log
        let before = controller.snapshot
        ada.age = 40
        augusta.age = 40
        stack.context.processPendingChanges()
        let changes = try #require(log.changeSets.first)
        #expect(controller.sections?.map(\.name) == ["Turing", "Lovelace"])
        #expect(changes.deletedSections == [0])
        #expect(changes.insertedSections == [1])
        #expect(apply(changes, to: before) == controller.snapshot)
    }

    @Test func changesMergedFromAnotherContextAreFollowed() throws {
        var fixture = try Fixture()
        let other = fixture.stack.makeContext()
        let saved = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: fixture.stack.center)
        let adaThere = try #require(try other.existingObject(with: fixture.ada.objectID) as? TestEmployee)
        adaThere.firstName = "Zoe"
        let graceThere = try #require(try other.existingObject(with: fixture.grace.objectID) as? TestEmployee)
        other.delete(graceThere)
        try other.save()
        fixture.stack.context.mergeChanges(fromContextDidSave: saved.notifications[0])
        let changes = try fixture.process()
        #expect(changes.deletedSections == [0])
        #expect(changes.movedIndexPaths.map(\.to) == [[0, 1]])
        #expect(fixture.controller.fetchedObjects?.map(\.firstName) == ["Augusta", "Zoe", "Alan"])
    }

    @Test func aRefreshedObjectWhoseRecordAnotherContextDeletedLeaves() throws {
        var fixture = try Fixture()
        let other = fixture.stack.makeContext()
        other.delete(try #require(try other.existingObject(with: fixture.ada.objectID) as? TestEmployee))
        try other.save()
        fixture.stack.context.refresh(fixture.ada, mergeChanges: false)
        let changes = try fixture.process()
        #expect(changes.deletedIndexPaths == [[1, 0]])
        #expect(fixture.controller.fetchedObjects == [fixture.grace, fixture.augusta, fixture.alan])
    }

    @Test func refreshingAChangedObjectBackToItsSavedValuesIsFollowed() throws {
        var fixture = try Fixture()
        fixture.ada.firstName = "Zoe"
        _ = try fixture.process()
        fixture.stack.context.refresh(fixture.ada, mergeChanges: false)
        let changes = try fixture.process()
        #expect(changes.movedIndexPaths.map(\.to) == [[1, 0]])
        #expect(fixture.controller.fetchedObjects?.map(\.firstName) == ["Grace", "Ada", "Augusta", "Alan"])
    }

    @Test func rollingBackIsFollowed() throws {
        var fixture = try Fixture()
        fixture.stack.context.delete(fixture.grace)
        fixture.stack.employee("Charles", "Babbage")
        _ = try fixture.process()
        fixture.stack.context.rollback()
        let changes = try fixture.process()
        #expect(changes.insertedSections == [0])
        #expect(changes.deletedSections == [0])
        #expect(fixture.controller.fetchedObjects == [fixture.grace, fixture.ada, fixture.augusta, fixture.alan])
    }

    @Test func savingChangesNothing() throws {
        var fixture = try Fixture()
        fixture.stack.employee("Charles", "Babbage")
        _ = try fixture.process()
        try fixture.stack.context.save()
        #expect(fixture.log.changeSets.isEmpty)
        #expect(fixture.controller.fetchedObjects?.count == 5)
    }

    @Test func swappedNeighboursAreMovesNotUpdates() throws {
        // Ada and Augusta swap places between the same unchanged neighbours: updates alone
        // would leave them where they were.
        var fixture = try Fixture()
        fixture.ada.firstName = "Aur"
        fixture.augusta.firstName = "Aa"
        let changes = try fixture.process()
        #expect(changes.updatedIndexPaths.isEmpty)
        #expect(changes.movedIndexPaths.count == 2)
    }

    @Test func anObjectThatKeepsItsIndexButPassesAnotherIsAMove() throws {
        // [Grace, Ada, Augusta, Alan] with Grace deleted and Ada renamed past Augusta: Ada's
        // index path stays [0, 1] (Core Data would call that an update), but she passed an
        // unchanged row, so only a move puts her in place.
        var fixture = try Fixture(sectioned: false)
        fixture.stack.context.delete(fixture.grace)
        fixture.ada.firstName = "Ay"
        let changes = try fixture.process()
        #expect(changes.objectChanges.map(\.type) == [.delete, .move])
        #expect(changes.movedIndexPaths.map(\.from) == [[0, 1]])
        #expect(changes.movedIndexPaths.map(\.to) == [[0, 1]])
    }
}


@Suite struct FetchedResultsAnnouncementTests {
    @Test func rollbackOfAnInsertedObjectDeletedSinceTakesItOut() throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let ada = stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        #expect(controller.fetchedObjects == [ada])
        stack.context.delete(ada)
        stack.context.rollback()
        #expect(controller.fetchedObjects == [])
    }

    @Test func aControllerFollowsAnInsertedObjectChangedLater() throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack)
        let ada = stack.employee("Ada", "Lovelace")
        stack.employee("Alan", "Turing")
        stack.context.processPendingChanges()
        ada.lastName = "Zuse"
        stack.context.processPendingChanges()
        #expect(controller.sections?.map(\.name) == ["Turing", "Zuse"])
    }
}
