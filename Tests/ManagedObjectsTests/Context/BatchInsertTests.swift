import Foundation
import Testing
@testable import ManagedObjects

/// Batch inserts write records straight to the store, all or nothing, keeping inverse
/// relationships, and check every value against the model first.
@Suite struct BatchInsertTests {
    static let storeTypes: [PersistentStoreType] = [.inMemory, .binary, .sqlite]

    /// A coordinator on a fresh store of `type`, with a saved Research department.
    private func makeStack(_ type: PersistentStoreType) throws -> (PersistentStoreCoordinator, ManagedObjectContext, TestDepartment, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let research = TestDepartment(context: context)
        research.name = "Research"
        try context.save()
        return (coordinator, context, research, directory)
    }

    private func employees(_ coordinator: PersistentStoreCoordinator) throws -> (ManagedObjectContext, [TestEmployee]) {
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        return (reader, try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])))
    }

    @Test(arguments: storeTypes)
    func insertsRecordsWithValuesDefaultsAndRelationships(type: PersistentStoreType) throws {
        let (coordinator, context, research, directory) = try makeStack(type)
        defer { withExtendedLifetime(directory) {} }
        let rows: [[String: Any]] = (0..<200).map { index in
            var row: [String: Any] = ["firstName": "E\(index)", "salary": index * 10]  // Int → Double, lossless
            if index.isMultiple(of: 2) { row["department"] = research.objectID }
            if index == 1 { row["lastName"] = NSNull() }
            return row
        }
        let ids = try context.execute(BatchInsertRequest(entityName: "Employee", objects: rows))
        #expect(ids.count == 200)
        #expect(Set(ids).count == 200 && ids.allSatisfy { !$0.isTemporaryID })
        #expect(context.registeredObjects.count == 1, "no object is made for the new records")

        let (reader, saved) = try employees(coordinator)
        #expect(saved.map(\.objectID) == ids)
        #expect(saved[3].firstName == "E3" && saved[3].salary == 30)
        #expect(saved[3].age == 30, "the model's default")
        #expect(saved[4].department?.name == "Research")
        #expect(saved[3].department == nil)
        let department = try #require(try reader.existingObject(with: research.objectID) as? TestDepartment)
        #expect(department.employees.count == 100, "the inverse gained every related record")
        #expect(try reader.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 200)

        #expect(research.isFault, "the registered related object was refreshed")
        #expect(research.employees.count == 100)
        research.name = "R&D"
        try context.save()  // no conflict: the refreshed object read the new version
    }

    @Test(arguments: storeTypes)
    func aBadValueWritesNothing(type: PersistentStoreType) throws {
        let (coordinator, context, research, directory) = try makeStack(type)
        defer { withExtendedLifetime(directory) {} }
        func attempt(_ row: [String: Any], entity: String = "Employee") throws {
            try context.execute(BatchInsertRequest(entityName: entity, objects: [["firstName": "Fine"], row]))
        }
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["shoeSize": 42]) })?.code == .undefinedKey)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["salary": "a lot"]) })?.code == .typeMismatch)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["age": 2.5]) })?.code == .typeMismatch)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["department": "Research"]) })?.code == .typeMismatch)
        let tooYoung = #expect(throws: ValidationError.self) { try attempt(["age": 3]) }
        #expect(tooYoung?.code == .numberTooSmall)
        #expect(tooYoung?.message.contains("object 1 of the batch insert") == true)
        let several = #expect(throws: ValidationError.self) { try attempt(["age": 3, "salary": -1]) }
        #expect(several?.code == .multipleErrors)
        let missing = #expect(throws: ValidationError.self) {
            try context.execute(BatchInsertRequest(entityName: "Department", objects: [["budget": 5]]))
        }
        #expect(missing?.code == .missingMandatoryProperty)
        #expect(missing?.key == "name")
        #expect((#expect(throws: PersistenceError.self) { try attempt(["projects": [research]]) })?.code == .saveFailed)
        #expect((#expect(throws: PersistenceError.self) { try attempt(["managedDepartment": research.objectID]) })?.code == .saveFailed)
        let unsaved = TestDepartment(context: context)
        unsaved.name = "Unsaved"
        #expect((#expect(throws: PersistenceError.self) { try attempt(["department": unsaved]) })?.code == .objectNotFound)
        context.delete(unsaved)
        #expect((#expect(throws: ModelError.self) { try attempt([:], entity: "Nobody") })?.code == .unknownEntity)

        let other = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        other.delete(try other.existingObject(with: research.objectID))
        try other.save()
        #expect((#expect(throws: PersistenceError.self) { try attempt(["department": research.objectID]) })?.code == .objectNotFound)

        #expect(try employees(coordinator).1.isEmpty, "nothing was written by any failed batch")
        #expect(try context.execute(BatchInsertRequest(entityName: "Employee", objects: [])).isEmpty)
    }

    /// Two relationships to the same record both gain the new records; an ordered inverse gets
    /// them at its end, in the batch's order.
    @Test(arguments: storeTypes)
    func everyInverseOfARelatedRecordGainsTheNewRecords(type: PersistentStoreType) throws {
        let model = try ManagedObjectModel {
            Entity("Shelf") {
                Property("name", .string)
                Property("boxes", to: "Box", inverse: "inside", toMany: true, ordered: true)
                Property("owned", to: "Box", inverse: "owner", toMany: true)
            }
            Entity("Box") {
                Property("label", .string)
                Property("inside", to: "Shelf", inverse: "boxes")
                Property("owner", to: "Shelf", inverse: "owned")
            }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        try shelf.setValue("Top", forKey: "name")
        let first = try context.insertNewObject(forEntityName: "Box")
        try first.setValue("first", forKey: "label")
        try shelf.mutableArrayValue(forKey: "boxes").append(first)
        try context.save()

        let rows: [[String: Any]] = ["a", "b", "c"].map { ["label": $0, "inside": shelf.objectID, "owner": shelf] }
        try context.execute(BatchInsertRequest(entityName: "Box", objects: rows))

        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let saved = try reader.existingObject(with: shelf.objectID)
        let boxes = try #require(try saved.value(forKey: "boxes") as? [ManagedObject])
        #expect(try boxes.map { try $0.value(forKey: "label") as? String } == ["first", "a", "b", "c"])
        let owned = try #require(try saved.value(forKey: "owned") as? Set<ManagedObject>)
        #expect(Set(try owned.map { try $0.value(forKey: "label") as? String }) == ["a", "b", "c"])
    }

    /// A to-one relationship without an inverse must still name a record that exists.
    @Test(arguments: storeTypes)
    func aTargetWithoutAnInverseMustExist(type: PersistentStoreType) throws {
        let model = try ManagedObjectModel {
            Entity("Person") { Property("name", .string) }
            Entity("Note") {
                Property("title", .string)
                Property("author", to: "Person")
            }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let ada = try context.insertNewObject(forEntityName: "Person")
        let grace = try context.insertNewObject(forEntityName: "Person")
        try context.save()
        try context.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "by Ada", "author": ada.objectID]]))
        let graceID = grace.objectID
        context.delete(grace)
        try context.save()
        let error = #expect(throws: PersistenceError.self) {
            try context.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "fine"], ["title": "by nobody", "author": graceID]]))
        }
        #expect(error?.code == .objectNotFound)
        let titles = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { try $0.value(forKey: "title") as? String }
        #expect(titles == ["by Ada"], "nothing of the failed batch was written")
    }
}
