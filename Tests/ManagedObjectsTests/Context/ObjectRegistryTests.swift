import Foundation
import Testing

@testable import ManagedObjects

/// The registry finds every object under its current ID, through collisions, removals and
/// resizes, and forgets only the object it was asked to forget.
@Suite struct ObjectRegistryTests {
    /// Unregistered objects of two entities whose IDs share numbers, so that their slots collide.
    private func makeObjects(count: Int) throws -> [ManagedObject] {
        let model = try makeTestModel()
        let employee = try #require(model.entity(named: "Employee"))
        let department = try #require(model.entity(named: "Department"))
        return (0 ..< count).map { index in
            let entity = index.isMultiple(of: 2) ? employee : department
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            object.objectID = ManagedObjectID(entity: entity, storeIdentifier: "S", primaryKey: Int64(index / 2))
            return object
        }
    }

    @Test func everyRegisteredObjectIsFoundUnderItsID() throws {
        let objects = try makeObjects(count: 5_000)
        var registry = ObjectRegistry()
        for object in objects { registry[object.objectID] = object }
        #expect(registry.count == objects.count)
        #expect(registry.checkInvariants())
        #expect(objects.allSatisfy { registry[$0.objectID] === $0 })
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)))
    }

    @Test func removingObjectsKeepsTheOthersReachable() throws {
        let objects = try makeObjects(count: 3_000)
        var registry = ObjectRegistry()
        for object in objects { registry[object.objectID] = object }
        for (index, object) in objects.enumerated() where index % 3 != 0 { registry[object.objectID] = nil }
        #expect(registry.checkInvariants())
        for (index, object) in objects.enumerated() {
            #expect(registry[object.objectID] === (index % 3 == 0 ? object : nil))
        }
        #expect(registry.count == 1_000)
    }

    @Test func theTableShrinksOnceMostObjectsHaveGone() throws {
        let objects = try makeObjects(count: 20_000)
        var registry = ObjectRegistry()
        registry.reserveCapacity(objects.count)
        for object in objects { registry[object.objectID] = object }
        for object in objects.dropFirst(100) { registry.remove(object, id: object.objectID) }
        #expect(registry.count == 100)
        #expect(registry.checkInvariants())
        #expect(objects.prefix(100).allSatisfy { registry[$0.objectID] === $0 })
    }

    @Test func removeForgetsOnlyTheObjectRegisteredUnderTheID() throws {
        let objects = try makeObjects(count: 2)
        let stranger = objects[0].entity.managedObjectClass.init(entity: objects[0].entity, insertInto: nil)
        stranger.objectID = objects[0].objectID
        var registry = ObjectRegistry()
        registry[objects[0].objectID] = objects[0]
        registry.remove(stranger, id: stranger.objectID)
        #expect(registry[objects[0].objectID] === objects[0])
        registry[objects[0].objectID] = stranger
        #expect(registry.count == 1)
        #expect(registry[objects[0].objectID] === stranger)
    }

    @Test func objectsAreFoundByReferenceInTheSlotsOfTheIDsTheyAreRegisteredUnder() throws {
        let objects = try makeObjects(count: 1_000)
        var registry = ObjectRegistry()
        for object in objects { registry[object.objectID] = object }
        let stranger = objects[0].entity.managedObjectClass.init(entity: objects[0].entity, insertInto: nil)
        stranger.objectID = objects[0].objectID
        for object in objects {
            let position = try #require(registry.position(of: object, registeredAs: object.objectID.key))
            #expect(registry[object.objectID] === object && position >= 0 && position < registry.capacity)
        }
        // Another object with the same ID is not the one registered.
        #expect(registry.position(of: stranger, registeredAs: stranger.objectID.key) == nil)
    }

    @Test func renamingMostObjectsAtOnceRegistersEachUnderItsNewIDAndKeepsTheOthers() throws {
        let objects = try makeObjects(count: 2_000)
        var registry = ObjectRegistry()
        for object in objects { registry[object.objectID] = object }
        let renamed = Array(objects.prefix(1_500)), kept = Array(objects.dropFirst(1_500))
        #expect(registry.prefersRebuild(renaming: renamed.count))
        #expect(!registry.prefersRebuild(renaming: 10))
        let positions = try renamed.map { try #require(registry.position(of: $0, registeredAs: $0.objectID.key)) }
        // New IDs in another store; the last renamed object takes the ID of the first kept one,
        // which gives way to it, as `insert(_:id:)` replaces the object registered under an ID.
        var newIDs = renamed.enumerated().map { index, object in
            ManagedObjectID(entity: object.entity, storeIdentifier: "T", primaryKey: Int64(index))
        }
        newIDs[newIDs.count - 1] = kept[0].objectID
        for (object, id) in zip(renamed, newIDs) { object.objectID = id }
        registry.rename(at: positions, objects: renamed, to: newIDs)
        #expect(registry.checkInvariants())
        #expect(registry.count == objects.count - 1)
        #expect(zip(renamed, newIDs).allSatisfy { registry[$1] === $0 })
        #expect(kept.dropFirst().allSatisfy { registry[$0.objectID] === $0 })
        #expect(registry[kept[0].objectID] === renamed[renamed.count - 1])
    }

    @Test func aContextFindsItsObjectsAfterTheirIDsBecomePermanent() throws {
        let stack = try ManagedTestStack()
        let employees = (0 ..< 200).map { stack.employee("E\($0)") }
        let temporaryIDs = employees.map(\.objectID)
        try stack.context.save()
        #expect(stack.context.registered.checkInvariants())
        for (employee, temporary) in zip(employees, temporaryIDs) {
            #expect(stack.context.registeredObject(for: employee.objectID) === employee)
            #expect(stack.context.registeredObject(for: temporary) == nil)
        }
    }

    @Test func objectsRegisteredTogetherFillTheFewestSlotsThatHoldThemThreeQuartersFull() throws {
        let objects = try makeObjects(count: 1_000)
        var registry = ObjectRegistry()
        registry[objects[0].objectID] = objects[0]
        registry.insertNew(objects.dropFirst().map { Unmanaged.passUnretained($0) })
        #expect(registry.count == 1_000)
        // 1,334 slots: not a power of two.
        #expect(registry.capacity == 1_334)
        #expect(registry.checkInvariants())
        #expect(objects.allSatisfy { registry[$0.objectID] === $0 })
        // One more grows the table (to twice its slots).
        let extra = try makeObjects(count: 2_002).last.map { [$0] } ?? []
        for object in extra { registry[object.objectID] = object }
        #expect(registry.capacity == 2_668)
        #expect(registry.checkInvariants())
    }

    @Test func removalsInATableOfAnySizeKeepEveryProbeRunReachable() throws {
        // Removals across the end of the table, where probe runs wrap around to its start.
        for count in [11, 100, 999] {
            let objects = try makeObjects(count: count)
            var registry = ObjectRegistry()
            registry.insertNew(objects.map { Unmanaged.passUnretained($0) })
            #expect(registry.capacity == ObjectRegistry.capacity(for: count))
            for (index, object) in objects.enumerated() where index % 2 == 1 { registry.remove(object, id: object.objectID) }
            #expect(registry.checkInvariants())
            for (index, object) in objects.enumerated() {
                #expect(registry[object.objectID] === (index % 2 == 0 ? object : nil))
            }
        }
    }
}
