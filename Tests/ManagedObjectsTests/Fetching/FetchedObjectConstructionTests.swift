import Foundation
import Testing

@testable import ManagedObjects
@testable import ModelObjects

/// A shape with a subentity of its own class: a fetch of shapes makes objects of two classes.
class FCShape: ManagedObject {
    @Managed(defaultValue: "unnamed") var name: String?
    @Managed(minimum: 0, defaultValue: 1) var order: Int64
}

/// The subentity's class, with a property of its own.
final class FCCircle: FCShape {
    @Managed(minimum: 0, maximum: 1_000, defaultValue: 2.5) var radius: Double
}

/// A person with a manager of the same entity and a team of another.
final class FCPerson: ManagedObject {
    @Managed var name: String?
    @Managed(inverse: \FCPerson.reports) var manager: FCPerson?
    @Managed var reports: Set<FCPerson>
    @Managed(inverse: \FCTeam.members) var team: FCTeam?
}

/// The team people belong to.
final class FCTeam: ManagedObject {
    @Managed var title: String?
    @Managed var members: Set<FCPerson>
}

/// How a context makes the objects of fetched records: each object is of its entity's class,
/// with that class's key-value coding table, the record's ID and its values, however the
/// classes of a fetch's rows alternate; a row whose object the context already holds (or made
/// for an earlier row's relationship) gets that object; a batch's faults keep nothing for the
/// batch once loaded; and the declaring initializers of `@Managed` still give a model made
/// from the classes their arguments after objects of those classes were fetched.
@Suite struct FetchedObjectConstructionTests {
    private struct Saved {
        let directory: TemporaryDirectory
        let coordinator: PersistentStoreCoordinator
    }

    /// Shapes and circles saved alternately, ordered 0…5: even orders shapes, odd ones circles.
    private func saved() throws -> Saved {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel(classes: [FCShape.self, FCCircle.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for order in 0..<6 {
            let shape: FCShape = order % 2 == 0 ? FCShape(context: writer) : FCCircle(context: writer)
            shape.name = "S\(order)"
            shape.order = Int64(order)
            (shape as? FCCircle)?.radius = Double(order) * 10
        }
        try writer.save()
        return Saved(directory: directory, coordinator: coordinator)
    }

    private func fetchShapes(_ saved: Saved, loaded: Bool) throws -> (ManagedObjectContext, [FCShape]) {
        let context = ManagedObjectContext(coordinator: saved.coordinator, notificationCenter: NotificationCenter())
        var request = FetchRequest<FCShape>(entityName: "FCShape", sortDescriptors: [KeyPathSortDescriptor(key: "order")])
        request.returnsObjectsAsFaults = !loaded
        return (context, try context.fetch(request))
    }

    @Test(arguments: [false, true])
    func fetchedObjectsOfAlternatingClassesHaveTheirOwnClassesKeyTable(loaded: Bool) throws {
        let saved = try saved()
        let (context, shapes) = try fetchShapes(saved, loaded: loaded)
        #expect(shapes.map { ObjectIdentifier(type(of: $0)) } == (0..<6).map {
            ObjectIdentifier($0 % 2 == 0 ? FCShape.self : FCCircle.self)
        })
        for shape in shapes {
            #expect(shape.propertyTable === PropertyTable.table(for: type(of: shape)))
            #expect(!shape.objectID.isTemporaryID)
            #expect(context.registeredObject(for: shape.objectID) === shape)
        }
        #expect(try shapes.map { try $0.value(forKey: "name") as? String } == (0..<6).map { "S\($0)" })
        #expect(try shapes.compactMap { $0 as? FCCircle }.map { try $0.value(forKey: "radius") as? Double } == [10, 30, 50])
        #expect(shapes.compactMap { ($0 as? FCCircle)?.radius } == [10, 30, 50])
    }

    @Test func faultsOfObjectWithIDHaveTheirClassesKeyTable() throws {
        let saved = try saved()
        let (_, shapes) = try fetchShapes(saved, loaded: false)
        let context = ManagedObjectContext(coordinator: saved.coordinator, notificationCenter: NotificationCenter())
        let faults = shapes.map { context.object(with: $0.objectID) }
        #expect(faults.map { ObjectIdentifier(type(of: $0)) } == shapes.map { ObjectIdentifier(type(of: $0)) })
        for fault in faults {
            #expect(fault.isFault)
            #expect(fault.propertyTable === PropertyTable.table(for: type(of: fault)))
        }
        #expect(faults.compactMap { ($0 as? FCCircle)?.radius } == [10, 30, 50])
    }

    /// Reports "A0"…"A3" of the manager "Z", all in one team, saved.
    private func savedPeople() throws -> (TemporaryDirectory, PersistentStoreCoordinator, ManagedObjectID, ManagedObjectID) {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel(classes: [FCPerson.self, FCTeam.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let team = FCTeam(context: writer)
        team.title = "T"
        let boss = FCPerson(context: writer)
        boss.name = "Z"
        boss.team = team
        for index in 0..<4 {
            let person = FCPerson(context: writer)
            person.name = "A\(index)"
            person.manager = boss
            person.team = team
        }
        try writer.save()
        return (directory, coordinator, boss.objectID, team.objectID)
    }

    private func fetchPeople(_ context: ManagedObjectContext, batchSize: Int = 0) throws -> [FCPerson] {
        var request = FetchRequest<FCPerson>(entityName: "FCPerson", sortDescriptors: [KeyPathSortDescriptor(key: "name")])
        request.fetchBatchSize = batchSize
        return try context.fetch(request)
    }

    @Test func aRowWhoseObjectAnEarlierRowRegisteredAsARelatedFaultGetsThatObject() throws {
        let (_, coordinator, bossID, teamID) = try savedPeople()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        // The reports' rows come first: each relates to the manager, whose row comes last.
        let people = try fetchPeople(context)
        #expect(people.map(\.name) == ["A0", "A1", "A2", "A3", "Z"])
        #expect(Set(people.map(ObjectIdentifier.init)).count == 5)
        let boss = try #require(people.last)
        #expect(boss.objectID == bossID)
        #expect(context.registeredObject(for: bossID) === boss)
        #expect(people.dropLast().allSatisfy { $0.manager === boss })
        #expect(boss.reports == Set(people.dropLast()))
        let team = try #require(context.registeredObject(for: teamID) as? FCTeam)
        #expect(people.allSatisfy { $0.team === team })
        #expect(team.members == Set(people))
        #expect(context.registeredObjects.count == 6)
    }

    @Test func aFetchIntoAContextThatHoldsARowsObjectGivesThatObject() throws {
        let (_, coordinator, bossID, _) = try savedPeople()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let registered = context.object(with: bossID)
        let people = try fetchPeople(context)
        #expect(people.last === registered)
        #expect(Set(people.map(ObjectIdentifier.init)).count == 5)
        #expect(people.dropLast().allSatisfy { $0.manager === registered })
        #expect(context.registeredObjects.count == 6)
    }

    /// Rows relating to many objects in turn, whose keys share their low bits (teams 1 and 17,
    /// 2 and 18, …), each get their own related object, in a fetch and in a batch.
    @Test(arguments: [0, 7])
    func rowsRelatingToManyObjectsInTurnEachGetTheirOwn(batchSize: Int) throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(classes: [FCPerson.self, FCTeam.self]))
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let teams = (0..<40).map { index -> FCTeam in
            let team = FCTeam(context: writer)
            team.title = "T\(index)"
            return team
        }
        for index in 0..<120 {
            let person = FCPerson(context: writer)
            person.name = String(format: "P%03d", index)
            person.team = teams[(index * 7) % 40]
        }
        try writer.save()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let people = try fetchPeople(context, batchSize: batchSize)
        #expect(people.count == 120)
        for (index, person) in people.enumerated() {
            let team = try #require(person.team)
            #expect(team.objectID == teams[(index * 7) % 40].objectID)
            #expect(context.registeredObject(for: team.objectID) === team)
            #expect(team.title == "T\((index * 7) % 40)")
        }
        #expect(Set(people.compactMap { $0.team.map(ObjectIdentifier.init) }).count == 40)
    }

    @Test func batchedFaultsThatLoadedTheirRowsKeepNoStateForTheBatch() throws {
        let (_, coordinator, _, teamID) = try savedPeople()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let people = try fetchPeople(context, batchSize: 2)
        #expect(people.allSatisfy { $0.isFault && $0.faultBatch != nil })
        #expect(people.map(\.name) == ["A0", "A1", "A2", "A3", "Z"])
        #expect(people.allSatisfy { !$0.isFault && $0.faultBatch == nil && $0.rareState == nil })
        let team = try #require(context.registeredObject(for: teamID))
        #expect(people.allSatisfy { $0.team === team })
    }

    @Test func batchedFaultsHoldTheirBatchInTheirOwnWordUntilTheyLoad() throws {
        let (_, coordinator, _, _) = try savedPeople()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let people = try fetchPeople(context, batchSize: 2)
        // No allocation per fault for its batch: the row state's word holds it.
        #expect(people.allSatisfy { $0.isFault && $0.faultBatch != nil && $0.rareState == nil && !$0.fetchedRow.hasBuffer })
        #expect(people[0].faultBatch === people[1].faultBatch)
        #expect(people[1].faultBatch !== people[2].faultBatch)
        #expect(people[0].name == "A0")
        #expect(people[1].isFault && people[1].fetchedRow.hasBuffer && people[1].faultBatch == nil && people[1].rareState == nil)
        #expect(people[2...].allSatisfy { $0.isFault && $0.faultBatch != nil && !$0.fetchedRow.hasBuffer })
        // A fault refreshed keeps its batch; a fired object turned back into a fault has none.
        context.refresh(people[3], mergeChanges: false)
        #expect(people[3].isFault && people[3].faultBatch != nil && people[3].rareState == nil)
        context.refresh(people[0], mergeChanges: false)
        #expect(people[0].isFault && people[0].faultBatch == nil && people[0].rareState == nil)
        #expect(people[3].name == "A3")
        #expect(people[2].isFault && people[2].fetchedRow.hasBuffer && people[2].faultBatch == nil)
        #expect(people[4].isFault && people[4].faultBatch != nil)
    }

    @Test func aBatchedFaultGivenItsRowByAnotherFetchStillLoadsItsBatch() throws {
        let (_, coordinator, _, _) = try savedPeople()
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let people = try fetchPeople(context, batchSize: 5)
        let batch = try #require(people[1].faultBatch)
        var request = FetchRequest<FCPerson>(entityName: "FCPerson", predicate: try KeyValuePredicate(format: "name == 'A1'"))
        request.returnsObjectsAsFaults = true
        let fetched = try context.fetch(request)
        #expect(fetched.count == 1 && fetched.first === people[1])
        // Its row and its batch, both kept: the batch moved to the rare state.
        #expect(people[1].isFault && people[1].fetchedRow.hasBuffer && people[1].faultBatch === batch && people[1].rareState != nil)
        #expect(people[1].name == "A1")
        #expect(people.allSatisfy { $0 === people[1] || ($0.isFault && $0.fetchedRow.hasBuffer && $0.faultBatch == nil) })
        #expect(people.map(\.name) == ["A0", "A1", "A2", "A3", "Z"])
    }

    @Test func declarationArgumentsReachAModelMadeAfterObjectsOfTheClassesWereFetched() throws {
        let saved = try saved()
        _ = try fetchShapes(saved, loaded: true)
        let model = try ManagedObjectModel(classes: [FCShape.self, FCCircle.self])
        let shape = try #require(model.entity(named: "FCShape"))
        let circle = try #require(model.entity(named: "FCCircle"))
        #expect(shape.attributesByName["name"]?.defaultValue as? String == "unnamed")
        #expect(shape.attributesByName["order"]?.defaultValue as? Int64 == 1)
        #expect(circle.attributesByName["radius"]?.defaultValue as? Double == 2.5)
        #expect(circle.attributesByName["order"]?.defaultValue as? Int64 == 1)
        // A new object outside any reading starts at the declared defaults.
        let context = ManagedObjectContext(coordinator: saved.coordinator, notificationCenter: NotificationCenter())
        let fresh = FCCircle(context: context)
        #expect(fresh.radius == 2.5 && fresh.name == "unnamed" && fresh.order == 1)
    }
}
