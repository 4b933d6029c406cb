import Foundation
import ModelObjects
import Testing

/// Keyed-archive-shaped property lists of 10,000 and 100,000 archived objects (about 60,000
/// and 600,000 values) round-trip. Their timing, with the 10x linearity check, is in the
/// archiving benchmark (`Benchmarks archiving`), not here: unit tests time nothing.
@Suite("Property lists: large archives")
struct PropertyListLargeArchiveTests {
    static func archive(objects count: Int) -> PropertyListValue {
        var objects: [PropertyListValue] = ["$null"]
        objects.reserveCapacity(count + 3)
        for index in 0 ..< count {
            objects.append([
                "$class": .uid(UInt64(count + 1)),
                "name": .string("Employee \(index)"),
                "salary": .integer(Int64(50_000 + index % 977 * 13)),
                "manager": .uid(UInt64(1 + index / 10)),
                "ratio": .real(Double(index % 100) / 8),
            ])
        }
        objects.append(["$classname": "Employee", "$classes": ["Employee", "NSObject"]])
        return [
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": .uid(1)], "$objects": .array(objects),
        ]
    }

    static func valueCount(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let elements): 1 + elements.reduce(0) { $0 + valueCount($1) }
        case .dictionary(let dictionary): 1 + dictionary.values.reduce(0) { $0 + valueCount($1) }
        default: 1
        }
    }

    @Test("10,000 archived objects read back equal from binary and XML")
    func tenThousandObjectsRoundTrip() throws {
        let value = Self.archive(objects: 10_000)
        #expect(Self.valueCount(value) > 60_000)
        let binary = try BinaryPropertyListWriter().write(value)
        #expect(try BinaryPropertyListReader().read(binary) == value)
        // Writing twice gives the same bytes (dictionaries keep their insertion order).
        #expect(try BinaryPropertyListWriter().write(value) == binary)
        let xml = try XMLPropertyListWriter().write(value)
        #expect(sameIgnoringOrder(try XMLPropertyListReader().read(xml), value))
    }

    @Test("100,000 archived objects need 3-byte object references and read back equal")
    func hundredThousandObjectsRoundTrip() throws {
        let value = Self.archive(objects: 100_000)
        let binary = try BinaryPropertyListWriter().write(value)
        // The trailer's object reference size: more than 65,535 objects need 3 bytes (as CF writes).
        #expect(binary.count > 32 && binary[binary.count - 32 + 7] == 3)
        #expect(try BinaryPropertyListReader().read(binary) == value)
    }
}
