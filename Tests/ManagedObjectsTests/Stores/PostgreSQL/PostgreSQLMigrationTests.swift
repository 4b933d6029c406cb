import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// Lightweight migration of a PostgreSQL database on open, in one transaction: the same
    /// inference as the SQLite store's (``SQLMigration``), and a failure anywhere leaves the
    /// database as it was, schema changes included.
    @Suite struct MigrationTests {
        private func context(
            _ model: ManagedObjectModel, _ database: TemporaryPostgreSQLDatabase, migrate: Bool = false
        ) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url, options: migrate ? .lightweightMigration : [])
            return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        private func version1() throws -> ManagedObjectModel {
            try ManagedObjectModel { Entity("Person") { Property("name", .string); Property("nickname", .string) } }
        }

        private func people(_ context: ManagedObjectContext, entity: String = "Person", key: String = "name") throws -> [String] {
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [KeyPathSortDescriptor(key: key)]))
                .compactMap { try $0.value(forKey: key) as? String }
        }

        private func seed(_ names: [String] = ["Ada", "Grace"]) throws -> TemporaryPostgreSQLDatabase {
            let database = try TemporaryPostgreSQLDatabase()
            let context = try context(try version1(), database)
            for name in names {
                try context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
            }
            try context.save()
            return database
        }

        /// The tables and columns of the database, `TABLE.COLUMN` sorted, and its metadata keys.
        private func layout(_ database: TemporaryPostgreSQLDatabase) throws -> [String] {
            let connection = try database.connect()
            let columns = try connection.run(
                "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1")
            let metadata = try connection.run("SELECT 'Z_METADATA:' || \"Z_KEY\" || '=' || \"Z_VALUE\" FROM \"Z_METADATA\" ORDER BY 1")
            let indexes = try connection.run("SELECT 'index:' || indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1")
            return [columns, metadata, indexes].flatMap { result in (0..<result.rowCount).compactMap { result.text($0, 0) } }
        }

        @Test func addingAttributesEntitiesAndRelationshipsMigratesWhenAsked() throws {
            let database = try seed()
            let version2 = try ManagedObjectModel {
                Entity("Person") {
                    Property("name", .string)
                    Property("age", .integer16, optional: false, defaultValue: 30)
                    Property("email", .string)
                    Property("pets", to: "Pet", inverse: "owner", toMany: true)
                    Property("clubs", to: "Club", inverse: "members", toMany: true)
                }
                Entity("Pet") {
                    Property("name", .string)
                    Property("owner", to: "Person", inverse: "pets")
                }
                Entity("Club") {
                    Property("title", .string)
                    Property("members", to: "Person", inverse: "clubs", toMany: true)
                }
            }
            let refusal = #expect(throws: PersistenceError.self) { try context(version2, database) }
            #expect(refusal?.code == .incompatibleModel)
            #expect(refusal?.message.contains("entities added: Club, Pet") == true, "\(refusal?.message ?? "")")

            let migrated = try context(version2, database, migrate: true)
            #expect(try people(migrated) == ["Ada", "Grace"])
            let ada = try #require(try migrated.fetch(FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try KeyValuePredicate(format: "name == 'Ada'"))).first)
            #expect(try ada.value(forKey: "age") as? Int16 == 30)
            #expect(try ada.value(forKey: "email") == nil)
            let pet = try migrated.insertNewObject(forEntityName: "Pet")
            try pet.setValue("Rex", forKey: "name")
            try pet.setValue(ada, forKey: "owner")
            let club = try migrated.insertNewObject(forEntityName: "Club")
            try club.setValue("Chess", forKey: "title")
            try club.mutableSetValue(forKey: "members").insert(ada)
            try migrated.save()

            let reopened = try self.context(version2, database)
            let count = try reopened.count(for: FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try KeyValuePredicate(format: "ANY pets.name == 'Rex' AND ANY clubs.title == 'Chess' AND age == 30")))
            #expect(count == 1)
            let keys = try layout(database).filter { $0.hasPrefix("Z_METADATA:property.Person.") }
            #expect(keys.contains { $0.hasPrefix("Z_METADATA:property.Person.age=") }, "\(keys)")
        }

        @Test func renamesFollowRenamingIdentifiers() throws {
            let database = try seed()
            let renamed = try ManagedObjectModel {
                Entity("Human", renamingIdentifier: "Person") {
                    Property("fullName", .string, renamingIdentifier: "name")
                }
            }
            let migrated = try context(renamed, database, migrate: true)
            #expect(try people(migrated, entity: "Human", key: "fullName") == ["Ada", "Grace"])
            // The table's sequence was renamed with it: new keys continue after the old ones.
            try migrated.insertNewObject(forEntityName: "Human").setValue("Alan", forKey: "fullName")
            try migrated.save()
            let reopened = try self.context(renamed, database)
            #expect(try people(reopened, entity: "Human", key: "fullName") == ["Ada", "Alan", "Grace"])
            let keys = try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Human")).compactMap { $0.objectID.primaryKey }
            #expect(Set(keys).count == 3)
            #expect(try layout(database).contains("ZHUMAN.ZFULLNAME"))
        }

        /// PostgreSQL's DDL is transactional: a migration that fails after it created tables and
        /// columns (here, at the unique index of a new uniqueness constraint the records break)
        /// leaves the database exactly as it was, and the old model still opens it.
        @Test func aFailedMigrationLeavesTheDatabaseUntouched() throws {
            let database = try seed(["Ada", "Ada"])
            let before = try layout(database)
            let version2 = try ManagedObjectModel {
                Entity("Pet") { Property("name", .string) }
                Entity("Person", uniquenessConstraints: [["name"]]) {
                    Property("name", .string)
                    Property("nickname", .string)
                    Property("email", .string)
                }
            }
            let error = #expect(throws: PersistenceError.self) { try context(version2, database, migrate: true) }
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("uniqueness constraint") == true && error?.message.contains("Ada") == true, "\(error?.message ?? "")")
            #expect(try layout(database) == before)
            #expect(try people(try context(try version1(), database)) == ["Ada", "Ada"])
        }

        @Test func aChangeThatCannotBeInferredFailsAndLeavesTheDatabaseAsItWas() throws {
            let database = try seed()
            let before = try layout(database)
            let impossible = try ManagedObjectModel {
                Entity("Person") {
                    Property("name", .string)
                    Property("badge", .integer32, optional: false)
                }
            }
            let error = #expect(throws: PersistenceError.self) { try context(impossible, database, migrate: true) }
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("Person.badge") == true)
            let retyped = try ManagedObjectModel { Entity("Person") { Property("name", .integer64); Property("nickname", .string) } }
            let retypedError = #expect(throws: PersistenceError.self) { try context(retyped, database, migrate: true) }
            #expect(retypedError?.code == .migrationFailed)
            #expect(retypedError?.message.contains("Person.name changed from attribute") == true, "\(retypedError?.message ?? "")")
            #expect(try layout(database) == before)
            #expect(try people(try context(try version1(), database)) == ["Ada", "Grace"])
        }

        /// A database written before property shapes were recorded (entity hashes only) is
        /// checked on its columns' types.
        @Test func aDatabaseWithoutPropertyShapesIsCheckedOnItsColumnTypes() throws {
            let database = try seed()
            try database.connect().execute("DELETE FROM \"Z_METADATA\" WHERE \"Z_KEY\" LIKE 'shape.%' OR \"Z_KEY\" LIKE 'property.%'")
            let retyped = try ManagedObjectModel { Entity("Person") { Property("name", .integer64); Property("nickname", .string) } }
            let error = #expect(throws: PersistenceError.self) { try context(retyped, database, migrate: true) }
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("a TEXT column") == true, "\(error?.message ?? "")")
            let extended = try ManagedObjectModel {
                Entity("Person") { Property("name", .string); Property("nickname", .string); Property("email", .string) }
            }
            #expect(try people(try context(extended, database, migrate: true)) == ["Ada", "Grace"])
        }

        @Test func optionalityChangesMigrateWhenNoRecordIsLeftWithoutAValue() throws {
            let database = try seed()
            let required = try ManagedObjectModel {
                Entity("Person") { Property("name", .string); Property("nickname", .string, optional: false) }
            }
            let error = #expect(throws: PersistenceError.self) { try context(required, database, migrate: true) }
            #expect(error?.code == .migrationFailed)
            #expect(error?.message.contains("2 records have no value") == true, "\(error?.message ?? "")")
            let defaulted = try ManagedObjectModel {
                Entity("Person") { Property("name", .string); Property("nickname", .string, optional: false, defaultValue: "pal") }
            }
            #expect(try people(try context(defaulted, database, migrate: true), key: "nickname") == ["pal", "pal"])
        }

        @Test func removingAnEntityDropsItsRecordsAndReferencesToThem() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let version1 = try ManagedObjectModel {
                Entity("Person") { Property("name", .string); Property("best", to: "Person") }
                Entity("Robot", parent: "Person") { Property("serial", .string) }
            }
            let writer = try context(version1, database)
            let ada = try writer.insertNewObject(forEntityName: "Person")
            try ada.setValue("Ada", forKey: "name")
            let robot = try writer.insertNewObject(forEntityName: "Robot")
            try robot.setValue("R2", forKey: "name")
            try ada.setValue(robot, forKey: "best")
            try writer.save()
            let version2 = try ManagedObjectModel { Entity("Person") { Property("name", .string); Property("best", to: "Person") } }
            let migrated = try self.context(version2, database, migrate: true)
            let people = try migrated.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(try people.compactMap { try $0.value(forKey: "name") as? String } == ["Ada"])
            #expect(try people.first?.value(forKey: "best") == nil)
        }

        @Test func uniquenessConstraintsFollowTheModelAsUniqueIndexes() throws {
            let database = try seed()
            let constrained = try ManagedObjectModel {
                Entity("Person", uniquenessConstraints: [["name"]]) { Property("name", .string); Property("nickname", .string) }
            }
            // Constraints are not in the version hash: no migration needed.
            _ = try context(constrained, database)
            #expect(try layout(database).contains("index:ZUNIQUE_Person_name"))
            // A row another writer saved meanwhile is refused by the index, as a constraint conflict.
            let store = try PostgreSQLStore(url: database.url, model: constrained)
            let entity = try #require(constrained.entity(named: "Person"))
            let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
            var changes = SaveChanges()
            changes.inserted = [StoreRecord(
                objectID: ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key)),
                version: 1, values: [.string("Ada"), .null])]
            #expect { try store.apply(changes) } throws: { ($0 as? PersistenceError)?.code == .constraintConflict }
            _ = try context(try version1(), database)
            #expect(!(try layout(database).contains("index:ZUNIQUE_Person_name")))
        }

        /// The metadata keeps every property's version hash, so that a model whose only
        /// difference is one property's hash is refused, naming the property.
        @Test func aModelDifferingOnlyInAPropertyHashIsRefused() throws {
            let database = try seed()
            let modified = try ManagedObjectModel {
                Entity("Person") { Property("name", .string, versionHashModifier: "2"); Property("nickname", .string) }
            }
            let error = #expect(throws: PersistenceError.self) { try context(modified, database) }
            #expect(error?.code == .incompatibleModel)
            #expect(error?.message.contains("entities changed: Person (changed: name)") == true, "\(error?.message ?? "")")
            let keys = try layout(database)
            #expect(keys.contains { $0.hasPrefix("Z_METADATA:property.Person.nickname=") })
            #expect(keys.contains("Z_METADATA:shape.Person.name=attribute 700|optional"), "\(keys)")
            #expect(try people(try context(modified, database, migrate: true)) == ["Ada", "Grace"])
        }
    }
}
