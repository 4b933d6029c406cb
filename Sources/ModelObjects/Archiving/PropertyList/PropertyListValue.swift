import Foundation

/// A property-list value as Core Foundation models it, plus the keyed archiver's UIDs.
///
/// This is the tree that the binary and XML readers produce and the writers consume; the keyed
/// archiver is built on it. Dictionaries keep their keys in insertion order, so a value written
/// twice produces the same bytes.
///
/// Integers: a value that fits `Int64` is always `.integer`; `.unsignedInteger` is for values
/// above `Int64.max` only (binary property lists store them as 16-byte integers). Equality
/// compares integers by value, so `.unsignedInteger(5) == .integer(5)`.
///
/// Reals: `.real` is an 8-byte real; `.float` is a 4-byte real, which binary property lists keep
/// distinct (Foundation writes `Float` values that way). Equality treats two NaNs as equal and
/// distinguishes `0.0` from `-0.0`, so that it means "reads back the same".
package enum PropertyListValue: Sendable {
    case string(String)
    case integer(Int64)
    /// An integer above `Int64.max`.
    case unsignedInteger(UInt64)
    case real(Double)
    /// A 4-byte real.
    case float(Float)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary(PropertyListDictionary)
    /// A keyed archiver's object reference (`CF$UID`).
    case uid(UInt64)
}

extension PropertyListValue {
    /// An integer value: `.integer` when it fits `Int64`, `.unsignedInteger` otherwise.
    package static func integer(unsigned value: UInt64) -> PropertyListValue {
        if let signed = Int64(exactly: value) { .integer(signed) } else { .unsignedInteger(value) }
    }

    /// The string, if this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, if this is an integer that fits `Int64`.
    package var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .unsignedInteger(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The number as a `Double`, if this is an integer or a real (possibly rounded).
    package var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .real(let value): value
        case .float(let value): Double(value)
        default: nil
        }
    }

    /// The Boolean, if this is a Boolean.
    package var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The date, if this is a date.
    package var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The bytes, if this is data.
    package var dataValue: Data? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    package var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The dictionary, if this is a dictionary.
    package var dictionaryValue: PropertyListDictionary? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The UID, if this is a keyed archiver UID.
    package var uidValue: UInt64? {
        if case .uid(let value) = self { value } else { nil }
    }

    /// The value for a key, if this is a dictionary holding it.
    package subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let dictionary) = self { dictionary[key] } else { nil }
    }

    /// A short name for the kind of value, for error messages.
    package var kindName: String {
        switch self {
        case .string: "string"
        case .integer, .unsignedInteger: "integer"
        case .real, .float: "real"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "uid"
        }
    }
}

extension PropertyListValue: Equatable {
    package static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): a == b
        case let (.integer(a), .unsignedInteger(b)), let (.unsignedInteger(b), .integer(a)):
            UInt64(exactly: a) == b
        case let (.real(a), .real(b)): sameReal(a, b)
        case let (.float(a), .float(b)): sameReal(Double(a), Double(b))
        case let (.bool(a), .bool(b)): a == b
        case let (.date(a), .date(b)):
            sameReal(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case let (.data(a), .data(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        case let (.uid(a), .uid(b)): a == b
        default: false
        }
    }

    private static func sameReal(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return a == b && a.sign == b.sign
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .real(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(PropertyListDictionary(elements))
    }
}

// MARK: - Ordered dictionary

/// A property-list dictionary: string keys in insertion order.
///
/// Setting the value of a key that is present replaces the value in place; a new key goes at
/// the end. Equality is ordered: two dictionaries with the same entries in a different order
/// are different (they would be written differently); use `hasSameEntries(as:)` to ignore
/// order. Small dictionaries look keys up by scanning; larger ones keep a hash index.
package struct PropertyListDictionary: Sendable {
    package typealias Element = (key: String, value: PropertyListValue)

    /// The entries in order.
    package private(set) var elements: [Element]
    /// Key → position, kept only for dictionaries above `indexThreshold` entries.
    private var index: [String: Int]?

    private static let indexThreshold = 16

    /// An empty dictionary.
    package init() {
        elements = []
    }

    /// A dictionary of the given entries, in order. When a key repeats, the later value
    /// replaces the earlier one at the earlier position (as Core Foundation's readers do).
    package init(_ entries: some Sequence<(String, PropertyListValue)>) {
        elements = []
        elements.reserveCapacity(entries.underestimatedCount)
        for (key, value) in entries { self[key] = value }
    }

    /// A dictionary of entries whose keys the caller has checked to be distinct (no two
    /// `==`), in order.
    init(uncheckedDistinctEntries entries: [Element]) {
        elements = entries
        if entries.count > Self.indexThreshold { rebuildIndex() }
    }

    /// A dictionary of entries in order, which checks small dictionaries' keys in one pass
    /// over pairs instead of looking each key up as it is added; as ``init(_:)``, a repeated key
    /// keeps its first place and takes the later value.
    init(checkingEntries entries: [Element]) {
        if entries.count <= Self.indexThreshold && Self.keysAreDistinct(entries) {
            self.init(uncheckedDistinctEntries: entries)
        } else {
            self.init(entries.lazy.map { ($0.key, $0.value) })
        }
    }

    /// Whether no two keys are equal; lengths are compared first, which tells most keys apart
    /// without a string comparison.
    private static func keysAreDistinct(_ entries: [Element]) -> Bool {
        guard entries.count > 1 else { return true }
        for index in 1 ..< entries.count {
            let length = entries[index].key.utf8.count
            for earlier in 0 ..< index where entries[earlier].key.utf8.count == length {
                if entries[earlier].key == entries[index].key { return false }
            }
        }
        return true
    }

    /// The value for a key that is usually the last one (`$class` in archived objects): the
    /// last entry is compared first.
    @inline(__always)
    func value(forUsuallyLastKey key: String) -> PropertyListValue? {
        if let last = elements.last, last.key == key { return last.value }
        return self[key]
    }

    /// The number of entries.
    package var count: Int { elements.count }
    /// Whether there are no entries.
    package var isEmpty: Bool { elements.isEmpty }
    /// The keys, in order.
    package var keys: [String] { elements.map(\.key) }
    /// The values, in key order.
    package var values: [PropertyListValue] { elements.map(\.value) }

    /// Reserves room for this many entries.
    package mutating func reserveCapacity(_ capacity: Int) {
        elements.reserveCapacity(capacity)
    }

    /// The position of a key, if present.
    package func position(of key: String) -> Int? {
        if let index { return index[key] }
        return elements.firstIndex { $0.key == key }
    }

    /// The value for a key; setting nil removes the key.
    package subscript(key: String) -> PropertyListValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return elements[position].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the value of a key, keeping its position if present; returns the old value.
    @discardableResult
    package mutating func updateValue(_ value: PropertyListValue, forKey key: String)
        -> PropertyListValue?
    {
        if let position = position(of: key) {
            let old = elements[position].value
            elements[position].value = value
            return old
        }
        elements.append((key, value))
        if index != nil {
            index?[key] = elements.count - 1
        } else if elements.count > Self.indexThreshold {
            rebuildIndex()
        }
        return nil
    }

    /// Removes a key, returning its value; later keys move up one position.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> PropertyListValue? {
        guard let position = position(of: key) else { return nil }
        let old = elements.remove(at: position).value
        if elements.count > Self.indexThreshold { rebuildIndex() } else { index = nil }
        return old
    }

    private mutating func rebuildIndex() {
        var newIndex = [String: Int](minimumCapacity: elements.count)
        for (position, element) in elements.enumerated() { newIndex[element.key] = position }
        index = newIndex
    }

    /// Whether both dictionaries have the same keys with equal values, in any order.
    package func hasSameEntries(as other: PropertyListDictionary) -> Bool {
        guard count == other.count else { return false }
        return elements.allSatisfy { other[$0.key] == $0.value }
    }
}

extension PropertyListDictionary: RandomAccessCollection {
    package var startIndex: Int { 0 }
    package var endIndex: Int { elements.count }
    package subscript(position: Int) -> Element { elements[position] }
}

extension PropertyListDictionary: Equatable {
    package static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        lhs.elements.count == rhs.elements.count
            && zip(lhs.elements, rhs.elements).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension PropertyListDictionary: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(elements)
    }
}

// MARK: - Formats and entry points

/// The property-list formats this library reads and writes.
package enum PropertyListFormat: Sendable, Hashable, CaseIterable {
    /// Apple's binary format, `bplist00`.
    case binary
    /// Apple's XML format (`<!DOCTYPE plist …>`).
    case xml

    /// The format of the given bytes, judged from their start: `bplist` for binary, `<` after
    /// an optional UTF-8 byte-order mark and white space for XML; nil for anything else.
    package init?(detecting bytes: some ContiguousBytes) {
        let format: PropertyListFormat? = bytes.withUnsafeBytes { buffer in
            let magic: [UInt8] = Array("bplist".utf8)
            if buffer.count >= magic.count && buffer.prefix(magic.count).elementsEqual(magic) {
                return .binary
            }
            var position = 0
            if buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF {
                position = 3
            }
            while position < buffer.count,
                buffer[position] == 0x20 || buffer[position] == 0x09 || buffer[position] == 0x0A
                    || buffer[position] == 0x0D
            {
                position += 1
            }
            return position < buffer.count && buffer[position] == UInt8(ascii: "<") ? .xml : nil
        }
        guard let format else { return nil }
        self = format
    }
}

extension PropertyListValue {
    /// Reads a binary or XML property list, detecting the format.
    package init(decoding bytes: some ContiguousBytes) throws {
        self = try Self.decode(bytes).value
    }

    /// Reads a binary or XML property list, detecting the format, and tells which it was.
    package static func decode(_ bytes: some ContiguousBytes) throws
        -> (value: PropertyListValue, format: PropertyListFormat)
    {
        switch PropertyListFormat(detecting: bytes) {
        case .binary: (try BinaryPropertyListReader().read(bytes), .binary)
        case .xml: (try XMLPropertyListReader().read(bytes), .xml)
        case nil:
            throw PropertyListError(
                .unsupportedFormat, offset: 0,
                message: "the data is neither a binary (bplist00) nor an XML property list")
        }
    }

    /// Writes the value as a property list in the given format.
    package func encoded(as format: PropertyListFormat) throws -> [UInt8] {
        switch format {
        case .binary: try BinaryPropertyListWriter().write(self)
        case .xml: try XMLPropertyListWriter().write(self)
        }
    }

    /// Writes the value as a property list in the given format, as `Data`.
    package func encodedData(as format: PropertyListFormat) throws -> Data {
        Data(try encoded(as: format))
    }
}
