import Foundation
import ModelObjects
import Testing

// MARK: - Deterministic random numbers

/// SplitMix64: a small, fast, seedable generator so that fuzz tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Expectations

/// Runs `body`, which must throw a `PropertyListError` with the given code.
func expectPropertyListError(
    _ code: PropertyListError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected PropertyListError.\(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as PropertyListError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected PropertyListError.\(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Reads binary bytes, expecting a `PropertyListError` with the given code.
func expectBinaryError(
    _ code: PropertyListError.Code, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) {
    expectPropertyListError(code, sourceLocation: sourceLocation) {
        _ = try BinaryPropertyListReader().read(bytes)
    }
}

/// Reads XML text, expecting a `PropertyListError` with the given code.
func expectXMLError(
    _ code: PropertyListError.Code, _ text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    expectPropertyListError(code, sourceLocation: sourceLocation) {
        _ = try XMLPropertyListReader().read(Array(text.utf8))
    }
}

/// Equality that ignores dictionary key order (XML sorts keys; Foundation's dictionaries have
/// no order).
func sameIgnoringOrder(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    switch (a, b) {
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameIgnoringOrder)
    case let (.dictionary(x), .dictionary(y)):
        guard x.count == y.count else { return false }
        return x.allSatisfy { entry in y[entry.key].map { sameIgnoringOrder(entry.value, $0) } ?? false }
    default:
        return a == b
    }
}

// MARK: - Foundation bridging

/// The Foundation object for a UID-free value, for `PropertyListSerialization`.
func foundationObject(_ value: PropertyListValue) -> Any {
    switch value {
    case .string(let v): v
    case .integer(let v): NSNumber(value: v)
    case .unsignedInteger(let v): NSNumber(value: v)
    case .real(let v): NSNumber(value: v)
    case .float(let v): NSNumber(value: v)
    case .bool(let v): v
    case .date(let v): v
    case .data(let v): v
    case .array(let v): v.map(foundationObject)
    case .dictionary(let v):
        Dictionary(v.map { ($0.key, foundationObject($0.value)) }, uniquingKeysWith: { a, _ in a })
    case .uid(let v): NSNumber(value: v)  // not representable; callers avoid UIDs
    }
}

/// The value of an object read by `PropertyListSerialization`.
func value(fromFoundation object: Any) -> PropertyListValue? {
    if type(of: object) == Bool.self, let bool = object as? Bool { return .bool(bool) }
    switch object {
    case let string as String: return .string(string)
    case let date as Date: return .date(date)
    case let data as Data: return .data(data)
    case let array as [Any]:
        var result = [PropertyListValue]()
        for element in array {
            guard let value = value(fromFoundation: element) else { return nil }
            result.append(value)
        }
        return .array(result)
    case let dictionary as [AnyHashable: Any]:
        var result = PropertyListDictionary()
        for (key, element) in dictionary {
            guard let key = key.base as? String, let value = value(fromFoundation: element) else { return nil }
            result[key] = value
        }
        return .dictionary(result)
    case let number as NSNumber:
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "d": return .real(number.doubleValue)
        case "f": return .float(number.floatValue)
        case "Q", "L": return .integer(unsigned: number.uint64Value)
        default: return .integer(number.int64Value)
        }
    default:
        return nil
    }
}

// MARK: - Hand-built binary property lists

/// Builds a binary property list from raw object bytes, with every trailer field adjustable,
/// for crafting hostile input.
struct RawBinaryPlist {
    /// Each object's encoded bytes, in object-number order.
    var objects: [[UInt8]]
    var offsetSize = 1
    var referenceSize = 1
    var topObject: UInt64 = 0
    /// Replaces the object count written in the trailer.
    var objectCount: UInt64?
    /// Replaces the offset-table offset written in the trailer.
    var offsetTableOffset: UInt64?
    /// Replaces individual offset-table entries.
    var offsets: [Int: UInt64] = [:]
    var header = Array("bplist00".utf8)

    init(_ objects: [[UInt8]]) { self.objects = objects }

    var bytes: [UInt8] {
        var output = header
        var realOffsets = [UInt64]()
        for object in objects {
            realOffsets.append(UInt64(output.count))
            output += object
        }
        let tableOffset = UInt64(output.count)
        for (index, offset) in realOffsets.enumerated() {
            output += bigEndian(offsets[index] ?? offset, size: offsetSize)
        }
        output += [0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: offsetSize), UInt8(truncatingIfNeeded: referenceSize)]
        output += bigEndian(objectCount ?? UInt64(objects.count), size: 8)
        output += bigEndian(topObject, size: 8)
        output += bigEndian(offsetTableOffset ?? tableOffset, size: 8)
        return output
    }
}

func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// A marker with a count: the low nibble, or 0xF and an integer object.
func marker(_ high: UInt8, count: Int) -> [UInt8] {
    if count < 15 { return [high | UInt8(count)] }
    if count <= 0xFF { return [high | 0x0F, 0x10, UInt8(count)] }
    if count <= 0xFFFF { return [high | 0x0F, 0x11] + bigEndian(UInt64(count), size: 2) }
    return [high | 0x0F, 0x12] + bigEndian(UInt64(count), size: 4)
}

/// An ASCII string object.
func asciiObject(_ string: String) -> [UInt8] {
    marker(0x50, count: string.utf8.count) + Array(string.utf8)
}

// MARK: - Fixtures

/// Apple's archives, shared outside the package (they may not be copied into it).
enum AppleArchives {
    static let directory: URL = {
        // Tests/ModelObjectsTests/Archiving/PropertyList/<this file> → package root → ../shared/…
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/apple-archives", isDirectory: true)
    }()

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: directory.path) }

    static var files: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }
}
