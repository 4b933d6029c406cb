import Foundation
import Testing
@testable import ManagedObjects

@Suite struct SQLiteMigrationTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-\(UUID().uuidString)")
    private var url: URL { directory.appendingPathComponent("store.sqlite") }

    private func context(_ model: ManagedObjectModel, migrate: Bool = false) throws -> ManagedObjectContext {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: migrate ? .lightweightMigration : [])
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    private func version1() throws -> ManagedObjectModel {
        try ManagedObjectModel { Entity("Person") { Property("name", .string); Property("nickname", .string) } }
    }

    private func people(_ context: ManagedObjectContext, entity: String = "Person", key: String = "name") throws -> [String] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [KeyPathSortDescriptor(key: key)]))
            .compactMap { try $0.value(forKey: key) as? String }
    }

    private func seed() throws {
        let context = try context(try version1())
        for name in ["Ada", "Grace"] {
            try context.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
        }
        try context.save()
    }

    @Test func addingAttributesEntitiesAndRelationshipsMigratesWhenAsked() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()
        let version2 = try ManagedObjectModel {
            Entity("Person") {
                Property("name", .string)
                Property("age", .integer16, optional: false, defaultValue: 30)
                Property("email", .string)
                Property("pets", to: "Pet", inverse: "owner", toMany: true)
            }
            Entity("Pet") {
                Property("name", .string)
                Property("owner", to: "Person", inverse: "pets")
            }
        }
        do {
            _ = try context(version2)
            Issue.record("opening with another model should fail without migration")
        } catch let error as PersistenceError {
            #expect(error.code == .incompatibleModel)
            #expect(error.message.contains("entities added: Pet"))
        }
        let context = try context(version2, migrate: true)
        #expect(try people(context) == ["Ada", "Grace"])
        let ada = try #require(try context.fetch(FetchRequest<ManagedObject>(
            entityName: "Person", predicate: try KeyValuePredicate(format: "name == 'Ada'"))).first)
        #expect(try ada.value(forKey: "age") as? Int16 == 30)
        #expect(try ada.value(forKey: "email") == nil)
        let pet = try context.insertNewObject(forEntityName: "Pet")
        try pet.setValue("Rex", forKey: "name")
        try pet.setValue(ada, forKey: "owner")
        try context.save()
        let reopened = try self.context(version2)
        let count = try reopened.count(for: FetchRequest<ManagedObject>(
            entityName: "Person", predicate: try KeyValuePredicate(format: "ANY pets.name == 'Rex' AND age == 30")))
        #expect(count == 1)
    }

    @Test func renamesFollowRenamingIdentifiers() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()
        let renamed = try ManagedObjectModel {
            Entity("Human", renamingIdentifier: "Person") {
                Property("fullName", .string, renamingIdentifier: "name")
            }
        }
        let context = try context(renamed, migrate: true)
        #expect(try people(context, entity: "Human", key: "fullName") == ["Ada", "Grace"])
        try context.insertNewObject(forEntityName: "Human").setValue("Alan", forKey: "fullName")
        try context.save()
        #expect(try people(try self.context(renamed), entity: "Human", key: "fullName") == ["Ada", "Alan", "Grace"])
    }

    @Test func aChangeThatCannotBeInferredFailsAndLeavesTheStoreAsItWas() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()
        let impossible = try ManagedObjectModel {
            Entity("Person") {
                Property("name", .string)
                Property("badge", .integer32, optional: false)
            }
        }
        do {
            _ = try context(impossible, migrate: true)
            Issue.record("expected a migration failure")
        } catch let error as PersistenceError {
            #expect(error.code == .migrationFailed)
            #expect(error.message.contains("Person.badge"))
        }
        #expect(try people(try context(try version1())) == ["Ada", "Grace"])
    }

    /// A kept property whose type or cardinality changed is refused (its values would be
    /// misread), and the file is left as it was.
    @Test func aChangedTypeOrCardinalityIsRefusedAndTheFileKept() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()
        let retyped = try ManagedObjectModel { Entity("Person") { Property("name", .integer64); Property("nickname", .string) } }
        let error = #expect(throws: PersistenceError.self) { try context(retyped, migrate: true) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("Person.name changed from attribute") == true, "\(error?.message ?? "")")
        let related = try ManagedObjectModel {
            Entity("Person") {
                Property("name", .string)
                Property("nickname", to: "Tag", toMany: true)
            }
            Entity("Tag") { Property("label", .string) }
        }
        #expect((#expect(throws: PersistenceError.self) { try context(related, migrate: true) })?.code == .migrationFailed)
        #expect(try people(try context(try version1())) == ["Ada", "Grace"])
    }

    /// A file written before property shapes were recorded is checked on its columns' declared
    /// types: a changed attribute type is refused; other changes still migrate.
    @Test func aFileWithoutPropertyShapesIsCheckedOnItsColumnTypes() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("DELETE FROM \"Z_METADATA\" WHERE \"Z_KEY\" LIKE 'shape.%'")
        let retyped = try ManagedObjectModel { Entity("Person") { Property("name", .integer64); Property("nickname", .string) } }
        let error = #expect(throws: PersistenceError.self) { try context(retyped, migrate: true) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("Person.name") == true && error?.message.contains("TEXT column") == true, "\(error?.message ?? "")")
        let extended = try ManagedObjectModel {
            Entity("Person") { Property("name", .string); Property("nickname", .string); Property("email", .string) }
        }
        #expect(try people(try context(extended, migrate: true)) == ["Ada", "Grace"])
    }

    /// A property made required takes its default where records have no value; without a
    /// default it is refused while such records exist. Making one optional always migrates.
    @Test func optionalityChangesMigrateWhenNoRecordIsLeftWithoutAValue() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try seed()  // nobody has a nickname
        let requiredWithoutDefault = try ManagedObjectModel {
            Entity("Person") { Property("name", .string); Property("nickname", .string, optional: false) }
        }
        let error = #expect(throws: PersistenceError.self) { try context(requiredWithoutDefault, migrate: true) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("2 records have no value") == true, "\(error?.message ?? "")")

        let requiredWithDefault = try ManagedObjectModel {
            Entity("Person") { Property("name", .string, optional: false); Property("nickname", .string, optional: false, defaultValue: "-") }
        }
        #expect(try people(try context(requiredWithDefault, migrate: true), key: "nickname") == ["-", "-"])

        let optionalAgain = try ManagedObjectModel { Entity("Person") { Property("name", .string); Property("nickname", .string) } }
        #expect(try people(try context(optionalAgain, migrate: true)) == ["Ada", "Grace"])
    }

    /// Removing a subentity drops its records (their rows would name an entity the model no
    /// longer has) and clears references to them; the rest of the hierarchy stays readable.
    @Test func removingASubentityDropsItsRecordsAndReferencesToThem() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        func model(withCircles: Bool) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                Entity("Shape") {
                    Property("name", .string)
                    Property("drawing", to: "Drawing", inverse: "shapes")
                }
                Entity("Square", parent: "Shape") { Property("side", .double) }
                if withCircles { Entity("Circle", parent: "Shape") { Property("radius", .double) } }
                Entity("Drawing") {
                    Property("title", .string)
                    Property("shapes", to: "Shape", inverse: "drawing", toMany: true)
                    Property("favourite", to: "Shape")
                }
            }
        }
        do {
            let context = try context(try model(withCircles: true))
            let drawing = try context.insertNewObject(forEntityName: "Drawing")
            try drawing.setValue("Plan", forKey: "title")
            for (entity, name) in [("Square", "a"), ("Circle", "b"), ("Square", "c")] {
                let shape = try context.insertNewObject(forEntityName: entity)
                try shape.setValue(name, forKey: "name")
                try shape.setValue(drawing, forKey: "drawing")
                if name == "b" { try drawing.setValue(shape, forKey: "favourite") }
            }
            try context.save()
        }
        let migrated = try context(try model(withCircles: false), migrate: true)
        #expect(try people(migrated, entity: "Shape", key: "name") == ["a", "c"])
        let drawing = try #require(try migrated.fetch(FetchRequest<ManagedObject>(entityName: "Drawing")).first)
        #expect(try drawing.value(forKey: "favourite") == nil)
        let shapes = try #require(try drawing.value(forKey: "shapes") as? Set<ManagedObject>)
        #expect(Set(try shapes.map { try $0.value(forKey: "name") as? String }) == ["a", "c"])
    }

    /// A kept relationship whose destination entity was renamed through its renaming
    /// identifier is the same relationship.
    @Test func aRenamedDestinationKeepsItsRelationships() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let context = try context(try ManagedObjectModel {
                Entity("Person") { Property("name", .string) }
                Entity("Note") {
                    Property("title", .string)
                    Property("author", to: "Person")
                }
            })
            let ada = try context.insertNewObject(forEntityName: "Person")
            try ada.setValue("Ada", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("Notes", forKey: "title")
            try note.setValue(ada, forKey: "author")
            try context.save()
        }
        let renamed = try ManagedObjectModel {
            Entity("Human", renamingIdentifier: "Person") { Property("name", .string) }
            Entity("Note") {
                Property("title", .string)
                Property("author", to: "Human")
            }
        }
        let migrated = try context(renamed, migrate: true)
        let note = try #require(try migrated.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        #expect(try note.value(forKeyPath: "author.name") as? String == "Ada")
    }

    /// A to-many relationship made required is refused while a record has no member, and
    /// migrates once every record has one.
    @Test func aToManyMadeRequiredNeedsAMemberInEveryRecord() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        func model(required: Bool) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                Entity("Team") {
                    Property("name", .string)
                    Property("players", to: "Player", inverse: "team", toMany: true, optional: !required)
                }
                Entity("Player") {
                    Property("name", .string)
                    Property("team", to: "Team", inverse: "players")
                }
            }
        }
        var emptyTeamID: ManagedObjectID?
        do {
            let context = try context(try model(required: false))
            let full = try context.insertNewObject(forEntityName: "Team")
            let empty = try context.insertNewObject(forEntityName: "Team")
            let player = try context.insertNewObject(forEntityName: "Player")
            try player.setValue(full, forKey: "team")
            try context.save()
            emptyTeamID = empty.objectID
        }
        let error = #expect(throws: PersistenceError.self) { try context(try model(required: true), migrate: true) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("Team.players became required, but 1 record has no related object") == true, "\(error?.message ?? "")")
        do {
            let context = try context(try model(required: false))
            context.delete(try context.existingObject(with: try #require(emptyTeamID)))
            try context.save()
        }
        #expect(try context(try model(required: true), migrate: true).count(for: FetchRequest<ManagedObject>(entityName: "Team")) == 1)
    }
}
