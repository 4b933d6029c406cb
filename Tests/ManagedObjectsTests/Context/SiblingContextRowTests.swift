import Foundation
import Testing
@testable import ManagedObjects

/// A fault keeps the row its fetch read; when another context of the same coordinator saves a
/// change to that record, the fault fires from the store instead (no merge needed), and
/// `stalenessInterval` bounds how old a row may be.
@Suite struct SiblingContextRowTests {
    /// A stack whose context saved Ada (salary 1000) and Grace, and a second context holding
    /// both as faults from a fetch, with their rows.
    private func makeFaults(_ kind: TestStore.Kind, configure: (ManagedObjectContext) -> Void = { _ in }) throws
        -> (stack: ManagedTestStack, reader: ManagedObjectContext, ada: TestEmployee, grace: TestEmployee, writerAda: TestEmployee, writerGrace: TestEmployee)
    {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let writerAda = stack.employee("Ada", salary: 1000)
        let writerGrace = stack.employee("Grace", salary: 2000)
        try stack.context.save()
        let reader = stack.makeContext()
        configure(reader)
        let fetched = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let ada = try #require(fetched.first { $0.objectID == writerAda.objectID })
        let grace = try #require(fetched.first { $0.objectID == writerGrace.objectID })
        #expect(ada.isFault && grace.isFault)
        return (stack, reader, ada, grace, writerAda, writerGrace)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aFaultWhoseRecordASiblingDeletedThrowsObjectNotFound(kind: TestStore.Kind) throws {
        let (stack, reader, ada, grace, _, writerGrace) = try makeFaults(kind)
        defer { withExtendedLifetime(reader) {} }
        stack.context.delete(writerGrace)
        try stack.context.save()
        let error = #expect(throws: PersistenceError.self) { try grace.fireFault() }
        #expect(error?.code == .objectNotFound)
        #expect(error?.code.rawValue == 133_000)
        #expect(grace.isFault)
        try ada.fireFault()
        #expect(ada.firstName == "Ada")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aFaultWhoseRecordASiblingUpdatedFiresWithTheSavedValues(kind: TestStore.Kind) throws {
        let (stack, reader, ada, _, writerAda, _) = try makeFaults(kind)
        writerAda.salary = 1500
        try stack.context.save()
        #expect(ada.salary == 1500)
        ada.salary = 1600
        try reader.save()  // no conflict: the fault read the saved version
        writerAda.salary = 1700
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .mergeConflict)
    }

    /// The rare state takes the word that holds a fault's row; the row, with its read, stays
    /// the fault's, and comes back to the word when the rare state goes.
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aFaultHoldingTheRareStateKeepsItsRowAndItsRead(kind: TestStore.Kind) throws {
        let (stack, reader, ada, grace, writerAda, _) = try makeFaults(kind)
        defer { withExtendedLifetime(reader) {} }
        for fault in [ada, grace] {
            let row = try #require(fault.fetchedRow.storage)
            #expect(row.rowRead != nil)
            fault.primitiveProbe = .probing
            #expect(fault.rareState != nil)
            guard case .rare = fault.rowState else { Issue.record("the word holds \(fault.rowState)"); continue }
            #expect(fault.fetchedRow.storage === row)
        }
        // Ada's record changes after her row was read: firing reads the store, rare state or not.
        writerAda.salary = 1500
        try stack.context.save()
        #expect(ada.salary == 1500)
        #expect(grace.salary == 2000)
        grace.primitiveProbe = .idle
        #expect(grace.rareState == nil)
        guard case .snapshot(let buffer) = grace.rowState else {
            Issue.record("the word holds \(grace.rowState)")
            return
        }
        #expect(grace.values.storage === buffer)
    }

    @Test func rowsOfRecordsNoSiblingChangedFireWithoutReadingTheStore() throws {
        let (stack, reader, ada, grace, writerAda, _) = try makeFaults(.sqlite)
        defer { withExtendedLifetime(reader) {} }
        let store = try #require(stack.sqliteStore)
        writerAda.salary = 1500
        try stack.context.save()
        let firing = store.recordingSQL { _ = grace.salary }
        #expect(firing.isEmpty, "\(firing)")
        let stale = store.recordingSQL { _ = ada.salary }
        #expect(stale.count == 1, "\(stale)")
        #expect(ada.salary == 1500)
    }

    @Test func aBatchOfFaultsLoadedBeforeASiblingsSaveReadsTheChangedRecordsAgain() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let writers = (0..<6).map { stack.employee("E\($0)", salary: Double(1000 + $0)) }
        try stack.context.save()
        let reader = stack.makeContext()
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.fetchBatchSize = 3
        let employees = try reader.fetch(request)
        #expect(employees[0].salary == 1000)  // loads the first batch's rows
        writers[1].salary = 5000
        stack.context.delete(writers[2])
        try stack.context.save()
        #expect(employees[1].salary == 5000)
        #expect((#expect(throws: PersistenceError.self) { try employees[2].fireFault() })?.code == .objectNotFound)
    }

    @Test func aStalenessIntervalOfZeroReadsTheStoreForEveryFault() throws {
        let (stack, reader, ada, _, _, _) = try makeFaults(.sqlite) { $0.stalenessInterval = 0 }
        defer { withExtendedLifetime(reader) {} }
        let store = try #require(stack.sqliteStore)
        // Another coordinator (as another process would) changes the record: this coordinator
        // cannot know, so only the interval makes the fault read it again.
        let (_, other) = try stack.reopened()
        let theirs = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        theirs.salary = 3000
        try other.save()
        let firing = store.recordingSQL { _ = ada.salary }
        #expect(firing.count == 1, "\(firing)")
        #expect(ada.salary == 3000)
    }

    @Test func withinTheStalenessIntervalAFaultFiresFromItsRow() throws {
        let (stack, reader, ada, _, _, _) = try makeFaults(.sqlite) { $0.stalenessInterval = 3600 }
        defer { withExtendedLifetime(reader) {} }
        let store = try #require(stack.sqliteStore)
        let (_, other) = try stack.reopened()
        let theirs = try #require(try other.existingObject(with: ada.objectID) as? TestEmployee)
        theirs.salary = 3000
        try other.save()
        let firing = store.recordingSQL { _ = ada.salary }
        #expect(firing.isEmpty, "\(firing)")
        #expect(ada.salary == 1000, "the row read by the fetch, less than an hour old")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aBatchInsertThatGrowsARelationshipMakesTheTargetsRowStale(kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        try stack.context.save()
        let reader = stack.makeContext()
        let fetched = try #require(try reader.fetch(FetchRequest<TestDepartment>(entityName: "Department")).first)
        #expect(fetched.isFault)
        try stack.context.execute(BatchInsertRequest(entityName: "Employee", objects: [["firstName": "Ada", "department": research]]))
        // The fault reads the record the batch insert wrote (a new version), so saving a change
        // to it is no conflict.
        #expect(fetched.employees.compactMap(\.firstName) == ["Ada"])
        fetched.name = "Science"
        try reader.save()
    }

    @Test func theLogOfSavedRecordsMarksRowsReadBeforeAChange() throws {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Person"))
        func id(_ key: Int64) -> ManagedObjectID { ManagedObjectID(entity: entity, storeIdentifier: "S", primaryKey: key) }
        let log = SavedRecordLog()
        let first = log.read()
        #expect(!log.isStale(id(1), since: first))
        log.recordSave(changing: [id(1)])
        #expect(log.isStale(id(1), since: first))
        #expect(!log.isStale(id(2), since: first))
        let second = log.read()
        #expect(!log.isStale(id(1), since: second))
        // Past its limit the log starts again: every row read before is stale.
        log.recordSave(changing: (10...Int64(10 + SavedRecordLog.limit)).map(id))
        #expect(log.isStale(id(2), since: second))
        #expect(!log.isStale(id(2), since: log.read()))
    }
}
