import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// An in-memory store whose fault records leave the to-many relationships out, as the SQLite
/// store's do, and whose reads of related IDs can be made to fail.
final class LazyRelationshipStore: PersistentStore, @unchecked Sendable {
    // SAFETY: `failsRelatedReads` is only touched under `lock`; `base` is Sendable.
    private let base = InMemoryStore()
    private let lock = NSLock()
    private var failsRelatedReads = false

    var identifier: String { base.identifier }
    var type: PersistentStoreType { base.type }
    var url: URL? { nil }

    func failRelatedReads(_ fails: Bool) { lock.withLock { failsRelatedReads = fails } }

    func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        try base.newPrimaryKeys(for: entity, count: count)
    }
    func record(for objectID: ManagedObjectID) throws -> StoreRecord? { try base.record(for: objectID) }
    func faultRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        guard var record = try base.record(for: objectID) else { return nil }
        let isToMany = objectID.entity.isToManyByIndex
        record.omittedRelationships = Set(isToMany.indices.filter { isToMany[$0] })
        return record
    }
    func relatedObjectIDs(of objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]? {
        if lock.withLock({ failsRelatedReads }) {
            throw PersistenceError(.operationFailed, message: "the disk is unplugged")
        }
        guard let record = try base.record(for: objectID) else { return nil }
        guard case .toMany(let ids) = record.values[relationship.index] else { return [] }
        return ids
    }
    func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        try base.records(of: entity, includesSubentities: includesSubentities)
    }
    func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] { try base.versions(of: objectIDs) }
    func apply(_ changes: SaveChanges) throws { try base.apply(changes) }
}

/// Relationships a fault's record left out: read when first needed, left out of saves while
/// unread (the store keeps them), and never edited as empty when they cannot be read.
@Suite struct OmittedRelationshipTests {
    /// A project with two members and a milestone, saved through `store`; a fresh context.
    private func makeSaved() throws -> (LazyRelationshipStore, PersistentStoreCoordinator, ManagedObjectID) {
        let store = LazyRelationshipStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        coordinator.addPersistentStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let project = TestProject(context: writer)
        project.title = "Compiler"
        for name in ["Ada", "Grace"] {
            let employee = TestEmployee(context: writer)
            employee.firstName = name
            employee.projects = [project]
        }
        let milestone = TestMilestone(context: writer)
        milestone.title = "Parser"
        milestone.project = project
        try writer.save()
        return (store, coordinator, project.objectID)
    }

    private func fired(_ id: ManagedObjectID, in coordinator: PersistentStoreCoordinator) throws -> (ManagedObjectContext, TestProject) {
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let project = try #require(try context.existingObject(with: id) as? TestProject)
        return (context, project)
    }

    @Test func anUnreadRelationshipIsLeftOutOfASaveAndTheStoreKeepsIt() throws {
        let (_, coordinator, id) = try makeSaved()
        let (context, project) = try fired(id, in: coordinator)
        #expect(project.hasFault(forRelationshipNamed: "members") && project.hasFault(forRelationshipNamed: "milestones"))
        project.title = "Compilers"
        try context.save()
        // Milestones have no count to validate, so the save never read them (members have a
        // maximum: validation reads their IDs).
        let milestones = try #require(project.values[project.entity.relationshipsByName["milestones"]!.index] as? RelationshipFault)
        #expect(milestones.ids == nil, "saving read nothing")
        let (readerContext, reread) = try fired(id, in: coordinator)
        defer { withExtendedLifetime(readerContext) {} }
        #expect(reread.title == "Compilers")
        #expect(Set(reread.members.compactMap(\.firstName)) == ["Ada", "Grace"])
        #expect(reread.milestones.compactMap(\.title) == ["Parser"])
    }

    @Test func aRelationshipThatCannotBeReadIsNotEditedAndTheSaveSaysSo() throws {
        let (store, coordinator, id) = try makeSaved()
        let (context, project) = try fired(id, in: coordinator)
        let alan = TestEmployee(context: context)
        alan.firstName = "Alan"
        store.failRelatedReads(true)
        alan.projects = [project]  // adding Alan to members needs them, and they cannot be read
        #expect(project.hasFault(forRelationshipNamed: "members"), "not replaced by a partial set")
        #expect(project.members.isEmpty, "reads as empty through the non-throwing accessor")
        let failure = #expect(throws: PersistenceError.self) { try context.save() }
        #expect(failure?.code == .operationFailed)
        #expect(failure?.message.contains("TestProject") == true || failure?.message.contains("Project.members") == true)
        #expect(failure?.message.contains("disk is unplugged") == true)
        #expect(throws: PersistenceError.self) { try project.primitiveValue(forKey: "members") }

        store.failRelatedReads(false)
        #expect(throws: PersistenceError.self) { try context.save() }  // until the changes are rolled back
        context.rollback()
        let again = TestEmployee(context: context)
        again.firstName = "Alan"
        again.projects = [project]
        try context.save()
        let (readerContext, reread) = try fired(id, in: coordinator)
        defer { withExtendedLifetime(readerContext) {} }
        #expect(Set(reread.members.compactMap(\.firstName)) == ["Ada", "Grace", "Alan"], "nothing lost")
    }

    @Test func refreshingRollingBackOrResettingForgetsAReadFailure() throws {
        let (store, coordinator, id) = try makeSaved()
        let forgets: [(ManagedObjectContext, TestProject) -> Void] = [
            { context, project in context.refresh(project, mergeChanges: false) },
            { context, _ in context.rollback() },
            { context, _ in context.reset() },
        ]
        for forget in forgets {
            let (context, project) = try fired(id, in: coordinator)
            store.failRelatedReads(true)
            _ = project.members
            store.failRelatedReads(false)
            project.title = "Renamed"
            #expect(throws: PersistenceError.self) { try context.save() }
            forget(context, project)
            TestEmployee(context: context).firstName = "Someone"  // a change the save must write
            try context.save()
            #expect(!context.hasChanges)
        }
    }

    @Test func anEditSkippedForWantOfARelationshipFailsTheSaveEvenAsTheOnlyChange() throws {
        let (store, coordinator, id) = try makeSaved()
        let (context, project) = try fired(id, in: coordinator)
        let ada = try #require(try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'Ada'"))).first)
        context.refresh(ada, mergeChanges: false)
        try ada.fireFault()  // alone: its projects are unread too
        store.failRelatedReads(true)
        try project.mutableSetValue(forKey: "members").remove(ada)
        #expect(!context.hasChanges, "the removal was skipped on both sides")
        let failure = #expect(throws: PersistenceError.self) { try context.save() }
        #expect(failure?.code == .operationFailed)
    }

    @Test func anObjectLeavingTheContextTakesItsReadFailureWithIt() throws {
        let (store, coordinator, id) = try makeSaved()
        let (context, project) = try fired(id, in: coordinator)
        store.failRelatedReads(true)
        _ = project.members
        store.failRelatedReads(false)
        let center = NotificationCenter()
        let deleter = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
        let saved = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: center)
        deleter.delete(try deleter.existingObject(with: id))
        try deleter.save()
        context.mergeChanges(fromContextDidSave: try #require(saved.notifications.first))
        TestEmployee(context: context).firstName = "Someone"
        try context.save()
    }

    @Test func aClassValidatorOfARelationshipThatCannotBeReadFailsTheSave() throws {
        let model = try SmallDepartment.makeModel()
        let store = LazyRelationshipStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let department = SmallDepartment(context: writer)
        department.name = "Small"
        try writer.save()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fired = try #require(try context.existingObject(with: department.objectID) as? SmallDepartment)
        fired.name = "Smaller"
        store.failRelatedReads(true)
        let failure = #expect(throws: ValidationError.self) { try context.save() }
        #expect(failure?.message.contains("disk is unplugged") == true)
        store.failRelatedReads(false)
        try context.save()
    }

    @Test func refreshingWithChangesKeepsAnUnreadRelationshipWithoutNotifying() throws {
        let (_, coordinator, id) = try makeSaved()
        let (context, project) = try fired(id, in: coordinator)
        project.title = "Changed"
        var changedKeys: [String] = []
        let members = try project.observe("members", options: [.prior]) { _, _ in changedKeys.append("members") }
        context.refresh(project, mergeChanges: true)
        #expect(changedKeys.isEmpty)
        #expect(project.hasFault(forRelationshipNamed: "members"))
        #expect(project.title == "Changed")
        #expect(Set(project.members.compactMap(\.firstName)) == ["Ada", "Grace"])
        withExtendedLifetime(members) {}
    }

    @Test func aRecordThatLeavesOutARelationshipNeedsAnObjectToReadItFor() throws {
        let (store, coordinator, id) = try makeSaved()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let record = try #require(try store.faultRecord(for: id))
        let failure = #expect(throws: PersistenceError.self) { try context.objectValues(from: record, of: nil) }
        #expect(failure?.code == .operationFailed)
    }
}
