import Foundation
import Testing
@testable import ManagedObjects

/// A to-many relationship's storage slot is one word: nil while the relationship is a fault
/// whose IDs are not read, else a box with its value. These tests take one slot through every
/// state it has (unread fault, read, modified, refreshed, undone) and check the word itself as
/// well as what the relationship reads.
@Suite struct ToManySlotTests {
    /// `research`'s `employees` slot: its box (nil: an unread fault) and the value it reads as.
    private func slot(of research: TestDepartment) -> (box: ToManyBox?, value: Any?) {
        let index = research.entity.relationshipsByName["employees"]?.index ?? -1
        return (research.values.toManyBox(at: index), research.values[index])
    }

    @Test func aToManySlotTakesOneWord() throws {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Department"))
        let index = try #require(entity.relationshipsByName["employees"]).index
        let layout = entity.layout
        #expect(layout.slots[index].kind == .toMany)
        #expect(MemoryLayout<ToManyBox?>.size == MemoryLayout<UInt>.size)
        let offsets = layout.slots.map(\.offset).filter { $0 > layout.slots[index].offset }
        #expect((offsets.min() ?? layout.wordCount * 8) - layout.slots[index].offset == 8, "the next slot starts one word on")
    }

    @Test func aFreshBufferReadsItsToManySlotsAsUnreadFaultsAndNilStaysApart() throws {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Department"))
        let index = try #require(entity.relationshipsByName["employees"]).index
        var values = PropertyValues(layout: entity.layout)
        #expect(values.toManyBox(at: index) == nil)
        let fault = try #require(values[index] as? RelationshipFault)
        #expect(fault.ids == nil && !fault.isOrdered)
        values[index] = nil
        #expect(values.toManyBox(at: index) != nil, "nil is a value, held in a box")
        #expect(values[index] == nil)
        values[index] = RelationshipFault(ids: [], isOrdered: false)
        #expect((values[index] as? RelationshipFault)?.ids == [])
        values[index] = RelationshipFault(unreadOrdered: false)
        #expect(values.toManyBox(at: index) == nil, "an unread fault is the nil word again")
    }

    @Test func copiesShareABoxAndAnEditInPlaceWritesOnlyItsOwnCopy() throws {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Department"))
        let index = try #require(entity.relationshipsByName["employees"]).index
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(managedObjectModel: model))
        let ada = TestEmployee(entity: try #require(model.entity(named: "Employee")), insertInto: nil)
        var values = entity.initialValues
        #expect(values.toManyBox(at: index) === entity.initialValues.toManyBox(at: index))
        let inserted = values.withUniqueToMany(at: index) { value -> Bool in
            guard var set = value as? Set<ManagedObject> else { return false }
            value = nil
            set.insert(ada)
            value = set
            return true
        }
        #expect(inserted == true)
        #expect(values.toManyBox(at: index) !== entity.initialValues.toManyBox(at: index), "the shared box is not written")
        #expect((values[index] as? Set<ManagedObject>)?.count == 1)
        #expect((entity.initialValues[index] as? Set<ManagedObject>)?.isEmpty == true)
        // A box the slot alone holds is written in place (an identifier holds no reference).
        let box = values.toManyBox(at: index).map(ObjectIdentifier.init)
        values[index] = Set<ManagedObject>()
        #expect(values.toManyBox(at: index).map(ObjectIdentifier.init) == box)
        #expect(values.withUniqueToMany(at: try #require(entity.attributesByName["name"]).index) { _ in true } == nil)
        withExtendedLifetime(context) {}
    }

    @Test func aToManySlotGoesThroughFaultReadModifiedRefreshedAndUndone() throws {
        let (_, context, researchID, _) = try RelationshipFaultTests().makeSaved(.sqlite)
        let undoManager = ModelUndoManager()
        context.undoManager = undoManager
        let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)

        // Fault: the slot is the nil word, and reads as an unread relationship fault.
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(slot(of: research).box == nil)
        #expect((slot(of: research).value as? RelationshipFault)?.ids == nil)

        // Read: the box holds the objects; the snapshot holds them too.
        #expect(research.employees.count == 3)
        let read = try #require(slot(of: research).box)
        #expect((read.value as? Set<ManagedObject>)?.count == 3)
        let index = research.entity.relationshipsByName["employees"]?.index ?? -1
        #expect((research.snapshot?[index] as? Set<ManagedObject>)?.count == 3)
        #expect(research.changedValues().isEmpty)

        // Modified: a new member, then the change undone.
        context.processPendingChanges()
        let newcomer = TestEmployee(context: context)
        newcomer.firstName = "Edsger"
        context.processPendingChanges()
        undoManager.removeAllActions()
        newcomer.department = research
        context.processPendingChanges()
        #expect(research.employees.count == 4)
        #expect((slot(of: research).value as? Set<ManagedObject>)?.contains(newcomer) == true)
        #expect((research.snapshot?[index] as? Set<ManagedObject>)?.count == 3, "the snapshot keeps its own value")
        #expect(research.changedValues()["employees"] != nil)

        try undoManager.undo()
        #expect(research.employees.count == 3)
        #expect(!research.employees.contains(newcomer))
        #expect(newcomer.department == nil)

        // Refreshed: the object turns back into a fault and fires with the slot unread again.
        context.refresh(research, mergeChanges: false)
        #expect(research.isFault)
        try research.fireFault()
        #expect(slot(of: research).box == nil)
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(Set(research.employees.compactMap(\.firstName)) == ["Ada", "Grace", "Alan"])
    }

    @Test func anOrderedToManySlotReadsAsAnOrderedUnreadFault() throws {
        let model = try ManagedObjectModel {
            Entity("Playlist") {
                Property("songs", to: "Song", inverse: "playlist", toMany: true, ordered: true)
            }
            Entity("Song") {
                Property("playlist", to: "Playlist", inverse: "songs")
            }
        }
        let entity = try #require(model.entity(named: "Playlist"))
        let index = try #require(entity.relationshipsByName["songs"]).index
        #expect(entity.layout.slots[index].kind == .orderedToMany)
        let values = PropertyValues(layout: entity.layout)
        #expect((values[index] as? RelationshipFault)?.isOrdered == true)
        #expect((entity.initialValues[index] as? [ManagedObject])?.isEmpty == true)
    }
}
