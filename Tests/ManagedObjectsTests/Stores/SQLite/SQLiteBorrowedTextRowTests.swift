import Foundation
import Testing
@testable import ManagedObjects

/// Rows written from storage bind their text without SQLite copying it, from bytes the run of
/// rows keeps, and bind the entity and version columns once per run: every row still holds its
/// own text (empty, long, non-ASCII, after a row of another path), its entity and its version.
@Suite struct SQLiteBorrowedTextRowTests {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
                Property("body", .string)
                Property("rank", .integer64)
            }
            Entity("List") {
                Property("title", .string)
                // Ordered one-to-many: a list with items is written from its record.
                Property("items", to: "Item", inverse: "list", toMany: true, ordered: true)
            }
            Entity("Item") {
                Property("label", .string)
                Property("list", to: "List", inverse: "items")
            }
        }
    }

    private static func open(_ directory: TemporaryDirectory, _ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    /// The title and body of note `index`: short, empty, nil, non-ASCII, and now and then longer
    /// than the bytes a run starts with (512), several times over.
    private static func texts(_ index: Int) -> (String?, String?) {
        switch index % 7 {
        case 0: return ("t\(index)", "b\(index)")
        case 1: return ("", "b\(index)")
        case 2: return (nil, "")
        case 3: return ("Zoë \(index) 🙂", "日本語 \(index)")
        case 4: return (String(repeating: "x\(index)", count: 400), "after long \(index)")
        case 5: return ("t\(index)", String(repeating: "é", count: 3_000 + index))
        default: return ("t\(index)", nil)
        }
    }

    @Test func everyRowOfARunHoldsItsOwnTextEntityAndVersion() throws {
        let directory = try TemporaryDirectory()
        let context = try Self.open(directory, try Self.model())
        var notes: [ManagedObject] = []
        for index in 0..<200 {
            let note = try context.insertNewObject(forEntityName: "Note")
            let (title, body) = Self.texts(index)
            try note.setValue(title, forKey: "title")
            try note.setValue(body, forKey: "body")
            try note.setValue(Int64(index), forKey: "rank")
            notes.append(note)
        }
        try context.save()

        let rows = try SQLiteProbe.query("SELECT ZRANK, ZTITLE, ZBODY, Z_ENT, Z_OPT FROM ZNOTE ORDER BY ZRANK", at: directory.file())
        let expected = (0..<200).map { index -> String in
            let (title, body) = Self.texts(index)
            return "\(index)|\(title ?? "NULL")|\(body ?? "NULL")|Note|1"
        }
        #expect(rows.count == 200)
        #expect(rows == expected)
        // Empty text is stored as text, not NULL.
        #expect(try SQLiteProbe.query("SELECT COUNT(*) FROM ZNOTE WHERE ZTITLE = ''", at: directory.file()) == ["\((0..<200).filter { $0 % 7 == 1 }.count)"])
    }

    @Test func rowsAfterARowWrittenFromItsRecordKeepTheirOwnText() throws {
        let directory = try TemporaryDirectory()
        let context = try Self.open(directory, try Self.model())
        // Lists without items are written from storage, one with items from its record, in one run.
        var titles: [String] = []
        for index in 0..<9 {
            let list = try context.insertNewObject(forEntityName: "List")
            let title = index == 4 ? "with items, \(String(repeating: "r", count: 700))" : "list \(index) ü"
            try list.setValue(title, forKey: "title")
            titles.append(title)
            if index == 4 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("only item", forKey: "label")
                try item.setValue(list, forKey: "list")
            }
        }
        try context.save()

        let rows = try SQLiteProbe.query("SELECT ZTITLE, Z_ENT, Z_OPT FROM ZLIST ORDER BY ZTITLE", at: directory.file())
        #expect(rows == titles.sorted().map { "\($0)|List|1" })
        #expect(try SQLiteProbe.query("SELECT ZLABEL, Z_ENT FROM ZITEM", at: directory.file()) == ["only item|Item"])
    }
}
