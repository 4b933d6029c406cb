import Foundation
import ModelObjects
import Testing

@Suite("Property lists: values and round trips")
struct PropertyListRoundTripTests {
    static let samples: [PropertyListValue] = [
        "plain", "", "Grüße 東京 👩‍👩‍👧", "e\u{301}", "\u{0}\u{1}\r\n\t<&>", 0, -1, .integer(.min), .integer(.max),
        .unsignedInteger(.max), .unsignedInteger(1 << 63), 1.5, -0.0, 0.0, .real(.nan), .real(.infinity),
        .real(-.infinity), .real(.leastNonzeroMagnitude), .float(0.1), .float(-.infinity), .float(.nan), true, false,
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -86_400 * 365 * 3000)),
        .data(Data()), .data(Data([0xFF, 0, 0x7F])), .uid(0), .uid(255), .uid(256), .uid(65_536), .uid(1 << 32),
        .uid(.max), [], [:], [[[[]]]], ["$class": .uid(3), "NS.objects": [.uid(1), .uid(2)], "CF$UID": .uid(9)],
        .array((0 ..< 40).map { .integer($0) }), .data(Data(repeating: 0xAB, count: 300)),
    ]

    // MARK: Round trips

    @Test("binary round trip is exact", arguments: samples)
    func binaryRoundTrip(_ value: PropertyListValue) throws {
        let bytes = try BinaryPropertyListWriter().write(value)
        let back = try BinaryPropertyListReader().read(bytes)
        #expect(back == value)
        if case .string(let string) = value, case .string(let read) = back {
            #expect(Array(read.unicodeScalars) == Array(string.unicodeScalars))
        }
        #expect(try PropertyListValue.decode(bytes).format == .binary)
    }

    @Test("XML round trip is exact for values XML can hold", arguments: samples)
    func xmlRoundTrip(_ value: PropertyListValue) throws {
        let bytes = try XMLPropertyListWriter().write(value)
        let back = try XMLPropertyListReader().read(bytes)
        switch value {
        case .float(let float):
            #expect(back == .real(Double(float)))  // XML has a single kind of real
        default:
            #expect(sameIgnoringOrder(back, value))  // keys come back sorted
        }
        #expect(try PropertyListValue.decode(bytes).format == .xml)
    }

    @Test("the Data entry points agree with the byte entry points")
    func dataEntryPoints() throws {
        let value: PropertyListValue = ["a": [1, "b", .uid(2)]]
        for format in PropertyListFormat.allCases {
            let data = try value.encodedData(as: format)
            #expect(Array(data) == (try value.encoded(as: format)))
            #expect(try PropertyListValue(decoding: data) == value)
        }
        #expect(Array(try BinaryPropertyListWriter().data(for: value)) == (try BinaryPropertyListWriter().write(value)))
        #expect(Array(try XMLPropertyListWriter().data(for: value)) == (try XMLPropertyListWriter().write(value)))
    }

    @Test("binary keeps dictionary order; XML sorts keys unless told not to")
    func dictionaryOrder() throws {
        let value: PropertyListValue = ["zebra": 1, "apple": 2, "$top": 3, "Mango": 4]
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value)) == value)
        let sorted = try XMLPropertyListReader().read(XMLPropertyListWriter().write(value))
        #expect(sorted.dictionaryValue?.keys == ["$top", "Mango", "apple", "zebra"])
        var writer = XMLPropertyListWriter()
        writer.sortsKeys = false
        #expect(try XMLPropertyListReader().read(writer.write(value)) == value)
    }

    @Test("deep nesting: 512 levels round trip in both formats")
    func deepNesting() throws {
        let value = nested(512)
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value)) == value)
        #expect(try XMLPropertyListReader().read(XMLPropertyListWriter().write(value)) == value)
        let dictionaries = nestedDictionaries(512)
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(dictionaries)) == dictionaries)
        #expect(try XMLPropertyListReader().read(XMLPropertyListWriter().write(dictionaries)) == dictionaries)
    }

    @Test("writers refuse nesting beyond 512 levels")
    func writersRefuseDeepNesting() {
        expectPropertyListError(.nestingTooDeep) { _ = try BinaryPropertyListWriter().write(nested(513)) }
        expectPropertyListError(.nestingTooDeep) { _ = try XMLPropertyListWriter().write(nested(513)) }
        expectPropertyListError(.nestingTooDeep) { _ = try BinaryPropertyListWriter().write(nestedDictionaries(513)) }
        expectPropertyListError(.nestingTooDeep) { _ = try XMLPropertyListWriter().write(nestedDictionaries(513)) }
        var shallow = BinaryPropertyListWriter()
        shallow.maximumDepth = 2
        #expect(throws: Never.self) { try shallow.write(nested(2)) }
        expectPropertyListError(.nestingTooDeep) { _ = try shallow.write(nested(3)) }
    }

    @Test("the XML writer refuses dates it cannot write")
    func unrepresentableDates() throws {
        for interval in [Double.nan, .infinity, -.infinity, 1e300, -1e16] {
            expectPropertyListError(.unrepresentableValue) {
                _ = try XMLPropertyListWriter().write([.date(Date(timeIntervalSinceReferenceDate: interval))])
            }
        }
        // Binary stores any date as its 8-byte time interval.
        let odd: PropertyListValue = [.date(Date(timeIntervalSinceReferenceDate: .infinity))]
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(odd)) == odd)
    }

    // MARK: Exact binary encoding

    @Test("a small archive-like plist encodes to exactly the expected bytes")
    func exactBinaryBytes() throws {
        let bytes = try BinaryPropertyListWriter().write(["a", .uid(1), 1])
        let expected: [UInt8] =
            Array("bplist00".utf8) + [0xA3, 1, 2, 3, 0x51, 0x61, 0x80, 1, 0x10, 1]  // objects
            + [8, 12, 14, 16]  // offset table
            + [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(4, size: 8) + bigEndian(0, size: 8) + bigEndian(18, size: 8)
        #expect(bytes == expected)
    }

    @Test(
        "scalar encodings follow Core Foundation",
        arguments: [
            (PropertyListValue.integer(0), [0x10, 0]),
            (.integer(255), [0x10, 0xFF]),
            (.integer(256), [0x11, 1, 0]),
            (.integer(65_536), [0x12, 0, 1, 0, 0]),
            (.integer(4_294_967_296), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
            (.integer(-1), [0x13] + [UInt8](repeating: 0xFF, count: 8)),
            (.integer(.min), [0x13, 0x80] + [UInt8](repeating: 0, count: 7)),
            (.unsignedInteger(.max), [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)),
            (.real(1.5), [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]),
            (.float(1.5), [0x22, 0x3F, 0xC0, 0, 0]),
            (.date(Date(timeIntervalSinceReferenceDate: 1)), [0x33, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]),
            (.bool(false), [0x08]),
            (.bool(true), [0x09]),
            (.string("é"), [0x61, 0, 0xE9]),
            (.string("😀"), [0x62, 0xD8, 0x3D, 0xDE, 0x00]),
            (.string("abc"), [0x53, 0x61, 0x62, 0x63]),
            (.string(String(repeating: "x", count: 15)), [0x5F, 0x10, 15] + [UInt8](repeating: 0x78, count: 15)),
            (.data(Data([1, 2])), [0x42, 1, 2]),
            (.uid(255), [0x80, 0xFF]),
            (.uid(256), [0x81, 1, 0]),
            (.uid(65_536), [0x83, 0, 1, 0, 0]),
            (.uid(1 << 32), [0x87, 0, 0, 0, 1, 0, 0, 0, 0]),
        ] as [(PropertyListValue, [UInt8])])
    func scalarEncoding(_ value: PropertyListValue, _ encoded: [UInt8]) throws {
        let bytes = try BinaryPropertyListWriter().write(value)
        #expect(Array(bytes[8 ..< 8 + encoded.count]) == encoded)
        #expect(bytes.count == 8 + encoded.count + 1 + 32)
        #expect(try BinaryPropertyListReader().read(bytes) == value)
    }

    @Test("objects are numbered depth first, a dictionary's keys before its values")
    func objectOrder() throws {
        let bytes = try BinaryPropertyListWriter().write(["b": ["x"], "a": "y"])
        // dict(0) → keys "b"(1) "a"(2), values [..](3) → "x"(4), then "y"(5)
        #expect(Array(bytes[8 ..< 13]) == [0xD2, 1, 2, 3, 5])
        #expect(Array(bytes[13 ..< 17]) == [0x51, 0x62, 0x51, 0x61])
        #expect(Array(bytes[17 ..< 19]) == [0xA1, 4])
    }

    @Test("equal scalars are written once; containers never are")
    func sharing() throws {
        let shared: PropertyListValue = [
            "k", "k", 7, 7, 2.5, 2.5, .float(2.5), true, true, .uid(4), .uid(4), .data(Data([1])), .data(Data([1])),
            .date(Date(timeIntervalSinceReferenceDate: 5)), .date(Date(timeIntervalSinceReferenceDate: 5)), [], [],
            ["k": "k"],
        ]
        let bytes = try BinaryPropertyListWriter().write(shared)
        let objectCount = bytes.suffix(24).prefix(8).reduce(0) { $0 << 8 | Int($1) }
        // array + k, 7, 2.5, float 2.5, true, uid, data, date + 2 empty arrays + dict
        #expect(objectCount == 1 + 8 + 2 + 1)
        #expect(try BinaryPropertyListReader().read(bytes) == shared)
        // Canonically equivalent strings stay distinct.
        let forms: PropertyListValue = ["\u{E9}", "e\u{301}"]
        let read = try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(forms))
        #expect(read.arrayValue?.map { Array($0.stringValue?.unicodeScalars ?? "".unicodeScalars) } == [["\u{E9}"], ["e", "\u{301}"]])
    }

    @Test("object references and offsets widen as Core Foundation sizes them")
    func referenceSizes() throws {
        func trailerSizes(_ count: Int) throws -> (offset: UInt8, reference: UInt8) {
            // count - 1 distinct integers plus the array: `count` objects
            let bytes = try BinaryPropertyListWriter().write(.array((0 ..< count - 1).map { .integer(Int64($0) + 1000) }))
            let trailer = Array(bytes.suffix(32))
            return (trailer[6], trailer[7])
        }
        #expect(try trailerSizes(255).reference == 1)
        #expect(try trailerSizes(256).reference == 2)  // sized by the count, as Core Foundation does
        #expect(try trailerSizes(65_535).reference == 2)
        #expect(try trailerSizes(65_536).reference == 3)  // any width from 1 to 8 is valid; Core Foundation reads 3
        #expect(try trailerSizes(60).offset == 1)
        #expect(try trailerSizes(100).offset == 2)
    }

    // MARK: Value model

    @Test("equality: integers by value, NaN equals NaN, zero signs differ, reals and floats differ")
    func equality() {
        #expect(PropertyListValue.unsignedInteger(5) == .integer(5))
        #expect(PropertyListValue.integer(5) == .unsignedInteger(5))
        #expect(PropertyListValue.integer(-1) != .unsignedInteger(.max))
        #expect(PropertyListValue.real(.nan) == .real(.nan))
        #expect(PropertyListValue.float(.nan) == .float(.nan))
        #expect(PropertyListValue.real(0) != .real(-0.0))
        #expect(PropertyListValue.real(1) != .real(.nan))
        #expect(PropertyListValue.real(1.5) != .float(1.5))
        #expect(PropertyListValue.integer(1) != .real(1))
        #expect(PropertyListValue.uid(1) != .integer(1))
        #expect(PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 1)) != .date(Date(timeIntervalSinceReferenceDate: 2)))
        #expect(PropertyListValue.dictionary(["a": 1, "b": 2]) != .dictionary(["b": 2, "a": 1]))
        let ab: PropertyListDictionary = ["a": 1, "b": 2]
        let a1: PropertyListDictionary = ["a": 1]
        #expect(ab.hasSameEntries(as: ["b": 2, "a": 1]))
        #expect(!a1.hasSameEntries(as: ["a": 2]))
        #expect(!a1.hasSameEntries(as: ["a": 1, "b": 1]))
        #expect(PropertyListValue.integer(unsigned: 5) == .integer(5))
        if case .unsignedInteger = PropertyListValue.integer(unsigned: .max) {} else { Issue.record("expected unsigned") }
    }

    @Test("accessors")
    func accessors() {
        let value: PropertyListValue = [
            "s": "x", "i": 3, "u": .unsignedInteger(.max), "r": 2.5, "f": .float(0.5), "b": true,
            "d": .date(Date(timeIntervalSinceReferenceDate: 9)), "data": .data(Data([1])), "a": [1], "uid": .uid(4),
        ]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.integerValue == 3)
        #expect(value["u"]?.integerValue == nil)
        #expect(value["u"]?.doubleValue == Double(UInt64.max))
        #expect(value["i"]?.doubleValue == 3)
        #expect(value["r"]?.doubleValue == 2.5)
        #expect(value["f"]?.doubleValue == 0.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["d"]?.dateValue == Date(timeIntervalSinceReferenceDate: 9))
        #expect(value["data"]?.dataValue == Data([1]))
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["uid"]?.uidValue == 4)
        #expect(value.dictionaryValue?.count == 10)
        #expect(value["missing"] == nil)
        #expect(PropertyListValue.string("x")["key"] == nil)
        #expect(value["s"]?.integerValue == nil)
        #expect(value["s"]?.doubleValue == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(value["i"]?.boolValue == nil)
        #expect(value["i"]?.dateValue == nil)
        #expect(value["i"]?.dataValue == nil)
        #expect(value["i"]?.arrayValue == nil)
        #expect(value["i"]?.dictionaryValue == nil)
        #expect(value["i"]?.uidValue == nil)
        let kinds = value.dictionaryValue?.values.map(\.kindName)
        #expect(kinds == ["string", "integer", "integer", "real", "real", "bool", "date", "data", "array", "uid"])
        #expect(PropertyListValue.dictionary([:]).kindName == "dictionary")
    }

    @Test("the ordered dictionary keeps order, replaces in place, and indexes large dictionaries")
    func orderedDictionary() {
        var dictionary: PropertyListDictionary = ["b": 1, "a": 2, "b": 3]  // a repeated key: later value, first place
        #expect(dictionary.keys == ["b", "a"])
        #expect(dictionary["b"] == 3)
        dictionary["c"] = 4
        #expect(dictionary.updateValue(5, forKey: "a") == 2)
        #expect(dictionary.keys == ["b", "a", "c"])
        #expect(dictionary.values == [3, 5, 4])
        #expect(dictionary.removeValue(forKey: "a") == 5)
        #expect(dictionary.removeValue(forKey: "a") == nil)
        dictionary["b"] = nil
        #expect(dictionary.keys == ["c"])
        #expect(dictionary.position(of: "c") == 0)
        #expect(!dictionary.isEmpty)
        #expect(PropertyListDictionary().isEmpty)

        var large = PropertyListDictionary()
        for index in 0 ..< 100 { large["key \(index)"] = .integer(Int64(index)) }
        #expect(large.count == 100)
        #expect(large["key 57"] == 57)
        #expect(large.position(of: "key 99") == 99)
        large["key 10"] = "replaced"
        #expect(large.position(of: "key 10") == 10)
        large["key 0"] = nil
        #expect(large.position(of: "key 99") == 98)
        #expect(large["key 0"] == nil)
        #expect(large["key 10"] == "replaced")
        for index in 1 ..< 90 { large["key \(index)"] = nil }
        #expect(large.count == 10)
        #expect(large["key 95"] == 95)
        #expect(large.keys.first == "key 90")
        #expect(large.map(\.key).count == 10)
    }

    @Test("format detection")
    func detection() {
        #expect(PropertyListFormat(detecting: Array("bplist00xyz".utf8)) == .binary)
        #expect(PropertyListFormat(detecting: Array("bplist15".utf8)) == .binary)
        #expect(PropertyListFormat(detecting: Array("<?xml version=\"1.0\"?>".utf8)) == .xml)
        #expect(PropertyListFormat(detecting: [0xEF, 0xBB, 0xBF] + Array(" \n\t\r<plist>".utf8)) == .xml)
        #expect(PropertyListFormat(detecting: Array("{ a = b; }".utf8)) == nil)
        #expect(PropertyListFormat(detecting: [UInt8]()) == nil)
        #expect(PropertyListFormat(detecting: Array("   ".utf8)) == nil)
        #expect(PropertyListFormat(detecting: Data("bplis".utf8)) == nil)
        expectPropertyListError(.unsupportedFormat) { _ = try PropertyListValue(decoding: Array("{ a = b; }".utf8)) }
        expectPropertyListError(.unsupportedFormat) { _ = try PropertyListValue(decoding: [UInt8]()) }
        expectPropertyListError(.unsupportedFormat) { _ = try PropertyListValue(decoding: Array("bplist15abc".utf8)) }
    }

    @Test("errors describe themselves and match by code")
    func errorDescription() {
        let error = PropertyListError(.corruptPropertyList, offset: 12, message: "bad")
        #expect(error.description == "PropertyListError.corruptPropertyList at byte 12: bad")
        #expect(error.localizedDescription == error.description)
        #expect(PropertyListError(.limitExceeded, message: "m").description == "PropertyListError.limitExceeded: m")
        let codes: [PropertyListError.Code] = [
            .corruptPropertyList, .unsupportedFormat, .unsupportedObjectType, .nestingTooDeep, .cyclicReference,
            .limitExceeded, .unrepresentableValue, .init(rawValue: 99),
        ]
        #expect(codes.map(\.description) == [
            "corruptPropertyList", "unsupportedFormat", "unsupportedObjectType", "nestingTooDeep", "cyclicReference",
            "limitExceeded", "unrepresentableValue", "code 99",
        ])
        do {
            throw error
        } catch PropertyListError.Code.corruptPropertyList {
            // matched by code
        } catch {
            Issue.record("not matched by code")
        }
    }
}

/// `n` arrays nested in one another, the innermost empty.
func nested(_ depth: Int) -> PropertyListValue {
    var value = PropertyListValue.array([])
    for _ in 1 ..< depth { value = .array([value]) }
    return value
}

/// `n` dictionaries nested in one another, the innermost holding a string.
func nestedDictionaries(_ depth: Int) -> PropertyListValue {
    var value = PropertyListValue.dictionary(["leaf": "x"])
    for _ in 1 ..< depth { value = .dictionary(["child": value]) }
    return value
}
