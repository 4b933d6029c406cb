import Foundation
import ModelObjects
import Testing

/// Hostile and damaged binary property lists: each attack must throw the right
/// `PropertyListError`, never trap, recurse without bound or allocate from an unchecked count.
@Suite("Binary property lists: hostile input")
struct BinaryPropertyListHostileTests {
    /// A valid plist with one of every kind of object, for truncation and mutation.
    static let sample: [UInt8] = {
        let value: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000,
            "$objects": ["$null", ["$class": .uid(2), "name": "Zoë", "n": -7, "big": .unsignedInteger(.max)],
                         ["$classname": "Thing", "$classes": ["Thing", "NSObject"]],
                         2.5, .float(1.25), true, .date(Date(timeIntervalSinceReferenceDate: 3)), .data(Data([1, 2, 3])),
                         .array((0 ..< 16).map { .integer($0) })],
            "$top": ["root": .uid(1)],
        ]
        return (try? BinaryPropertyListWriter().write(value)) ?? []
    }()

    // MARK: Header and trailer

    @Test("not a binary property list, or another version")
    func header() {
        expectBinaryError(.unsupportedFormat, [])
        expectBinaryError(.unsupportedFormat, Array("bplist0".utf8))
        expectBinaryError(.unsupportedFormat, Array("<?xml version=\"1.0\"?><plist/>".utf8))
        var other = RawBinaryPlist([[0x09]])
        for version in ["01", "15", "16", "1\u{0}", "0 "] {
            other.header = Array(("bplist" + version).utf8)
            expectBinaryError(.unsupportedFormat, other.bytes)
        }
    }

    @Test("too short to hold a trailer")
    func tooShort() {
        expectBinaryError(.corruptPropertyList, Array("bplist00".utf8))
        expectBinaryError(.corruptPropertyList, Array("bplist00".utf8) + [UInt8](repeating: 0, count: 31))
    }

    @Test("trailer sizes of 0 or more than 8 bytes", arguments: [0, 9, 16, 255])
    func trailerSizes(_ size: Int) {
        var offsets = RawBinaryPlist([[0x09]])
        offsets.offsetSize = size
        expectBinaryError(.corruptPropertyList, offsets.bytes)
        var references = RawBinaryPlist([[0x09]])
        references.referenceSize = size
        expectBinaryError(.corruptPropertyList, references.bytes)
    }

    @Test("offset table offset outside the data, in the header or in the trailer")
    func tableOffset() {
        for bad: UInt64 in [0, 7, 8, UInt64.max, 1 << 63, 1 << 40] {
            var plist = RawBinaryPlist([[0x09]])
            plist.offsetTableOffset = bad
            expectBinaryError(.corruptPropertyList, plist.bytes)
        }
        var intoTrailer = RawBinaryPlist([[0x09]])
        intoTrailer.offsetTableOffset = UInt64(intoTrailer.bytes.count - 32)  // the trailer itself
        expectBinaryError(.corruptPropertyList, intoTrailer.bytes)
    }

    @Test("object counts: zero, absurd, overflowing, or a table that runs into the trailer")
    func objectCounts() {
        for bad: UInt64 in [0, 2, 1 << 20, UInt64(Int.max), UInt64(Int.max) + 1, UInt64.max, 1 << 61] {
            var plist = RawBinaryPlist([[0x09]])
            plist.objectCount = bad
            expectBinaryError(.corruptPropertyList, plist.bytes)
        }
        // Count × 8-byte offsets overflows Int.
        var overflow = RawBinaryPlist([[0x09]])
        overflow.offsetSize = 8
        overflow.objectCount = 1 << 61
        expectBinaryError(.corruptPropertyList, overflow.bytes)
    }

    @Test("top object beyond the object count")
    func topObject() {
        for bad: UInt64 in [1, 2, UInt64.max] {
            var plist = RawBinaryPlist([[0x09]])
            plist.topObject = bad
            expectBinaryError(.corruptPropertyList, plist.bytes)
        }
    }

    @Test("offset-table entries pointing into the header, the offset table, the trailer or beyond")
    func offsetEntries() {
        let objects: [[UInt8]] = [[0xA1, 1], [0x09]]
        let tableOffset = UInt64(8 + 3)
        for bad: UInt64 in [0, 7, tableOffset, tableOffset + 1, tableOffset + 2 + 10, 1 << 40, UInt64.max] {
            for entry in [0, 1] {
                var plist = RawBinaryPlist(objects)
                plist.offsets[entry] = bad
                expectBinaryError(.corruptPropertyList, plist.bytes)
            }
        }
        var wide = RawBinaryPlist(objects)
        wide.offsetSize = 8
        wide.offsets[1] = UInt64.max
        expectBinaryError(.corruptPropertyList, wide.bytes)
    }

    // MARK: Object references

    @Test("object references out of range")
    func referencesOutOfRange() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xA1, 2], [0x09]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xD1, 1, 5], asciiObject("k")]).bytes)
        var wide = RawBinaryPlist([[0xA1] + bigEndian(UInt64.max, size: 8), [0x09]])
        wide.referenceSize = 8
        expectBinaryError(.corruptPropertyList, wide.bytes)
    }

    @Test("an array containing itself")
    func selfContainingArray() {
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xA1, 0]]).bytes)
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xA2, 1, 0], [0x09]]).bytes)
    }

    @Test("longer cycles, through arrays and dictionaries")
    func longerCycles() {
        // 0 → 1 → 2 → 0
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xA1, 1], [0xA1, 2], [0xA1, 0]]).bytes)
        // a dictionary whose value is itself
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xD1, 1, 0], asciiObject("k")]).bytes)
        // a dictionary whose key is itself (a cycle, before the key-type check)
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xD1, 0, 1], [0x09]]).bytes)
        // the cycle starts below the top object
        expectBinaryError(.cyclicReference, RawBinaryPlist([[0xA1, 1], [0xA2, 3, 2], [0xA1, 1], [0x08]]).bytes)
    }

    @Test("a container shared by several parents is fine (Core Foundation can write that)")
    func sharedContainer() throws {
        // 0: [1, 1, 2], 1: ["x"] (2), 2: "x"
        let value = try BinaryPropertyListReader().read(RawBinaryPlist([[0xA3, 1, 1, 2], [0xA1, 2], asciiObject("x")]).bytes)
        #expect(value == [["x"], ["x"], "x"])
    }

    @Test("shared containers that would expand exponentially")
    func expansionBomb() {
        // 40 arrays, each holding 15 references to the next: 15^40 values if expanded.
        var objects = (0 ..< 40).map { level in [0xAF, 0x10, 15] + [UInt8](repeating: UInt8(level + 1), count: 15) }
        objects.append([0x09])
        var plist = RawBinaryPlist(objects)
        plist.offsetSize = 2
        // Refused once the counted size passes the reader's expansion limit, never expanded.
        expectBinaryError(.limitExceeded, plist.bytes)
    }

    @Test("nesting deeper than 512 levels")
    func deepNesting() throws {
        func chain(_ depth: Int) -> [UInt8] {
            var objects = (0 ..< depth - 1).map { [0xA1] + bigEndian(UInt64($0 + 1), size: 2) }
            objects.append([0xA0])
            var plist = RawBinaryPlist(objects)
            plist.referenceSize = 2
            plist.offsetSize = 2
            return plist.bytes
        }
        #expect(try BinaryPropertyListReader().read(chain(512)) == nested(512))
        expectBinaryError(.nestingTooDeep, chain(513))
        expectBinaryError(.nestingTooDeep, chain(5_000))
        var shallow = BinaryPropertyListReader()
        shallow.maximumDepth = 3
        #expect(try shallow.read(chain(3)) == nested(3))
        expectPropertyListError(.nestingTooDeep) { _ = try shallow.read(chain(4)) }
    }

    // MARK: Counts and lengths

    @Test("counts larger than the remaining bytes throw before allocating")
    func absurdCounts() {
        let huge = bigEndian(1 << 62, size: 8)
        for high: UInt8 in [0x40, 0x50, 0x60, 0xA0, 0xD0] {
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[high | 0x0F, 0x13] + huge]).bytes)
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[high | 0x0F, 0x13] + bigEndian(UInt64(Int.max), size: 8)]).bytes)
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[high | 0x0F, 0x12] + bigEndian(0xFFFF_FFFF, size: 4)]).bytes)
            // one more than fits
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[high | 0x0F, 0x10, 20] + [UInt8](repeating: 0, count: 19)]).bytes)
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[high | 3, 0, 0]]).bytes)
        }
        // a dictionary whose doubled count overflows
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xDF, 0x13] + bigEndian(UInt64(Int.max / 2 + 1), size: 8)]).bytes)
        // UTF-16: the count is in code units, two bytes each
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x62, 0, 0x61, 0]]).bytes)
    }

    @Test("malformed extended counts: negative, wrong marker, wrong size, truncated")
    func malformedCounts() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x4F, 0x13] + bigEndian(UInt64.max, size: 8)]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x4F, 0x51, 0x41]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x4F, 0x14] + [UInt8](repeating: 0, count: 16)]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x4F, 0x11, 0]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x4F]]).bytes)
    }

    @Test("extended counts below 15 are accepted")
    func smallExtendedCount() throws {
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0x5F, 0x10, 2, 0x68, 0x69]]).bytes) == "hi")
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0xAF, 0x11, 0, 1, 1], [0x09]]).bytes) == [true])
    }

    // MARK: Scalars

    @Test("integers of a size other than 1, 2, 4, 8 or 16 bytes", arguments: [0x15, 0x16, 0x17, 0x1F] as [UInt8])
    func integerSizes(_ marker: UInt8) {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[marker] + [UInt8](repeating: 0, count: 40)]).bytes)
    }

    @Test("16-byte integers: 64-bit values read, wider ones are refused")
    func sixteenByteIntegers() throws {
        func read(_ high: UInt64, _ low: UInt64) throws -> PropertyListValue {
            try BinaryPropertyListReader().read(RawBinaryPlist([[0x14] + bigEndian(high, size: 8) + bigEndian(low, size: 8)]).bytes)
        }
        #expect(try read(0, 5) == 5)
        #expect(try read(0, .max) == .unsignedInteger(.max))
        #expect(try read(.max, .max) == -1)
        #expect(try read(.max, 1 << 63) == .integer(.min))
        expectPropertyListError(.unsupportedObjectType) { _ = try read(1, 0) }
        expectPropertyListError(.unsupportedObjectType) { _ = try read(.max, 5) }  // below Int64.min
        expectPropertyListError(.unsupportedObjectType) { _ = try read(1 << 63, 0) }
    }

    @Test("1-, 2- and 4-byte integers are unsigned; 8-byte integers are signed")
    func integerSignedness() throws {
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0x10, 0xFF]]).bytes) == 255)
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0x11, 0xFF, 0xFF]]).bytes) == 65_535)
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0x12, 0xFF, 0xFF, 0xFF, 0xFF]]).bytes) == 4_294_967_295)
        #expect(try BinaryPropertyListReader().read(RawBinaryPlist([[0x13] + bigEndian(.max, size: 8)]).bytes) == -1)
    }

    @Test("reals and dates of the wrong size")
    func realAndDateSizes() {
        for marker: UInt8 in [0x20, 0x21, 0x24, 0x2F, 0x30, 0x32, 0x34, 0x3F] {
            expectBinaryError(.corruptPropertyList, RawBinaryPlist([[marker] + [UInt8](repeating: 0, count: 16)]).bytes)
        }
    }

    @Test("scalars cut short by the offset table", arguments: [
        [0x10], [0x11, 0], [0x12, 0, 0, 0], [0x13, 0, 0, 0, 0, 0, 0, 0], [0x14] + [UInt8](repeating: 0, count: 15),
        [0x22, 0, 0, 0], [0x23, 0, 0, 0, 0, 0, 0, 0], [0x33, 0, 0], [0x80], [0x81, 0], [0x87, 0, 0, 0],
        [0x43, 1, 2], [0x53, 0x61], [0x62, 0, 0x61, 0], [0xA2, 0], [0xD1, 0],
    ] as [[UInt8]])
    func truncatedScalars(_ object: [UInt8]) {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([object]).bytes)
    }

    @Test("invalid UTF-16: unpaired surrogates")
    func invalidUTF16() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x61, 0xD8, 0x3D]]).bytes)  // lone high
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x61, 0xDE, 0x00]]).bytes)  // lone low
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x62, 0xDE, 0x00, 0xD8, 0x3D]]).bytes)  // reversed
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x62, 0xD8, 0x3D, 0x00, 0x61]]).bytes)
    }

    @Test("valid UTF-16, including a surrogate pair and U+0000")
    func validUTF16() throws {
        let value = try BinaryPropertyListReader().read(RawBinaryPlist([[0x63, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0x00]]).bytes)
        #expect(value == "😀\u{0}")
    }

    @Test("ASCII strings holding non-ASCII bytes")
    func nonASCII() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x52, 0x61, 0xE9]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x51, 0xFF]]).bytes)
    }

    @Test("UIDs wider than 8 bytes")
    func wideUID() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x88] + [UInt8](repeating: 0, count: 9)]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0x8F] + [UInt8](repeating: 0, count: 16)]).bytes)
    }

    @Test("UIDs of every width from 1 to 8 bytes read")
    func uidWidths() throws {
        for size in 1 ... 8 {
            let value = try BinaryPropertyListReader().read(
                RawBinaryPlist([[0x80 | UInt8(size - 1)] + [UInt8](repeating: 0, count: size - 1) + [7]]).bytes)
            #expect(value == .uid(7))
        }
    }

    @Test("unknown markers", arguments: [0x01, 0x07, 0x0C, 0x90, 0x9F, 0xE0, 0xEF, 0xF0, 0xFF] as [UInt8])
    func unknownMarkers(_ marker: UInt8) {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[marker, 0, 0, 0, 0, 0, 0, 0, 0]]).bytes)
    }

    @Test("valid but unsupported object kinds: null, fill, UTF-8 strings, sets, ordered sets",
          arguments: [[0x00], [0x0F], [0x71, 0x61], [0xC0], [0xC1, 0], [0xB0]] as [[UInt8]])
    func unsupportedKinds(_ object: [UInt8]) {
        expectBinaryError(.unsupportedObjectType, RawBinaryPlist([object]).bytes)
    }

    @Test("dictionary keys that are not strings")
    func nonStringKeys() {
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xD1, 1, 2], [0x10, 1], [0x09]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xD1, 1, 2], [0x80, 1], [0x09]]).bytes)
        expectBinaryError(.corruptPropertyList, RawBinaryPlist([[0xD1, 1, 2], [0xA0], [0x09]]).bytes)
    }

    @Test("repeated dictionary keys: the later value wins, at the first key's place")
    func repeatedKeys() throws {
        let value = try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD3, 1, 2, 1, 3, 4, 5], asciiObject("a"), asciiObject("b"), [0x10, 1], [0x10, 2], [0x10, 3]]).bytes)
        #expect(value == ["a": 3, "b": 2])
    }

    @Test("repeated keys are found however they are encoded")
    func repeatedKeysInDisguise() throws {
        // Two references to one string object.
        #expect(try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD2, 1, 1, 2, 3], asciiObject("a"), [0x10, 1], [0x10, 2]]).bytes) == ["a": 2])
        // Two table entries pointing at one object.
        var aliased = RawBinaryPlist([[0xD2, 1, 2, 3, 4], asciiObject("a"), [0x09], [0x10, 1], [0x10, 2]])
        aliased.offsets[2] = 8 + 5  // where "a" is
        #expect(try BinaryPropertyListReader().read(aliased.bytes) == ["a": 2])
        // Equal ASCII strings in two objects, one with an extended count.
        #expect(try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD2, 1, 2, 3, 4], asciiObject("key"), [0x5F, 0x10, 3] + Array("key".utf8), [0x10, 1], [0x10, 2]]).bytes)
            == ["key": 2])
        // The same key as ASCII and as UTF-16.
        #expect(try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD2, 1, 2, 3, 4], asciiObject("k"), [0x61, 0, 0x6B], [0x10, 1], [0x10, 2]]).bytes) == ["k": 2])
        // Canonically equivalent UTF-16 keys are the same Swift key.
        let composed: [UInt8] = [0x61, 0, 0xE9]
        let decomposed: [UInt8] = [0x62, 0, 0x65, 0x03, 0x01]
        #expect(try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD2, 1, 2, 3, 4], composed, decomposed, [0x10, 1], [0x10, 2]]).bytes) == ["\u{E9}": 2])
        // Different keys of the same length stay apart.
        #expect(try BinaryPropertyListReader().read(
            RawBinaryPlist([[0xD2, 1, 2, 3, 4], asciiObject("ab"), asciiObject("ba"), [0x10, 1], [0x10, 2]]).bytes)
            == ["ab": 1, "ba": 2])
        // A large dictionary with a repeated key.
        var objects: [[UInt8]] = [[0xDF, 0x10, 20] + (1 ... 20).map { UInt8($0) } + (21 ... 40).map { UInt8($0) }]
        objects += (0 ..< 20).map { asciiObject("key\($0 == 19 ? 3 : $0)") }
        objects += (0 ..< 20).map { [0x10, UInt8($0)] }
        let large = try BinaryPropertyListReader().read(RawBinaryPlist(objects).bytes)
        #expect(large.dictionaryValue?.count == 19)
        #expect(large["key3"] == 19)
        #expect(large.dictionaryValue?.keys.last == "key18")
        // A large dictionary without: every key found through the index.
        objects[20] = asciiObject("key19")
        let distinct = try BinaryPropertyListReader().read(RawBinaryPlist(objects).bytes)
        #expect((0 ..< 20).allSatisfy { distinct["key\($0)"] == .integer(Int64($0)) })
    }

    @Test("the top object may be any object, and objects outside the tree are ignored")
    func topObjectAnywhere() throws {
        var plist = RawBinaryPlist([[0x08], asciiObject("unused"), [0xA1, 0]])
        plist.topObject = 2
        #expect(try BinaryPropertyListReader().read(plist.bytes) == [false])
    }

    // MARK: Damage in bulk

    @Test("truncation at every byte of a valid plist throws")
    func truncationAtEveryByte() throws {
        let sample = Self.sample
        #expect(try BinaryPropertyListReader().read(sample).dictionaryValue?.count == 4)
        for length in 0 ..< sample.count {
            do {
                _ = try BinaryPropertyListReader().read(Array(sample[..<length]))
                Issue.record("a plist truncated to \(length) bytes was accepted")
            } catch let error as PropertyListError {
                #expect(error.offset.map { $0 >= 0 && $0 <= length } ?? true)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("thousands of random mutations throw or succeed, never crash or hang")
    func randomMutations() {
        var generator = SeededGenerator(seed: 0x5EED_B115_7000_0001)
        let sample = Self.sample
        var accepted = 0
        var rejected = 0
        for round in 0 ..< 4000 {
            var mutant = sample
            let edits = 1 + Int(generator.next() % 4)
            for _ in 0 ..< edits {
                let index = Int(generator.next() % UInt64(mutant.count))
                switch generator.next() % 8 {
                case 0: mutant[index] = 0xFF
                case 1: mutant[index] = 0x00
                case 2 ... 5: mutant[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
                case 6: mutant[index] = UInt8(truncatingIfNeeded: generator.next())
                default:
                    // aim at the trailer and offset table, where damage does the most harm
                    let tail = mutant.count - 1 - Int(generator.next() % 48)
                    mutant[tail] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            if round % 10 == 0 { mutant.removeLast(Int(generator.next() % 5)) }
            do {
                _ = try BinaryPropertyListReader().read(mutant)
                accepted += 1
            } catch is PropertyListError {
                rejected += 1
            } catch {
                Issue.record("round \(round): unexpected error \(error)")
            }
        }
        #expect(accepted + rejected == 4000)
        #expect(rejected > 0 && accepted > 0)
    }

    @Test("random garbage after a valid header throws or succeeds, never crashes")
    func randomGarbage() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0 ..< 2000 {
            let length = 60 + Int(generator.next() % 80)
            var bytes = Array("bplist00".utf8)
            for _ in 0 ..< length { bytes.append(UInt8(truncatingIfNeeded: generator.next())) }
            // Make the trailer plausible often enough to reach the object decoder.
            let trailer = bytes.count - 32
            bytes[trailer + 6] = 1 + UInt8(generator.next() % 2)
            bytes[trailer + 7] = 1
            for index in trailer + 8 ..< trailer + 32 { bytes[index] = 0 }
            bytes[trailer + 15] = UInt8(1 + generator.next() % 8)
            bytes[trailer + 31] = UInt8(9 + generator.next() % UInt64(trailer - 20))
            do {
                _ = try BinaryPropertyListReader().read(bytes)
            } catch is PropertyListError {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
