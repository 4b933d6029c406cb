import Foundation
@testable import ManagedObjects
import Testing

/// An object holds its entity and its context through one shared home: these pin what that
/// must keep true when objects, contexts and models go in any order.
@Suite struct ObjectHomeTests {
    private func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
            }
            Entity("Tag") {
                Property("name", .string)
            }
        }
    }

    @Test func objectsOfOneEntityInOneContextShareAHome() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let first = try context.insertNewObject(forEntityName: "Note")
        let second = try context.insertNewObject(forEntityName: "Note")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        #expect(first.home === second.home)
        #expect(first.home !== tag.home)
        #expect(first.managedObjectContext === context)
        #expect(tag.entity.name == "Tag")
    }

    @Test func anObjectOutlivingItsContextKeepsItsIDAndHasNoContext() throws {
        let model = try makeModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: .inMemory)
        var object: ManagedObject?
        var id: ManagedObjectID?
        weak var gone: ManagedObjectContext?
        do {
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            gone = context
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("kept", forKey: "title")
            try context.save()
            object = note
            id = note.objectID
        }
        #expect(gone == nil)
        let kept = try #require(object)
        #expect(kept.managedObjectContext == nil)
        #expect(kept.objectID == id)
        #expect(kept.objectID.isTemporaryID == false)
        #expect(kept.entity.name == "Note")
    }

    @Test func anUnsavedObjectOutlivingItsContextHasNoContext() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
        _ = try coordinator.addPersistentStore(type: .inMemory)
        var object: ManagedObject?
        weak var gone: ManagedObjectContext?
        do {
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            gone = context
            object = try context.insertNewObject(forEntityName: "Tag")
        }
        #expect(gone == nil)
        let kept = try #require(object)
        #expect(kept.managedObjectContext == nil)
        #expect(kept.objectID.isTemporaryID)
        #expect(kept.home === kept.entity.homeWithoutContext)
    }

    @Test func anObjectMadeWithoutAContextJoinsTheOneItIsInsertedInto() throws {
        let model = try makeModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let entity = try #require(model.entity(named: "Note"))
        let object = ManagedObject(entity: entity, insertInto: nil)
        let temporary = object.objectID
        #expect(object.managedObjectContext == nil)
        context.insert(object)
        #expect(object.managedObjectContext === context)
        #expect(object.objectID == temporary)
        #expect(object.home === context.home(for: entity))
    }

    @Test func aResetContextLetsGoOfItsObjects() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let note = try context.insertNewObject(forEntityName: "Note")
        try context.save()
        let id = note.objectID
        context.reset()
        #expect(note.managedObjectContext == nil)
        #expect(note.objectID == id)
        #expect(note.home === note.entity.homeWithoutContext)
    }

    /// The home of objects in no context is kept by its entity and holds it back: the model
    /// breaks that circle when it goes, so its entities go with their last object.
    @Test func aModelsEntitiesGoWithTheirLastObjectInNoContext() throws {
        weak var entity: EntityDescription?
        var object: ManagedObject?
        do {
            let model = try makeModel()
            let note = try #require(model.entity(named: "Note"))
            entity = note
            object = ManagedObject(entity: note, insertInto: nil)
        }
        #expect(entity != nil)
        #expect(object?.entity.name == "Note")
        object = nil
        #expect(entity == nil)
    }
}
