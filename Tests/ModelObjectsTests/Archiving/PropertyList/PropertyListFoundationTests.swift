import Foundation
import ModelObjects
import Testing

/// Cross-checks against Foundation's own `PropertyListSerialization` on this platform, in both
/// directions and both formats (Foundation cannot write UIDs, so these values have none).
@Suite("Property lists: Foundation cross-checks")
struct PropertyListFoundationTests {
    /// Values that survive every format exactly (whole-second dates, 8-byte reals).
    static let portableSamples: [(String, PropertyListValue)] = [
        ("ASCII string", "hello, world"),
        ("empty string", ""),
        ("non-ASCII string", "Grüße, café, 東京"),
        ("emoji", "👩‍👩‍👧 and 🇫🇷 and \u{1F600}"),
        ("markup characters", "<tag attr=\"x\"> & 'y' ]]> \t\n"),
        ("zero", 0),
        ("small integers", [1, 14, 15, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296]),
        ("negative integers", [-1, -128, -129, -32_768, -2_147_483_648, -4_294_967_296]),
        ("Int64 extremes", [.integer(.min), .integer(.max)]),
        ("above Int64.max", [.unsignedInteger(UInt64.max), .unsignedInteger(1 << 63), .unsignedInteger((1 << 63) + 1)]),
        ("reals", [0.0, 1.5, -2.25, 0.1, .real(.pi), 1e300, -1e-300, .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude)]),
        ("special reals", [.real(.infinity), .real(-.infinity)]),
        ("booleans", [true, false, true]),
        (
            "dates",
            [
                .date(Date(timeIntervalSinceReferenceDate: 0)),
                .date(Date(timeIntervalSinceReferenceDate: 772_000_000)),
                .date(Date(timeIntervalSince1970: 0)),
                .date(Date(timeIntervalSinceReferenceDate: -3_000_000_000)),
            ]
        ),
        ("data", [.data(Data()), .data(Data([0, 1, 2, 255])), .data(Data((0 ..< 1000).map { UInt8($0 % 256) }))]),
        ("nested", ["a", ["b", ["c": ["d": [1, 2, ["e"]]]], [:], []], ["k": [:]]]),
        (
            "dictionary",
            [
                "name": "Alice", "age": 42, "tags": ["x", "y"], "ratio": 0.5, "active": true,
                "born": .date(Date(timeIntervalSinceReferenceDate: 1_000)), "blob": .data(Data([9, 8, 7])),
            ]
        ),
        ("15 elements", .array((0 ..< 15).map { .integer($0) })),
        ("16 elements", .array((0 ..< 16).map { .string("s\($0)") })),
        ("255 distinct", .array((0 ..< 255).map { .integer($0 * 1000) })),
        ("300 distinct (2-byte refs)", .array((0 ..< 300).map { .integer($0 * 7) })),
        (
            "15-entry dictionary",
            .dictionary(PropertyListDictionary((0 ..< 15).map { ("key\($0)", .integer($0)) }))
        ),
        ("repeated values", ["x", "x", 1, 1, 1.5, 1.5, true, true, ["x"], ["x"]]),
    ]

    static var sampleNames: [String] { portableSamples.map(\.0) }

    static func sample(_ name: String) -> PropertyListValue {
        portableSamples.first { $0.0 == name }?.1 ?? .string("missing")
    }

    static func foundationRead(_ bytes: [UInt8]) throws -> PropertyListValue {
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        return try #require(value(fromFoundation: object))
    }

    static func foundationWrite(
        _ value: PropertyListValue, _ format: PropertyListSerialization.PropertyListFormat
    ) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: foundationObject(value), format: format, options: 0))
    }

    @Test("our binary → Foundation's reader", arguments: sampleNames)
    func ourBinaryFoundationReads(_ name: String) throws {
        let value = Self.sample(name)
        let bytes = try BinaryPropertyListWriter().write(value)
        #expect(sameIgnoringOrder(try Self.foundationRead(bytes), value))
    }

    @Test("Foundation's binary → our reader", arguments: sampleNames)
    func foundationBinaryWeRead(_ name: String) throws {
        let value = Self.sample(name)
        let bytes = try Self.foundationWrite(value, .binary)
        #expect(sameIgnoringOrder(try BinaryPropertyListReader().read(bytes), value))
    }

    @Test("our XML → Foundation's reader", arguments: sampleNames)
    func ourXMLFoundationReads(_ name: String) throws {
        let value = Self.sample(name)
        let bytes = try XMLPropertyListWriter().write(value)
        #expect(sameIgnoringOrder(try Self.foundationRead(bytes), value))
    }

    @Test("Foundation's XML → our reader", arguments: sampleNames)
    func foundationXMLWeRead(_ name: String) throws {
        let value = Self.sample(name)
        let bytes = try Self.foundationWrite(value, .xml)
        #expect(sameIgnoringOrder(try XMLPropertyListReader().read(bytes), value))
    }

    @Test("our XML is byte for byte Foundation's XML", arguments: sampleNames)
    func xmlBytesMatchFoundation(_ name: String) throws {
        let value = Self.sample(name)
        let ours = try XMLPropertyListWriter().write(value)
        let theirs = try Self.foundationWrite(value, .xml)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
    }

    /// Foundation's binary writer orders dictionary entries by hash, and on this platform
    /// shares equal integers but not equal strings, reals or Booleans (Core Foundation on
    /// Darwin shares strings too); ours shares every equal scalar. Apart from that, the bytes
    /// must be the same.
    @Test("our binary is byte for byte Foundation's binary when no dictionary has two keys")
    func binaryBytesMatchFoundation() throws {
        let sharedDifferently: Set = ["booleans", "repeated values"]
        for (name, value) in Self.portableSamples where !hasMultiKeyDictionary(value) && !sharedDifferently.contains(name) {
            let ours = try BinaryPropertyListWriter().write(value)
            let theirs = try Self.foundationWrite(value, .binary)
            #expect(ours == theirs, "\(name)")
        }
    }

    @Test("4-byte reals keep their size in binary both ways")
    func floats() throws {
        // (Foundation writes a non-finite Float as an 8-byte real, so these are finite.)
        let value: PropertyListValue = [.float(1.5), .float(0.1), .float(-2.5e10), .real(1.5)]
        let ours = try BinaryPropertyListWriter().write(value)
        #expect(try Self.foundationRead(ours) == value)
        #expect(try BinaryPropertyListReader().read(Self.foundationWrite(value, .binary)) == value)
        // XML has only one kind of real: 4-byte reals come back as the 8-byte equivalent.
        let xml = try XMLPropertyListWriter().write(value)
        #expect(try XMLPropertyListReader().read(xml) == [.real(1.5), .real(Double(Float(0.1))), .real(Double(Float(-2.5e10))), .real(1.5)])
        #expect(xml == (try Self.foundationWrite(value, .xml)))
    }

    @Test("NaN reads back as NaN in both formats, both ways")
    func notANumber() throws {
        let value: PropertyListValue = [.real(.nan)]
        for format in PropertyListFormat.allCases {
            let ours = try value.encoded(as: format)
            #expect(try Self.foundationRead(ours) == value)
            let theirs = try Self.foundationWrite(value, format == .binary ? .binary : .xml)
            #expect(try PropertyListValue(decoding: theirs) == value)
        }
    }

    @Test("fractional dates are exact in binary and rounded down to the second in XML")
    func fractionalDates() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.987_654)
        let before = Date(timeIntervalSinceReferenceDate: -12.7)
        let value: PropertyListValue = [.date(date), .date(before)]
        #expect(try Self.foundationRead(BinaryPropertyListWriter().write(value)) == value)
        #expect(try BinaryPropertyListReader().read(Self.foundationWrite(value, .binary)) == value)
        let rounded: PropertyListValue = [
            .date(Date(timeIntervalSinceReferenceDate: 123_456_789)), .date(Date(timeIntervalSinceReferenceDate: -13)),
        ]
        #expect(try XMLPropertyListReader().read(XMLPropertyListWriter().write(value)) == rounded)
        #expect(try Self.foundationRead(XMLPropertyListWriter().write(value)) == rounded)
        #expect(try XMLPropertyListWriter().write(value) == Self.foundationWrite(value, .xml))
    }

    @Test("more than 65,536 objects: 3-byte object references, read by Foundation, both ways")
    func manyObjects() throws {
        let value = PropertyListValue.array((0 ..< 70_000).map { .string("string \($0)") })
        let ours = try BinaryPropertyListWriter().write(value)
        let trailer = ours.suffix(32)
        #expect(trailer[trailer.startIndex + 7] == 3)  // object reference size
        #expect(trailer[trailer.startIndex + 6] == 3)  // offset size: the table starts past 2^16
        #expect(try Self.foundationRead(ours) == value)
        let theirs = try Self.foundationWrite(value, .binary)
        #expect(try BinaryPropertyListReader().read(theirs) == value)
        // Foundation sizes references and offsets to 4 bytes; ours take 3, one byte less each.
        #expect(theirs.count - ours.count > 2 * 70_000 - 16)
    }

    @Test("large dictionaries with many distinct keys, both ways")
    func largeDictionary() throws {
        let value = PropertyListValue.dictionary(
            PropertyListDictionary((0 ..< 20_000).map { ("k\($0)", .integer(Int64($0) * 3)) }))
        #expect(sameIgnoringOrder(try Self.foundationRead(BinaryPropertyListWriter().write(value)), value))
        #expect(sameIgnoringOrder(try BinaryPropertyListReader().read(Self.foundationWrite(value, .binary)), value))
        #expect(sameIgnoringOrder(try XMLPropertyListReader().read(Self.foundationWrite(value, .xml)), value))
        #expect(try XMLPropertyListWriter().write(value) == Self.foundationWrite(value, .xml))
    }
}

private func hasMultiKeyDictionary(_ value: PropertyListValue) -> Bool {
    switch value {
    case .array(let elements): elements.contains(where: hasMultiKeyDictionary)
    case .dictionary(let dictionary): dictionary.count > 1 || dictionary.values.contains(where: hasMultiKeyDictionary)
    default: false
    }
}
