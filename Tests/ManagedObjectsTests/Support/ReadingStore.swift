import Foundation
import Testing
@testable import ManagedObjects

final class TestReading: ManagedObject {
    @Managed var label: String
    @Managed var taken: Date
    @Managed var sensor: UUID
    @Managed var source: URL
    @Managed var level: Int16
    @Managed var station: TestStation?
}

final class TestStation: ManagedObject {
    @Managed var name: String?
    @Managed var readings: Set<TestReading>
}

/// A SQLite file of stations and their readings (an attribute of every type, some required),
/// which tests damage with SQL as another writer or a broken disk would.
struct ReadingStore {
    let directory: TemporaryDirectory
    let model: ManagedObjectModel
    /// The readings `r0`, `r1`, `r2` of the station `S`.
    let readings: [ManagedObjectID]
    let station: ManagedObjectID

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Station", class: TestStation.self) {
                Property("name", .string)
                Property("readings", to: "Reading", inverse: "station", toMany: true)
            }
            Entity("Reading", class: TestReading.self) {
                Property("label", .string, optional: false)
                Property("taken", .date, optional: false)
                Property("sensor", .uuid, optional: false)
                Property("source", .uri, optional: false)
                Property("level", .integer16, optional: false, defaultValue: 0)
                Property("count32", .integer32)
                Property("total", .integer64)
                Property("flag", .boolean)
                Property("ratio", .double)
                Property("single", .float)
                Property("amount", .decimal)
                Property("bytes", .binaryData)
                Property("station", to: "Station", inverse: "readings")
            }
        }
    }

    init() throws {
        directory = try TemporaryDirectory()
        model = try Self.makeModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let station = TestStation(context: context)
        station.name = "S"
        var readings: [TestReading] = []
        for index in 0..<3 {
            let reading = TestReading(context: context)
            reading.label = "r\(index)"
            reading.taken = Date(timeIntervalSinceReferenceDate: Double(index) * 60)
            reading.sensor = UUID()
            reading.source = try #require(URL(string: "https://example.com/\(index)"))
            reading.level = Int16(index)
            try reading.setValue(Int32(index), forKey: "count32")
            try reading.setValue(Int64(index), forKey: "total")
            try reading.setValue(index == 1, forKey: "flag")
            try reading.setValue(Double(index) / 2, forKey: "ratio")
            try reading.setValue(Float(index), forKey: "single")
            try reading.setValue(Decimal(index), forKey: "amount")
            try reading.setValue(Data([UInt8(index)]), forKey: "bytes")
            reading.station = station
            readings.append(reading)
        }
        try context.save()
        self.readings = readings.map(\.objectID)
        self.station = station.objectID
    }

    /// Runs `sql` on the file through a connection of its own, as another writer.
    func damage(_ sql: String) throws {
        let connection = try SQLiteConnection(path: directory.file().path, create: false)
        try connection.execute(sql)
    }

    /// The primary key of the reading at `index`.
    func key(_ index: Int) throws -> Int64 {
        try #require(readings[index].primaryKey)
    }

    /// A new coordinator and context on the file, as another process would have.
    func open() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    /// The column of the reading at `index`, as SQLite stores it (`typeof|value`).
    func stored(_ column: String, of index: Int) throws -> [String] {
        try SQLiteProbe.query("SELECT typeof(\(column)), \(column) FROM ZREADING WHERE Z_PK = \(try key(index))", at: directory.file())
    }
}

/// Runs `body` and checks that it throws the store's refusal of the record `id` for `key`.
func expectRefusal(
    of id: ManagedObjectID, key: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        try body()
        Issue.record("expected the store to refuse \(id)'s \(key)", sourceLocation: sourceLocation)
    } catch let error as PersistenceError {
        #expect(error.code == .operationFailed, "\(error)", sourceLocation: sourceLocation)
        #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        #expect(error.objectID == id, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("Reading.\(key)"), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}
