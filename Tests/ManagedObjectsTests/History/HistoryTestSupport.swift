import Foundation
import Testing
import ModelObjects
@testable import ManagedObjects

/// A model for the persistent history tests: notes whose UUID and title stay in history
/// tombstones, in folders.
enum HistoryTestModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") {
                Property("uuid", .uuid, preservesValueInHistoryOnDeletion: true)
                Property("title", .string, preservesValueInHistoryOnDeletion: true)
                Property("body", .string)
                Property("draft", .string, transient: true)
                Property("folder", to: "Folder", inverse: "notes")
            }
            Entity("Folder") {
                Property("name", .string)
                Property("notes", to: "Note", inverse: "folder", toMany: true)
            }
            Entity("Tag") {
                Property("label", .string, preservesValueInHistoryOnDeletion: true)
                Property("uses", .integer64)
            }
        }
    }
}

/// A coordinator with one store that tracks persistent history, and a context named "main"
/// whose author is "app".
struct HistoryStack {
    enum Kind: Sendable, CaseIterable { case inMemory, sqlite }

    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let directory: TemporaryDirectory?

    init(_ kind: Kind, model: ManagedObjectModel? = nil, options: PersistentStoreOptions = .persistentHistoryTracking) throws {
        let model = try model ?? HistoryTestModel.make()
        self.model = model
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        switch kind {
        case .inMemory:
            directory = nil
            try coordinator.addPersistentStore(type: .inMemory, options: options)
        case .sqlite:
            let directory = try TemporaryDirectory()
            self.directory = directory
            try coordinator.addPersistentStore(type: .sqlite, at: directory.file(), options: options)
        }
        context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        context.name = "main"
        context.transactionAuthor = "app"
    }

    var store: any PersistentStore { coordinator.persistentStores[0] }

    /// A second coordinator and context on the same SQLite file, as another process would have.
    func secondStack(options: PersistentStoreOptions = .persistentHistoryTracking) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let url = try #require(store.url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return (coordinator, ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
    }

    /// Inserts a note and saves.
    @discardableResult
    func insertNote(_ title: String, uuid: UUID = UUID(), body: String? = nil) throws -> ManagedObject {
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue(uuid, forKey: "uuid")
        try note.setValue(title, forKey: "title")
        try note.setValue(body, forKey: "body")
        try context.save()
        return note
    }

    /// Every transaction the store has.
    func history(after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        try context.execute(.fetchHistory(after: token)).transactions
    }
}

/// Expects `body` to throw a `PersistenceError` with `code`.
func expectPersistenceError<R>(
    _ code: PersistenceError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) {
    let error = #expect(throws: PersistenceError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}

/// Expects `body` to throw an `ArchiveError` with `code`.
func expectArchiveError<R>(_ code: ArchiveError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) {
    let error = #expect(throws: ArchiveError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}

/// Expects `body` to throw a `ModelError` with `code`.
func expectModelError<R>(_ code: ModelError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) {
    let error = #expect(throws: ModelError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
