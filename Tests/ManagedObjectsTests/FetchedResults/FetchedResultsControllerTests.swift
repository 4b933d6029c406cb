import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

@Suite struct FetchedResultsControllerTests {
    @Test func performFetchGivesSortedObjectsInSectionsByKeyPath() throws {
        let stack = try ManagedTestStack()
        let grace = stack.employee("Grace", "Hopper"), ada = stack.employee("Ada", "Lovelace")
        let alan = stack.employee("Alan", "Turing"), annie = stack.employee("Annie", "Hopper")
        try stack.context.save()
        let controller = try employeeController(stack)
        #expect(controller.fetchedObjects == [annie, grace, ada, alan])
        let sections = try #require(controller.sections)
        #expect(sections.map(\.name) == ["Hopper", "Lovelace", "Turing"])
        #expect(sections.map(\.numberOfObjects) == [2, 1, 1])
        #expect(sections[0].objects == [annie, grace])
        #expect(sections.map(\.indexTitle) == ["H", "L", "T"])
        #expect(controller.sectionIndexTitles == ["H", "L", "T"])
        #expect(try controller.object(at: [0, 1]) === grace)
        #expect(try controller.object(at: [2, 0]) === alan)
        #expect(controller.indexPath(forObject: ada) == [1, 0])
        #expect(controller.indexPath(forObject: annie) == [0, 0])
        #expect(try controller.section(forSectionIndexTitle: "L", at: 1) == 1)
    }

    @Test func withoutAKeyPathOneSectionHoldsEveryResultEvenNone() throws {
        let stack = try ManagedTestStack()
        let controller = try employeeController(stack, sectioned: false)
        #expect(controller.fetchedObjects == [])
        #expect(controller.sections?.count == 1)
        #expect(controller.sections?.first?.name == "")
        #expect(controller.sections?.first?.indexTitle == nil)
        #expect(controller.sectionIndexTitles == [])
        let ada = stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        #expect(controller.snapshot == [SectionSnapshot(name: "", ids: [ada.objectID])])
    }

    @Test func beforePerformFetchThereAreNoResults() throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace")
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        #expect(controller.fetchedObjects == nil)
        #expect(controller.sections == nil)
        stack.context.processPendingChanges()
        #expect(controller.fetchedObjects == nil)
        #expect((#expect(throws: FetchedResultsError.self) { try controller.object(at: [0, 0]) })?.code == .indexPathOutOfRange)
    }

    @Test func delegateChoosesSectionIndexTitles() throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace")
        stack.employee("Alan", "Turing")
        let controller = try employeeController(stack)
        let log = DelegateLog()
        log.titles = { $0 == "Turing" ? nil : "§" + $0.prefix(2) }
        controller.delegate = log
        #expect(controller.sections?.map(\.indexTitle) == ["§Lo", nil])
        #expect(controller.sectionIndexTitles == ["§Lo"])
        #expect(controller.sectionIndexTitle(forSectionName: "Hopper") == "§Ho")
    }

    @Test func sectionNamesOfOtherTypesAreTheirDescriptionAndNilIsEmpty() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", "Lovelace"), alan = stack.employee("Alan", "Turing")
        ada.age = 36
        alan.age = 41
        let nameless = stack.employee("Nameless", "X")
        nameless.lastName = nil
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "age"), KeyPathSortDescriptor(key: "firstName")])
        let byAge = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "age")
        try byAge.performFetch()
        #expect(byAge.sections?.map(\.name) == ["30", "36", "41"])
        let byName = try employeeController(stack)
        #expect(byName.sections?.map(\.name) == ["", "Lovelace", "Turing"])
        #expect(byName.sectionIndexTitles == ["L", "T"])
    }

    // MARK: - Errors

    @Test func aRequestWithoutSortDescriptorsIsRefused() throws {
        let stack = try ManagedTestStack()
        let error = #expect(throws: FetchedResultsError.self) {
            try FetchedResultsController(fetchRequest: FetchRequest<TestEmployee>(entityName: "Employee"), managedObjectContext: stack.context)
        }
        #expect(error?.code == .missingSortDescriptors)
    }

    @Test(arguments: [(-1, 0), (0, -2)])
    func aNegativeLimitOrOffsetIsRefused(limit: Int, offset: Int) throws {
        let stack = try ManagedTestStack()
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        request.fetchLimit = limit
        request.fetchOffset = offset
        let error = #expect(throws: FetchedResultsError.self) {
            try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        }
        #expect(error?.code == .unsupportedFetchRequest)
    }

    @Test func sectionsOutOfOrderFailPerformFetchAndKeepTheResultsThereWere() throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace", salary: 1)
        stack.employee("Alan", "Turing", salary: 2)
        try stack.context.save()
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "lastName")
        try controller.performFetch()
        let before = controller.snapshot
        // Another context saves a third employee whose salary puts it between the two sections.
        let other = stack.makeContext()
        let ada2 = TestEmployee(context: other)
        ada2.firstName = "Augusta"
        ada2.lastName = "Lovelace"
        ada2.salary = 3
        try other.save()
        do {
            try controller.performFetch()
            Issue.record("performFetch succeeded with sections out of order")
        } catch let error as FetchedResultsError {
            #expect(error.code == .sectionsOutOfOrder)
            #expect(error.message.contains("index 2"))
        }
        #expect(controller.snapshot == before)
    }

    @Test func anUnknownEntityFailsPerformFetch() throws {
        let stack = try ManagedTestStack()
        let request = FetchRequest<TestEmployee>(entityName: "Nobody", sortDescriptors: [KeyPathSortDescriptor(key: "name")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        #expect((#expect(throws: ModelError.self) { try controller.performFetch() })?.code == .unknownEntity)
        #expect(controller.fetchedObjects == nil)
    }

    @Test(arguments: [[0, 2], [3, 0], [-1, 0], [0, -1], [0], [0, 0, 0]] as [IndexPath])
    func indexPathsOutsideTheResultsThrow(indexPath: IndexPath) throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace")
        stack.employee("Annie", "Lovelace")
        let controller = try employeeController(stack)
        #expect((#expect(throws: FetchedResultsError.self) { try controller.object(at: indexPath) })?.code == .indexPathOutOfRange)
    }

    @Test func anUnknownSectionIndexTitleThrows() throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace")
        let controller = try employeeController(stack)
        #expect((#expect(throws: FetchedResultsError.self) { try controller.section(forSectionIndexTitle: "Q", at: 0) })?.code == .unknownSectionIndexTitle)
    }

    @Test func indexPathOfAnObjectNotInTheResultsIsNil() throws {
        let stack = try ManagedTestStack()
        let poor = stack.employee("Poor", "Lovelace", salary: 1)
        let controller = try employeeController(stack, predicate: "salary > 10")
        #expect(controller.indexPath(forObject: poor) == nil)
    }

    @Test func aChangeThatPutsASectionApartFailsTrackingAndDropsTheResults() throws {
        let stack = try ManagedTestStack()
        stack.employee("Ada", "Lovelace", salary: 1)
        stack.employee("Augusta", "Lovelace", salary: 2)
        let alan = stack.employee("Alan", "Turing", salary: 3)
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "lastName")
        try controller.performFetch()
        let log = DelegateLog()
        controller.delegate = log
        alan.salary = 1.5
        stack.context.processPendingChanges()
        #expect(log.lines == ["failed trackingFailed"])
        let failure = try #require(log.failures.first)
        #expect((failure.underlyingError as? FetchedResultsError)?.code == .sectionsOutOfOrder)
        #expect(controller.fetchedObjects == nil)
        // Nothing else is reported until the next fetch, which fails for the same reason.
        alan.salary = 1.7
        stack.context.processPendingChanges()
        #expect(log.lines.count == 1)
        #expect((#expect(throws: FetchedResultsError.self) { try controller.performFetch() })?.code == .sectionsOutOfOrder)
        alan.salary = 5
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["Lovelace", "Turing"])
    }

    @Test func aKeyThatCannotBeReadFailsTracking() throws {
        let stack = try ManagedTestStack()
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        request.predicate = try KeyValuePredicate(format: "noSuchKey == 1")
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        try controller.performFetch()  // no employee yet: the predicate reads nothing
        let log = DelegateLog()
        controller.delegate = log
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
        let failure = try #require(log.failures.first)
        #expect(failure.code == .trackingFailed)
        #expect(failure.underlyingError is KeyValueCodingError)
        #expect(controller.fetchedObjects == nil)
        #expect((failure as NSError).domain == "ModelObjects.FetchedResultsError")
        #expect((failure as NSError).code == 6)
    }

    @Test func aControllerGoneFromItsContextIsNoLongerTold() throws {
        let stack = try ManagedTestStack()
        var controller: FetchedResultsController<TestEmployee>? = try employeeController(stack)
        weak let weakController = controller
        #expect(stack.context.changeObservers.count == 1)
        controller = nil
        #expect(weakController == nil)
        #expect(stack.context.changeObservers.isEmpty)
        stack.employee("Ada", "Lovelace")
        stack.context.processPendingChanges()
    }
}
