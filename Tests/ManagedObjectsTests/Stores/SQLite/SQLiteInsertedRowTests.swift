import Foundation
import Testing
@testable import ManagedObjects

/// A save writes the rows of new objects straight from their storage (no record per object):
/// the rows hold what records would have written, an object the store cannot write that way
/// goes through its record, and the errors are the record path's.
@Suite struct SQLiteInsertedRowTests {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Sample") {
                Property("int16", .integer16)
                Property("int32", .integer32)
                Property("int64", .integer64)
                Property("double", .double)
                Property("float", .float)
                Property("decimal", .decimal)
                Property("string", .string)
                Property("boolean", .boolean)
                Property("date", .date)
                Property("data", .binaryData)
                Property("uuid", .uuid)
                Property("uri", .uri)
                Property("scratch", .string, transient: true)
                // The destination has subentities: the row keeps the target's entity in a column.
                Property("shape", to: "Shape")
            }
            Entity("Shape", abstract: true) { Property("name", .string) }
            Entity("Square", parent: "Shape") { Property("side", .double) }
            Entity("List") {
                Property("title", .string)
                // Ordered one-to-many (positions in the items' rows) and many-to-many (a join table).
                Property("items", to: "Item", inverse: "list", toMany: true, ordered: true)
                Property("tags", to: "Tag", inverse: "lists", toMany: true)
            }
            Entity("Item") {
                Property("label", .string)
                Property("list", to: "List", inverse: "items")
            }
            Entity("Tag") {
                Property("name", .string)
                Property("lists", to: "List", inverse: "tags", toMany: true)
            }
        }
    }

    private static func open(_ directory: TemporaryDirectory, _ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    private static let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    @Test func rowsOfNewObjectsHoldEveryTypeOfValueAndNullsAsRecordsWould() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let context = try Self.open(directory, model)
        let square = try context.insertNewObject(forEntityName: "Square")
        try square.setValue("unit", forKey: "name")
        let full = try context.insertNewObject(forEntityName: "Sample")
        let values: [String: Any] = [
            "int16": Int16(-3), "int32": Int32(7), "int64": Int64(1) << 40, "double": 2.5, "float": Float(1.5),
            "decimal": Decimal(string: "12.34") as Any, "string": "text", "boolean": true,
            "date": Date(timeIntervalSinceReferenceDate: 1000.5), "data": Data([1, 2]), "uuid": Self.uuid,
            "uri": URL(string: "https://example.com/a") as Any, "scratch": "not saved", "shape": square,
        ]
        for (key, value) in values { try full.setValue(value, forKey: key) }
        // Every value nil, written after a row with values (the statement keeps its bindings).
        let empty = try context.insertNewObject(forEntityName: "Sample")
        try context.save()

        let squareKey = try #require(square.objectID.primaryKey)
        let columns = "ZINT16, ZINT32, ZINT64, ZDOUBLE, ZFLOAT, ZDECIMAL, ZSTRING, ZBOOLEAN, ZDATE, ZDATA, ZUUID, ZURI, ZSHAPE, ZSHAPE_ENT, Z_ENT, Z_OPT"
        let rows = try SQLiteProbe.query("SELECT \(columns) FROM ZSAMPLE ORDER BY Z_PK", at: directory.file())
        let expectedFull = "-3|7|1099511627776|2.5|1.5|12.34|text|1|1000.5|0102|0102030405060708090A0B0C0D0E0F10|https://example.com/a|"
            + "\(squareKey)|Square|Sample|1"
        let expectedEmpty = "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|Sample|1"
        let fullFirst = (full.objectID.primaryKey ?? 0) < (empty.objectID.primaryKey ?? 0)
        #expect(rows == (fullFirst ? [expectedFull, expectedEmpty] : [expectedEmpty, expectedFull]))

        // And they read back as they were set.
        let reader = try Self.open(directory, model)
        let read = try reader.existingObject(with: full.objectID)
        #expect(try read.value(forKey: "decimal") as? Decimal == Decimal(string: "12.34"))
        #expect(try read.value(forKey: "uuid") as? UUID == Self.uuid)
        #expect(try read.value(forKey: "float") as? Float == 1.5)
        #expect(try read.value(forKey: "scratch") == nil)
        #expect((try read.value(forKey: "shape") as? ManagedObject)?.objectID == square.objectID)
    }

    @Test func newObjectsRelatedThroughAnOrderedToManyAndAJoinTableSaveTheirRelationships() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let context = try Self.open(directory, model)
        let list = try context.insertNewObject(forEntityName: "List")
        try list.setValue("chores", forKey: "title")
        let items = try ["first", "second", "third"].map { label in
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(label, forKey: "label")
            return item
        }
        try list.setValue(items, forKey: "items")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try tag.setValue("home", forKey: "name")
        try list.setValue(Set([tag]), forKey: "tags")
        // A list relating nothing is written from its storage in the same save.
        let plain = try context.insertNewObject(forEntityName: "List")
        try plain.setValue("empty", forKey: "title")
        try context.save()

        let reader = try Self.open(directory, model)
        let read = try reader.existingObject(with: list.objectID)
        let readItems = try #require(try read.value(forKey: "items") as? [ManagedObject])
        #expect(try readItems.map { try $0.value(forKey: "label") as? String } == ["first", "second", "third"])
        let readTags = try #require(try read.value(forKey: "tags") as? Set<ManagedObject>)
        #expect(readTags.map(\.objectID) == [tag.objectID])
        let readPlain = try reader.existingObject(with: plain.objectID)
        #expect(try readPlain.value(forKey: "title") as? String == "empty")
        #expect((try readPlain.value(forKey: "items") as? [ManagedObject])?.isEmpty == true)
    }

    /// SQLite keeps NaN as NULL: a new object's NaN is refused as an updated one's is, and the
    /// save writes nothing.
    @Test(arguments: ["double", "date"])
    func aNewObjectsNaNFailsTheSaveAndWritesNothing(_ key: String) throws {
        let directory = try TemporaryDirectory()
        let context = try Self.open(directory, try Self.model())
        let sample = try context.insertNewObject(forEntityName: "Sample")
        try sample.setValue(key == "date" ? Date(timeIntervalSinceReferenceDate: .nan) : Double.nan, forKey: key)
        try sample.setValue("kept", forKey: "string")
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.code == .saveFailed && error.key == key && error.message.contains("NaN")
        }
        #expect(try SQLiteProbe.query("SELECT count(*) FROM ZSAMPLE", at: directory.file()) == ["0"])
        #expect(sample.isInserted && context.hasChanges)
    }

    @Test func aNewObjectRelatedToAnObjectThatIsNotSavedFailsTheSave() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let context = try Self.open(directory, model)
        let sample = try context.insertNewObject(forEntityName: "Sample")
        let stray = try #require(model.entity(named: "Square")).managedObjectClass.init(
            entity: try #require(model.entity(named: "Square")), insertInto: nil)
        try sample.setValue(stray, forKey: "shape")
        do {
            try context.save()
            Issue.record("expected a dangling-reference error")
        } catch let error as PersistenceError {
            #expect(error.code == .objectNotFound)
            #expect(error.message.contains("dangling"))
        }
        #expect(try SQLiteProbe.query("SELECT count(*) FROM ZSAMPLE", at: directory.file()) == ["0"])
        #expect(sample.isInserted)
    }
}
