import Foundation
import Testing
@testable import ManagedObjects

/// Every attribute type and its optional, for the `@Managed` accessors compiled per type.
final class TypedAccessSample: ManagedObject {
    @Managed var int16: Int16
    @Managed var optionalInt16: Int16?
    @Managed var int32: Int32
    @Managed var optionalInt32: Int32?
    @Managed var int64: Int64
    @Managed var optionalInt64: Int64?
    @Managed var int: Int
    @Managed var optionalInt: Int?
    @Managed var double: Double
    @Managed var optionalDouble: Double?
    @Managed var float: Float
    @Managed var optionalFloat: Float?
    @Managed var boolean: Bool
    @Managed var optionalBoolean: Bool?
    @Managed var date: Date
    @Managed var optionalDate: Date?
    @Managed var decimal: Decimal
    @Managed var optionalDecimal: Decimal?
    @Managed var uuid: UUID
    @Managed var optionalUUID: UUID?
    @Managed var string: String
    @Managed var optionalString: String?
    @Managed var data: Data
    @Managed var optionalData: Data?
    @Managed var url: URL
    @Managed var optionalURL: URL?
}

/// `@Managed` reads and writes of each attribute type (taken through accessors specialized per
/// type, `Managed+TypedAccess.swift`) land in the property's own slot: what one accessor writes,
/// key-value coding reads under the same key, and the reverse.
@Suite struct ManagedTypedAccessTests {
    /// Each attribute's name, its optional twin's name, and its type.
    private static let types: [(String, String, AttributeType)] = [
        ("int16", "optionalInt16", .integer16), ("int32", "optionalInt32", .integer32),
        ("int64", "optionalInt64", .integer64), ("int", "optionalInt", .integer64),
        ("double", "optionalDouble", .double), ("float", "optionalFloat", .float),
        ("boolean", "optionalBoolean", .boolean), ("date", "optionalDate", .date),
        ("decimal", "optionalDecimal", .decimal), ("uuid", "optionalUUID", .uuid),
        ("string", "optionalString", .string), ("data", "optionalData", .binaryData),
        ("url", "optionalURL", .uri),
    ]

    private static func makeSample() throws -> TypedAccessSample {
        let model = try ManagedObjectModel {
            Entity("TypedAccessSample", class: TypedAccessSample.self) {
                for (name, optionalName, type) in types {
                    Property(name, type)
                    Property(optionalName, type)
                }
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        return TypedAccessSample(context: context)
    }

    @Test func eachTypedWriteIsReadBackByItsAccessorAndByKey() throws {
        let sample = try Self.makeSample()
        let date = Date(timeIntervalSinceReferenceDate: 12_345)
        let uuid = UUID()
        let url = try #require(URL(string: "https://example.com/a"))
        sample.int16 = -16; sample.optionalInt16 = 16
        sample.int32 = -32; sample.optionalInt32 = 32
        sample.int64 = -64; sample.optionalInt64 = 64
        sample.int = -7; sample.optionalInt = 7
        sample.double = -1.5; sample.optionalDouble = 2.5
        sample.float = -0.25; sample.optionalFloat = 0.75
        sample.boolean = true; sample.optionalBoolean = false
        sample.date = date; sample.optionalDate = date.addingTimeInterval(1)
        sample.decimal = Decimal(string: "1.25") ?? 0; sample.optionalDecimal = Decimal(string: "2.5")
        sample.uuid = uuid; sample.optionalUUID = uuid
        sample.string = "s"; sample.optionalString = "o"
        sample.data = Data([1, 2]); sample.optionalData = Data([3])
        sample.url = url; sample.optionalURL = url.appendingPathComponent("b")

        #expect(sample.int16 == -16 && sample.optionalInt16 == 16)
        #expect(sample.int32 == -32 && sample.optionalInt32 == 32)
        #expect(sample.int64 == -64 && sample.optionalInt64 == 64)
        #expect(sample.int == -7 && sample.optionalInt == 7)
        #expect(sample.double == -1.5 && sample.optionalDouble == 2.5)
        #expect(sample.float == -0.25 && sample.optionalFloat == 0.75)
        #expect(sample.boolean == true && sample.optionalBoolean == false)
        #expect(sample.date == date && sample.optionalDate == date.addingTimeInterval(1))
        #expect(sample.decimal == Decimal(string: "1.25") && sample.optionalDecimal == Decimal(string: "2.5"))
        #expect(sample.uuid == uuid && sample.optionalUUID == uuid)
        #expect(sample.string == "s" && sample.optionalString == "o")
        #expect(sample.data == Data([1, 2]) && sample.optionalData == Data([3]))
        #expect(sample.url == url && sample.optionalURL == url.appendingPathComponent("b"))

        #expect(try sample.value(forKey: "int16") as? Int16 == -16)
        #expect(try sample.value(forKey: "optionalInt32") as? Int32 == 32)
        #expect(try sample.value(forKey: "int") as? Int64 == -7)
        #expect(try sample.value(forKey: "optionalDouble") as? Double == 2.5)
        #expect(try sample.value(forKey: "float") as? Float == -0.25)
        #expect(try sample.value(forKey: "optionalBoolean") as? Bool == false)
        #expect(try sample.value(forKey: "optionalDate") as? Date == date.addingTimeInterval(1))
        #expect(try sample.value(forKey: "decimal") as? Decimal == Decimal(string: "1.25"))
        #expect(try sample.value(forKey: "optionalUUID") as? UUID == uuid)
        #expect(try sample.value(forKey: "string") as? String == "s")
        #expect(try sample.value(forKey: "optionalData") as? Data == Data([3]))
        #expect(try sample.value(forKey: "url") as? URL == url)
    }

    @Test func optionalAccessorsWriteAndReadNilApartFromZero() throws {
        let sample = try Self.makeSample()
        sample.optionalInt16 = 0; sample.optionalInt = 0; sample.optionalDouble = 0
        sample.optionalBoolean = false; sample.optionalFloat = 0
        #expect(sample.optionalInt16 == 0 && sample.optionalInt == 0 && sample.optionalDouble == 0)
        #expect(sample.optionalBoolean == false && sample.optionalFloat == 0)
        sample.optionalInt16 = nil; sample.optionalInt = nil; sample.optionalDouble = nil
        sample.optionalBoolean = nil; sample.optionalFloat = nil; sample.optionalString = nil; sample.optionalURL = nil
        #expect(sample.optionalInt16 == nil && sample.optionalInt == nil && sample.optionalDouble == nil)
        #expect(sample.optionalBoolean == nil && sample.optionalFloat == nil)
        #expect(sample.optionalString == nil && sample.optionalURL == nil)
        #expect(try sample.value(forKey: "optionalInt16") == nil)
        #expect(try sample.value(forKey: "optionalDouble") == nil)
    }

    @Test func keyValueWritesAreReadByTheTypedAccessors() throws {
        let sample = try Self.makeSample()
        try sample.setValue(Int16(5), forKey: "int16")
        try sample.setValue(Int64(9), forKey: "optionalInt")
        try sample.setValue(3.5, forKey: "double")
        try sample.setValue(true, forKey: "optionalBoolean")
        try sample.setValue("k", forKey: "optionalString")
        #expect(sample.int16 == 5)
        #expect(sample.optionalInt == 9)
        #expect(sample.double == 3.5)
        #expect(sample.optionalBoolean == true)
        #expect(sample.optionalString == "k")
    }
}
