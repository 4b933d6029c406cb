import Foundation
import Testing
@testable import ManagedObjects

/// One save of new objects some of which the store writes from their storage and others from
/// records (an entity with a transformable attribute): every row gets its own object's values
/// under the ID that object was given.
@Suite struct SQLiteMixedInsertTests {
    @Test func rowsAndRecordsOfOneSaveKeepEachObjectsIDAndValues() throws {
        let transformer = PrefixingTransformer.registerUniquely(for: "SQLiteMixedInsertTests", prefix: "P")
        defer { ValueTransformerRegistry.unregister(name: transformer) }
        let model = try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
                Property("rank", .integer64)
            }
            Entity("Box") {
                Property("payload", .transformable, transformer: transformer)
                Property("rank", .integer64)
            }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        var objects: [ManagedObject] = []
        for rank in 0..<60 {
            let isBox = rank % 3 == 0
            let object = try context.insertNewObject(forEntityName: isBox ? "Box" : "Note")
            try object.setValue(isBox ? "box \(rank)" : "note \(rank)", forKey: isBox ? "payload" : "title")
            try object.setValue(Int64(rank), forKey: "rank")
            objects.append(object)
        }
        try context.save()
        #expect(objects.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(objects.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })

        // Read back by a context of its own: each record's rank and text belong to the object
        // that was given its ID.
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for (rank, object) in objects.enumerated() {
            let read = try reader.existingObject(with: object.objectID)
            #expect(try read.value(forKey: "rank") as? Int64 == Int64(rank))
            let isBox = rank % 3 == 0
            #expect(try read.value(forKey: isBox ? "payload" : "title") as? String == (isBox ? "box \(rank)" : "note \(rank)"))
        }
    }
}
