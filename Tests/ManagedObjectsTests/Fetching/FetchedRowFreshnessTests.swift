import Foundation
import Testing
@testable import ManagedObjects

/// A fetched fault keeps the row its fetch read until it fires; saves of other contexts,
/// merges, refreshes and refetches must not leave it firing from a stale row.
@Suite struct FetchedRowFreshnessTests {
    /// A stack whose context saved Ada (salary 1000) and Grace, and a second context holding
    /// both as unfired faults from a fetch.
    private struct Faults {
        let stack: ManagedTestStack
        let reader: ManagedObjectContext
        /// The reader's unfired faults.
        let ada: TestEmployee, grace: TestEmployee
        /// The writer's objects for the same records.
        let writerAda: TestEmployee, writerGrace: TestEmployee
    }

    private func makeFaults(_ kind: TestStore.Kind) throws -> Faults {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let writerAda = stack.employee("Ada", salary: 1000)
        let writerGrace = stack.employee("Grace", salary: 2000)
        try stack.context.save()
        let reader = stack.makeContext()
        let fetched = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let ada = try #require(fetched.first { $0.objectID == writerAda.objectID })
        let grace = try #require(fetched.first { $0.objectID == writerGrace.objectID })
        #expect(ada.isFault && grace.isFault)
        return Faults(stack: stack, reader: reader, ada: ada, grace: grace, writerAda: writerAda, writerGrace: writerGrace)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func mergingAnotherContextsSaveReachesUnfiredFaults(kind: TestStore.Kind) throws {
        let faults = try makeFaults(kind)
        let (stack, reader, ada, grace, writerAda, writerGrace) = (faults.stack, faults.reader, faults.ada, faults.grace, faults.writerAda, faults.writerGrace)
        let recorder = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        writerAda.salary = 1500
        stack.context.delete(writerGrace)
        try stack.context.save()
        reader.mergeChanges(fromContextDidSave: try #require(recorder.notifications.last))

        #expect(ada.isFault)
        #expect(ada.salary == 1500)
        #expect(grace.isDeleted)
        #expect((#expect(throws: PersistenceError.self) { try grace.fireFault() })?.code == .objectNotFound)
        ada.salary = 1600
        try reader.save()  // no conflict: the fault read the saved version
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func refreshingAFaultMakesItReadTheStore(kind: TestStore.Kind) throws {
        let faults = try makeFaults(kind)
        let (stack, reader, ada, grace, writerAda, writerGrace) = (faults.stack, faults.reader, faults.ada, faults.grace, faults.writerAda, faults.writerGrace)
        writerAda.salary = 1500
        stack.context.delete(writerGrace)
        try stack.context.save()

        reader.refresh(ada, mergeChanges: false)
        reader.refresh(grace, mergeChanges: true)
        #expect(ada.isFault && grace.isFault)
        #expect(ada.salary == 1500)
        #expect((#expect(throws: PersistenceError.self) { try grace.fireFault() })?.code == .objectNotFound)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func refetchingGivesFaultsTheFresherRow(kind: TestStore.Kind) throws {
        let faults = try makeFaults(kind)
        let (stack, reader, ada, writerAda) = (faults.stack, faults.reader, faults.ada, faults.writerAda)
        writerAda.salary = 1500
        try stack.context.save()

        let again = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "salary > 1200")))
        #expect(again.count == 2)
        #expect(again.contains { $0 === ada })
        #expect(ada.salary == 1500)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func refreshWithMergeKeepsUnsavedChangesWhenTheRecordIsGone(kind: TestStore.Kind) throws {
        let faults = try makeFaults(kind)
        let (stack, reader, ada, writerAda) = (faults.stack, faults.reader, faults.ada, faults.writerAda)
        ada.salary = 1700
        stack.context.delete(writerAda)
        try stack.context.save()

        reader.refresh(ada, mergeChanges: true)
        #expect(!ada.isFault)
        #expect(ada.isUpdated)
        #expect(ada.salary == 1700)
        #expect(reader.hasChanges)
    }

    /// Predicates matched in memory see the objects themselves, faults included: `SELF`
    /// compares objects and unknown keys throw.
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func inMemoryMatchingOfFaultsSeesTheObjects(kind: TestStore.Kind) throws {
        let faults = try makeFaults(kind)
        let (reader, ada, grace) = (faults.reader, faults.ada, faults.grace)
        let mine = try reader.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "SELF IN %@ AND firstName LIKE '*a*'", [ada])))
        #expect(mine.count == 1 && mine.first === ada)
        #expect(ada.isFault && grace.isFault, "matched on their rows, not fired")
        let notGrace = try reader.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "SELF != %@ AND firstName ==[c] 'ada'", grace)))
        #expect(notGrace.count == 1 && notGrace.first === ada)
        let throughDepartment = try reader.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name ==[c] nil AND SELF == %@", ada)))
        #expect(throughDepartment.count == 1 && throughDepartment.first === ada)
        #expect(ada.isFault && grace.isFault)
        let unknown = #expect(throws: KeyValueCodingError.self) {
            try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "noSuchKey ==[c] 'x'")))
        }
        #expect(unknown?.code == .undefinedKey)
    }
}

/// Offset and limit apply once, to the results of every store together.
@Suite struct SeveralStoresFetchTests {
    @Test func offsetAndLimitApplyOnceAcrossStores() throws {
        let model = try makeTestModel()
        let first = InMemoryStore(), second = InMemoryStore()
        for (store, salaries) in [(first, [1.0, 3, 5]), (second, [2.0, 4, 6])] {
            let filler = PersistentStoreCoordinator(managedObjectModel: model)
            filler.addPersistentStore(store)
            let context = ManagedObjectContext(coordinator: filler, notificationCenter: NotificationCenter())
            for salary in salaries { TestEmployee(context: context).salary = salary }
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(first)
        coordinator.addPersistentStore(second)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.fetchOffset = 2
        request.fetchLimit = 3
        #expect(try context.fetch(request).map(\.salary) == [3, 4, 5])
        #expect(try context.count(for: request) == 3)
        #expect(try context.fetchObjectIDs(request).count == 3)
    }
}

/// A saved "Box" whose `payload` ("hello") goes through the value transformer `name`, and
/// whose `title` is `title`.
private struct SavedBox {
    let directory: TemporaryDirectory
    let coordinator: PersistentStoreCoordinator
    let writer: ManagedObjectContext
    let box: ManagedObject

    init(transformer name: String, type: PersistentStoreType, title: String) throws {
        let model = try ManagedObjectModel {
            Entity("Box") {
                Property("payload", .transformable, transformer: name)
                Property("title", .string)
            }
        }
        let entity = try #require(model.entity(named: "Box"))
        directory = try TemporaryDirectory()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        box = ManagedObject(entity: entity, insertInto: writer)
        try box.setValue("hello", forKey: "payload")
        try box.setValue(title, forKey: "title")
        try writer.save()
    }
}

/// A stored value its transformer cannot read makes the fault fail to fire, with an error
/// naming the attribute, and never reads as nil (which a later save would write over the data).
@Suite struct UnreadableTransformedValueTests {
    @Test(arguments: [PersistentStoreType.inMemory, .sqlite])
    func anUnreadableValueFailsTheFaultAndIsNeverOverwritten(type: PersistentStoreType) throws {
        let name = PrefixingTransformer.registerUniquely(for: "UnreadableTransformedValueTests.\(type)", prefix: "A")
        defer { ValueTransformerRegistry.unregister(name: name) }
        let saved = try SavedBox(transformer: name, type: type, title: "t")
        defer { withExtendedLifetime(saved) {} }
        let coordinator = saved.coordinator

        ValueTransformerRegistry.register(PrefixingTransformer(prefix: "B"), forName: name)
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fetched = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
        let failure = #expect(throws: PersistenceError.self) { try fetched.fireFault() }
        #expect(failure?.code == .operationFailed)
        #expect(failure?.message.contains("Box.payload") == true)
        #expect(fetched.isFault)
        #expect(throws: PersistenceError.self) { try fetched.value(forKey: "title") }
        // Matched in memory (SELF is not SQL), on the row, which cannot be read.
        #expect(throws: PersistenceError.self) {
            try reader.fetch(FetchRequest<ManagedObject>(
                entityName: "Box", predicate: try KeyValuePredicate(format: "SELF != nil AND title ==[c] 'T'")))
        }
        // Filtered in SQL by the SQLite store: the payload is not read, so nothing fails.
        if type == .sqlite {
            let matched = try reader.fetch(FetchRequest<ManagedObject>(
                entityName: "Box", predicate: try KeyValuePredicate(format: "title ==[c] 'T'")))
            #expect(matched.count == 1 && matched[0].isFault)
        }
        try reader.save()
        #expect(!reader.hasChanges)

        ValueTransformerRegistry.register(PrefixingTransformer(prefix: "A"), forName: name)
        let again = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let intact = try #require(try again.fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
        #expect(try intact.value(forKey: "payload") as? String == "hello")
    }
}

/// A fetched row whose values went through conversions (a value transformer) still carries
/// when it was read: a sibling's save of its record makes the fault read the store.
@Suite struct ConvertedRowFreshnessTests {
    @Test func aConvertedRowIsStaleAfterASiblingsSave() throws {
        let name = PrefixingTransformer.registerUniquely(for: "ConvertedRowFreshnessTests", prefix: "A")
        defer { ValueTransformerRegistry.unregister(name: name) }
        let saved = try SavedBox(transformer: name, type: .sqlite, title: "old")
        defer { withExtendedLifetime(saved) {} }
        let (coordinator, writer, box) = (saved.coordinator, saved.writer, saved.box)

        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fetched = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
        #expect(fetched.isFault && fetched.fetchedRow.storage?.rowRead != nil)
        try box.setValue("new", forKey: "title")
        try writer.save()
        #expect(try fetched.value(forKey: "title") as? String == "new")
        #expect(try fetched.value(forKey: "payload") as? String == "hello")
    }
}

/// A typed fetch names an entity whose objects can be of its type.
@Suite struct TypedFetchTests {
    @Test func anEntityOfAnotherClassIsAnError() throws {
        let stack = try ManagedTestStack()
        _ = stack.department("Research")
        try stack.context.save()
        let error = #expect(throws: ModelError.self) { try stack.context.fetch(FetchRequest<TestEmployee>(entityName: "Department")) }
        #expect(error?.code == .entityClassMismatch)
        #expect(error?.message.contains("TestDepartment") == true)
        #expect(try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).count == 1)
        #expect(try stack.context.fetch(FetchRequest<TestDepartment>(entityName: "Department")).count == 1)
    }

    @Test func objectsOfTheEntityMadeWithAnotherClassAreLeftOut() throws {
        let stack = try ManagedTestStack()
        let typed = stack.department("Research")
        // An object of the entity made with the base class, as `ManagedObject(entity:insertInto:)` allows.
        let entity = try #require(stack.model.entity(named: "Department"))
        let plain = ManagedObject(entity: entity, insertInto: stack.context)
        try plain.setValue("Plain", forKey: "name")
        try stack.context.save()
        let reader = stack.makeContext()
        // Fetched from the store: every object is made with the entity's class.
        let fetched = try reader.fetch(FetchRequest<TestDepartment>(entityName: "Department"))
        #expect(fetched.count == 2)
        #expect(Set(fetched.compactMap(\.name)) == ["Research", "Plain"])
        // Registered in the context that made them: the plain object is not a `TestDepartment`.
        let mixed = try stack.context.fetch(FetchRequest<TestDepartment>(entityName: "Department"))
        #expect(mixed.count == 1)
        #expect(mixed.first === typed)
        #expect(try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Department")).count == 2)
    }
}
