import Foundation
import Testing
@testable import ManagedObjects

@Suite struct BinaryStoreTests {
    private func temporaryURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("binary-store-\(UUID().uuidString).json")
    }

    private func allTypesModel(extra: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            Entity("Sample") {
                Property("i16", .integer16)
                Property("i32", .integer32)
                Property("i64", .integer64)
                Property("decimal", .decimal)
                Property("double", .double)
                Property("float", .float)
                Property("string", .string)
                Property("flag", .boolean)
                Property("date", .date)
                Property("data", .binaryData)
                Property("uuid", .uuid)
                Property("uri", .uri)
                Property("owner", to: "Owner", inverse: "samples")
            },
            Entity("Owner") {
                Property("samples", to: "Sample", inverse: "owner", toMany: true, ordered: true)
            },
        ] + (extra ? [Entity("Extra") { Property("name", .string) }] : []))
    }

    @Test func everyTypeAndRelationshipSurvivesReopening() throws {
        let url = temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let model = try allTypesModel()
        let values: [String: Any] = [
            "i16": Int16.min, "i32": Int32.max, "i64": Int64.min,
            "decimal": try #require(Decimal(string: "-12345678901234567890.123456789012345678")),
            "double": 0.1 + 0.2, "float": Float(1.5), "string": "héllo\n\"wörld\"", "flag": true,
            "date": Date(timeIntervalSinceReferenceDate: 123.456_789), "data": Data(), "uuid": UUID(),
            "uri": try #require(URL(string: "https://example.com/a?b=c")),
        ]
        let id: ManagedObjectID
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let sample = try context.insertNewObject(forEntityName: "Sample")
            let second = try context.insertNewObject(forEntityName: "Sample")
            for (key, value) in values { try sample.setValue(value, forKey: key) }
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.mutableArrayValue(forKey: "samples").append(contentsOf: [second, sample])
            try context.save()
            id = sample.objectID
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let sample = try context.existingObject(with: id)
        for (key, value) in values {
            let read = try sample.value(forKey: key)
            #expect(String(describing: read ?? "nil") == String(describing: value), "\(key)")
        }
        let owner = try #require(try sample.value(forKey: "owner") as? ManagedObject)
        let samples = try #require(try owner.value(forKey: "samples") as? [ManagedObject])
        #expect(samples.count == 2 && samples[1] === sample)
    }

    @Test func openingWithAnotherModelNamesTheDifference() throws {
        let url = temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        try PersistentStoreCoordinator(managedObjectModel: try allTypesModel()).addPersistentStore(type: .binary, at: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel(extra: true))
        do {
            try coordinator.addPersistentStore(type: .binary, at: url)
            Issue.record("expected an incompatible-model error")
        } catch let error as PersistenceError {
            #expect(error.code == .incompatibleModel)
            #expect(error.message.contains("entity Extra is new in the model"))
        }
    }

    @Test func aCorruptFileOrAMissingURLThrowsInvalidStore() throws {
        let url = temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        try Data((0..<256).map { _ in UInt8.random(in: 0...255) }).write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel())
        #expect(throws: PersistenceError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(throws: PersistenceError.self) { try coordinator.addPersistentStore(type: .binary) }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test(arguments: [PersistentStoreType.inMemory, .binary, .sqlite])
    func storesBehaveTheSame(type: PersistentStoreType) throws {
        let url = temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let model = try makeTestModel(employeesRule: .cascade)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let research = TestDepartment(context: context)
        research.name = "Research"
        let ada = TestEmployee(context: context)
        ada.firstName = "Ada"
        ada.department = research
        let project = TestProject(context: context)
        project.members = [ada]
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == 'Research' AND ANY projects != nil"))
        let found = try other.fetch(request)
        #expect(found.map(\.firstName) == ["Ada"])
        ada.salary = 5
        try context.save()
        found[0].salary = 6
        #expect(throws: PersistenceError.self) { try other.save() }
        other.rollback()
        context.delete(research)
        try context.save()
        #expect(try other.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 0)
        #expect(try other.count(for: FetchRequest<TestProject>(entityName: "Project")) == 1)
    }
}
