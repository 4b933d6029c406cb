import Foundation
import Synchronization
import Testing

@testable import ManagedObjects

/// Overrides the designated initializer: counts its runs, notes the ID `super` left, and sets
/// a value that an object made for a record must not keep.
final class FIBadge: ManagedObject {
    @Managed var label: String?
    @Managed var rank: Int64
    /// How many times the initializer ran for this object.
    var initializerRuns = 0
    /// The object's ID when `super.init(entity:insertInto:)` returned.
    var idAfterSuper: ManagedObjectID?

    required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        initializerRuns += 1
        idAfterSuper = objectID
        rank = -1
    }

    required init() { super.init() }

    required init(coder: Coder) throws { try super.init(coder: coder) }
}

/// Makes another object of its own entity inside its initializer, before and after calling
/// `super` (of the plain class, then of its own): each is a new object, and the object made
/// for a record is still the one the context gets.
final class FINested: ManagedObject {
    @Managed var label: String?
    /// The objects made inside the initializer.
    var helpers: [ManagedObject] = []

    required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        let before = ManagedObject(entity: entity, insertInto: nil)
        super.init(entity: entity, insertInto: context)
        helpers = [before]
        if context == nil, FINested.makesHelperAfterSuper.withLock({ $0 }) {
            FINested.makesHelperAfterSuper.withLock { $0 = false }
            helpers.append(FINested(entity: entity, insertInto: nil))
        }
    }

    required init() { super.init() }

    required init(coder: Coder) throws { try super.init(coder: coder) }

    /// Whether the next initializer run without a context makes a helper of its own class.
    static let makesHelperAfterSuper = Mutex(false)
}

/// An object a context makes for a record (a fetched object, a fault) runs its class's
/// designated initializer, a subclass's override with it, as Core Data runs
/// `init(entity:insertInto:)` for fetched objects; it has the record's ID from the start and
/// the record's values once fired, whatever the initializer set.
@Suite struct FetchedObjectInitializerTests {
    private struct Saved {
        let directory: TemporaryDirectory
        let coordinator: PersistentStoreCoordinator
        let store: SQLiteStore
        let ids: [ManagedObjectID]
    }

    /// Badges "B0"… with ranks 10, 20, … saved to a SQLite store.
    private func saved(_ count: Int = 5) throws -> Saved {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel(classes: [FIBadge.self, FINested.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let badges = (0..<count).map { index in
            let badge = FIBadge(context: writer)
            badge.label = "B\(index)"
            badge.rank = Int64(index + 1) * 10
            return badge
        }
        let nested = FINested(context: writer)
        nested.label = "nested"
        try writer.save()
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        return Saved(directory: directory, coordinator: coordinator, store: store, ids: badges.map(\.objectID) + [nested.objectID])
    }

    private func reader(_ saved: Saved) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: saved.coordinator, notificationCenter: NotificationCenter())
    }

    private func badges(_ context: ManagedObjectContext, configure: (inout FetchRequest<FIBadge>) -> Void = { _ in }) throws -> [FIBadge] {
        var request = FetchRequest<FIBadge>(entityName: "FIBadge", sortDescriptors: [KeyPathSortDescriptor(key: "rank")])
        configure(&request)
        return try context.fetch(request)
    }

    /// Each object ran the initializer once, had the record's ID when `super` returned, and
    /// is registered under it.
    private func expectMadeForRecords(_ objects: [FIBadge], in context: ManagedObjectContext, sourceLocation: SourceLocation = #_sourceLocation) {
        for object in objects {
            #expect(object.initializerRuns == 1, sourceLocation: sourceLocation)
            #expect(object.idAfterSuper == object.objectID, sourceLocation: sourceLocation)
            #expect(!object.objectID.isTemporaryID, sourceLocation: sourceLocation)
            #expect(context.registeredObject(for: object.objectID) === object, sourceLocation: sourceLocation)
            #expect(object.managedObjectContext === context, sourceLocation: sourceLocation)
        }
    }

    @Test func fetchedFaultsRunTheSubclassInitializerAndFireWithTheRecordsValues() throws {
        let saved = try saved()
        let context = reader(saved)
        let objects = try badges(context)
        #expect(objects.count == 5)
        #expect(objects.allSatisfy { $0.isFault })
        expectMadeForRecords(objects, in: context)
        #expect(objects.map(\.rank) == [10, 20, 30, 40, 50], "the record's values, not the initializer's -1")
        #expect(objects.map(\.label) == ["B0", "B1", "B2", "B3", "B4"])
        #expect(objects.allSatisfy { !$0.isFault && !$0.hasChanges })
        #expect(!context.hasChanges)
    }

    @Test func loadedFetchesRunTheSubclassInitializerOnceInOneStatement() throws {
        let saved = try saved()
        let context = reader(saved)
        var objects: [FIBadge] = []
        let statements = try saved.store.recordingSQL { objects = try badges(context) { $0.returnsObjectsAsFaults = false } }
        #expect(statements.count == 1, "\(statements)")
        #expect(objects.allSatisfy { !$0.isFault })
        expectMadeForRecords(objects, in: context)
        #expect(objects.map(\.rank) == [10, 20, 30, 40, 50])
        #expect(!context.hasChanges)
    }

    @Test func faultsOfObjectWithIDRunTheSubclassInitializerAndFireFromOneStatement() throws {
        let saved = try saved()
        let context = reader(saved)
        let object = try #require(context.object(with: saved.ids[2]) as? FIBadge)
        #expect(object.isFault)
        expectMadeForRecords([object], in: context)
        let statements = try saved.store.recordingSQL { try object.fireFault() }
        #expect(statements.count == 1, "\(statements)")
        #expect(object.rank == 30 && object.label == "B2")
    }

    @Test func batchedFaultsRunTheSubclassInitializerAndFireABatchInOneStatement() throws {
        let saved = try saved()
        let context = reader(saved)
        let objects = try badges(context) { $0.fetchBatchSize = 2 }
        expectMadeForRecords(objects, in: context)
        #expect(objects.allSatisfy { $0.isFault })
        // The first read fires its batch of two from one statement, the second batch's faults wait.
        var ranks: [Int64] = []
        let first = saved.store.recordingSQL { ranks.append(objects[0].rank) }
        #expect(first.count == 1, "\(first)")
        // The batch's other fault holds its row; the next batch's do not.
        #expect(objects[1].fetchedRow.hasBuffer && !objects[2].fetchedRow.hasBuffer)
        let second = saved.store.recordingSQL { ranks.append(objects[1].rank) }
        #expect(second.isEmpty, "\(second)")
        let rest = saved.store.recordingSQL { ranks += objects[2...].map(\.rank) }
        #expect(rest.count == 2, "a statement per batch: \(rest)")
        #expect(ranks == [10, 20, 30, 40, 50])
        #expect(objects.map(\.label) == ["B0", "B1", "B2", "B3", "B4"])
    }

    @Test func insertedObjectsStillTakeATemporaryIDAndRunTheInitializerOnce() throws {
        let saved = try saved()
        let context = reader(saved)
        let badge = FIBadge(context: context)
        #expect(badge.initializerRuns == 1)
        #expect(badge.idAfterSuper?.isTemporaryID == true && badge.objectID == badge.idAfterSuper)
        #expect(badge.isInserted && !badge.isFault)
        #expect(badge.rank == -1, "a new object keeps what its initializer set")
        let loose = FIBadge(entity: badge.entity, insertInto: nil)
        #expect(loose.objectID.isTemporaryID && loose.objectID != badge.objectID && loose.managedObjectContext == nil)
    }

    @Test func objectsMadeInsideASubclassInitializerAreNewObjectsAndTheFetchedOneIsTheRecords() throws {
        let saved = try saved()
        let context = reader(saved)
        FINested.makesHelperAfterSuper.withLock { $0 = true }
        var request = FetchRequest<FINested>(entityName: "FINested")
        request.returnsObjectsAsFaults = false
        let fetched = try context.fetch(request)
        let nested = try #require(fetched.first)
        #expect(fetched.count == 1)
        #expect(nested.objectID == saved.ids[5] && !nested.objectID.isTemporaryID)
        #expect(nested.label == "nested")
        #expect(context.registeredObject(for: nested.objectID) === nested)
        // A plain object made before `super`, and one of the class made after it: both new.
        #expect(nested.helpers.count == 2)
        for helper in nested.helpers {
            #expect(helper.objectID.isTemporaryID && helper.managedObjectContext == nil && !helper.isFault)
            #expect(helper.objectID != nested.objectID)
        }
        #expect(type(of: nested.helpers[1]) == FINested.self)
        #expect((nested.helpers[1] as? FINested)?.label == nil, "a new object's default")
    }
}
