import Foundation
import Synchronization
import Testing
@testable import ManagedObjects

/// A save through a context is one transaction with one commit: the primary keys of inserted
/// records are claimed inside it, and two coordinators on one file never get the same key.
@Suite struct SQLiteSaveTransactionTests {
    private func transactions(_ statements: [String]) -> (begins: Int, commits: Int) {
        (statements.filter { $0.hasPrefix("BEGIN") }.count, statements.filter { $0 == "COMMIT" }.count)
    }

    @Test func aSaveOfInsertsUpdatesAndDeletesCommitsOnce() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let store = try #require(stack.sqliteStore)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        _ = stack.employee("Grace")
        let inserting = try store.recordingSQL { try stack.context.save() }
        #expect(transactions(inserting) == (1, 1), "\(inserting)")
        // The counters are written inside the transaction, after BEGIN and before COMMIT.
        let begin = try #require(inserting.firstIndex { $0.hasPrefix("BEGIN") })
        let commit = try #require(inserting.firstIndex(of: "COMMIT"))
        let counterWrites = inserting.indices.filter { inserting[$0].contains("Z_PRIMARYKEY") && !inserting[$0].hasPrefix("SELECT") }
        #expect(!counterWrites.isEmpty && counterWrites.allSatisfy { $0 > begin && $0 < commit }, "\(inserting)")
        #expect(Set([research.objectID, ada.objectID].map(\.isTemporaryID)) == [false])

        ada.salary = 10
        stack.context.delete(research)
        _ = stack.employee("Alan")
        let mixed = try store.recordingSQL { try stack.context.save() }
        #expect(transactions(mixed) == (1, 1), "\(mixed)")
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Employee'", at: try #require(store.url)) == ["3"])
    }

    /// Inserting records whose to-many relationships are empty writes their rows and nothing
    /// else: no positions of an ordered relationship, no join-table rows.
    @Test func insertingRecordsWithEmptyToManyRelationshipsWritesOnlyTheirRows() throws {
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SQLiteRelationshipTests.makeInheritanceModel())
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: directory.file()) as? SQLiteStore)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for _ in 0..<3 { try context.insertNewObject(forEntityName: "Canvas") }
        let statements = try store.recordingSQL { try context.save() }
        let rowWrites = statements.filter { !$0.contains("Z_PRIMARYKEY") && !$0.hasPrefix("SELECT") && $0 != "COMMIT" && !$0.hasPrefix("BEGIN") }
        #expect(rowWrites.count == 3 && rowWrites.allSatisfy { $0.hasPrefix("INSERT INTO \"ZCANVAS\"") }, "\(statements)")

        // With related objects, the positions and join rows are written.
        let canvas = try context.insertNewObject(forEntityName: "Canvas")
        let square = try context.insertNewObject(forEntityName: "Square")
        try canvas.setValue([square], forKey: "shapes")
        try canvas.setValue(Set([square]), forKey: "favorites")
        let relating = try store.recordingSQL { try context.save() }
        #expect(relating.contains { $0.hasPrefix("UPDATE \"ZSHAPE\"") }, "\(relating)")
        #expect(relating.contains { $0.hasPrefix("INSERT OR IGNORE INTO") }, "\(relating)")
    }

    @Test func aBatchInsertCommitsOnce() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let store = try #require(stack.sqliteStore)
        let research = stack.department("Research")
        try stack.context.save()
        var ids: [ManagedObjectID] = []
        let statements = try store.recordingSQL {
            ids = try stack.context.execute(BatchInsertRequest(
                entityName: "Employee", objects: [["firstName": "Ada", "department": research], ["firstName": "Grace"]]))
        }
        #expect(transactions(statements) == (1, 1), "\(statements)")
        #expect(Set(ids).count == 2 && ids.allSatisfy { !$0.isTemporaryID })
        #expect(research.employees.compactMap(\.firstName) == ["Ada"])
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Employee'", at: try #require(store.url)) == ["2"])
    }

    @Test(arguments: ["'seven'", "-1", "9223372036854775807", "2.5"])
    func aDamagedKeyCounterFailsTheSaveAndWritesNothing(counter: String) throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let url = try #require(stack.sqliteStore?.url)
        let connection = try SQLiteConnection(path: url.path, create: false)
        try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(counter) WHERE Z_ENT = 'Employee'")
        _ = stack.employee("Ada")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.code == .saveFailed)
        #expect(error?.message.contains("Z_PRIMARYKEY") == true)
        #expect(try SQLiteProbe.query("SELECT count(*) FROM ZEMPLOYEE", at: url) == ["0"])
        #expect(stack.context.hasChanges)
    }

    @Test func keysTakenByAnotherWriterBeforeTheClaimFailTheApplyAndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let one = try SQLiteStore(url: directory.file(), model: model)
        let two = try SQLiteStore(url: directory.file(), model: model)
        let person = try #require(model.entity(named: "Person"))
        let keys = try one.saveKeys(for: person, count: 2)
        #expect(keys == [1, 2])
        #expect(try two.newPrimaryKeys(for: person, count: 1) == [1])
        var changes = SaveChanges()
        changes.inserted = keys.map {
            StoreRecord(objectID: ManagedObjectID(entity: person, storeIdentifier: one.identifier, primaryKey: $0), version: 1,
                        values: [.string("P\($0)"), .null, .null])
        }
        #expect(throws: SaveKeysTaken.self) { try one.apply(changes) }
        #expect(try SQLiteProbe.query("SELECT count(*) FROM ZPERSON", at: directory.file()) == ["0"])
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Person'", at: directory.file()) == ["1"])

        // Keys read again after the other writer are claimed.
        let again = try one.saveKeys(for: person, count: 2)
        #expect(again == [2, 3])
        changes.inserted = again.map {
            StoreRecord(objectID: ManagedObjectID(entity: person, storeIdentifier: one.identifier, primaryKey: $0), version: 1,
                        values: [.string("P\($0)"), .null, .null])
        }
        try one.apply(changes)
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Person'", at: directory.file()) == ["3"])

        // Keys of a save that was abandoned are not claimed by the next write.
        _ = try one.saveKeys(for: person, count: 5)
        one.discardSaveKeys()
        _ = try two.newPrimaryKeys(for: person, count: 1)
        try one.apply(changes.updatedOnly(version: 2))
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Person'", at: directory.file()) == ["4"])
    }

    /// Transforms strings, and the first time it runs (inside a save, after the save's keys
    /// were handed out) makes another coordinator on the same file insert records.
    private final class Interrupting: ValueTransforming {
        let interruption: Mutex<(@Sendable () throws -> Void)?>
        init(_ interruption: @escaping @Sendable () throws -> Void) { self.interruption = Mutex(interruption) }
        func transformedValue(_ value: Any) throws -> Data {
            if let run = interruption.withLock({ $0.take() }) { try run() }
            return Data(String(describing: value).utf8)
        }
        func reverseTransformedValue(_ data: Data) throws -> Any { String(decoding: data, as: UTF8.self) }
    }

    @Test func aSaveWhoseKeysAnotherCoordinatorTookGetsOthersAndSavesEverything() throws {
        let directory = try TemporaryDirectory()
        let name = "SaveKeysInterrupting.\(UUID().uuidString)"
        let model = try ManagedObjectModel {
            Entity("Box") {
                Property("payload", .transformable, transformer: name)
                Property("parts", to: "Part", inverse: "box", toMany: true)
            }
            Entity("Part") {
                Property("label", .string)
                Property("box", to: "Box", inverse: "parts")
            }
        }
        let url = directory.file()
        ValueTransformerRegistry.register(Interrupting {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            for label in ["x", "y"] {
                let part = try context.insertNewObject(forEntityName: "Part")
                try part.setValue(label, forKey: "label")
            }
            _ = try context.insertNewObject(forEntityName: "Box")
            try context.save()
        }, forName: name)
        defer { ValueTransformerRegistry.unregister(name: name) }

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let box = try context.insertNewObject(forEntityName: "Box")
        try box.setValue("payload", forKey: "payload")
        var parts: [ManagedObject] = []
        for label in ["a", "b", "c"] {
            let part = try context.insertNewObject(forEntityName: "Part")
            try part.setValue(label, forKey: "label")
            try part.setValue(box, forKey: "box")
            parts.append(part)
        }
        try context.save()

        #expect(try SQLiteProbe.query("SELECT count(*), count(DISTINCT Z_PK) FROM ZPART", at: url) == ["5|5"])
        #expect(try SQLiteProbe.query("SELECT count(*), count(DISTINCT Z_PK) FROM ZBOX", at: url) == ["2|2"])
        // The objects carry the keys their rows were written with, and the relationship points
        // at the box's row.
        let boxKey = try #require(box.objectID.primaryKey)
        let rows = try SQLiteProbe.query("SELECT Z_PK, ZLABEL FROM ZPART WHERE ZBOX = \(boxKey) ORDER BY ZLABEL", at: url)
        let expected = try parts.map { "\($0.objectID.primaryKey ?? 0)|\(try $0.value(forKey: "label") as? String ?? "")" }
        #expect(rows == expected)
        #expect(parts.allSatisfy { !$0.objectID.isTemporaryID } && parts.allSatisfy { $0.managedObjectContext === context })
        #expect(context.registeredObject(for: box.objectID) === box)
    }

    @Test func coordinatorsSavingRelatedRecordsAtOnceNeverShareKeys() async throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let url = try #require(stack.sqliteStore?.url)
        let model = stack.model
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                    try coordinator.addPersistentStore(type: .sqlite, at: url)
                    for round in 0..<8 {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        insertDepartment("D\(writer)-\(round)", employees: 5, named: { "D\(writer)-\(round)/\($0)" }, into: context)
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try SQLiteProbe.query("SELECT count(*), count(DISTINCT Z_PK) FROM ZEMPLOYEE", at: url) == ["160|160"])
        #expect(try SQLiteProbe.query("SELECT count(*), count(DISTINCT Z_PK) FROM ZDEPARTMENT", at: url) == ["32|32"])
        // Every employee points at the department saved with it.
        let mismatched = try SQLiteProbe.query(
            "SELECT count(*) FROM ZEMPLOYEE e JOIN ZDEPARTMENT d ON d.Z_PK = e.ZDEPARTMENT WHERE e.ZFIRSTNAME NOT LIKE d.ZNAME || '/%'", at: url)
        #expect(mismatched == ["0"])
        #expect(try SQLiteProbe.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 'Employee'", at: url) == ["160"])
    }

    /// A SQLite store whose save keys another store on the same file reserves first, each time.
    private final class OvertakenStore: PersistentStore, SaveKeyProviding {
        let base: SQLiteStore
        let rival: SQLiteStore
        init(base: SQLiteStore, rival: SQLiteStore) {
            self.base = base
            self.rival = rival
        }
        var identifier: String { base.identifier }
        var type: PersistentStoreType { base.type }
        var url: URL? { base.url }
        func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] { try base.newPrimaryKeys(for: entity, count: count) }
        func saveKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
            let keys = try base.saveKeys(for: entity, count: count)
            _ = try rival.newPrimaryKeys(for: entity, count: 1)
            return keys
        }
        func discardSaveKeys() { base.discardSaveKeys() }
        func record(for objectID: ManagedObjectID) throws -> StoreRecord? { try base.record(for: objectID) }
        func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] { try base.records(for: objectIDs) }
        func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
            try base.records(of: entity, includesSubentities: includesSubentities)
        }
        func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] { try base.versions(of: objectIDs) }
        func apply(_ changes: SaveChanges) throws { try base.apply(changes) }
    }

    @Test func savesAndBatchInsertsWhoseKeysWereTakenWriteWithOthers() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let store = OvertakenStore(
            base: try SQLiteStore(url: directory.file(), model: model), rival: try SQLiteStore(url: directory.file(), model: model))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let research = TestDepartment(context: context)
        research.name = "Research"
        let ada = TestEmployee(context: context)
        ada.firstName = "Ada"
        ada.department = research
        try context.save()
        // The rival took key 1 of each entity: the save wrote with key 2.
        #expect(research.objectID.primaryKey == 2 && ada.objectID.primaryKey == 2)
        #expect(try SQLiteProbe.query("SELECT Z_PK, ZDEPARTMENT FROM ZEMPLOYEE", at: directory.file()) == ["2|2"])

        let ids = try context.execute(BatchInsertRequest(entityName: "Employee", objects: [["firstName": "Grace", "department": research]]))
        #expect(ids.map(\.primaryKey) == [4])
        #expect(try SQLiteProbe.query("SELECT Z_PK, ZDEPARTMENT FROM ZEMPLOYEE ORDER BY Z_PK", at: directory.file()) == ["2|2", "4|2"])
        #expect(Set(research.employees.compactMap(\.firstName)) == ["Ada", "Grace"])
        let counters = try SQLiteProbe.query("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_MAX > 0 ORDER BY Z_ENT", at: directory.file())
        #expect(counters == ["Department|2", "Employee|4"])
    }

    @Test func obtainedPermanentIDsAreUniqueAndKeptBySave() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let (_, other) = try stack.reopened()
        let ada = stack.employee("Ada")
        let grace = stack.employee("Grace")
        try stack.context.obtainPermanentIDs(for: [ada, grace, ada])
        let obtained = [ada.objectID, grace.objectID]
        #expect(obtained.allSatisfy { !$0.isTemporaryID })
        #expect(ada.isInserted && stack.context.registeredObject(for: ada.objectID) === ada)
        // Another coordinator saving meanwhile gets other keys.
        let alan = TestEmployee(context: other)
        alan.firstName = "Alan"
        try other.save()
        #expect(!obtained.contains(alan.objectID))
        try stack.context.obtainPermanentIDs(for: [ada])  // already permanent: unchanged
        #expect(ada.objectID == obtained[0])
        try stack.context.save()
        #expect([ada.objectID, grace.objectID] == obtained)
        let url = try #require(stack.sqliteStore?.url)
        #expect(try SQLiteProbe.query("SELECT count(DISTINCT Z_PK) FROM ZEMPLOYEE", at: url) == ["3"])
        let reader = stack.makeContext()
        #expect(try (reader.existingObject(with: obtained[1]) as? TestEmployee)?.firstName == "Grace")
    }

    @Test func obtainingIDsForAnotherContextsObjectIsAnError() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let ada = stack.employee("Ada")
        let other = stack.makeContext()
        let error = #expect(throws: PersistenceError.self) { try other.obtainPermanentIDs(for: [ada]) }
        #expect(error?.code == .objectInWrongContext)
        #expect(ada.objectID.isTemporaryID)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func obtainingIDsWorksOnEveryStore(kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let ada = stack.employee("Ada")
        try stack.context.obtainPermanentIDs(for: [ada])
        let id = ada.objectID
        #expect(!id.isTemporaryID)
        try stack.context.save()
        #expect(ada.objectID == id && !ada.isInserted)
    }
}

private extension SaveChanges {
    /// The inserted records as updates of their rows to `version`.
    func updatedOnly(version: Int64) -> SaveChanges {
        var changes = SaveChanges()
        changes.updated = inserted.map { StoreRecord(objectID: $0.objectID, version: version, values: $0.values) }
        for record in inserted { changes.expectedVersions[record.objectID] = version - 1 }
        return changes
    }
}
