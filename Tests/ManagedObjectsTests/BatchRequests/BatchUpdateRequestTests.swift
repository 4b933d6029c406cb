import Foundation
import Testing

@testable import ManagedObjects

/// Batch updates write new attribute values straight to the store, all or nothing, in one
/// statement where SQL can express the predicate; registered objects keep their values until
/// the result is merged, and optimistic locking still sees the change.
@Suite struct BatchUpdateRequestTests {
    @Test(arguments: BatchModel.storeTypes)
    func updatesTheMatchingRecordsAndReportsThem(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        var request = BatchUpdateRequest(
            entityName: "Log", predicate: try KeyValuePredicate(format: "level >= 7"), propertiesToUpdate: ["message": "archived"])
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        #expect(result.count == 3)
        #expect(Set(result.objectIDs ?? []) == Set(logs[7...].map(\.objectID)))
        #expect(try stack.stored("Log", "message") == ["archived", "archived", "archived", "m0", "m1", "m2", "m3", "m4", "m5", "m6"])
        // The batch bypassed the context, as in Core Data.
        #expect(try logs[8].value(forKey: "message") as? String == "m8")
        request.resultType = .count
        request.propertiesToUpdate = ["level": 9]
        let counted = try stack.context.execute(request)
        #expect(counted.count == 3 && counted.objectIDs == nil)
        request.resultType = .statusOnly
        #expect(try stack.context.execute(request).objectIDs == nil)
    }

    @Test(arguments: BatchModel.storeTypes)
    func mergingTheResultRefreshesRegisteredObjects(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        let changes = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        var request = BatchUpdateRequest(entityName: "Log", propertiesToUpdate: ["message": nil as String? as Any])
        request.resultType = .objectIDs
        let result = try stack.context.execute(request)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: RemoteChanges(updated: result.objectIDs ?? []), into: [stack.context])
        #expect(try logs[3].value(forKey: "message") == nil)
        #expect(changes.objects(ManagedObjectContext.refreshedObjectsKey, at: 0).count == 10)
        try logs[3].setValue("edited", forKey: "message")
        try stack.context.save()  // the merged version: no conflict
    }

    @Test(arguments: BatchModel.storeTypes)
    func aContextHoldingAnOlderCopyGetsAMergeConflict(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        try stack.context.execute(BatchUpdateRequest(entityName: "Log", propertiesToUpdate: ["level": 5]))
        try logs[0].setValue("mine", forKey: "message")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.code == .mergeConflict)
    }

    @Test(arguments: BatchModel.storeTypes)
    func siblingFaultsReadTheNewValues(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        try stack.logs()
        let sibling = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        let faults = try sibling.fetch(FetchRequest<ManagedObject>(entityName: "Log"))
        try stack.context.execute(BatchUpdateRequest(entityName: "Log", propertiesToUpdate: ["message": "new"]))
        #expect(try faults.allSatisfy { try $0.value(forKey: "message") as? String == "new" })
    }

    @Test func sqlRunsOneUpdateForATranslatablePredicateAndFallsBackForTheRest() throws {
        let stack = try BatchModel.Stack(.sqlite)
        try stack.logs()
        let store = try #require(stack.sqliteStore)
        let translated = try store.recordingSQL {
            try stack.context.execute(BatchUpdateRequest(
                entityName: "Log", predicate: try KeyValuePredicate(format: "level < 3"), propertiesToUpdate: ["message": "low"]))
        }
        #expect(translated.filter { $0.hasPrefix("UPDATE") }.count == 1, "\(translated)")
        // Decimals are not compared in SQL: the records are found as a fetch finds them.
        try stack.insert("Log", ["message": "priced", "cost": Decimal(string: "12.5") as Any, "code": "p"])
        try stack.context.save()
        var request = BatchUpdateRequest(
            entityName: "Log", predicate: try KeyValuePredicate(format: "cost > 10"), propertiesToUpdate: ["message": "expensive"])
        request.resultType = .count
        #expect(try stack.context.execute(request).count == 1)
        #expect(try stack.stored("Log", "message").filter { $0 == "low" || $0 == "expensive" }.count == 4)
    }

    @Test(arguments: BatchModel.storeTypes)
    func badRequestsWriteNothing(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        try stack.logs()
        func attempt(_ values: [String: Any], entity: String = "Log") throws {
            try stack.context.execute(BatchUpdateRequest(entityName: entity, propertiesToUpdate: values))
        }
        #expect((#expect(throws: ModelError.self) { try attempt(["message": "x"], entity: "Nothing") })?.code == .unknownEntity)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["shoeSize": 1]) })?.code == .undefinedKey)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["notes": []], entity: "Folder") })?.code == .undefinedKey)
        #expect((#expect(throws: KeyValueCodingError.self) { try attempt(["level": "high"]) })?.code == .typeMismatch)
        #expect((#expect(throws: ValidationError.self) { try attempt(["level": 12, "message": "x"]) })?.code == .numberTooLarge)
        // Every record would share one code: the uniqueness constraint refuses it.
        #expect((#expect(throws: PersistenceError.self) { try attempt(["code": "same"]) })?.code == .constraintConflict)
        #expect(try stack.stored("Log", "message") == (0..<10).map { "m\($0)" })
        #expect(try stack.stored("Log", "code") == (0..<10).map { "c\($0)" })
    }

    @Test func sqliteRefusesToRaiseTheLargestVersion() throws {
        let stack = try BatchModel.Stack(.sqlite)
        try stack.logs()
        let connection = try SQLiteConnection(path: stack.directory.file().path, create: false)
        try connection.execute("UPDATE ZLOG SET Z_OPT = 9223372036854775807 WHERE ZLEVEL = 4")
        let exhausted = #expect(throws: PersistenceError.self) {
            try stack.context.execute(BatchUpdateRequest(entityName: "Log", propertiesToUpdate: ["message": "x"]))
        }
        #expect(exhausted?.code == .saveFailed)
        #expect(try stack.stored("Log", "message") == (0..<10).map { "m\($0)" }, "nothing was written")
    }

    @Test(arguments: BatchModel.storeTypes)
    func batchInsertsKeepUniquenessConstraints(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        try stack.logs()
        let error = #expect(throws: PersistenceError.self) {
            try stack.context.execute(BatchInsertRequest(entityName: "Log", objects: [["code": "new"], ["code": "c3"]]))
        }
        #expect(error?.code == .constraintConflict)
        #expect(try stack.stored("Log", "code").count == 10)
    }

    @Test(arguments: [PersistentStoreType.inMemory, .binary])
    func recordByRecordRefusesToRaiseTheLargestVersion(type: PersistentStoreType) throws {
        let stack = try BatchModel.Stack(type)
        let logs = try stack.logs()
        let store = try #require(stack.coordinator.persistentStores.first)
        var record = try #require(try store.record(for: logs[2].objectID))
        var changes = SaveChanges()
        changes.expectedVersions[record.objectID] = record.version
        record.version = .max
        changes.updated = [record]
        try store.apply(changes)
        let error = #expect(throws: PersistenceError.self) {
            try stack.context.execute(BatchUpdateRequest(entityName: "Log", propertiesToUpdate: ["message": "x"]))
        }
        #expect(error?.code == .saveFailed)
        #expect(try stack.stored("Log", "message") == (0..<10).map { "m\($0)" }, "nothing was written")
    }
}
