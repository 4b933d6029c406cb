import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ContextErrorPathTests {
    @Test func addingAStoreOfAnUnavailableTypeThrowsInvalidStore() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        do {
            try coordinator.addPersistentStore(type: PersistentStoreType(rawValue: "Nope"))
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .invalidStore)
            #expect((error as NSError).code == 134_000)
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func insertingAnAbstractEntityByNameThrows() throws {
        let model = try ManagedObjectModel {
            Entity("Shape", abstract: true) { Property("name", .string) }
            Entity("Square", parent: "Shape") { Property("side", .double) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let context = ManagedObjectContext(coordinator: coordinator)
        #expect(throws: ModelError.self) { try context.insertNewObject(forEntityName: "Shape") }
        let square = try context.insertNewObject(forEntityName: "Square")
        try square.setValue("unit", forKey: "name")  // inherited property
        #expect(try square.value(forKey: "name") as? String == "unit")
    }

    @Test func aRelationshipToAnObjectThatIsNotSavedFailsTheSave() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let entity = try #require(stack.model.entity(named: "Employee"))
        let stray = TestEmployee(entity: entity, insertInto: nil)  // in no context
        research.employees.insert(stray)
        do {
            try stack.context.save()
            Issue.record("expected a dangling-reference error")
        } catch let error as PersistenceError {
            #expect(error.code == .objectNotFound)
            #expect(error.message.contains("dangling"))
        }
        #expect(research.isInserted)
    }

    @Test func mergeConflictOnADeleteOfARecordChangedElsewhere() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let other = stack.makeContext()
        let theirs = try other.existingObject(with: ada.objectID)
        try theirs.setValue(5.0, forKey: "salary")
        try other.save()
        stack.context.delete(ada)
        #expect(throws: PersistenceError.self) { try stack.context.save() }
        stack.context.mergePolicy = .rollback
        try stack.context.save()
        #expect(!ada.isDeleted)
        #expect(ada.salary == 5)
    }

    @Test func uriOfATemporaryIDReadsBackInTheSameProcess() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        let uri = ada.objectID.uriRepresentation()
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == ada.objectID)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Employee/p1")!) == nil)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata:///Nope/t1")!) == nil)
    }
}
