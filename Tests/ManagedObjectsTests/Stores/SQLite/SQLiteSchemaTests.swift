import Foundation
import Testing
@testable import ManagedObjects

@Suite struct SQLSchemaTests {
    @Test func aNewFileGetsATablePerHierarchyJoinTablesIndexesAndMetadata() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let probe = try SQLiteProbe(directory: directory, model: model)
        #expect(try probe.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [
            "ZDEPARTMENT", "ZEMPLOYEE", "ZMILESTONE", "ZPASSPORT", "ZPERSON", "ZPROJECT", "ZRECORD", "ZTAG",
            "Z_EMPLOYEE_PROJECTS", "Z_METADATA", "Z_PRIMARYKEY",
        ])
        #expect(try probe.query("SELECT sql FROM sqlite_master WHERE name IN ('ZEMPLOYEE', 'ZMILESTONE', 'Z_EMPLOYEE_PROJECTS', 'ZPERSON') ORDER BY name") == [
            #"CREATE TABLE "ZEMPLOYEE" ("Z_PK" INTEGER PRIMARY KEY, "Z_ENT" TEXT NOT NULL, "Z_OPT" INTEGER NOT NULL, "ZFIRSTNAME" TEXT, "ZLASTNAME" TEXT, "ZSALARY" REAL, "ZAGE" INTEGER, "ZDEPARTMENT" INTEGER, "ZMANAGEDDEPARTMENT" INTEGER)"#,
            #"CREATE TABLE "ZMILESTONE" ("Z_PK" INTEGER PRIMARY KEY, "Z_ENT" TEXT NOT NULL, "Z_OPT" INTEGER NOT NULL, "ZTITLE" TEXT, "ZPROJECT" INTEGER, "Z_FOK_PROJECT" INTEGER)"#,
            #"CREATE TABLE "ZPERSON" ("Z_PK" INTEGER PRIMARY KEY, "Z_ENT" TEXT NOT NULL, "Z_OPT" INTEGER NOT NULL, "ZNAME" TEXT, "ZPASSPORT" INTEGER)"#,
            #"CREATE TABLE "Z_EMPLOYEE_PROJECTS" ("Z_1" INTEGER NOT NULL, "Z_2" INTEGER NOT NULL, PRIMARY KEY ("Z_1", "Z_2")) WITHOUT ROWID"#,
        ])
        #expect(try probe.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZEMPLOYEE' ORDER BY name") == [
            "ZEMPLOYEE_ZDEPARTMENT", "ZEMPLOYEE_ZMANAGEDDEPARTMENT", "ZEMPLOYEE_Z_ENT",
        ])
        let metadata = try probe.query("SELECT Z_KEY, Z_VALUE FROM Z_METADATA ORDER BY Z_KEY")
        #expect(metadata.contains("storeIdentifier|\(probe.store.identifier)"))
        #expect(metadata.contains("schemaVersion|1"))
        let employee = try #require(model.entity(named: "Employee"))
        #expect(metadata.contains("entity.Employee|\(SHA256.hex(employee.versionHash))"))
        #expect(try probe.query("PRAGMA journal_mode") == ["wal"])
        let synchronous = try probe.store.withConnection(.operationFailed) { state -> Int64 in
            var level: Int64 = -1
            try state.connection.prepare("PRAGMA synchronous").forEachRow { level = $0.int64(at: 0) }
            return level
        }
        #expect(synchronous == 2, "FULL: a save that returned survives a power loss")
    }

    @Test func reopeningKeepsTheIdentifierSoPermanentIDsStayValid() throws {
        let directory = try TemporaryDirectory()
        let first = try SQLiteProbe(directory: directory, model: try makeTestModel())
        let entity = try #require(first.model.entity(named: "Person"))
        let id = try first.insert(entity) { $0[0] = .string("Ada") }
        let model = try makeTestModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        #expect(store.identifier == first.store.identifier)
        let uri = id.uriRepresentation()
        let readID = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        let person = try ManagedObjectContext(coordinator: coordinator).existingObject(with: readID)
        #expect(try person.value(forKey: "name") as? String == "Ada")
    }

    @Test func primaryKeysAreReservedDurablyPerHierarchy() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let one = try SQLiteStore(url: directory.file(), model: model)
        let two = try SQLiteStore(url: directory.file(), model: model)
        let employee = try #require(model.entity(named: "Employee"))
        let department = try #require(model.entity(named: "Department"))
        #expect(try one.newPrimaryKeys(for: employee, count: 3) == [1, 2, 3])
        #expect(try two.newPrimaryKeys(for: employee, count: 2) == [4, 5])
        #expect(try one.newPrimaryKeys(for: department, count: 1) == [1])
        #expect(try one.newPrimaryKeys(for: employee, count: 0) == [])
        let reopened = try SQLiteStore(url: directory.file(), model: model)
        #expect(try reopened.newPrimaryKeys(for: employee, count: 1) == [6])
    }

    @Test func statementsAreCountedAndRecorded() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let store = try #require(stack.sqliteStore)
        let research = stack.department("Research")
        research.employees = [stack.employee("Ada"), stack.employee("Grace")]
        _ = stack.department("Sales")
        try stack.context.save()
        let department = try #require(stack.model.entity(named: "Department"))
        let before = store.statementCount
        let sql = try store.recordingSQL { _ = try store.records(of: department, includesSubentities: true) }
        #expect(store.statementCount == before + 2)
        #expect(sql == [
            #"SELECT "ZDEPARTMENT"."Z_PK", "ZDEPARTMENT"."Z_ENT", "ZDEPARTMENT"."Z_OPT", "ZDEPARTMENT"."ZNAME", "ZDEPARTMENT"."ZBUDGET", "ZDEPARTMENT"."ZMANAGER" FROM "ZDEPARTMENT" ORDER BY "ZDEPARTMENT"."Z_PK""#,
            #"SELECT "ZDEPARTMENT", "Z_PK", "Z_ENT" FROM "ZEMPLOYEE" WHERE "ZDEPARTMENT" IS NOT NULL ORDER BY "ZDEPARTMENT", "Z_PK""#,
        ])
    }
}
