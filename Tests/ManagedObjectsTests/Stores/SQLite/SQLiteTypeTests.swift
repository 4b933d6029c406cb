import Foundation
import Testing
@testable import ManagedObjects

@Suite struct SQLiteTypeTests {
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Everything") {
                Property("int16", .integer16)
                Property("int32", .integer32)
                Property("int64", .integer64)
                Property("double", .double)
                Property("float", .float)
                Property("decimal", .decimal)
                Property("string", .string)
                Property("boolean", .boolean)
                Property("date", .date)
                Property("data", .binaryData)
                Property("uuid", .uuid)
                Property("uri", .uri)
                Property("blob", .transformable)
                Property("scratch", .string, transient: true)
            }
        }
    }

    /// Writes one record with `values` in a new store, reopens the file, and reads it back.
    private func roundTrip(_ values: [StoreValue]) throws -> StoreRecord? {
        let directory = try TemporaryDirectory()
        let model = try Self.makeModel()
        let entity = try #require(model.entity(named: "Everything"))
        let store = try SQLiteStore(url: directory.file(), model: model)
        let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
        let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key))
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(objectID: id, version: 1, values: values)]
        try store.apply(changes)
        let reopened = try SQLiteStore(url: directory.file(), model: try Self.makeModel())
        #expect(reopened.identifier == store.identifier)
        return try reopened.record(for: id)
    }

    static let decimals: [Decimal] = [
        Decimal(string: "12345678901234567890123456789012345678")!,
        Decimal(string: "-98765432109876543210.123456789012345678")!,
        Decimal(string: "0.000000000000000000000000000000000001")!,
        Decimal(0), Decimal(string: "-1.5")!,
    ]

    @Test(arguments: decimals)
    func decimalsRoundTripExactly(_ decimal: Decimal) throws {
        var values = [StoreValue](repeating: .null, count: 14)
        values[5] = .decimal(decimal)
        let record = try #require(try roundTrip(values))
        #expect(record.values[5] == .decimal(decimal))
    }

    @Test func everyTypeRoundTripsExactly() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
        let values: [StoreValue] = [
            .integer(Int64(Int16.min)), .integer(Int64(Int32.max)), .integer(Int64.min),
            .double(-0.1), .double(Double(Float(3.25))), .decimal(Decimal(string: "-1234.5678")!),
            .string("héllo, 世界 \u{0} and \"quotes\""), .boolean(true), .date(date),
            .data(Data([0, 1, 2, 255])), .uuid(UUID()), .uri(URL(string: "https://example.com/a?b=c#d")!),
            .data(Data("transformed".utf8)), .null,
        ]
        let record = try #require(try roundTrip(values))
        #expect(record.values == values)
        #expect(record.version == 1)
        if case .date(let read) = record.values[8] { #expect(read.timeIntervalSinceReferenceDate == 123_456_789.123_456_7) }
    }

    @Test func emptyValuesAndNilStayDistinct() throws {
        let values: [StoreValue] = [
            .integer(0), .null, .null, .double(0), .null, .null, .string(""), .boolean(false),
            .date(Date(timeIntervalSinceReferenceDate: -1.5)), .data(Data()), .null, .null, .null, .null,
        ]
        let record = try #require(try roundTrip(values))
        #expect(record.values == values)
    }

    @Test func datesAreSecondsSinceTheReferenceDateInARealColumn() throws {
        let directory = try TemporaryDirectory()
        let stack = try SQLiteProbe(directory: directory, model: try Self.makeModel())
        let entity = try #require(stack.model.entity(named: "Everything"))
        let id = try stack.insert(entity, values: { values in
            values[8] = .date(Date(timeIntervalSinceReferenceDate: 86_400.5))
            values[10] = .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!)
        })
        #expect(try stack.query("SELECT typeof(ZDATE), ZDATE FROM ZEVERYTHING") == ["real|86400.5"])
        #expect(try stack.query("SELECT hex(ZUUID) FROM ZEVERYTHING") == ["00112233445566778899AABBCCDDEEFF"])
        #expect(try stack.store.record(for: id) != nil)
    }
}
