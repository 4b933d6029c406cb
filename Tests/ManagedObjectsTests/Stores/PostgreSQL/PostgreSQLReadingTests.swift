import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Rows read in binary format become the records they hold, and a value another writer put
    /// in a column that the attribute's type cannot hold is refused, not converted.
    @Suite struct ReadingTests {
        @Test func rowsOfSubentitiesInOneTableReadAsTheirOwnEntities() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try SQLiteRelationshipTests.makeInheritanceModel()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try #require(try coordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            var previous: ManagedObject?
            for index in 0..<6 {
                // Squares and circles alternate in the shared table (one save each, so the keys
                // alternate too); each circle's center is the shape before it (a to-one whose
                // destination has subentities).
                let shape = try context.insertNewObject(forEntityName: index.isMultiple(of: 2) ? "Square" : "Circle")
                try shape.setValue("S\(index)", forKey: "name")
                if !index.isMultiple(of: 2) { try shape.setValue(previous, forKey: "center") }
                previous = shape
                try context.save()
            }
            let shape = try #require(model.entity(named: "Shape"))
            let records = try store.records(of: shape, includesSubentities: true)
            #expect(records.map(\.objectID.entity.name) == ["Square", "Circle", "Square", "Circle", "Square", "Circle"])
            let circle = try #require(model.entity(named: "Circle"))
            let center = try #require(circle.properties.firstIndex { $0.name == "center" })
            for (index, record) in records.enumerated() where record.objectID.entity.name == "Circle" {
                guard case .toOne(let target?) = record.values[center] else {
                    Issue.record("circle \(index) has no center")
                    continue
                }
                #expect(target == records[index - 1].objectID)
                #expect(target.entity.name == "Square")
            }
        }

        @Test func aFloatColumnHoldingADoubleOutsideFloatsRangeIsRefused() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try SQLiteTypeTests.makeModel()
            let entity = try #require(model.entity(named: "Everything"))
            let store = try PostgreSQLStore(url: database.url, model: model)
            let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
            let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key))
            var changes = SaveChanges()
            changes.inserted = [StoreRecord(objectID: id, version: 1, values: [StoreValue](repeating: .null, count: 14))]
            try store.apply(changes)
            // Another writer stores a double no Float holds.
            try database.connect().run(#"UPDATE "ZEVERYTHING" SET "ZFLOAT" = 1e300"#)
            do {
                _ = try store.record(for: id)
                Issue.record("the record was read")
            } catch let error as PersistenceError {
                #expect(error.code == .operationFailed)
                #expect(error.key == "float")
                #expect(error.message.contains("a binary value of 8 bytes"), "\(error.message)")
            }
        }
    }
}
