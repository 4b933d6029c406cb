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

    /// A store file with one sample (all values set) and its owner, rewritten by `edit`.
    private func damagedFile(_ edit: (inout BinaryStoreFile) -> Void) throws -> URL {
        let url = temporaryURL()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel())
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let sample = try context.insertNewObject(forEntityName: "Sample")
        for (key, value) in [("i16", 1), ("i32", 2), ("i64", 3), ("double", 4), ("float", 5)] as [(String, Any)] {
            try sample.setValue(value, forKey: key)
        }
        try sample.setValue(Date(), forKey: "date")
        try sample.setValue(true, forKey: "flag")
        try sample.setValue(try context.insertNewObject(forEntityName: "Owner"), forKey: "owner")
        try context.save()
        var file = try JSONDecoder().decode(BinaryStoreFile.self, from: Data(contentsOf: url))
        edit(&file)
        try JSONEncoder().encode(file).write(to: url)
        return url
    }

    /// A file whose values the store would not have written for the model (a number outside
    /// its type, another kind of value) is refused when it opens, naming the record and the
    /// attribute, rather than read with converted values that the next save writes back.
    @Test(arguments: [
        (0, BinaryStoreFile.Value.integer(100_000), "i16"), (1, .integer(3_000_000_000), "i32"), (8, .string("yesterday"), "date"),
        (4, .string("x"), "double"), (5, .double(1e300), "float"), (7, .integer(2), "flag"), (6, .data(Data([1])), "string"),
        (12, .toMany([]), "owner"),
    ])
    func aValueOfTheWrongTypeOrRangeRefusesTheFile(index: Int, value: BinaryStoreFile.Value, key: String) throws {
        let url = try damagedFile { file in
            guard let record = file.records.firstIndex(where: { $0.entity == "Sample" }) else { return }
            file.records[record].values[index] = value
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel())
        #expect {
            try coordinator.addPersistentStore(type: .binary, at: url)
        } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.code == .invalidStore && error.key == key && error.objectID?.entity.name == "Sample"
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aRecordWithTooFewValuesOrANextKeyInUseRefusesTheFile() throws {
        let edits: [(inout BinaryStoreFile) -> Void] = [
            { $0.records[0].values.removeLast() }, { $0.nextPrimaryKey = 1 }, { $0.nextPrimaryKey = -5 },
        ]
        for edit in edits {
            let url = try damagedFile(edit)
            defer { try? FileManager.default.removeItem(at: url) }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel())
            #expect { try coordinator.addPersistentStore(type: .binary, at: url) } throws: { PersistenceError.Code.invalidStore ~= $0 }
        }
    }

    @Test func runningOutOfPrimaryKeysThrowsInsteadOfOverflowing() throws {
        let url = try damagedFile { $0.nextPrimaryKey = Int64.max }
        defer { try? FileManager.default.removeItem(at: url) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try allTypesModel())
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        _ = try context.insertNewObject(forEntityName: "Owner")
        #expect { try context.save() } throws: { PersistenceError.Code.saveFailed ~= $0 }
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
