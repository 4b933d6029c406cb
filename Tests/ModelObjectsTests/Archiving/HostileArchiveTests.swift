import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Builds a keyed archive around hand-made `$objects`, with `root` pointing at UID 1.
func keyedArchive(
    objects: [PropertyListValue], root: UInt64 = 1, format: PropertyListSerialization.PropertyListFormat = .binary
) throws -> Data {
    try PropertyListEncoding.encode(.dictionary([
        (key: "$version", value: .integer(100_000)),
        (key: "$archiver", value: .string("NSKeyedArchiver")),
        (key: "$top", value: .dictionary([(key: "root", value: .uid(root))])),
        (key: "$objects", value: .array(objects)),
    ]), format: format)
}

func classDictionary(_ name: String) -> PropertyListValue {
    .dictionary([(key: "$classes", value: .array([.string(name)])), (key: "$classname", value: .string(name))])
}

func expectArchiveError(_ code: ArchiveError.Code, _ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(sourceLocation: sourceLocation) {
        try KeyedUnarchiver.unarchivedObject(from: data)
    } throws: { ($0 as? ArchiveError)?.code == code }
}

@Suite struct HostileArchiveTests {
    @Test func danglingUIDIsCorrupt() throws {
        expectArchiveError(.corruptArchive, try keyedArchive(objects: [.string("$null")], root: 99_999))
    }

    @Test func arrayContainingItselfIsCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "NS.objects", value: .array([.uid(1)])), (key: "$class", value: .uid(2))]),
            classDictionary("NSArray"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test func modelObjectReferringToItselfDecodesAsACycle() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "manager", value: .uid(1)), (key: "$class", value: .uid(2))]),
            classDictionary("SampleModels.Employee"),
        ])
        let employee = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data))
        #expect(employee.manager === employee)
    }

    @Test func deepNestingThrowsInsteadOfExhaustingTheStack() throws {
        let depth = 20_000
        var objects: [PropertyListValue] = [.string("$null"), classDictionary("NSArray")]
        for index in 0..<depth {
            let next: UInt64 = index == depth - 1 ? 0 : UInt64(objects.count + 1)
            objects.append(.dictionary([(key: "NS.objects", value: .array([.uid(next)])), (key: "$class", value: .uid(1))]))
        }
        expectArchiveError(.nestingTooDeep, try keyedArchive(objects: objects, root: 2))
    }

    @Test func classEntryThatIsNotADictionaryIsCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"), .dictionary([(key: "$class", value: .uid(2))]), .string("NSArray"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test func missingClassIsCorrupt() throws {
        expectArchiveError(.corruptArchive, try keyedArchive(objects: [.string("$null"), .dictionary([])]))
    }

    @Test func collectionWhoseObjectsAreNotUIDsIsCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "NS.objects", value: .array([.integer(1)])), (key: "$class", value: .uid(2))]),
            classDictionary("NSArray"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test func dictionaryWithMismatchedKeysAndObjectsIsCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([
                (key: "NS.keys", value: .array([.uid(3)])), (key: "NS.objects", value: .array([])),
                (key: "$class", value: .uid(2)),
            ]),
            classDictionary("NSDictionary"), .string("key"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test func wrongArchiverOrVersionIsCorrupt() throws {
        let wrongArchiver = try PropertyListEncoding.encode(.dictionary([
            (key: "$archiver", value: .string("Other")), (key: "$version", value: .integer(100_000)),
            (key: "$top", value: .dictionary([])), (key: "$objects", value: .array([])),
        ]), format: .binary)
        expectArchiveError(.corruptArchive, wrongArchiver)
        let wrongVersion = try PropertyListEncoding.encode(.dictionary([
            (key: "$archiver", value: .string("NSKeyedArchiver")), (key: "$version", value: .integer(7)),
            (key: "$top", value: .dictionary([])), (key: "$objects", value: .array([])),
        ]), format: .binary)
        expectArchiveError(.corruptArchive, wrongVersion)
    }

    @Test func badUUIDLengthIsCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "NS.uuidbytes", value: .data(Data([1, 2, 3]))), (key: "$class", value: .uid(2))]),
            classDictionary("NSUUID"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    /// One object of a Foundation value class whose body lacks or garbles what that class needs.
    @Test(arguments: [
        ("NSDate", [(key: "NS.time", value: PropertyListValue.string("soon"))]),
        ("NSData", []),
        ("NSString", [(key: "NS.string", value: PropertyListValue.integer(3))]),
        ("NSURL", [(key: "NS.relative", value: PropertyListValue.integer(3))]),
        ("NSDecimalNumber", [(key: "NS.mantissa", value: PropertyListValue.data(Data(count: 17)))]),
        ("NSDecimalNumber", [
            (key: "NS.mantissa", value: PropertyListValue.data(Data(count: 16))),
            (key: "NS.exponent", value: .integer(1_000)), (key: "NS.length", value: .integer(1)),
        ]),
        ("NSValue", [(key: "NS.special", value: PropertyListValue.integer(1)), (key: "NS.pointval", value: .string("{1, x}"))]),
        ("NSValue", [(key: "NS.special", value: PropertyListValue.integer(4)), (key: "NS.rangeval.location", value: .integer(-1)),
                     (key: "NS.rangeval.length", value: .integer(1))]),
        ("NSDictionary", [(key: "NS.keys", value: PropertyListValue.integer(1)), (key: "NS.objects", value: .array([]))]),
    ] as [(String, [(key: String, value: PropertyListValue)])])
    func malformedFoundationValueIsCorrupt(className: String, body: [(key: String, value: PropertyListValue)]) throws {
        let data = try keyedArchive(objects: [
            .string("$null"), .dictionary(PropertyListDictionary(entries: body + [(key: "$class", value: .uid(2))])),
            classDictionary(className),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test(arguments: [
        [(key: "NS.special", value: PropertyListValue.integer(12))],
        [(key: "NS.objcType", value: PropertyListValue.string("{?=dddd}"))],
    ] as [[(key: String, value: PropertyListValue)]])
    func valueOfAnUnsupportedKindNamesNSValue(body: [(key: String, value: PropertyListValue)]) throws {
        let data = try keyedArchive(objects: [
            .string("$null"), .dictionary(PropertyListDictionary(entries: body + [(key: "$class", value: .uid(2))])),
            classDictionary("NSValue"),
        ])
        #expect {
            try KeyedUnarchiver.unarchivedObject(from: data)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .unknownClass && error.className == "NSValue"
        }
    }

    @Test func everyTruncationThrowsOrDecodes() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: makeDepartment())
        for length in 0..<data.count {
            _ = try? KeyedUnarchiver.unarchivedObject(from: data.prefix(length))
        }
        #expect(throws: (any Error).self) { try KeyedUnarchiver.unarchivedObject(from: data.prefix(data.count - 1)) }
    }

    /// Decodes a few thousand deterministic mutations of real archives (binary and XML, keyed
    /// and sequential): each must decode or throw, never crash or hang.
    @Test func mutatedArchivesNeverCrash() throws {
        let department = makeDepartment(employees: 6)
        let seeds = [
            try KeyedArchiver.archivedData(withRootObject: department),
            try KeyedArchiver.archivedData(withRootObject: department, format: .xml),
            try SequentialArchiver.archivedData(withRootObject: department),
        ]
        var generator = SplitMix64(seed: 0x5EED)
        var decoded = 0
        for round in 0..<3_000 {
            var bytes = Array(seeds[round % seeds.count])
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes[position] ^= 1 << UInt8(generator.next() % 8)
                case 2: bytes.remove(at: position)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                }
            }
            let data = Data(bytes)
            if (try? KeyedUnarchiver.unarchivedObject(from: data)) != nil { decoded += 1 }
            _ = try? SequentialUnarchiver.unarchivedObject(from: data)
        }
        #expect(decoded < 3_000)
    }
}

/// A small deterministic random number generator for reproducible mutations.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
