import Foundation

/// Reads Apple's binary property-list format, `bplist00`, into a `PropertyListValue`.
///
/// The reader treats its input as hostile. It checks the header and trailer, bounds every
/// offset, object reference and length against the data before reading or allocating, uses
/// overflow-checked arithmetic for every computed position, rejects cycles among object
/// references, limits nesting depth, and limits how much an object shared by many containers
/// may multiply the size of the result. Every failure throws a `PropertyListError` with the
/// byte offset where it was found; nothing traps.
///
/// Reading is linear: the containers are walked with an explicit stack (no recursion), and each
/// object is decoded once and then shared wherever it is referenced.
package struct BinaryPropertyListReader: Sendable {
    /// How deeply arrays and dictionaries may nest; deeper data throws `nestingTooDeep`.
    package var maximumDepth = PropertyListLimits.maximumDepth

    package init() {}

    /// Decodes a binary property list.
    package func read(_ bytes: some ContiguousBytes) throws -> PropertyListValue {
        try bytes.withUnsafeBytes { buffer in
            var parser = try Parser(bytes: buffer, maximumDepth: maximumDepth)
            return try parser.parse()
        }
    }
}

extension BinaryPropertyListReader {
    private static let trailerSize = 32
    private static let headerSize = 8

    /// The trailer's description of the data, validated.
    fileprivate struct Parser {
        let bytes: UnsafeRawBufferPointer
        /// The start of `bytes` (which are never empty here).
        let base: UnsafeRawPointer
        let maximumDepth: Int
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        /// Where the offset table starts; objects lie in `headerSize ..< offsetTableOffset`.
        let offsetTableOffset: Int
        /// The largest number of values the result may hold counting shared objects once per
        /// reference; a plist without shared containers never comes close.
        let expansionLimit: Int

        /// Decoded containers, strings and data, so that an object referenced many times is
        /// decoded and stored once. Other scalars are cheaper to decode again than to share.
        var cache: [PropertyListValue?]
        /// Per object: 0 not in the cache, -1 a container being decoded (on the stack), or the
        /// number of values in its cached tree.
        var sizes: [Int]
        /// Where the keys of the dictionaries on the stack are, for the duplicate-key check;
        /// each dictionary frame owns the entries from its `keyStart` on.
        var keys: [KeyLocation] = []
        /// The key objects of the last small dictionary found to have distinct keys: archives
        /// repeat the same keys object after object, and the same string objects need no
        /// second comparison.
        var lastDistinctKeyObjects: [Int] = []

        /// Where a dictionary key's string object is in the data.
        struct KeyLocation {
            var offset: Int
            var isASCII: Bool
            /// The length in bytes (ASCII) or UTF-16 units.
            var count: Int
            var contentStart: Int
        }

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            let magic = Array("bplist".utf8)
            guard bytes.count >= headerSize, bytes.prefix(6).elementsEqual(magic) else {
                throw PropertyListError(
                    .unsupportedFormat, offset: 0, message: "missing the bplist header")
            }
            guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
                let version = String(decoding: bytes[6 ..< 8], as: UTF8.self)
                throw PropertyListError(
                    .unsupportedFormat, offset: 6,
                    message: "binary property list version '\(version)' is not supported (only 00)")
            }
            guard bytes.count >= headerSize + trailerSize, let base = bytes.baseAddress else {
                throw PropertyListError.corrupt(
                    "the data (\(bytes.count) bytes) is too short to hold a trailer", at: bytes.count)
            }
            self.base = base
            let trailer = bytes.count - trailerSize
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1 ... 8).contains(offsetSize) else {
                throw PropertyListError.corrupt(
                    "offset size \(offsetSize) in the trailer is not 1 to 8", at: trailer + 6)
            }
            guard (1 ... 8).contains(referenceSize) else {
                throw PropertyListError.corrupt(
                    "object reference size \(referenceSize) in the trailer is not 1 to 8",
                    at: trailer + 7)
            }
            let rawCount = Self.readInteger(bytes, at: trailer + 8, size: 8)
            let rawTop = Self.readInteger(bytes, at: trailer + 16, size: 8)
            let rawTableOffset = Self.readInteger(bytes, at: trailer + 24, size: 8)

            guard let tableOffset = Int(exactly: rawTableOffset), tableOffset > headerSize,
                tableOffset < trailer
            else {
                throw PropertyListError.corrupt(
                    "offset table offset \(rawTableOffset) is outside the data", at: trailer + 24)
            }
            guard rawCount >= 1, let count = Int(exactly: rawCount) else {
                throw PropertyListError.corrupt(
                    "object count \(rawCount) in the trailer is invalid", at: trailer + 8)
            }
            let (tableSize, sizeOverflow) = count.multipliedReportingOverflow(by: offsetSize)
            let (tableEnd, endOverflow) = tableOffset.addingReportingOverflow(tableSize)
            guard !sizeOverflow, !endOverflow, tableEnd <= trailer else {
                throw PropertyListError.corrupt(
                    "an offset table of \(rawCount) entries does not fit before the trailer",
                    at: trailer + 8)
            }
            guard rawTop < rawCount else {
                throw PropertyListError.corrupt(
                    "top object \(rawTop) is not among the \(rawCount) objects", at: trailer + 16)
            }
            objectCount = count
            topObject = Int(truncatingIfNeeded: rawTop)  // < count, an Int
            offsetTableOffset = tableOffset
            expansionLimit = max(4 * bytes.count, 1 << 20)
            cache = Array(repeating: nil, count: count)
            sizes = Array(repeating: 0, count: count)
        }

        /// Reads a big-endian unsigned integer of `size` (1 to 8) bytes; the caller has checked
        /// that they are inside the data.
        @inline(__always)
        static func readInteger(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
            switch size {
            case 1: return UInt64(bytes[offset])
            case 2: return UInt64(bytes[offset]) &<< 8 | UInt64(bytes[offset + 1])
            case 3:
                // References and offsets of archives past 65,535 objects.
                return UInt64(bytes[offset]) &<< 16 | UInt64(bytes[offset + 1]) &<< 8 | UInt64(bytes[offset + 2])
            default: break
            }
            var value: UInt64 = 0
            for index in offset ..< offset + size {
                value = value &<< 8 | UInt64(bytes[index])
            }
            return value
        }

        @inline(__always)
        private func readInteger(at offset: Int, size: Int) -> UInt64 {
            Self.readInteger(bytes, at: offset, size: size)
        }

        /// The offset of an object, from the offset table; `object` is below `objectCount`.
        @inline(__always)
        private func offset(ofObject object: Int) throws -> Int {
            let entry = offsetTableOffset + object * offsetSize  // checked against the trailer
            let raw = readInteger(at: entry, size: offsetSize)
            guard raw >= UInt64(headerSize), raw < UInt64(offsetTableOffset) else {
                throw PropertyListError.corrupt(
                    "object \(object) has offset \(raw), outside the object area "
                        + "\(headerSize)..<\(offsetTableOffset)",
                    at: entry)
            }
            return Int(truncatingIfNeeded: raw)  // < offsetTableOffset, an Int
        }

        /// Whether `count` elements of `size` bytes starting at `start` end by the offset table.
        private func fits(_ count: Int, of size: Int, at start: Int) -> Bool {
            guard start <= offsetTableOffset else { return false }
            return count <= (offsetTableOffset - start) / size
        }

        /// The count in a marker's low nibble, or in the integer object that follows a 0xF
        /// nibble; returns it with the offset of the bytes that follow.
        private func readCount(at offset: Int) throws -> (count: Int, start: Int) {
            let nibble = Int(bytes[offset] & 0x0F)
            if nibble != 0x0F { return (nibble, offset + 1) }
            let intOffset = offset + 1
            guard intOffset < offsetTableOffset else {
                throw PropertyListError.corrupt("the count of an object is truncated", at: intOffset)
            }
            let marker = bytes[intOffset]
            guard marker & 0xF0 == 0x10, marker & 0x0F <= 3 else {
                throw PropertyListError.corrupt(
                    "the count of an object is not a 1-, 2-, 4- or 8-byte integer (marker 0x"
                        + String(marker, radix: 16) + ")",
                    at: intOffset)
            }
            let size = 1 << Int(marker & 0x0F)
            guard fits(size, of: 1, at: intOffset + 1) else {
                throw PropertyListError.corrupt("the count of an object is truncated", at: intOffset)
            }
            let raw = readInteger(at: intOffset + 1, size: size)
            guard let count = Int(exactly: raw) else {
                throw PropertyListError.corrupt("object count \(raw) is out of range", at: intOffset)
            }
            return (count, intOffset + 1 + size)
        }

        /// What decoding one object gives: a finished value, or a container whose contents
        /// remain to be decoded.
        enum Decoded {
            case value(PropertyListValue)
            case container(Frame)
        }

        /// A container being decoded.
        struct Frame {
            var object: Int
            var offset: Int
            var isDictionary: Bool
            /// Where its object references start.
            var referencesStart: Int
            /// The number of references: the element count, or twice the entry count.
            var referenceCount: Int
            var next = 0
            /// Where this dictionary's key locations start in the parser's `keys`.
            var keyStart = 0
            /// An array's decoded elements.
            var items: [PropertyListValue] = []
            /// A dictionary's decoded entries: keys first, then their values.
            var entries: [PropertyListDictionary.Element] = []
            /// The number of values in the container's decoded tree, itself included.
            var size = 1

            init(object: Int, offset: Int, isDictionary: Bool, referencesStart: Int, referenceCount: Int) {
                self.object = object
                self.offset = offset
                self.isDictionary = isDictionary
                self.referencesStart = referencesStart
                self.referenceCount = referenceCount
                if isDictionary {
                    entries.reserveCapacity(referenceCount / 2)
                } else {
                    items.reserveCapacity(referenceCount)
                }
            }

            /// Adds the value of the reference just read (number `next - 1`).
            mutating func add(_ value: PropertyListValue) throws {
                guard isDictionary else {
                    items.append(value)
                    return
                }
                let index = next - 1
                let count = referenceCount / 2
                if index < count {
                    guard case .string(let key) = value else {
                        throw PropertyListError.corrupt(
                            "dictionary key \(index) is a \(value.kindName), not a string", at: offset)
                    }
                    entries.append((key, .bool(false)))  // the value is filled in below
                } else {
                    entries[index - count].value = value
                }
            }

            /// Whether the reference just read (number `next - 1`) is a dictionary key.
            var isAtKey: Bool { isDictionary && next - 1 < referenceCount / 2 }
        }

        /// Records where a dictionary key just added to the top frame is.
        private mutating func recordKey(at offset: Int) throws {
            let (count, start) = try readCount(at: offset)
            let isASCII = bytes[offset] >> 4 == 0x5
            keys.append(KeyLocation(offset: offset, isASCII: isASCII, count: count, contentStart: start))
        }

        /// The finished container's value.
        private mutating func value(of frame: Frame) -> PropertyListValue {
            guard frame.isDictionary else { return .array(frame.items) }
            defer { keys.removeLast(keys.count - frame.keyStart) }
            let count = frame.entries.count
            if count <= 16 && (hasLastDistinctKeys(frame) || keysAreDistinct(frame)) {
                return .dictionary(PropertyListDictionary(uncheckedDistinctEntries: frame.entries))
            }
            // Large, or with a repeated key: the later value replaces the earlier one.
            return .dictionary(PropertyListDictionary(frame.entries.lazy.map { ($0.key, $0.value) }))
        }

        /// Whether the dictionary's keys are the same key objects, in the same order, as those of
        /// the last dictionary found to have distinct keys.
        private func hasLastDistinctKeys(_ frame: Frame) -> Bool {
            let count = frame.entries.count
            guard count == lastDistinctKeyObjects.count else { return false }
            let start = frame.keyStart
            for index in 0 ..< count where keys[start + index].offset != lastDistinctKeyObjects[index] {
                return false
            }
            return true
        }

        /// Whether a small dictionary's keys are distinct, judged from the data where both are
        /// ASCII (equal exactly when their bytes are) and by `String ==` otherwise; remembers
        /// the keys when they are.
        private mutating func keysAreDistinct(_ frame: Frame) -> Bool {
            guard checkKeysAreDistinct(frame) else { return false }
            lastDistinctKeyObjects.removeAll(keepingCapacity: true)
            for index in 0 ..< frame.entries.count { lastDistinctKeyObjects.append(keys[frame.keyStart + index].offset) }
            return true
        }

        private func checkKeysAreDistinct(_ frame: Frame) -> Bool {
            let start = frame.keyStart
            for index in 1 ..< max(frame.entries.count, 1) {
                let key = keys[start + index]
                for earlier in 0 ..< index {
                    let other = keys[start + earlier]
                    if key.offset == other.offset { return false }
                    if key.isASCII && other.isASCII {
                        if key.count == other.count
                            && memcmp(base + key.contentStart, base + other.contentStart, key.count) == 0
                        {
                            return false
                        }
                    } else if frame.entries[index].key == frame.entries[earlier].key {
                        return false
                    }
                }
            }
            return true
        }

        /// Decodes the object at `offset` (inside the object area), or starts a container.
        private func decode(object: Int, at offset: Int) throws -> Decoded {
            let marker = bytes[offset]
            let nibble = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .value(.bool(false))
                case 0x09: return .value(.bool(true))
                case 0x00:
                    throw PropertyListError(
                        .unsupportedObjectType, offset: offset, message: "null objects are not supported")
                case 0x0F:
                    throw PropertyListError(
                        .unsupportedObjectType, offset: offset, message: "fill bytes are not objects")
                default:
                    throw unknownMarker(marker, at: offset)
                }
            case 0x1:
                guard nibble <= 4 else {
                    throw PropertyListError.corrupt(
                        "integer of \(1 << min(nibble, 30)) bytes (only 1, 2, 4, 8 or 16)", at: offset)
                }
                let size = 1 << nibble
                guard fits(size, of: 1, at: offset + 1) else { throw truncated("integer", at: offset) }
                switch size {
                case 1, 2, 4:
                    // Below 2^32: the conversion cannot lose anything.
                    let value = readInteger(at: offset + 1, size: size)
                    return .value(.integer(Int64(truncatingIfNeeded: value)))
                case 8:
                    return .value(.integer(Int64(bitPattern: readInteger(at: offset + 1, size: 8))))
                default:
                    let high = readInteger(at: offset + 1, size: 8)
                    let low = readInteger(at: offset + 9, size: 8)
                    if high == 0 { return .value(.integer(unsigned: low)) }
                    if high == UInt64.max && low >= 1 << 63 {
                        return .value(.integer(Int64(bitPattern: low)))
                    }
                    throw PropertyListError(
                        .unsupportedObjectType, offset: offset,
                        message: "a 16-byte integer does not fit in 64 bits")
                }
            case 0x2:
                switch nibble {
                case 2:
                    guard fits(4, of: 1, at: offset + 1) else { throw truncated("real", at: offset) }
                    let bits = UInt32(truncatingIfNeeded: readInteger(at: offset + 1, size: 4))
                    return .value(.float(Float(bitPattern: bits)))
                case 3:
                    guard fits(8, of: 1, at: offset + 1) else { throw truncated("real", at: offset) }
                    return .value(.real(Double(bitPattern: readInteger(at: offset + 1, size: 8))))
                default:
                    throw PropertyListError.corrupt(
                        "real of \(1 << nibble) bytes (only 4 or 8)", at: offset)
                }
            case 0x3:
                guard marker == 0x33 else {
                    throw PropertyListError.corrupt(
                        "date marker 0x\(String(marker, radix: 16)) (only 0x33)", at: offset)
                }
                guard fits(8, of: 1, at: offset + 1) else { throw truncated("date", at: offset) }
                let interval = Double(bitPattern: readInteger(at: offset + 1, size: 8))
                return .value(.date(Date(timeIntervalSinceReferenceDate: interval)))
            case 0x4:
                let (count, start) = try readCount(at: offset)
                guard fits(count, of: 1, at: start) else { throw truncated("data", at: offset) }
                return .value(.data(Data(UnsafeRawBufferPointer(rebasing: bytes[start ..< start + count]))))
            case 0x5:
                let (count, start) = try readCount(at: offset)
                guard fits(count, of: 1, at: start) else { throw truncated("ASCII string", at: offset) }
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start ..< start + count])
                var combined: UInt8 = 0
                for byte in slice { combined |= byte }
                guard combined < 0x80 else {
                    throw PropertyListError.corrupt("an ASCII string holds a non-ASCII byte", at: offset)
                }
                return .value(.string(String(decoding: slice, as: UTF8.self)))
            case 0x6:
                let (count, start) = try readCount(at: offset)
                guard fits(count, of: 2, at: start) else { throw truncated("UTF-16 string", at: offset) }
                var units = [UInt16]()
                units.reserveCapacity(count)
                var position = start
                for _ in 0 ..< count {
                    units.append(UInt16(bytes[position]) &<< 8 | UInt16(bytes[position + 1]))
                    position += 2
                }
                guard let string = String(validating: units, as: UTF16.self) else {
                    throw PropertyListError.corrupt("a UTF-16 string is not valid UTF-16", at: offset)
                }
                return .value(.string(string))
            case 0x7:
                throw PropertyListError(
                    .unsupportedObjectType, offset: offset,
                    message: "UTF-8 string objects (bplist15 and later) are not supported")
            case 0x8:
                let size = nibble + 1
                guard size <= 8 else {
                    throw PropertyListError.corrupt("UID of \(size) bytes (at most 8)", at: offset)
                }
                guard fits(size, of: 1, at: offset + 1) else { throw truncated("UID", at: offset) }
                return .value(.uid(readInteger(at: offset + 1, size: size)))
            case 0xA, 0xD:
                let isDictionary = marker >> 4 == 0xD
                let (count, start) = try readCount(at: offset)
                let (referenceCount, overflow) = count.multipliedReportingOverflow(by: isDictionary ? 2 : 1)
                guard !overflow, fits(referenceCount, of: referenceSize, at: start) else {
                    throw truncated(isDictionary ? "dictionary" : "array", at: offset)
                }
                return .container(
                    Frame(
                        object: object, offset: offset, isDictionary: isDictionary, referencesStart: start,
                        referenceCount: referenceCount))
            case 0xB, 0xC:
                throw PropertyListError(
                    .unsupportedObjectType, offset: offset,
                    message: marker >> 4 == 0xC ? "sets are not supported" : "ordered sets are not supported")
            default:
                throw unknownMarker(marker, at: offset)
            }
        }

        private func truncated(_ kind: String, at offset: Int) -> PropertyListError {
            PropertyListError.corrupt("\(kind) object runs past the end of the object area", at: offset)
        }

        private func unknownMarker(_ marker: UInt8, at offset: Int) -> PropertyListError {
            PropertyListError.corrupt("unknown object marker 0x\(String(marker, radix: 16))", at: offset)
        }

        /// Decodes the top object and everything it references.
        ///
        /// The container being filled is kept in a local, its enclosing ones on a stack: the
        /// loop reads and updates it for every reference without going through the array.
        mutating func parse() throws -> PropertyListValue {
            let topOffset = try offset(ofObject: topObject)
            var stack: [Frame] = []
            var current: Frame
            switch try decode(object: topObject, at: topOffset) {
            case .value(let value): return value
            case .container(let frame):
                sizes[topObject] = -1
                current = frame
            }
            while true {
                if current.next < current.referenceCount {
                    let referenceOffset = current.referencesStart + current.next * referenceSize
                    current.next += 1
                    let reference = readInteger(at: referenceOffset, size: referenceSize)
                    guard reference < UInt64(objectCount) else {
                        throw PropertyListError.corrupt(
                            "object reference \(reference) is not among the \(objectCount) objects",
                            at: referenceOffset)
                    }
                    let child = Int(truncatingIfNeeded: reference)  // < objectCount, an Int
                    let childSize = sizes[child]
                    if childSize > 0, let value = cache[child] {
                        try current.add(value)
                        if current.isAtKey { try recordKey(at: offset(ofObject: child)) }
                        try grow(&current, by: childSize, at: referenceOffset)
                        continue
                    }
                    if childSize < 0 {
                        throw PropertyListError(
                            .cyclicReference, offset: referenceOffset,
                            message: "object \(child) contains itself")
                    }
                    let childOffset = try offset(ofObject: child)
                    switch try decode(object: child, at: childOffset) {
                    case .value(let value):
                        if Self.isWorthSharing(value) {
                            cache[child] = value
                            sizes[child] = 1
                        }
                        try current.add(value)
                        if current.isAtKey { try recordKey(at: childOffset) }
                        try grow(&current, by: 1, at: referenceOffset)
                    case .container(let frame):
                        // The current container and those around it: the stack holds all but
                        // the innermost.
                        guard stack.count + 1 < maximumDepth else {
                            throw PropertyListError(
                                .nestingTooDeep, offset: childOffset,
                                message: "arrays and dictionaries are nested more than \(maximumDepth) deep")
                        }
                        sizes[child] = -1
                        stack.append(current)
                        current = frame
                        current.keyStart = keys.count
                    }
                } else {
                    let value = value(of: current)
                    cache[current.object] = value
                    sizes[current.object] = current.size
                    let finishedSize = current.size
                    let finishedOffset = current.offset
                    if stack.isEmpty { return value }
                    // Moved straight back, with no other copy alive: the parent's arrays stay
                    // uniquely referenced, so adding to them never copies them.
                    current = stack.removeLast()
                    try current.add(value)
                    try grow(&current, by: finishedSize, at: finishedOffset)
                }
            }
        }

        /// Whether a scalar is worth sharing: strings (creating one again costs more than
        /// sharing it, and long ones own memory) and data. Numbers are cheaper to decode again.
        private static func isWorthSharing(_ value: PropertyListValue) -> Bool {
            switch value {
            case .string, .data: true
            default: false
            }
        }

        private func grow(_ frame: inout Frame, by size: Int, at offset: Int) throws {
            frame.size += size  // both at most expansionLimit: no overflow
            guard frame.size <= expansionLimit else {
                throw PropertyListError(
                    .limitExceeded, offset: offset,
                    message: "shared objects expand to more than \(expansionLimit) values")
            }
        }
    }
}
