import Foundation
import Testing
@testable import ManagedObjects

/// An in-memory store that counts how often it is read.
final class CountingStore: PersistentStore, @unchecked Sendable {
    // SAFETY: the counters are only touched under `lock`; `base` is Sendable.
    private let base = InMemoryStore()
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    var identifier: String { base.identifier }
    var type: PersistentStoreType { base.type }
    var url: URL? { nil }

    func reads(_ name: String) -> Int { lock.withLock { counts[name, default: 0] } }
    func resetCounts() { lock.withLock { counts = [:] } }
    private func count(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }

    func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        try base.newPrimaryKeys(for: entity, count: count)
    }
    func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        count("record")
        return try base.record(for: objectID)
    }
    func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        count("records(for:)")
        var found: [ManagedObjectID: StoreRecord] = [:]
        for id in objectIDs { if let record = try base.record(for: id) { found[id] = record } }
        return found
    }
    func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        count("records(of:)")
        return try base.records(of: entity, includesSubentities: includesSubentities)
    }
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        count("fetch")
        return StoreFetchResult(
            records: try base.records(of: request.entity, includesSubentities: request.includesSubentities),
            appliedPredicate: request.predicate == nil, appliedSortAndLimit: false)
    }
    func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] {
        try base.versions(of: objectIDs)
    }
    func apply(_ changes: SaveChanges) throws { try base.apply(changes) }
}

@Suite struct FetchRequestTests {
    /// Five employees in two departments, saved, and a fresh context to fetch them in.
    private func makeStack() throws -> (ManagedTestStack, ManagedObjectContext) {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        for (name, salary, department) in [
            ("Ada", 120.0, research), ("Grace", 135.0, research), ("Alan", 110.0, research),
            ("Barbara", 90.0, sales), ("Edsger", 100.0, sales),
        ] {
            stack.employee(name, salary: salary).department = department
        }
        try stack.context.save()
        return (stack, stack.makeContext())
    }

    @Test func fetchesByEntityNameWithPredicateSortAndLimits() throws {
        let (_, context) = try makeStack()
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.predicate = try KeyValuePredicate(format: "salary >= %d", 100)
        request.sortDescriptors = [KeyPathSortDescriptor(key: "salary", ascending: false)]
        #expect(try context.fetch(request).map(\.firstName) == ["Grace", "Ada", "Alan", "Edsger"])
        request.fetchOffset = 1
        request.fetchLimit = 2
        #expect(try context.fetch(request).map(\.firstName) == ["Ada", "Alan"])
        #expect(try context.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 5)
    }

    @Test func predicatesThroughRelationshipsAndCollectionOperators() throws {
        let (_, context) = try makeStack()
        let inResearch = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == 'Research'"),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        #expect(try context.fetch(inResearch).map(\.firstName) == ["Ada", "Alan", "Grace"])
        let big = FetchRequest<TestDepartment>(
            entityName: "Department", predicate: try KeyValuePredicate(format: "employees.@count > 2"))
        #expect(try context.fetch(big).map(\.name) == ["Research"])
        let rich = FetchRequest<TestDepartment>(
            entityName: "Department", predicate: try KeyValuePredicate(format: "ANY employees.salary > 130"))
        #expect(try context.fetch(rich).map(\.name) == ["Research"])
    }

    @Test func fetchesAreUniquedWithRegisteredObjects() throws {
        let (stack, _) = try makeStack()
        let all = try stack.context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(Set(all) == Set(stack.context.registeredObjects.compactMap { $0 as? TestEmployee }))
        let again = try stack.context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(Set(all.map(ObjectIdentifier.init)) == Set(again.map(ObjectIdentifier.init)))
    }

    @Test func pendingChangesCountUnlessExcluded() throws {
        let (stack, _) = try makeStack()
        let context = stack.context
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "salary > 100"),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        let grace = try #require(try context.fetch(request).first { $0.firstName == "Grace" })
        let ada = try #require(try context.fetch(request).first { $0.firstName == "Ada" })
        grace.salary = 50  // no longer matches
        context.delete(ada)  // deleted
        _ = stack.employee("Zoe", salary: 500)  // inserted, matches
        #expect(try context.fetch(request).map(\.firstName) == ["Alan", "Zoe"])
        request.includesPendingChanges = false
        #expect(try context.fetch(request).map(\.firstName) == ["Ada", "Alan", "Grace"])
    }

    @Test func objectIDsDictionariesAndCounts() throws {
        let (_, context) = try makeStack()
        let request = FetchRequest<ManagedObject>("Employee")
        #expect(try context.fetchObjectIDs(request).count == 5)
        var sorted = FetchRequest<ManagedObject>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        sorted.fetchLimit = 1
        let rows = try context.fetchDictionaries(sorted, properties: ["firstName", "salary", "department.name"])
        #expect(rows.count == 1)
        #expect(rows[0]["firstName"] as? String == "Ada")
        #expect(rows[0]["salary"] as? Double == 120)
        #expect(rows[0]["department.name"] as? String == "Research")
        #expect(throws: ModelError.self) { try context.count(for: FetchRequest<ManagedObject>("Nope")) }
        #expect(throws: (any Error).self) {
            try context.fetch(FetchRequest<ManagedObject>(
                entityName: "Employee", predicate: try KeyValuePredicate(format: "shoeSize > 3")))
        }
    }

    @Test func includesSubentitiesControlsInheritance() throws {
        let model = try ManagedObjectModel {
            Entity("Shape", abstract: true) { Property("name", .string) }
            Entity("Square", parent: "Shape") { Property("side", .double) }
            Entity("Circle", parent: "Shape") { Property("radius", .double) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        try context.insertNewObject(forEntityName: "Square").setValue("s", forKey: "name")
        try context.insertNewObject(forEntityName: "Circle").setValue("c", forKey: "name")
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        #expect(try other.count(for: FetchRequest<ManagedObject>("Shape")) == 2)
        var squares = FetchRequest<ManagedObject>("Square")
        squares.includesSubentities = false
        let names = try other.fetch(squares).map { try $0.value(forKey: "name") as? String }
        #expect(names == ["s"])
    }

    @Test func fetchedObjectsAreFaultsThatFireWithoutAnotherRead() throws {
        let model = try makeTestModel()
        let store = CountingStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for index in 0..<10 {
            let employee = TestEmployee(context: writer)
            employee.firstName = "E\(index)"
        }
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        store.resetCounts()
        let employees = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(employees.allSatisfy { $0.isFault })
        #expect(employees.allSatisfy { $0.hasFault(forRelationshipNamed: "department") })
        _ = employees.map(\.firstName)
        #expect(employees.allSatisfy { !$0.isFault })
        #expect(store.reads("fetch") == 1)
        #expect(store.reads("record") == 0)
        var loaded = FetchRequest<TestEmployee>(entityName: "Employee")
        loaded.returnsObjectsAsFaults = false
        let other = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        #expect(try other.fetch(loaded).allSatisfy { !$0.isFault })
    }

    @Test func prefetchingLoadsEachRelationshipInOneRead() throws {
        let model = try makeTestModel()
        let store = CountingStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for index in 0..<5 {
            let department = TestDepartment(context: writer)
            department.name = "D\(index)"
            for _ in 0..<3 { TestEmployee(context: writer).department = department }
        }
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        store.resetCounts()
        var request = FetchRequest<TestEmployee>(entityName: "Employee")
        request.relationshipKeyPathsForPrefetching = ["department"]
        let employees = try reader.fetch(request)
        #expect(employees.count == 15)
        #expect(store.reads("fetch") == 1)
        #expect(store.reads("records(for:)") == 1)
        #expect(employees.allSatisfy { $0.department?.isFault == false })
        _ = employees.map { $0.department?.name }
        #expect(store.reads("record") == 0)
    }

    @Test func firingOneFaultOfABatchLoadsThatBatchInOneRead() throws {
        let model = try makeTestModel()
        let store = CountingStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for index in 0..<25 { TestEmployee(context: writer).age = Int16(20 + index) }
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        store.resetCounts()
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "age")])
        request.fetchBatchSize = 10
        let employees = try reader.fetch(request)
        #expect(employees.map(\.isFault) == Array(repeating: true, count: 25))
        #expect(employees[0].age == 20)
        #expect(store.reads("records(for:)") == 1)
        #expect(employees[10...].allSatisfy { $0.isFault && !$0.hasChanges })
        _ = employees[0..<10].map(\.age)
        #expect(store.reads("records(for:)") == 1)
        #expect(employees[24].age == 44)
        #expect(store.reads("records(for:)") == 2)
        #expect(employees[10..<20].allSatisfy { $0.isFault })
        #expect(store.reads("record") == 0)
    }

    @Test func droppedUnchangedObjectsLeaveTheContext() throws {
        let (stack, _) = try makeStack()
        let context = stack.makeContext()
        do {
            let all = try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
            #expect(all.count == 5)
            #expect(context.registeredObjects.count >= 5)
        }
        #expect(context.registeredObjects.isEmpty)
    }

    /// Dropping most of a large fetch shrinks the context's registry; the objects still held
    /// stay registered and unique.
    @Test func droppingMostOfALargeFetchKeepsTheRestUnique() throws {
        let stack = try ManagedTestStack()
        for index in 0..<10_000 { _ = stack.employee("E\(index)", salary: Double(index)) }
        try stack.context.save()
        let context = stack.makeContext()
        var kept: [TestEmployee] = []
        do {
            let all = try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
            #expect(all.count == 10_000)
            kept = Array(all.prefix(10))
        }
        #expect(context.registeredObjects.count == 10)
        for object in kept {
            #expect(context.object(with: object.objectID) === object)
            #expect(context.registeredObject(for: object.objectID) === object)
        }
        let again = try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        #expect(kept.allSatisfy { object in again.contains { $0 === object } })
    }
}
