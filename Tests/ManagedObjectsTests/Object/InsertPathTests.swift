import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// Its validator for `name` sets `score` below its minimum: validation must see the value the
/// validator left, not the one the object had when validation started.
final class ScoreSpoilingThing: ManagedObject {
    override class func validator(forKey key: String) -> KeyValueValidator? {
        guard key == "name" else { return super.validator(forKey: key) }
        return KeyValueValidator { (thing: ScoreSpoilingThing, _: inout String) in
            try thing.setPrimitiveValue(-1.0, forKey: "score")
        }
    }
}

/// The edges of the insert path's shortcuts: a property found by name from the last one found,
/// the answer about a class's own collection accessors kept for the last class asked, the
/// compiled validation checks read in one pass, and the reversal of one object added to a
/// to-many relationship by inverse maintenance.
@Suite struct InsertPathTests {
    private func thingContext(for type: ManagedObject.Type, undo: Bool = false) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            Entity("Thing", class: type) {
                Property("name", .string, optional: false, defaultValue: "")
                Property("count", .integer64, defaultValue: Int64(0), minimum: Int64(0), maximum: Int64(10))
                Property("score", .double, minimum: 0.0)
                Property("stamp", .date)
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        if undo { context.undoManager = ModelUndoManager(notificationCenter: NotificationCenter()) }
        return context
    }

    // MARK: - Properties by name

    @Test func propertiesFoundByNameInAnyOrderAreTheModelsOwn() throws {
        let context = try thingContext(for: ManagedObject.self)
        let entity = try #require(context.persistentStoreCoordinator.managedObjectModel.entity(named: "Thing"))
        for key in ["name", "name", "score", "name", "stamp", "count", "count", "score"] {
            #expect(entity.property(named: key) === entity.propertiesByName[key])
        }
        #expect(entity.property(named: "nope") == nil)
        // An unknown key does not replace the last one found.
        #expect(entity.property(named: "count")?.name == "count")
        #expect(entity.property(named: "Count") == nil)
        #expect(entity.property(named: "count")?.name == "count")
    }

    @Test func primitiveValuesSetByNameOnManyObjectsLandInTheirOwnSlots() throws {
        let context = try thingContext(for: ManagedObject.self)
        let stamp = Date(timeIntervalSinceReferenceDate: 1_000)
        var things: [ManagedObject] = []
        for index in 0..<4 {
            let thing = try context.insertNewObject(forEntityName: "Thing")
            try thing.setPrimitiveValue(stamp.addingTimeInterval(Double(index)), forKey: "stamp")
            try thing.setPrimitiveValue(Int64(index), forKey: "count")
            try thing.setPrimitiveValue("thing \(index)", forKey: "name")
            things.append(thing)
        }
        for (index, thing) in things.enumerated() {
            #expect(try thing.primitiveValue(forKey: "stamp") as? Date == stamp.addingTimeInterval(Double(index)))
            #expect(try thing.value(forKey: "count") as? Int64 == Int64(index))
            #expect(try thing.value(forKey: "name") as? String == "thing \(index)")
        }
        #expect((#expect(throws: KeyValueCodingError.self) { try things[0].setPrimitiveValue(1, forKey: "stamps") })?.code == .undefinedKey)
        #expect((#expect(throws: KeyValueCodingError.self) { try things[0].primitiveValue(forKey: "") })?.code == .undefinedKey)
        // Still found after the misses.
        try things[0].setPrimitiveValue(Int64(9), forKey: "count")
        #expect(try things[0].value(forKey: "count") as? Int64 == 9)
    }

    // MARK: - Own collection accessors

    @Test func ownCollectionAccessorsAreToldApartWhenClassesAreAskedInTurn() throws {
        let model = try ManagedObjectModel {
            Entity("Team", class: ListingTeam.self) { Property("members", to: "Member", inverse: "team", toMany: true) }
            Entity("Member") { Property("team", to: "Team", inverse: "members") }
        }
        let team = try #require(model.entity(named: "Team"))
        let members = try #require(team.relationshipsByName["members"])
        for _ in 0..<3 {
            #expect(ManagedObjectCollectionAccessors.classHasOwnAccessors(ListingTeam.self, for: members))
            #expect(!ManagedObjectCollectionAccessors.classHasOwnAccessors(ManagedObject.self, for: members))
        }
        #expect(ManagedObjectCollectionAccessors.classHasOwnAccessors(ListingTeam.self, for: members))
        #expect(ManagedObjectCollectionAccessors.classHasOwnAccessors(ListingTeam.self, for: members))
    }

    // MARK: - Validation in one pass

    @Test func aValueAValidatorChangesDuringValidationIsChecked() throws {
        let context = try thingContext(for: ScoreSpoilingThing.self)
        let thing = try context.insertNewObject(forEntityName: "Thing")
        try thing.setValue("ok", forKey: "name")
        #expect(try thing.value(forKey: "score") == nil)
        let failures = validationFailures(saving: context)
        #expect(failures.map(\.code) == [1620])
        #expect(failures.map(\.key) == ["score"])
    }

    @Test func objectsWhoseValuesAllPassTheirChecksSaveAndTheOthersReportEveryFailure() throws {
        let context = try thingContext(for: ManagedObject.self)
        let good = try context.insertNewObject(forEntityName: "Thing")
        try good.setValue("good", forKey: "name")
        let bad = try context.insertNewObject(forEntityName: "Thing")
        try bad.setValue(nil, forKey: "name")
        try bad.setValue(Int64(11), forKey: "count")
        try bad.setValue(-0.5, forKey: "score")
        let failures = validationFailures(saving: context)
        #expect(failures.map(\.code) == [1610, 1570, 1620])
        #expect(failures.map(\.key) == ["count", "name", "score"])
        context.delete(bad)
        try context.save()
        #expect(!good.objectID.isTemporaryID)
    }

    @Test func passingPropertiesHoldIndexesBeyondSixtyFour() {
        var set = PassingProperties(count: 70)
        var required = PassingProperties(count: 70)
        for index in [0, 5, 63, 64, 69] {
            set.insert(index)
            required.insert(index)
        }
        #expect([0, 5, 63, 64, 69].allSatisfy(set.contains))
        #expect(![1, 62, 65, 68].contains(where: set.contains))
        #expect(set.isSuperset(of: required))
        required.insert(68)
        #expect(!set.isSuperset(of: required))
        #expect(required.isSuperset(of: set))
        #expect(PassingProperties().isSuperset(of: PassingProperties()))
        #expect(!PassingProperties().contains(70))
    }

    @Test func aMissingMandatoryValuePastTheSixtyFourthPropertyFailsValidation() throws {
        let model = try ManagedObjectModel {
            Entity("Wide") {
                for index in 0..<70 {
                    Property("p\(index)", .string, optional: index != 68)
                }
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let wide = try context.insertNewObject(forEntityName: "Wide")
        let failures = validationFailures(saving: context)
        #expect(failures.map(\.code) == [1570])
        #expect(failures.map(\.key) == ["p68"])
        try wide.setValue("set", forKey: "p68")
        try context.save()
    }

    // MARK: - Undo of inverse maintenance

    @Test func undoingAnInverseAdditionTakesTheObjectOutAndRedoPutsItBack() throws {
        let stack = try ManagedTestStack(undo: true)
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        grace.department = research
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()
        // Nobody observes the department: its side is kept by inverse maintenance's own path.
        ada.department = research
        stack.context.processPendingChanges()
        #expect(research.employees == [ada, grace])
        var log: [String] = []
        let token = try research.observe("employees", options: [.new]) { _, change in log.append("\(change.kind)") }
        try undo.undo()
        #expect(ada.department == nil)
        #expect(research.employees == [grace])
        #expect(log == ["removal"])
        try undo.redo()
        #expect(ada.department === research)
        #expect(research.employees == [ada, grace])
        #expect(log == ["removal", "insertion"])
        token.invalidate()
        try stack.context.save()
        #expect(undo.invariantViolations.isEmpty)
    }

    @Test func undoingTheInsertionOfObjectsAddedToANewObjectsToManyEmptiesIt() throws {
        let stack = try ManagedTestStack(undo: true)
        let undo = try #require(stack.context.undoManager)
        let research = stack.department("Research")
        let employees = (0..<5).map { stack.employee("E\($0)") }
        for employee in employees { employee.department = research }
        stack.context.processPendingChanges()
        #expect(research.employees.count == 5)
        try undo.undo()
        #expect(research.employees.isEmpty)
        #expect(stack.context.insertedObjects.isEmpty)
        try undo.redo()
        #expect(research.employees.count == 5)
        #expect(employees.allSatisfy { $0.department === research })
        try stack.context.save()
    }
}
