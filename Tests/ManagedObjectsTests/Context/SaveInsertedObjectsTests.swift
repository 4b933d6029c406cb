import Foundation
import Testing
@testable import ManagedObjects

/// The save's passes share one array of the inserted objects (`willSave()`, validation, the
/// write, `didSave()`), made again when the set changes under them; the objects-did-change
/// notification's inserted objects are the context's inserted set itself when every inserted
/// object is unannounced. These pin what each pass and notification sees.
@Suite struct SaveInsertedObjectsTests {
    /// Deletes `victim` (another new object) from its `willSave()`.
    final class Culler: ManagedObject {
        @Managed var name: String?
        var victim: ManagedObject?
        var didSaveCalls = 0

        override func willSave() {
            super.willSave()
            if let victim { managedObjectContext?.delete(victim) }
            victim = nil
        }

        override func didSave() {
            super.didSave()
            didSaveCalls += 1
        }
    }

    /// Inserts one culler from an observer of the context's notifications, posted on the
    /// thread that saves. SAFETY: used only on the test's own thread.
    final class LateInserter: @unchecked Sendable {
        let context: ManagedObjectContext
        var late: Culler?

        init(_ context: ManagedObjectContext) { self.context = context }

        func insertOnce() {
            guard late == nil else { return }
            let culler = Culler(context: context)
            culler.name = "late"
            late = culler
        }
    }

    private func cullerContext() throws -> (ManagedObjectContext, NotificationCenter) {
        let model = try ManagedObjectModel {
            Entity("Culler", class: Culler.self) {
                // A nameless culler fails validation.
                Property("name", .string, optional: false)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let center = NotificationCenter()
        return (ManagedObjectContext(coordinator: coordinator, notificationCenter: center), center)
    }

    private func names(_ objects: Set<ManagedObject>) -> [String] {
        objects.compactMap { ($0 as? TestEmployee)?.firstName ?? ($0 as? Culler)?.name }.sorted()
    }

    // MARK: - The objects-did-change notification

    @Test func theSaveAnnouncesEveryInsertionSinceTheLastSaveOnceAndSavesThemAll() throws {
        let stack = try ManagedTestStack()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        let employees = (0..<5).map { stack.employee("E\($0)") }
        try stack.context.save()
        #expect(changes.notifications.count == 1)
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == Set(employees))
        #expect(didSave.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == Set(employees))
        let ids = try #require(didSave.notifications[0].userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID>)
        #expect(ids == Set(employees.map(\.objectID)))
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        // The announced set is a value: the context's later insertions do not reach it.
        let later = stack.employee("Later")
        #expect(!changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0).contains(later))
        #expect(stack.context.insertedObjects == [later])
    }

    @Test func theSaveAnnouncesOnlyTheInsertionsNotAnnouncedBefore() throws {
        let stack = try ManagedTestStack()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        let ada = stack.employee("Ada")
        stack.context.processPendingChanges()
        let grace = stack.employee("Grace"), alan = stack.employee("Alan")
        try stack.context.save()
        #expect(changes.notifications.count == 2)
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [ada])
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 1) == [grace, alan])
        #expect(didSave.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [ada, grace, alan])
    }

    @Test func anInsertionUndoneAndMadeAgainBeforeTheAnnouncementIsAnnouncedAloneOnce() throws {
        // The new object has two entries among the unannounced insertions, as many as the
        // context has inserted objects: counting entries would announce the earlier one too.
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        stack.context.processPendingChanges()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let grace = stack.employee("Grace")
        stack.context.undoInsertion(of: grace)
        stack.context.insert(grace)
        #expect(stack.context.insertedObjects == [ada, grace])
        stack.context.processPendingChanges()
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [grace])
        // The next window counts again.
        let alan = stack.employee("Alan")
        let changesAfter = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        try stack.context.save()
        #expect(changesAfter.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [alan])
    }

    @Test func aNewObjectDeletedBeforeTheAnnouncementIsNotAnnouncedAsInserted() throws {
        let stack = try ManagedTestStack()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        stack.context.delete(grace)
        try stack.context.save()
        #expect(changes.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == [ada])
        #expect(!grace.flags.contains(.insertionUnannounced))
    }

    @Test func aSQLiteSaveWritesEveryInsertedObjectsRowWithItsValuesAndRelationship() throws {
        try TestStore.$kind.withValue(.sqlite) {
            let stack = try ManagedTestStack()
            let departments = (0..<3).map { stack.department("D\($0)") }
            let employees = (0..<300).map { index -> TestEmployee in
                let employee = stack.employee("E\(index)")
                employee.salary = Double(index)
                employee.department = departments[index % 3]
                return employee
            }
            try stack.context.save()
            let reader = stack.makeContext()
            var request = FetchRequest<TestEmployee>(entityName: "Employee")
            request.returnsObjectsAsFaults = false
            let read = try reader.fetch(request)
            #expect(read.count == 300)
            let byID = Dictionary(uniqueKeysWithValues: read.map { ($0.objectID, $0) })
            for (index, employee) in employees.enumerated() {
                let copy = try #require(byID[employee.objectID])
                #expect(copy.firstName == "E\(index)" && copy.salary == Double(index))
                #expect(copy.department?.objectID == departments[index % 3].objectID)
            }
        }
    }

    // MARK: - The save's passes

    @Test func aNewObjectDeletedByAnotherOnesWillSaveIsNeitherValidatedNorSaved() throws {
        let (context, center) = try cullerContext()
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: center)
        let keeper = Culler(context: context)
        keeper.name = "keeper"
        // Nameless: saved or validated, it would fail the save.
        let victim = Culler(context: context)
        keeper.victim = victim
        try context.save()
        #expect(names(didSave.objects(ManagedObjectContext.insertedObjectsKey, at: 0)) == ["keeper"])
        let ids = didSave.notifications[0].userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID>
        #expect(ids == [keeper.objectID])
        #expect(keeper.didSaveCalls == 1)
        #expect(victim.didSaveCalls == 0)
        #expect(victim.managedObjectContext == nil)
        #expect(try context.count(for: FetchRequest<Culler>(entityName: "Culler")) == 1)
    }

    @Test func everyInsertedObjectIsValidatedAndEveryFailureReported() throws {
        let (context, _) = try cullerContext()
        let named = Culler(context: context)
        named.name = "named"
        _ = Culler(context: context)
        _ = Culler(context: context)
        let failures = validationFailures(saving: context)
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.key == "name" })
        #expect(context.insertedObjects.count == 3)
        #expect(named.didSaveCalls == 0)
    }

    @Test func anObjectInsertedWhileTheSaveAnnouncesItsInsertionsIsSavedToo() throws {
        let (context, center) = try cullerContext()
        let first = Culler(context: context)
        first.name = "first"
        let inserter = LateInserter(context)
        let token = center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification, object: context, queue: nil) { _ in
            inserter.insertOnce()
        }
        defer { center.removeObserver(token) }
        try context.save()
        let late = try #require(inserter.late)
        #expect(!late.isInserted && !late.objectID.isTemporaryID)
        #expect(late.didSaveCalls == 1 && first.didSaveCalls == 1)
        #expect(try context.count(for: FetchRequest<Culler>(entityName: "Culler")) == 2)
        #expect(!context.hasChanges)
    }

    @Test func theSaveKeepsNoReferenceToItsObjectsOnceDone() throws {
        let (context, _) = try cullerContext()
        weak var weakCuller: Culler?
        do {
            let culler = Culler(context: context)
            culler.name = "short-lived"
            weakCuller = culler
            try context.save()
        }
        // Registered objects are held by nobody once saved: the save kept none of its arrays.
        #expect(weakCuller == nil)
        #expect(context.registeredObjects.isEmpty)
    }

    @Test func everySavedObjectGetsDidSaveOnceAndKeepsItsPermanentID() throws {
        let (context, _) = try cullerContext()
        let cullers = (0..<50).map { index -> Culler in
            let culler = Culler(context: context)
            culler.name = "C\(index)"
            return culler
        }
        try context.save()
        #expect(cullers.allSatisfy { $0.didSaveCalls == 1 && !$0.objectID.isTemporaryID && !$0.isInserted })
        #expect(Set(cullers.map(\.objectID)).count == 50)
        #expect(cullers.allSatisfy { context.object(with: $0.objectID) === $0 })
        #expect(context.insertedObjects.isEmpty)
    }
    /// A save of `count` new objects (the registry is rebuilt once for many, renamed one by one
    /// for few) registers each under its permanent ID, in place of a fault the context made
    /// for that ID before, and keeps the other registered objects.
    @Test(arguments: [10, 300])
    func savedObjectsReplaceFaultsRegisteredUnderTheirPermanentIDs(count: Int) throws {
        let (context, _) = try cullerContext()
        let kept = Culler(context: context)
        kept.name = "kept"
        try context.save()
        let store = try #require(context.persistentStoreCoordinator.persistentStores.first)
        let entity = kept.entity
        let cullers = (0..<count).map { index -> Culler in
            let culler = Culler(context: context)
            culler.name = "C\(index)"
            return culler
        }
        // Faults for the first and last keys the store could hand out next and two beyond
        // (held, so they stay registered).
        let next = (kept.objectID.primaryKey ?? 0) + 1
        let keys = [next, next + 1, next + Int64(count) - 1, next + Int64(count), next + Int64(count) + 1]
        let faults = keys.map { context.object(with: ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: $0)) }
        let temporaryIDs = cullers.map(\.objectID)
        try context.save()
        #expect(context.registered.checkInvariants())
        #expect(cullers.allSatisfy { !$0.objectID.isTemporaryID && context.registeredObject(for: $0.objectID) === $0 })
        #expect(temporaryIDs.allSatisfy { context.registeredObject(for: $0) == nil })
        #expect(context.registeredObject(for: kept.objectID) === kept)
        let savedIDs = Set(cullers.map(\.objectID))
        for fault in faults where !savedIDs.contains(fault.objectID) {
            #expect(context.registeredObject(for: fault.objectID) === fault)
        }
        #expect(faults.contains { savedIDs.contains($0.objectID) })
    }

    /// New objects the context holds (staged for its inserted set, which nothing has read yet)
    /// are let go by `reset()` and when the context goes away.
    @Test(arguments: [false, true])
    func unsavedInsertionsAreFreedByResetAndWithTheContext(resets: Bool) throws {
        weak var weakCuller: Culler?
        do {
            let (context, _) = try cullerContext()
            do {
                let culler = Culler(context: context)
                culler.name = "unsaved"
                weakCuller = culler
            }
            #expect(weakCuller != nil)
            if resets {
                context.reset()
                #expect(weakCuller == nil)
            }
        }
        #expect(weakCuller == nil)
    }

    /// Objects inserted in several steps, with the inserted set read between them, are each
    /// in it once and all saved.
    @Test func insertionsJoinedToTheInsertedSetInStepsAreEachSavedOnce() throws {
        let (context, center) = try cullerContext()
        let didSave = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: center)
        var cullers: [Culler] = []
        for step in 0..<3 {
            for index in 0..<20 {
                let culler = Culler(context: context)
                culler.name = "S\(step)-\(index)"
                cullers.append(culler)
            }
            #expect(context.insertedObjects.count == cullers.count)
        }
        try context.save()
        #expect(didSave.objects(ManagedObjectContext.insertedObjectsKey, at: 0) == Set(cullers.map { $0 as ManagedObject }))
        #expect(cullers.allSatisfy { $0.didSaveCalls == 1 })
    }
    /// A save of many objects whose class keeps an attribute in its own primitive accessors
    /// (Circle, the guide's Listing 3) takes their snapshots after the registry is rebuilt: the
    /// committed values hold what the accessors gave, and each object is found by its new ID.
    @Test func objectsWhoseClassKeepsAnAttributeItselfAreSnapshottedWhenManyAreSaved() throws {
        let model = try ManagedObjectModel {
            Entity("Circle", class: Circle.self) { Property("radius", .double, defaultValue: 0.0) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let circles = (0..<200).map { index -> Circle in
            let circle = Circle(context: context)
            circle.radius = Double(index) + 0.5
            return circle
        }
        #expect(context.registered.prefersRebuild(renaming: circles.count))
        try context.save()
        #expect(context.registered.checkInvariants())
        for (index, circle) in circles.enumerated() {
            #expect(context.registeredObject(for: circle.objectID) === circle)
            #expect(circle.committedValues(forKeys: ["radius"])["radius"] as? Double == Double(index) + 0.5)
            #expect(!circle.hasChanges)
        }
    }
}
