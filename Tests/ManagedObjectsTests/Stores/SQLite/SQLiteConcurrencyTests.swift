import Foundation
import Testing
@testable import ManagedObjects

/// Two coordinators on one file, as two processes would have: each has its own save lock, so
/// the store itself must catch a writer that moved a record between a save's check and write.
@Suite struct SQLiteConcurrencyTests {
    @Test func aWriteBetweenTheVersionCheckAndTheApplyIsAConflictAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let one = try SQLiteStore(url: directory.file(), model: model)
        let two = try SQLiteStore(url: directory.file(), model: model)
        let person = try #require(model.entity(named: "Person"))
        let key = try #require(try one.newPrimaryKeys(for: person, count: 1).first)
        let id = ManagedObjectID(entity: person, key: .permanent(storeIdentifier: one.identifier, primaryKey: key))
        var insert = SaveChanges()
        insert.inserted = [StoreRecord(objectID: id, version: 1, values: [.string("Ada"), .null, .null])]
        try one.apply(insert)

        // Store one checks versions (as a context's save does), then store two writes.
        #expect(try one.versions(of: [id]) == [id: 1])
        var theirs = SaveChanges()
        theirs.updated = [StoreRecord(objectID: id, version: 2, values: [.string("Augusta"), .null, .null])]
        theirs.expectedVersions[id] = 1
        _ = try two.versions(of: [id])
        try two.apply(theirs)

        var mine = SaveChanges()
        mine.updated = [StoreRecord(objectID: id, version: 2, values: [.string("Grace"), .null, .null])]
        mine.expectedVersions[id] = 1
        do {
            try one.apply(mine)
            Issue.record("expected a merge conflict")
        } catch let error as PersistenceError {
            #expect(error.code == .mergeConflict)
            #expect(error.conflicts.map(\.objectID) == [id])
            #expect(error.conflicts.first?.oldVersion == 1)
            #expect(error.conflicts.first?.newVersion == 2)
        }
        #expect(try one.record(for: id)?.values.first == .string("Augusta"))
        #expect(try one.record(for: id)?.version == 2)

        // A delete of a row someone else deleted in between is a conflict too.
        _ = try one.versions(of: [id])
        var delete = SaveChanges()
        delete.deleted = [id]
        delete.expectedVersions[id] = 2
        _ = try two.versions(of: [id])
        try two.apply(delete)
        var update = SaveChanges()
        update.updated = [StoreRecord(objectID: id, version: 3, values: [.string("Late"), .null, .null])]
        update.expectedVersions[id] = 2
        #expect(throws: PersistenceError.self) { try one.apply(update) }
        #expect(try one.record(for: id) == nil)
    }

    @Test func twoCoordinatorsOnOneFileSeeEachOthersSavesAndConflicts() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let (_, otherContext) = try stack.reopened()
        let theirs = try #require(try otherContext.existingObject(with: ada.objectID) as? TestEmployee)
        theirs.salary = 2
        try otherContext.save()

        ada.salary = 3
        do {
            try stack.context.save()
            Issue.record("expected a merge conflict")
        } catch let error as PersistenceError {
            #expect(error.code == .mergeConflict)
        }
        #expect(ada.isUpdated)
        stack.context.mergePolicy = .objectTrump
        try stack.context.save()
        otherContext.refresh(theirs, mergeChanges: false)
        #expect(theirs.salary == 3)

        // Both insert: keys come from the shared counter, so IDs never collide.
        let grace = stack.employee("Grace")
        let alan = TestEmployee(context: otherContext)
        alan.firstName = "Alan"
        try otherContext.save()
        try stack.context.save()
        #expect(grace.objectID != alan.objectID)
        #expect(Set([ada, grace, alan].compactMap(\.objectID.primaryKey)).count == 3)
    }

    @Test func concurrentSavesFromManyTasksAllLand() async throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let url = try #require(stack.sqliteStore?.url)
        let model = stack.model
        let shared = stack.coordinator
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    // Half share the first coordinator, half open their own (another "process").
                    let coordinator: PersistentStoreCoordinator
                    if writer.isMultiple(of: 2) {
                        coordinator = shared
                    } else {
                        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                        try coordinator.addPersistentStore(type: .sqlite, at: url)
                    }
                    for round in 0..<10 {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        let employee = TestEmployee(context: context)
                        employee.firstName = "W\(writer)-\(round)"
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try SQLiteProbe.query("SELECT count(*), count(DISTINCT ZFIRSTNAME) FROM ZEMPLOYEE", at: url) == ["40|40"])
    }
}
