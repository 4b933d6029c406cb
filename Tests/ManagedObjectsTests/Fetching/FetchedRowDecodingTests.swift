import Foundation
import Testing
@testable import ManagedObjects

/// A fetch decodes each row into the entity's typed storage once, and a fault keeps only that
/// buffer: firing adopts it as the object's values and snapshot without converting or copying
/// anything, and without reading the store.
@Suite struct FetchedRowDecodingTests {
    /// A stack whose context saved Ada (salary 1000) in Research, and a second context.
    private func makeStack(_ kind: TestStore.Kind) throws -> (stack: ManagedTestStack, ada: TestEmployee, research: TestDepartment) {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        let ada = stack.employee("Ada", salary: 1000)
        ada.age = 36
        ada.department = research
        try stack.context.save()
        return (stack, ada, research)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aFetchedFaultHoldsItsDecodedRowAndFiringAdoptsTheBuffer(kind: TestStore.Kind) throws {
        let (stack, written, research) = try makeStack(kind)
        let reader = stack.makeContext()
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        #expect(ada.isFault)
        #expect(ada.values.isEmpty, "a fault's own storage stays empty")
        let row = ada.fetchedRow
        #expect(row.hasBuffer)
        let salaryIndex = try #require(ada.entity.propertiesByName["salary"]).index
        let departmentIndex = try #require(ada.entity.propertiesByName["department"]).index
        let projectsIndex = try #require(ada.entity.propertiesByName["projects"]).index
        #expect(row.load(Double.self, at: salaryIndex) == 1000)
        // The to-one is a registered object (a fault) already; the to-many a relationship fault.
        let department = try #require(row.load(ManagedObject.self, at: departmentIndex))
        #expect(department.objectID == research.objectID)
        #expect(reader.registeredObject(for: research.objectID) === department)
        #expect(department.isFault)
        #expect(row[projectsIndex] is RelationshipFault)
        #expect(ada.snapshotVersion == 1)

        try ada.fireFault()
        #expect(!ada.isFault)
        #expect(ada.values.bufferIdentity == row.bufferIdentity, "fired without a copy")
        #expect(ada.snapshot.map { ada.values.isIdentical(to: $0) } == true)
        #expect(!ada.fetchedRow.hasBuffer, "the fault's row is released once adopted")
        #expect(ada.salary == 1000 && ada.age == 36 && ada.firstName == "Ada")
        #expect(ada.department === department)
        #expect(ada.changedValues().isEmpty)
        ada.salary = 1100
        try reader.save()  // the row's version: no conflict
        #expect(ada.snapshotVersion == 2)
        #expect(written.objectID == ada.objectID)
    }

    @Test func firingAFaultFromItsRowReadsNothing() throws {
        let (stack, _, _) = try makeStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let reader = stack.makeContext()
        let employees = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let before = store.statementCount
        for employee in employees { try employee.fireFault() }
        #expect(employees.map(\.salary) == [1000])
        #expect(store.statementCount == before)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aStaleRowIsDroppedAndFiringReadsTheSavedValues(kind: TestStore.Kind) throws {
        let (stack, written, _) = try makeStack(kind)
        let reader = stack.makeContext()
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        written.salary = 1500
        try stack.context.save()

        #expect(ada.salary == 1500)
        #expect(ada.snapshotVersion == 2, "the version of the record read, not of the stale row")
        ada.salary = 1600
        try reader.save()
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aRowWhoseRecordWasDeletedThrowsObjectNotFound(kind: TestStore.Kind) throws {
        let (stack, written, _) = try makeStack(kind)
        let reader = stack.makeContext()
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        stack.context.delete(written)
        try stack.context.save()

        let error = #expect(throws: PersistenceError.self) { try ada.fireFault() }
        #expect(error?.code == .objectNotFound)
        #expect(ada.isFault)
        #expect(!ada.fetchedRow.hasBuffer)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aZeroStalenessIntervalNeverUsesTheRow(kind: TestStore.Kind) throws {
        let (stack, _, _) = try makeStack(kind)
        let reader = stack.makeContext()
        reader.stalenessInterval = 0
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        let row = ada.fetchedRow
        #expect(row.hasBuffer)
        try ada.fireFault()
        #expect(ada.values.bufferIdentity != row.bufferIdentity, "read again from the store")
        #expect(ada.salary == 1000)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func refreshingOrTurningIntoAFaultReleasesTheRow(kind: TestStore.Kind) throws {
        let (stack, _, _) = try makeStack(kind)
        let reader = stack.makeContext()
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        reader.refresh(ada, mergeChanges: false)
        #expect(ada.isFault && !ada.fetchedRow.hasBuffer)
        #expect(ada.salary == 1000)

        _ = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(!ada.fetchedRow.hasBuffer, "a loaded object keeps its values, takes no row")
        reader.refresh(ada, mergeChanges: false)
        _ = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(ada.isFault && ada.fetchedRow.hasBuffer, "a refetched fault takes the fresh row")
        reader.reset()
        #expect(!ada.fetchedRow.hasBuffer)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func deletingAnUnfiredFaultSavesWithTheRowsVersion(kind: TestStore.Kind) throws {
        let (stack, _, _) = try makeStack(kind)
        let reader = stack.makeContext()
        let ada = try #require(try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        reader.delete(ada)
        try reader.save()
        #expect(try stack.makeContext().count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 0)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func batchedFaultsTakeDecodedRowsWhenTheirBatchLoads(kind: TestStore.Kind) throws {
        let (stack, _, research) = try makeStack(kind)
        _ = stack.employee("Grace", salary: 2000)
        _ = stack.employee("Linus", salary: 3000)
        try stack.context.save()
        let reader = stack.makeContext()
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.fetchBatchSize = 2
        let employees = try reader.fetch(request)
        #expect(employees.count == 3)
        #expect(employees.allSatisfy { $0.isFault })
        try employees[0].fireFault()
        #expect(employees[1].isFault && employees[1].fetchedRow.hasBuffer, "its batch was read with the first")
        #expect(!employees[2].fetchedRow.hasBuffer, "another batch")
        #expect(reader.registeredObject(for: research.objectID) != nil)
        #expect(employees.map(\.salary) == [1000, 2000, 3000])
        #expect(employees[0].department?.name == "Research")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func prefetchedObjectsAreLoadedFromDecodedRows(kind: TestStore.Kind) throws {
        let (stack, _, _) = try makeStack(kind)
        let reader = stack.makeContext()
        var request = FetchRequest<TestDepartment>(entityName: "Department")
        request.relationshipKeyPathsForPrefetching = ["employees"]
        let research = try #require(try reader.fetch(request).first)
        let ada = try #require(research.employees.first)
        #expect(!ada.isFault)
        #expect(!ada.fetchedRow.hasBuffer)
        #expect(ada.salary == 1000 && ada.department === research)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aChildContextsFaultsHoldRowsOfItsOwnObjects(kind: TestStore.Kind) throws {
        let (stack, _, research) = try makeStack(kind)
        let parent = stack.makeContext()
        let parentResearch = try #require(try parent.existingObject(with: research.objectID) as? TestDepartment)
        parentResearch.name = "Research and Development"
        let child = ManagedObjectContext(parent: parent, notificationCenter: stack.center)
        let ada = try #require(try child.fetch(FetchRequest<TestEmployee>(entityName: "Employee")).first)
        #expect(ada.isFault && ada.fetchedRow.hasBuffer)
        let departmentIndex = try #require(ada.entity.propertiesByName["department"]).index
        let department = try #require(ada.fetchedRow.load(ManagedObject.self, at: departmentIndex))
        #expect(department !== parentResearch)
        #expect(department.managedObjectContext === child)
        #expect(ada.department?.name == "Research and Development", "the parent's unsaved change")
    }

    /// A row its transformer cannot read leaves the fault without one: the fetch succeeds, and
    /// firing reads the store again and reports the error.
    @Test func aRowThatDoesNotDecodeLeavesTheFaultWithoutOne() throws {
        let name = PrefixingTransformer.registerUniquely(for: "FetchedRowDecodingTests", prefix: "A")
        defer { ValueTransformerRegistry.unregister(name: name) }
        let model = try ManagedObjectModel {
            Entity("Box") {
                Property("payload", .transformable, transformer: name)
            }
        }
        let entity = try #require(model.entity(named: "Box"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(InMemoryStore())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try ManagedObject(entity: entity, insertInto: writer).setValue("hello", forKey: "payload")
        try writer.save()

        ValueTransformerRegistry.register(PrefixingTransformer(prefix: "B"), forName: name)
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let box = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
        #expect(box.isFault && !box.fetchedRow.hasBuffer)
        #expect((#expect(throws: PersistenceError.self) { try box.fireFault() })?.code == .operationFailed)
    }
}
