import Foundation
import Testing
@testable import ManagedObjects

/// Batch inserts into an entity with a uniqueness constraint under a merge policy other than
/// `.error` are upserts, as Core Data's: the batch's values win under object-trump and
/// overwrite, the saved record's under store-trump and rollback; inverses follow.
@Suite struct BatchInsertUpsertTests {
    static let storeTypes: [PersistentStoreType] = [.inMemory, .binary, .sqlite]

    /// Teams of players; a player's handle is unique.
    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let reader: ManagedObjectContext
        let directory: TemporaryDirectory
        let database: TemporaryPostgreSQLDatabase?

        init(_ type: PersistentStoreType, policy: MergePolicy) throws {
            let model = try ManagedObjectModel {
                Entity("Team") {
                    Property("name", .string)
                    Property("players", to: "Player", inverse: "team", toMany: true)
                }
                Entity("Player", uniquenessConstraints: [["handle"]]) {
                    Property("handle", .string)
                    Property("score", .integer64, defaultValue: 0)
                    Property("nickname", .string)
                    Property("team", to: "Team", inverse: "players")
                }
            }
            directory = try TemporaryDirectory()
            coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            if type == .postgreSQL {
                let database = try TemporaryPostgreSQLDatabase()
                self.database = database
                try coordinator.addPersistentStore(type: type, at: database.url)
            } else {
                database = nil
                try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
            }
            context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            context.mergePolicy = policy
            reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        @discardableResult
        func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValuesForKeys(values)
            return object
        }

        /// Every saved player as "handle score nickname team", sorted, read afresh.
        func players() throws -> [String] {
            reader.reset()
            return try reader.fetch(FetchRequest<ManagedObject>(entityName: "Player")).map { player in
                let team = try (player.value(forKey: "team") as? ManagedObject)?.value(forKey: "name") as? String
                return "\(try player.value(forKey: "handle") as? String ?? "-") \(try player.value(forKey: "score") as? Int64 ?? -1) "
                    + "\(try player.value(forKey: "nickname") as? String ?? "-") \(team ?? "-")"
            }.sorted()
        }

        /// The handles of a team's players, sorted, read afresh.
        func handles(of team: ManagedObject) throws -> [String] {
            reader.reset()
            let saved = try reader.existingObject(with: team.objectID)
            let players = try saved.value(forKey: "players") as? Set<ManagedObject> ?? []
            return try players.map { try $0.value(forKey: "handle") as? String ?? "-" }.sorted()
        }
    }

    @Test(arguments: storeTypes, [MergePolicy.objectTrump, .overwrite])
    func theBatchsValuesReplaceASavedRecordWithTheSameConstrainedValues(type: PersistentStoreType, policy: MergePolicy) throws {
        let stack = try Stack(type, policy: policy)
        let saved = try stack.insert("Player", ["handle": "ann", "score": 5, "nickname": "A"])
        try stack.context.save()
        let ids = try stack.context.execute(BatchInsertRequest(
            entityName: "Player", objects: [["handle": "ann", "score": 9], ["handle": "bob", "score": 1]]))
        #expect(ids.count == 2)
        #expect(ids[0] == saved.objectID, "the saved record's ID, not a new one")
        // The whole row as the batch writes it: the nickname not given takes the model's default.
        #expect(try stack.players() == ["ann 9 - -", "bob 1 - -"])
        #expect(saved.isFault, "the registered object was refreshed")
        #expect(try saved.value(forKey: "score") as? Int64 == 9)
    }

    @Test(arguments: storeTypes, [MergePolicy.storeTrump, .rollback])
    func theSavedRecordStaysAndTheBatchsRecordIsDropped(type: PersistentStoreType, policy: MergePolicy) throws {
        let stack = try Stack(type, policy: policy)
        let saved = try stack.insert("Player", ["handle": "ann", "score": 5, "nickname": "A"])
        try stack.context.save()
        let ids = try stack.context.execute(BatchInsertRequest(
            entityName: "Player", objects: [["handle": "ann", "score": 9], ["handle": "bob", "score": 1]]))
        #expect(ids[0] == saved.objectID)
        #expect(try stack.players() == ["ann 5 A -", "bob 1 - -"])
    }

    @Test(arguments: storeTypes)
    func recordsOfTheBatchSharingValuesBecomeOneRecord(type: PersistentStoreType) throws {
        for (policy, expected) in [(MergePolicy.objectTrump, "cat 2 - -"), (.storeTrump, "cat 1 - -")] {
            let stack = try Stack(type, policy: policy)
            let ids = try stack.context.execute(BatchInsertRequest(
                entityName: "Player", objects: [["handle": "cat", "score": 1], ["score": 7], ["handle": "cat", "score": 2], ["score": 8]]))
            #expect(ids[0] == ids[2], "one record for both")
            #expect(Set(ids).count == 3, "records without a handle conflict with none")
            #expect(try stack.players() == ["- 7 - -", "- 8 - -", expected], "\(policy)")
        }
    }

    @Test(arguments: storeTypes)
    func anUpsertedRecordMovesFromOneInverseToTheOther(type: PersistentStoreType) throws {
        let stack = try Stack(type, policy: .objectTrump)
        let red = try stack.insert("Team", ["name": "red"])
        let blue = try stack.insert("Team", ["name": "blue"])
        let ann = try stack.insert("Player", ["handle": "ann", "score": 5])
        try ann.setValue(red, forKey: "team")
        try stack.context.save()
        try stack.context.execute(BatchInsertRequest(
            entityName: "Player", objects: [["handle": "ann", "score": 6, "team": blue.objectID], ["handle": "dan", "team": blue]]))
        #expect(try stack.handles(of: red) == [])
        #expect(try stack.handles(of: blue) == ["ann", "dan"])
        // Again, already a member: the inverse holds it once.
        try stack.context.execute(BatchInsertRequest(entityName: "Player", objects: [["handle": "ann", "score": 7, "team": blue.objectID]]))
        #expect(try stack.handles(of: blue) == ["ann", "dan"])
        #expect(try stack.players() == ["ann 7 - blue", "dan 0 - blue"])
        // The registered teams read the new members, and save without a conflict.
        #expect(try (red.value(forKey: "players") as? Set<ManagedObject>)?.isEmpty == true)
        try red.setValue("crimson", forKey: "name")
        try stack.context.save()
    }

    @Test(arguments: storeTypes)
    func aSavedRecordOfASiblingEntityWithTheSameValuesIsAConflict(type: PersistentStoreType) throws {
        let model = try ManagedObjectModel {
            Entity("Account", uniquenessConstraints: [["login"]]) { Property("login", .string) }
            Entity("Admin", parent: "Account") { Property("level", .integer16) }
            Entity("Guest", parent: "Account") { Property("expiry", .date) }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        context.mergePolicy = .objectTrump
        let admin = try context.insertNewObject(forEntityName: "Admin")
        try admin.setValue("root", forKey: "login")
        try context.save()
        let error = #expect(throws: PersistenceError.self) {
            try context.execute(BatchInsertRequest(entityName: "Guest", objects: [["login": "visitor"], ["login": "root"]]))
        }
        #expect(error?.code == .constraintConflict)
        #expect(error?.objectID == admin.objectID)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Guest")) == 0, "nothing written")
    }

    @Test(arguments: storeTypes)
    func underTheErrorPolicyADuplicateStillThrowsAndWritesNothing(type: PersistentStoreType) throws {
        let stack = try Stack(type, policy: .error)
        try stack.insert("Player", ["handle": "ann", "score": 5])
        try stack.context.save()
        let error = #expect(throws: PersistenceError.self) {
            try stack.context.execute(BatchInsertRequest(entityName: "Player", objects: [["handle": "eve"], ["handle": "ann"]]))
        }
        #expect(error?.code == .constraintConflict)
        #expect(try stack.players() == ["ann 5 - -"])
    }
}

extension PostgreSQLTests {
    /// Batch-insert upserts on the PostgreSQL store: the same rules as on the others.
    @Suite struct BatchInsertUpsertOnPostgreSQLTests {
        @Test func theBatchsValuesReplaceTheSavedRecordAndInversesFollow() throws {
            let stack = try BatchInsertUpsertTests.Stack(.postgreSQL, policy: .objectTrump)
            let red = try stack.insert("Team", ["name": "red"])
            let blue = try stack.insert("Team", ["name": "blue"])
            let ann = try stack.insert("Player", ["handle": "ann", "score": 5, "nickname": "A"])
            try ann.setValue(red, forKey: "team")
            try stack.context.save()
            let ids = try stack.context.execute(BatchInsertRequest(
                entityName: "Player", objects: [["handle": "ann", "score": 6, "team": blue.objectID], ["handle": "cat"], ["handle": "cat", "score": 3]]))
            #expect(ids[0] == ann.objectID && ids[1] == ids[2])
            #expect(try stack.players() == ["ann 6 - blue", "cat 3 - -"])
            #expect(try stack.handles(of: red) == [])
            #expect(try stack.handles(of: blue) == ["ann"])
        }

        @Test func theSavedRecordStaysUnderStoreTrump() throws {
            let stack = try BatchInsertUpsertTests.Stack(.postgreSQL, policy: .storeTrump)
            try stack.insert("Player", ["handle": "ann", "score": 5, "nickname": "A"])
            try stack.context.save()
            try stack.context.execute(BatchInsertRequest(entityName: "Player", objects: [["handle": "ann", "score": 9], ["handle": "bob"]]))
            #expect(try stack.players() == ["ann 5 A -", "bob 0 - -"])
        }
    }
}
