import Foundation

/// Writes Apple's binary property-list format, `bplist00`, as Core Foundation does.
///
/// Layout: the `bplist00` header, the objects, the offset table, then a 32-byte trailer
/// (offset-integer size, object-reference size, object count, top object, offset-table offset).
/// Objects are numbered in Core Foundation's order: depth first, the container before its
/// contents, a dictionary's keys before its values; the top object is object 0.
///
/// Equal strings, numbers, dates, data, Booleans and UIDs are written once and shared;
/// arrays and dictionaries are never shared. Strings are compared by their exact Unicode
/// scalars, so canonically equivalent but different strings stay distinct.
///
/// Writing is linear in the size of the value: one pass numbers the objects, a second encodes
/// them into a single preallocated buffer.
package struct BinaryPropertyListWriter: Sendable {
    /// How deeply arrays and dictionaries may nest; deeper values throw `nestingTooDeep`.
    package var maximumDepth = PropertyListLimits.maximumDepth

    package init() {}

    /// Encodes a value as a binary property list.
    package func write(_ value: PropertyListValue) throws -> [UInt8] {
        var flattener = Flattener(maximumDepth: maximumDepth)
        _ = try flattener.flatten(value, depth: 0)
        return flattener.encode()
    }

    /// Encodes a value as a binary property list, as `Data`.
    package func data(for value: PropertyListValue) throws -> Data {
        Data(try write(value))
    }
}

extension BinaryPropertyListWriter {
    /// An object of the output, in object-number order.
    fileprivate enum FlatObject {
        /// A string, with whether it is ASCII and its length in bytes (ASCII) or UTF-16 units.
        case string(String, isASCII: Bool, length: Int)
        /// Any other scalar.
        case scalar(PropertyListValue)
        /// An array: its element references are `references[start ..< start + count]`.
        case array(start: Int, count: Int)
        /// A dictionary: its key then value references are
        /// `references[start ..< start + 2 * count]`.
        case dictionary(start: Int, count: Int)
    }

    fileprivate struct Flattener {
        let maximumDepth: Int
        var objects: [FlatObject] = []
        var references: [Int] = []
        /// Scalars already numbered, for sharing equal ones.
        var table = ScalarTable()
        /// The object numbers of UIDs and small non-negative integers, by value (0 for none
        /// yet, else number + 1): keyed archives are mostly UIDs, which are dense small
        /// numbers, so an array beats hashing them.
        var uidNumbers: [Int32] = []
        var smallIntegerNumbers: [Int32] = []
        /// Strings already numbered, by their raw representation (see ``flatten(_:)``).
        var stringsByBits = StringBitsTable()
        /// An estimate of the encoded size of the scalars, to size the output buffer.
        var scalarBytes = 0

        init(maximumDepth: Int) {
            self.maximumDepth = maximumDepth
        }

        /// Numbers a value and its contents; returns the value's object number.
        mutating func flatten(_ value: PropertyListValue, depth: Int) throws -> Int {
            switch value {
            case .string(let string):
                return flatten(string)
            case .integer(let integer):
                if integer >= 0 && integer < Self.directLimit {
                    return numberDirectly(value, Int(integer), isUID: false)
                }
                return unique(value, hash: table.hash(UInt64(bitPattern: integer), kind: 1), size: 9)
            case .unsignedInteger(let integer):
                return unique(value, hash: table.hash(integer, kind: 2), size: 17)
            case .real(let real):
                return unique(value, hash: table.hash(real.bitPattern, kind: 3), size: 9)
            case .float(let real):
                return unique(value, hash: table.hash(UInt64(real.bitPattern), kind: 4), size: 5)
            case .date(let date):
                let bits = date.timeIntervalSinceReferenceDate.bitPattern
                return unique(value, hash: table.hash(bits, kind: 5), size: 9)
            case .data(let data):
                let hash = data.withUnsafeBytes { table.hash(bytes: $0, kind: 6).hash }
                return unique(value, hash: hash, size: data.count + 9)
            case .uid(let uid):
                if uid < UInt64(Self.directLimit) {
                    return numberDirectly(value, Int(uid), isUID: true)
                }
                return unique(value, hash: table.hash(uid, kind: 7), size: 9)
            case .bool(let bool):
                return unique(value, hash: table.hash(bool ? 1 : 0, kind: 8), size: 1)
            case .array(let elements):
                try checkDepth(depth)
                if elements.count >= 1024 {
                    // A large array (a keyed archive's `$objects`): room for its elements and
                    // a few objects and references each, instead of many growth steps.
                    objects.reserveCapacity(objects.count + 4 * elements.count)
                    references.reserveCapacity(references.count + 8 * elements.count)
                }
                let number = objects.count
                let start = references.count
                objects.append(.array(start: start, count: elements.count))
                references.append(contentsOf: repeatElement(0, count: elements.count))
                for (offset, element) in elements.enumerated() {
                    let reference = try flatten(element, depth: depth + 1)
                    references[start + offset] = reference
                }
                return number
            case .dictionary(let dictionary):
                try checkDepth(depth)
                let number = objects.count
                let start = references.count
                let count = dictionary.count
                objects.append(.dictionary(start: start, count: count))
                references.append(contentsOf: repeatElement(0, count: 2 * count))
                for (offset, element) in dictionary.elements.enumerated() {
                    let reference = flatten(key: element.key)
                    references[start + offset] = reference
                }
                for (offset, element) in dictionary.elements.enumerated() {
                    let reference = try flatten(element.value, depth: depth + 1)
                    references[start + count + offset] = reference
                }
                return number
            }
        }

        private func checkDepth(_ depth: Int) throws {
            if depth >= maximumDepth {
                throw PropertyListError(
                    .nestingTooDeep,
                    message: "arrays and dictionaries are nested more than \(maximumDepth) deep")
            }
        }

        /// Values below this are numbered through ``uidNumbers`` and ``smallIntegerNumbers``
        /// (each at most 4 MiB, for the UIDs of archives of some 300,000 objects); larger ones
        /// are hashed.
        static let directLimit = 1 << 20

        /// Numbers a UID or small integer through its slot in `numbers`, growing the array to
        /// twice the value at most.
        private mutating func numberDirectly(_ value: PropertyListValue, _ key: Int, isUID: Bool) -> Int {
            let known = isUID ? Self.number(at: key, in: &uidNumbers) : Self.number(at: key, in: &smallIntegerNumbers)
            if known >= 0 { return known }
            let number = objects.count
            objects.append(.scalar(value))
            scalarBytes += 9
            if isUID {
                uidNumbers[key] = Int32(truncatingIfNeeded: number + 1)
            } else {
                smallIntegerNumbers[key] = Int32(truncatingIfNeeded: number + 1)
            }
            return number
        }

        /// The number recorded at `key`, or -1, after growing `numbers` to hold `key` (to
        /// twice the value at most).
        @inline(__always)
        private static func number(at key: Int, in numbers: inout [Int32]) -> Int {
            if key >= numbers.count {
                numbers.append(contentsOf: repeatElement(0, count: max(key + 1, 2 * numbers.count, 256) - numbers.count))
            }
            return Int(numbers[key]) - 1
        }

        /// Numbers a dictionary key. Dictionaries repeat the same few keys: a key seen before
        /// with the same raw representation (its two words: for a small string the bytes
        /// themselves, for another its storage and length) has the same bytes, so it is found
        /// without hashing them; others go through the byte hash.
        private mutating func flatten(key: String) -> Int {
            let bits = unsafeBitCast(key, to: (UInt64, UInt64).self)
            if let number = stringsByBits[bits] { return number }
            let number = flatten(key)
            stringsByBits[bits] = number
            return number
        }

        /// Numbers a string, sharing an earlier one with exactly the same UTF-8 bytes.
        private mutating func flatten(_ string: String) -> Int {
            var copy = string
            typealias Probe = (hash: UInt64, isASCII: Bool, length: Int, slot: Int, found: Int?)
            let probe = copy.withUTF8 { utf8 -> Probe in
                let (hash, isASCII) = table.hash(bytes: UnsafeRawBufferPointer(utf8), kind: 0)
                var slot = table.slot(for: hash)
                while let number = table.number(at: slot, hash: hash) {
                    if number >= 0, case .string(let other, _, _) = objects[number],
                        Self.sameBytes(other, utf8)
                    {
                        return (hash, isASCII, 0, slot, number)
                    }
                    slot = table.next(slot)
                }
                var length = utf8.count
                if !isASCII {
                    // UTF-16 units: one per scalar, two for those of four UTF-8 bytes.
                    length = 0
                    for byte in utf8 where byte & 0xC0 != 0x80 { length += byte >= 0xF0 ? 2 : 1 }
                }
                return (hash, isASCII, length, slot, nil)
            }
            if let found = probe.found { return found }
            let number = objects.count
            objects.append(.string(string, isASCII: probe.isASCII, length: probe.length))
            scalarBytes += (probe.isASCII ? probe.length : 2 * probe.length) + 9
            table.insert(hash: probe.hash, number: number, at: probe.slot)
            return number
        }

        private static func sameBytes(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var string = string
            return string.withUTF8 { other in
                guard other.count == bytes.count else { return false }
                guard let a = other.baseAddress, let b = bytes.baseAddress else { return true }
                return memcmp(a, b, bytes.count) == 0
            }
        }

        /// Numbers a scalar other than a string, sharing an identical earlier one.
        private mutating func unique(_ value: PropertyListValue, hash: UInt64, size: Int) -> Int {
            var slot = table.slot(for: hash)
            while let number = table.number(at: slot, hash: hash) {
                if number >= 0, case .scalar(let other) = objects[number], Self.identical(value, other) {
                    return number
                }
                slot = table.next(slot)
            }
            let number = objects.count
            objects.append(.scalar(value))
            scalarBytes += size
            table.insert(hash: hash, number: number, at: slot)
            return number
        }

        /// Whether two scalars are the same value, bit for bit.
        private static func identical(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
            switch (a, b) {
            case let (.integer(x), .integer(y)): x == y
            case let (.unsignedInteger(x), .unsignedInteger(y)): x == y
            case let (.real(x), .real(y)): x.bitPattern == y.bitPattern
            case let (.float(x), .float(y)): x.bitPattern == y.bitPattern
            case let (.date(x), .date(y)):
                x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
            case let (.data(x), .data(y)): x == y
            case let (.uid(x), .uid(y)): x == y
            case let (.bool(x), .bool(y)): x == y
            default: false
            }
        }

        /// Encodes the numbered objects, the offset table and the trailer.
        func encode() -> [UInt8] {
            let objectCount = objects.count
            let referenceSize = Self.tableByteCount(UInt64(objectCount))
            var buffer = ByteBuffer()
            buffer.bytes.reserveCapacity(
                8 + scalarBytes + objects.count * 10 + references.count * referenceSize + 32)
            buffer.append(contentsOf: "bplist00".utf8)
            var offsets = [Int]()
            offsets.reserveCapacity(objectCount)
            for object in objects {
                offsets.append(buffer.count)
                switch object {
                case .string(let string, let isASCII, let length):
                    buffer.appendString(string, isASCII: isASCII, length: length)
                case .scalar(let value):
                    buffer.appendScalar(value)
                case .array(let start, let count):
                    buffer.appendMarker(0xA0, count: count)
                    for reference in references[start ..< start + count] {
                        buffer.appendBigEndian(UInt64(reference), size: referenceSize)
                    }
                case .dictionary(let start, let count):
                    buffer.appendMarker(0xD0, count: count)
                    for reference in references[start ..< start + 2 * count] {
                        buffer.appendBigEndian(UInt64(reference), size: referenceSize)
                    }
                }
            }
            let offsetTableOffset = buffer.count
            let offsetSize = Self.tableByteCount(UInt64(offsetTableOffset))
            for offset in offsets {
                buffer.appendBigEndian(UInt64(offset), size: offsetSize)
            }
            // Trailer: 5 unused bytes, the sort version, the two sizes, then three 8-byte fields.
            buffer.append(contentsOf: repeatElement(0, count: 6))
            buffer.append(UInt8(offsetSize))
            buffer.append(UInt8(referenceSize))
            buffer.appendBigEndian(UInt64(objectCount), size: 8)
            buffer.appendBigEndian(0, size: 8)
            buffer.appendBigEndian(UInt64(offsetTableOffset), size: 8)
            return buffer.bytes
        }

        /// The number of bytes (1, 2, 4 or 8) Core Foundation uses to store values up to
        /// `count` (it sizes object references by the object count, not the largest number).
        /// The bytes needed for object references and offsets: any width from 1 to 8 bytes is
        /// valid there (Core Foundation's reader takes each), and three bytes instead of four
        /// save a byte per reference in archives of 65,536 to 16 million objects.
        static func tableByteCount(_ count: UInt64) -> Int {
            if count <= 0xFF { return 1 }
            if count <= 0xFFFF { return 2 }
            if count <= 0xFF_FFFF { return 3 }
            if count <= 0xFFFF_FFFF { return 4 }
            return 8
        }

        static func byteCount(_ count: UInt64) -> Int {
            if count <= 0xFF { return 1 }
            if count <= 0xFFFF { return 2 }
            if count <= 0xFFFF_FFFF { return 4 }
            return 8
        }
    }

    /// The output buffer.
    fileprivate struct ByteBuffer {
        var bytes: [UInt8] = []

        var count: Int { bytes.count }

        mutating func append(_ byte: UInt8) {
            bytes.append(byte)
        }

        mutating func append(contentsOf sequence: some Sequence<UInt8>) {
            bytes.append(contentsOf: sequence)
        }

        /// Appends the low `size` bytes of a value, most significant first.
        mutating func appendBigEndian(_ value: UInt64, size: Int) {
            switch size {
            case 1:
                bytes.append(UInt8(truncatingIfNeeded: value))
            case 2:
                bytes.append(UInt8(truncatingIfNeeded: value &>> 8))
                bytes.append(UInt8(truncatingIfNeeded: value))
            case 3:
                // References and offsets of archives past 65,535 objects.
                bytes.append(UInt8(truncatingIfNeeded: value &>> 16))
                bytes.append(UInt8(truncatingIfNeeded: value &>> 8))
                bytes.append(UInt8(truncatingIfNeeded: value))
            default:
                var shift = (size - 1) * 8
                while shift >= 0 {
                    bytes.append(UInt8(truncatingIfNeeded: value &>> UInt64(shift)))
                    shift -= 8
                }
            }
        }

        /// Appends a marker whose low nibble is the count, or 0xF followed by an integer
        /// object holding the count when it is 15 or more.
        mutating func appendMarker(_ marker: UInt8, count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes.append(marker | 0x0F)
                appendInteger(UInt64(count))
            }
        }

        /// An integer object: 1, 2 or 4 bytes for small non-negative values, 8 bytes (signed)
        /// for the rest, as Core Foundation writes them.
        mutating func appendInteger(_ bits: UInt64) {
            let size = Flattener.byteCount(bits)
            let sizeCode: UInt8 =
                switch size {
                case 1: 0
                case 2: 1
                case 4: 2
                default: 3
                }
            bytes.append(0x10 | sizeCode)
            appendBigEndian(bits, size: size)
        }

        mutating func appendScalar(_ value: PropertyListValue) {
            switch value {
            case .integer(let integer):
                appendInteger(UInt64(bitPattern: integer))
            case .unsignedInteger(let integer):
                // A 16-byte integer: the high 8 bytes are zero for values above Int64.max.
                bytes.append(0x14)
                appendBigEndian(0, size: 8)
                appendBigEndian(integer, size: 8)
            case .real(let real):
                bytes.append(0x23)
                appendBigEndian(real.bitPattern, size: 8)
            case .float(let real):
                bytes.append(0x22)
                appendBigEndian(UInt64(real.bitPattern), size: 4)
            case .date(let date):
                bytes.append(0x33)
                appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
            case .data(let data):
                appendMarker(0x40, count: data.count)
                bytes.append(contentsOf: data)
            case .bool(let bool):
                bytes.append(bool ? 0x09 : 0x08)
            case .uid(let uid):
                let size = Flattener.byteCount(uid)
                bytes.append(0x80 | UInt8(size - 1))
                appendBigEndian(uid, size: size)
            case .string, .array, .dictionary:
                break  // flattened separately
            }
        }

        /// ASCII strings as bytes (0x5n); others as big-endian UTF-16 (0x6n). `length` is
        /// the byte count or the UTF-16 unit count.
        mutating func appendString(_ string: String, isASCII: Bool, length: Int) {
            if isASCII {
                appendMarker(0x50, count: length)
                var string = string
                string.withUTF8 { bytes.append(contentsOf: $0) }
            } else {
                appendMarker(0x60, count: length)
                for unit in string.utf16 {
                    bytes.append(UInt8(truncatingIfNeeded: unit &>> 8))
                    bytes.append(UInt8(truncatingIfNeeded: unit))
                }
            }
        }
    }
}

extension BinaryPropertyListWriter {
    /// Strings' raw representations to object numbers. Equal representations mean equal
    /// bytes as long as the strings are alive, which the value being written guarantees.
    /// SplitMix64's finalizer: every input bit affects every output bit.
    @inline(__always)
    fileprivate static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }

    fileprivate struct StringBitsTable {
        private var keys: [(UInt64, UInt64)] = Array(repeating: (0, 0), count: 1024)
        private var numbers: [Int] = Array(repeating: -1, count: 1024)
        private var mask = 1023
        private var count = 0

        @inline(__always)
        private func slot(of key: (UInt64, UInt64)) -> Int {
            var slot = Int(truncatingIfNeeded: BinaryPropertyListWriter.mix(key.0 ^ BinaryPropertyListWriter.mix(key.1))) & mask
            while numbers[slot] >= 0 && keys[slot] != key { slot = (slot + 1) & mask }
            return slot
        }

        subscript(key: (UInt64, UInt64)) -> Int? {
            get {
                let slot = slot(of: key)
                return numbers[slot] >= 0 ? numbers[slot] : nil
            }
            set {
                guard let newValue else { return }
                let slot = slot(of: key)
                if numbers[slot] < 0 { count += 1 }
                keys[slot] = key
                numbers[slot] = newValue
                if count * 2 > numbers.count { grow() }
            }
        }

        private mutating func grow() {
            let oldKeys = keys, oldNumbers = numbers
            keys = Array(repeating: (0, 0), count: oldKeys.count * 2)
            numbers = Array(repeating: -1, count: oldKeys.count * 2)
            mask = keys.count - 1
            for index in oldKeys.indices where oldNumbers[index] >= 0 {
                let slot = slot(of: oldKeys[index])
                keys[slot] = oldKeys[index]
                numbers[slot] = oldNumbers[index]
            }
        }
    }

    /// An open-addressing hash table from scalar hashes to object numbers; the objects
    /// themselves are compared by the flattener. Hashes are seeded per writer run, so that
    /// colliding input cannot be prepared in advance.
    fileprivate struct ScalarTable {
        /// Each slot's hash (0 for an empty slot; stored hashes are never 0) and object
        /// number, side by side so that a probe touches one cache line.
        private var slots: [(hash: UInt64, number: Int)]
        private var mask: Int
        private var count = 0
        private let seed: UInt64

        init() {
            slots = Array(repeating: (0, 0), count: 1024)
            mask = 1023
            var generator = SystemRandomNumberGenerator()
            seed = generator.next()
        }

        /// A well-mixed hash of a 64-bit pattern and a kind tag.
        func hash(_ bits: UInt64, kind: UInt64) -> UInt64 {
            Self.finish(Self.mix(bits ^ seed) ^ (kind &* 0x9E37_79B9_7F4A_7C15))
        }

        /// A hash of bytes, and whether they are all ASCII.
        func hash(bytes: UnsafeRawBufferPointer, kind: UInt64) -> (hash: UInt64, isASCII: Bool) {
            var state = seed ^ (UInt64(bytes.count) &* 0xFF51_AFD7_ED55_8CCD) ^ kind
            var combined: UInt64 = 0
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                combined |= word
                state = Self.mix(state ^ word)
                offset += 8
            }
            if offset < bytes.count {
                var word: UInt64 = 0
                var shift: UInt64 = 0
                while offset < bytes.count {
                    word |= UInt64(bytes[offset]) &<< shift
                    shift += 8
                    offset += 1
                }
                combined |= word
                state = Self.mix(state ^ word)
            }
            return (Self.finish(state), combined & 0x8080_8080_8080_8080 == 0)
        }

        private static func mix(_ value: UInt64) -> UInt64 {
            var x = value &* 0x9E37_79B9_7F4A_7C15
            x ^= x &>> 32
            return x
        }

        /// SplitMix64's finalizer; never 0, which marks empty slots.
        private static func finish(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z &>> 31
            return z == 0 ? 1 : z
        }

        /// The first slot to probe for a hash.
        func slot(for hash: UInt64) -> Int {
            Int(truncatingIfNeeded: hash) & mask
        }

        /// The slot after `slot`.
        func next(_ slot: Int) -> Int {
            (slot + 1) & mask
        }

        /// The object number in a slot holding this hash; nil at an empty slot (the end of
        /// the probe sequence). A slot holding another hash yields -1, matching no object.
        func number(at slot: Int, hash: UInt64) -> Int? {
            let stored = slots[slot]
            if stored.hash == 0 { return nil }
            return stored.hash == hash ? stored.number : -1
        }

        /// Fills an empty slot found by probing, growing the table when half full.
        mutating func insert(hash: UInt64, number: Int, at slot: Int) {
            slots[slot] = (hash, number)
            count += 1
            if count * 2 > slots.count { grow() }
        }

        private mutating func grow() {
            let old = slots
            let capacity = slots.count * 2
            slots = Array(repeating: (0, 0), count: capacity)
            mask = capacity - 1
            for entry in old where entry.hash != 0 {
                var slot = self.slot(for: entry.hash)
                while slots[slot].hash != 0 { slot = next(slot) }
                slots[slot] = entry
            }
        }
    }
}
