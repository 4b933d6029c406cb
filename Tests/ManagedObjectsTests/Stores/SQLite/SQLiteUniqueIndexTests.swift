import Foundation
import Testing

@testable import ManagedObjects

/// The SQLite store enforces uniqueness constraints with unique indexes that follow the model
/// each time the file opens: a constraint added to a file that already holds duplicates is
/// refused without touching the file.
@Suite struct SQLiteUniqueIndexTests {
    private func model(_ constraints: [[String]], subentityConstraints: [[String]] = []) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Customer", uniquenessConstraints: constraints) {
                Property("email", .string)
                Property("name", .string)
            }
            Entity("VIP", parent: "Customer", uniquenessConstraints: subentityConstraints) {
                Property("level", .integer16)
            }
        }
    }

    private func open(_ model: ManagedObjectModel, _ directory: TemporaryDirectory) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    private func insert(_ emails: [String], entity: String = "Customer", into context: ManagedObjectContext) throws {
        for email in emails {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(email, forKey: "email")
        }
        try context.save()
    }

    private func indexes(_ directory: TemporaryDirectory) throws -> [String] {
        try SQLiteProbe.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'ZUNIQUE%' ORDER BY name", at: directory.file())
    }

    @Test func aConstraintIsAUniqueIndex() throws {
        let directory = try TemporaryDirectory()
        _ = try open(try model([["email"], ["email", "name"]], subentityConstraints: [["level"]]), directory)
        let found = try indexes(directory)
        #expect(found.count == 3)
        #expect(found.contains { $0.hasPrefix("ZUNIQUE_Customer_email|CREATE UNIQUE INDEX") })
        #expect(found.contains { $0.hasPrefix("ZUNIQUE_VIP_level|") && $0.hasSuffix("WHERE \"Z_ENT\" IN ('VIP')") }, "\(found)")
    }

    @Test func addingAConstraintToAFileWithoutDuplicatesIndexesIt() throws {
        let directory = try TemporaryDirectory()
        try insert(["a@x", "b@x"], into: try open(try model([]), directory))
        let context = try open(try model([["email"]]), directory)
        #expect(try indexes(directory).count == 1)
        try insert(["c@x"], into: context)
        let duplicate = try context.insertNewObject(forEntityName: "Customer")
        try duplicate.setValue("a@x", forKey: "email")
        #expect((#expect(throws: PersistenceError.self) { try context.save() })?.code == .constraintConflict)
    }

    @Test func addingAConstraintToAFileWithDuplicatesIsRefused() throws {
        let directory = try TemporaryDirectory()
        try insert(["a@x", "a@x"], into: try open(try model([]), directory))
        let error = #expect(throws: PersistenceError.self) { _ = try open(try model([["email"]]), directory) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("Customer (email)") == true)
        #expect(error?.message.contains("a@x") == true)
        #expect(try indexes(directory).isEmpty, "the file is left as it was")
        _ = try open(try model([]), directory)  // still opens with the model that wrote it
    }

    @Test func removingAConstraintDropsItsIndex() throws {
        let directory = try TemporaryDirectory()
        _ = try open(try model([["email"]]), directory)
        let context = try open(try model([]), directory)
        #expect(try indexes(directory).isEmpty)
        try insert(["a@x", "a@x"], into: context)
    }

    @Test func anotherCoordinatorsSavedValueIsADuplicate() throws {
        let directory = try TemporaryDirectory()
        let constrained = try model([["email"]])
        let first = try open(constrained, directory)
        let second = try open(constrained, directory)
        let mine = try first.insertNewObject(forEntityName: "Customer")
        try mine.setValue("race@x", forKey: "email")
        let theirs = try second.insertNewObject(forEntityName: "Customer")
        try theirs.setValue("race@x", forKey: "email")
        try first.save()
        // The second coordinator's check reads the file, where the first one's row is.
        let error = #expect(throws: PersistenceError.self) { try second.save() }
        #expect(error?.code == .constraintConflict)
        #expect(second.insertedObjects.contains(theirs))
    }
}
