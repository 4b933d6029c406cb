import Foundation
import Testing

@testable import ManagedObjects

/// A model for batch requests: logs without relationships, folders cascading to notes, notes
/// and tags related many to many, shelves ordering books (nullify both ways), and vaults that
/// deny deleting while they hold items.
enum BatchModel {
    static let storeTypes: [PersistentStoreType] = [.inMemory, .binary, .sqlite]

    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Log", uniquenessConstraints: [["code"]]) {
                Property("message", .string)
                Property("level", .integer32, defaultValue: 0, minimum: 0, maximum: 9)
                Property("code", .string)
                Property("cost", .decimal)
            }
            Entity("Folder") {
                Property("name", .string)
                Property("notes", to: "Note", inverse: "folder", toMany: true, deleteRule: .cascade)
            }
            Entity("Note") {
                Property("title", .string)
                Property("folder", to: "Folder", inverse: "notes")
                Property("tags", to: "Tag", inverse: "notes", toMany: true)
            }
            Entity("Tag") {
                Property("label", .string)
                Property("notes", to: "Note", inverse: "tags", toMany: true)
            }
            Entity("Shelf") {
                Property("name", .string)
                Property("books", to: "Book", inverse: "shelf", toMany: true, ordered: true)
            }
            Entity("Book") {
                Property("title", .string)
                Property("shelf", to: "Shelf", inverse: "books")
            }
            Entity("Vault") {
                Property("name", .string)
                Property("items", to: "Item", inverse: "vault", toMany: true, deleteRule: .deny)
            }
            Entity("Item") {
                Property("name", .string)
                Property("vault", to: "Vault", inverse: "items")
            }
        }
    }

    /// A coordinator on a fresh store, a context, and a reader reset before each read.
    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let reader: ManagedObjectContext
        let center = NotificationCenter()
        let directory: TemporaryDirectory

        init(_ type: PersistentStoreType) throws {
            directory = try TemporaryDirectory()
            coordinator = PersistentStoreCoordinator(managedObjectModel: try BatchModel.make())
            try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
            context = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
            reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        var sqliteStore: SQLiteStore? { coordinator.persistentStores.first as? SQLiteStore }

        @discardableResult
        func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValuesForKeys(values)
            return object
        }

        /// Ten saved logs, levels 0…9, messages "m0"…"m9", codes "c0"…"c9".
        @discardableResult
        func logs() throws -> [ManagedObject] {
            let logs = try (0..<10).map { try insert("Log", ["message": "m\($0)", "level": $0, "code": "c\($0)"]) }
            try context.save()
            return logs
        }

        /// What the store has for `entity`: a fresh read of `key` of every record, sorted.
        func stored(_ entity: String, _ key: String) throws -> [String] {
            reader.reset()
            return try reader.fetch(FetchRequest<ManagedObject>(entityName: entity)).map { "\(try $0.value(forKey: key) ?? "nil")" }.sorted()
        }
    }
}
