import Foundation
import Testing
@testable import ManagedObjects

/// Relationships written through a context and read back, on both sides, in a new
/// coordinator on the same file.
@Suite struct SQLiteRelationshipTests {
    private func stack() throws -> ManagedTestStack {
        try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
    }

    private func reopen<T: ManagedObject>(_ object: T, in context: ManagedObjectContext) throws -> T {
        try #require(try context.existingObject(with: object.objectID) as? T)
    }

    @Test func oneToManyAndOneToOneReadBackOnBothSides() throws {
        let stack = try stack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace"), alan = stack.employee("Alan")
        research.employees = [ada, grace]
        alan.department = sales
        research.manager = grace
        research.budget = Decimal(string: "1234567.89")!
        try stack.context.save()

        let (_, context) = try stack.reopened()
        let readResearch = try reopen(research, in: context)
        #expect(readResearch.name == "Research")
        #expect(readResearch.budget == Decimal(string: "1234567.89")!)
        #expect(Set(readResearch.employees.map(\.objectID)) == [ada.objectID, grace.objectID])
        #expect(readResearch.manager?.objectID == grace.objectID)
        let readGrace = try reopen(grace, in: context)
        #expect(readGrace.department?.objectID == research.objectID)
        #expect(readGrace.managedDepartment?.objectID == research.objectID)
        #expect(try reopen(sales, in: context).employees.map(\.firstName) == ["Alan"])

        // Moving an employee updates the foreign key; the old department no longer lists her.
        grace.department = sales
        try stack.context.save()
        let (_, again) = try stack.reopened()
        #expect(try reopen(research, in: again).employees.map(\.firstName) == ["Ada"])
        #expect(Set(try reopen(sales, in: again).employees.compactMap(\.firstName)) == ["Alan", "Grace"])
    }

    @Test func manyToManyReadsBackOnBothSides() throws {
        let stack = try stack()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        let compiler = TestProject(context: stack.context), engine = TestProject(context: stack.context)
        compiler.title = "Compiler"
        engine.title = "Engine"
        compiler.members = [ada, grace]
        engine.members = [ada]
        try stack.context.save()

        let (_, context) = try stack.reopened()
        #expect(Set(try reopen(compiler, in: context).members.compactMap(\.firstName)) == ["Ada", "Grace"])
        #expect(Set(try reopen(ada, in: context).projects.compactMap(\.title)) == ["Compiler", "Engine"])
        #expect(try reopen(grace, in: context).projects.compactMap(\.title) == ["Compiler"])

        compiler.members.remove(ada)
        try stack.context.save()
        #expect(try stack.sqliteStore.map { try SQLiteProbe.query("SELECT count(*) FROM Z_EMPLOYEE_PROJECTS", at: $0.url!) } == ["2"])
        let (_, again) = try stack.reopened()
        #expect(try reopen(ada, in: again).projects.compactMap(\.title) == ["Engine"])
        #expect(try reopen(compiler, in: again).members.compactMap(\.firstName) == ["Grace"])
    }

    @Test func orderedToManyKeepsItsOrder() throws {
        let stack = try stack()
        let project = TestProject(context: stack.context)
        let milestones = ["Design", "Build", "Ship"].map { title -> TestMilestone in
            let milestone = TestMilestone(context: stack.context)
            milestone.title = title
            return milestone
        }
        project.milestones = [milestones[2], milestones[0], milestones[1]]
        try stack.context.save()
        let (_, context) = try stack.reopened()
        #expect(try reopen(project, in: context).milestones.compactMap(\.title) == ["Ship", "Design", "Build"])
        #expect(try reopen(milestones[1], in: context).project?.objectID == project.objectID)

        project.milestones = [milestones[1], milestones[2]]  // reorder and drop one
        try stack.context.save()
        let (_, again) = try stack.reopened()
        #expect(try reopen(project, in: again).milestones.compactMap(\.title) == ["Build", "Ship"])
    }

    @Test func deletesRemoveRowsAndJoinRows() throws {
        let stack = try stack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        let project = TestProject(context: stack.context)
        project.members = [ada]
        try stack.context.save()
        stack.context.delete(ada)
        try stack.context.save()
        let url = try #require(stack.sqliteStore?.url)
        #expect(try SQLiteProbe.query("SELECT count(*) FROM ZEMPLOYEE", at: url) == ["0"])
        #expect(try SQLiteProbe.query("SELECT count(*) FROM Z_EMPLOYEE_PROJECTS", at: url) == ["0"])
        let (_, context) = try stack.reopened()
        #expect(try reopen(research, in: context).employees.isEmpty)
        #expect(try reopen(project, in: context).members.isEmpty)
        #expect(throws: PersistenceError.self) { try context.existingObject(with: ada.objectID) }
    }

    static func makeInheritanceModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Shape", abstract: true) {
                Property("name", .string)
                Property("canvas", to: "Canvas", inverse: "shapes")
                Property("tags", to: "Tag", inverse: "shapes", toMany: true, ordered: true)
            }
            Entity("Square", parent: "Shape") { Property("side", .double) }
            Entity("Circle", parent: "Shape") {
                Property("radius", .double)
                Property("center", to: "Shape")  // no inverse; destination has subentities
            }
            Entity("Canvas") {
                Property("shapes", to: "Shape", inverse: "canvas", toMany: true, ordered: true)
                Property("favorites", to: "Shape", toMany: true)  // no inverse: a join table
            }
            Entity("Tag") {
                Property("label", .string)
                Property("shapes", to: "Shape", inverse: "tags", toMany: true)
            }
        }
    }

    @Test func inheritanceSharesOneTableAndKeepsConcreteEntities() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.makeInheritanceModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator)
        let canvas = try context.insertNewObject(forEntityName: "Canvas")
        let square = try context.insertNewObject(forEntityName: "Square")
        let circle = try context.insertNewObject(forEntityName: "Circle")
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try square.setValue("square", forKey: "name")
        try square.setValue(2.0, forKey: "side")
        try circle.setValue("circle", forKey: "name")
        try circle.setValue(1.5, forKey: "radius")
        try circle.setValue(square, forKey: "center")
        try canvas.setValue([circle, square], forKey: "shapes")
        try canvas.setValue(Set([square]), forKey: "favorites")
        try tag.setValue(Set([square, circle]), forKey: "shapes")
        try context.save()

        #expect(try SQLiteProbe.query("SELECT Z_ENT, ZNAME, ZSIDE, ZRADIUS, ZCENTER_ENT FROM ZSHAPE ORDER BY Z_ENT DESC", at: directory.file())
            == ["Square|square|2.0|NULL|NULL", "Circle|circle|NULL|1.5|Square"])

        let reader = PersistentStoreCoordinator(managedObjectModel: try Self.makeInheritanceModel())
        try reader.addPersistentStore(type: .sqlite, at: directory.file())
        let readContext = ManagedObjectContext(coordinator: reader)
        let readCanvas = try readContext.existingObject(with: canvas.objectID)
        let shapes = try #require(try readCanvas.value(forKey: "shapes") as? [ManagedObject])
        #expect(shapes.map(\.entity.name) == ["Circle", "Square"])
        let readCircle = shapes[0]
        #expect(try readCircle.value(forKey: "radius") as? Double == 1.5)
        #expect((try readCircle.value(forKey: "center") as? ManagedObject)?.entity.name == "Square")
        #expect((try readCanvas.value(forKey: "favorites") as? Set<ManagedObject>)?.map(\.objectID) == [square.objectID])
        let readTag = try readContext.existingObject(with: tag.objectID)
        #expect((try readTag.value(forKey: "shapes") as? Set<ManagedObject>)?.count == 2)
        let squareTags = try readContext.existingObject(with: square.objectID).value(forKey: "tags") as? [ManagedObject]
        #expect(squareTags?.map(\.objectID) == [tag.objectID])

        let store = try #require(reader.persistentStores.first)
        let shapeEntity = try #require(reader.managedObjectModel.entity(named: "Shape"))
        let squareEntity = try #require(reader.managedObjectModel.entity(named: "Square"))
        let shapeRecords = try store.records(of: shapeEntity, includesSubentities: true)
        #expect(shapeRecords.map(\.objectID.entity.name).sorted() == ["Circle", "Square"])
        #expect(shapeRecords.map { $0.objectID.primaryKey ?? 0 } == shapeRecords.map { $0.objectID.primaryKey ?? 0 }.sorted())
        #expect(try store.records(of: squareEntity, includesSubentities: false).count == 1)
        #expect(try store.records(of: shapeEntity, includesSubentities: false).isEmpty)
    }

    @Test func orderedManyToManyKeepsEachSidesOrder() throws {
        func makeModel() throws -> ManagedObjectModel {
            try ManagedObjectModel {
                Entity("Playlist") {
                    Property("name", .string)
                    Property("songs", to: "Song", inverse: "playlists", toMany: true, ordered: true)
                }
                Entity("Song") {
                    Property("title", .string)
                    Property("playlists", to: "Playlist", inverse: "songs", toMany: true, ordered: true)
                }
            }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeModel())
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator)
        let morning = try context.insertNewObject(forEntityName: "Playlist")
        let evening = try context.insertNewObject(forEntityName: "Playlist")
        let songs = try ["A", "B", "C"].map { title -> ManagedObject in
            let song = try context.insertNewObject(forEntityName: "Song")
            try song.setValue(title, forKey: "title")
            return song
        }
        try morning.setValue([songs[2], songs[0], songs[1]], forKey: "songs")
        try evening.setValue([songs[1], songs[2]], forKey: "songs")
        try songs[2].setValue([evening, morning], forKey: "playlists")  // reorder this side only
        try context.save()
        #expect(try SQLiteProbe.query("SELECT sql FROM sqlite_master WHERE name = 'Z_PLAYLIST_SONGS'", at: directory.file()) == [
            #"CREATE TABLE "Z_PLAYLIST_SONGS" ("Z_1" INTEGER NOT NULL, "Z_2" INTEGER NOT NULL, "Z_1_ORDER" INTEGER, "Z_2_ORDER" INTEGER, PRIMARY KEY ("Z_1", "Z_2")) WITHOUT ROWID"#,
        ])

        func titles(_ object: ManagedObject, in context: ManagedObjectContext) throws -> [String] {
            let read = try context.existingObject(with: object.objectID)
            return try (read.value(forKey: "songs") as? [ManagedObject] ?? []).map { try $0.value(forKey: "title") as? String ?? "" }
        }
        func lists(_ song: ManagedObject, in context: ManagedObjectContext) throws -> [ManagedObjectID] {
            try (context.existingObject(with: song.objectID).value(forKey: "playlists") as? [ManagedObject] ?? []).map(\.objectID)
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: try makeModel())
        try reader.addPersistentStore(type: .sqlite, at: directory.file())
        let readContext = ManagedObjectContext(coordinator: reader)
        #expect(try titles(morning, in: readContext) == ["C", "A", "B"])
        #expect(try titles(evening, in: readContext) == ["B", "C"])
        #expect(try lists(songs[2], in: readContext) == [evening.objectID, morning.objectID])
        #expect(try lists(songs[0], in: readContext) == [morning.objectID])

        try morning.setValue([songs[1], songs[2]], forKey: "songs")
        try context.save()
        let again = ManagedObjectContext(coordinator: reader)
        #expect(try titles(morning, in: again) == ["B", "C"])
        #expect(try lists(songs[0], in: again).isEmpty)
    }
}
