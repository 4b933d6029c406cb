import Foundation
import Testing
@testable import ManagedObjects

@Suite struct SQLiteErrorTests {
    private func code(of body: () throws -> Void) -> PersistenceError.Code? {
        do {
            try body()
            return nil
        } catch let error as PersistenceError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func aFileOfRandomBytesIsAnInvalidStore() throws {
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: directory.file())
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        #expect(code { try coordinator.addPersistentStore(type: .sqlite, at: directory.file()) } == .invalidStore)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Data(contentsOf: directory.file()) == bytes)  // left alone
    }

    @Test func aTruncatedStoreIsAnInvalidStore() throws {
        let directory = try TemporaryDirectory()
        _ = try SQLiteStore(url: directory.file(), model: try makeTestModel())
        // Checkpointed into the main file by the close above; keep its header only.
        let header = try Data(contentsOf: directory.file()).prefix(100)
        try? FileManager.default.removeItem(at: directory.file("Store.sqlite-wal"))
        try? FileManager.default.removeItem(at: directory.file("Store.sqlite-shm"))
        try (header + Data(repeating: 0xA5, count: 4000)).write(to: directory.file())
        #expect(code { _ = try SQLiteStore(url: directory.file(), model: try makeTestModel()) } == .invalidStore)
    }

    @Test func aDatabaseOfAnotherProgramIsAnInvalidStore() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.file().path)
        try connection.execute("CREATE TABLE notes (body TEXT)")
        do {
            _ = try SQLiteStore(url: directory.file(), model: try makeTestModel())
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .invalidStore)
            #expect(error.message.contains("notes"))
        }
    }

    @Test func aMissingDirectoryOrANonFileURLIsAnInvalidStore() throws {
        let model = try makeTestModel()
        #expect(code { _ = try SQLiteStore(url: URL(fileURLWithPath: "/nonexistent-dir-\(UUID())/x.sqlite"), model: model) } == .invalidStore)
        #expect(code { _ = try SQLiteStore(url: URL(string: "https://example.com/x.sqlite")!, model: model) } == .invalidStore)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        #expect(code { try coordinator.addPersistentStore(type: .sqlite) } == .invalidStore)
    }

    @Test func anotherModelIsAnIncompatibleModelNamingWhatDiffers() throws {
        let directory = try TemporaryDirectory()
        _ = try SQLiteStore(url: directory.file(), model: try makeTestModel())
        let other = try ManagedObjectModel {
            Entity("Department") { Property("name", .string) }  // changed
            Entity("Employee", class: TestEmployee.self) {
                Property("firstName", .string)
                Property("lastName", .string)
                Property("salary", .double, defaultValue: 0.0, minimum: 0.0)
                Property("age", .integer16, defaultValue: 30, minimum: 16, maximum: 99)
            }
            Entity("Invoice") { Property("total", .decimal) }  // added
        }
        do {
            _ = try SQLiteStore(url: directory.file(), model: other)
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .incompatibleModel)
            #expect((error as NSError).code == 134_100)
            #expect(error.message.contains("entities added: Invoice"))
            #expect(error.message.contains("entities removed: Milestone, Passport, Person, Project, Record, Tag"))
            #expect(error.message.contains("entities changed: Department (removed: "))
            #expect(error.message.contains("budget"))
            #expect(error.message.contains(", Employee (removed: "))
        }
        _ = try SQLiteStore(url: directory.file(), model: try makeTestModel())  // still fine
    }

    @Test func aMismatchNamesThePropertiesAddedRemovedAndChanged() throws {
        let directory = try TemporaryDirectory()
        let first = try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
                Property("body", .string)
                Property("stars", .integer16, defaultValue: 0)
            }
        }
        _ = try SQLiteStore(url: directory.file(), model: first)
        let second = try ManagedObjectModel {
            Entity("Note") {
                Property("title", .string)
                Property("stars", .string)  // changed type
                Property("tags", .string)  // added
            }
        }
        let error = #expect(throws: PersistenceError.self) { try SQLiteStore(url: directory.file(), model: second) }
        #expect(error?.code == .incompatibleModel)
        #expect(error?.message.contains("entities changed: Note (added: tags; removed: body; changed: stars)") == true, "\(error?.message ?? "")")
    }

    @Test func aFailedApplyLeavesTheFileAsItWas() throws {
        let directory = try TemporaryDirectory()
        let probe = try SQLiteProbe(directory: directory, model: try makeTestModel())
        let person = try #require(probe.model.entity(named: "Person"))
        let ada = try probe.insert(person) { $0[0] = .string("Ada") }
        let before = try probe.query("SELECT Z_PK, Z_OPT, ZNAME FROM ZPERSON ORDER BY Z_PK")

        // An update, a new row, then a row whose key is taken: the INSERT fails on the
        // primary-key constraint after the first two statements ran.
        let key = try #require(try probe.store.newPrimaryKeys(for: person, count: 1).first)
        var changes = SaveChanges()
        changes.updated = [StoreRecord(objectID: ada, version: 2, values: [.string("Augusta"), .null, .null])]
        changes.expectedVersions[ada] = 1
        changes.inserted = [
            StoreRecord(
                objectID: ManagedObjectID(entity: person, key: .permanent(storeIdentifier: probe.store.identifier, primaryKey: key)),
                version: 1, values: [.string("Grace"), .null, .null]),
            StoreRecord(objectID: ada, version: 1, values: [.string("Duplicate"), .null, .null]),
        ]
        do {
            try probe.store.apply(changes)
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .saveFailed)
            #expect(error.sql?.hasPrefix("INSERT INTO \"ZPERSON\"") == true)
            #expect(error.message.contains("UNIQUE") || error.message.contains("constraint"))
        }
        #expect(try probe.query("SELECT Z_PK, Z_OPT, ZNAME FROM ZPERSON ORDER BY Z_PK") == before)
        #expect(try probe.store.record(for: ada)?.values.first == .string("Ada"))
        // The store still works.
        changes.inserted.removeLast()
        try probe.store.apply(changes)
        #expect(try probe.query("SELECT ZNAME FROM ZPERSON ORDER BY Z_PK") == ["Augusta", "Grace"])
    }

    @Test func aCorruptValueThrowsInsteadOfTrapping() throws {
        let directory = try TemporaryDirectory()
        let probe = try SQLiteProbe(directory: directory, model: try SQLiteTypeTests.makeModel())
        let entity = try #require(probe.model.entity(named: "Everything"))
        let id = try probe.insert(entity) { $0[5] = .decimal(1) }
        let connection = try SQLiteConnection(path: directory.file().path)
        try connection.execute("UPDATE ZEVERYTHING SET ZDECIMAL = 'not a number', ZUUID = x'0102'")
        do {
            _ = try probe.store.record(for: id)
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .operationFailed)
            #expect(error.sql != nil)
        }
        try connection.execute("UPDATE ZEVERYTHING SET ZDECIMAL = NULL, Z_ENT = 'Nope'")
        #expect(throws: PersistenceError.self) { try probe.store.records(of: entity, includesSubentities: true) }
    }

    @Test func aDamagedKeyCounterThrowsInsteadOfOverflowing() throws {
        let directory = try TemporaryDirectory()
        let probe = try SQLiteProbe(directory: directory, model: try makeTestModel())
        let person = try #require(probe.model.entity(named: "Person"))
        let connection = try SQLiteConnection(path: directory.file().path)
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = -9223372036854775807 WHERE Z_ENT = 'Person'")
        #expect(code { _ = try probe.store.newPrimaryKeys(for: person, count: 3) } == .saveFailed)
    }
}
