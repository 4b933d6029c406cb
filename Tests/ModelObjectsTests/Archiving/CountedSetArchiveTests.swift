import Foundation
import Testing
@testable import ModelObjects

/// `NSCountedSet` keeps its counts through archiving, in Foundation's layout: `NS.count`
/// distinct members, each `NS.object<i>` with its count `NS.count<i>`.
@Suite struct CountedSetArchiveTests {
    /// A counted set laid out as Apple's Foundation writes one: numbers 1, 2 and 3, counted
    /// 3, 1 and 2 times.
    func appleLayoutArchive(format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        try keyedArchive(objects: [
            .string("$null"),
            .dictionary([
                (key: "$class", value: .uid(5)),
                (key: "NS.count", value: .integer(3)),
                (key: "NS.count0", value: .integer(3)), (key: "NS.count1", value: .integer(1)),
                (key: "NS.count2", value: .integer(2)),
                (key: "NS.object0", value: .uid(2)), (key: "NS.object1", value: .uid(3)),
                (key: "NS.object2", value: .uid(4)),
            ]),
            .integer(1), .integer(2), .integer(3),
            .dictionary([
                (key: "$classes", value: .array([.string("NSCountedSet"), .string("NSMutableSet"), .string("NSSet"), .string("NSObject")])),
                (key: "$classname", value: .string("NSCountedSet")),
            ]),
        ], format: format)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationCountedSetKeepsItsCounts(format: PropertyListSerialization.PropertyListFormat) throws {
        let decoded = try KeyedUnarchiver.unarchivedObject(from: try appleLayoutArchive(format: format))
        let set = try #require(decoded as? CountedSet<AnyHashable>)
        #expect(set.count == 3)
        #expect(set.count(for: 1) == 3)
        #expect(set.count(for: 2) == 1)
        #expect(set.count(for: 3) == 2)
    }

    /// Apple's own archive from the shared fixtures, when they are beside the checkout.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: appleArchivesPath)))
    func appleWrittenCountedSetKeepsItsCounts() throws {
        let url = URL(fileURLWithPath: appleArchivesPath)
            .appendingPathComponent("macOS-10.14-NSCountedSet-NumbersAppearingSeveralTimes.archive")
        let set = try #require(try KeyedUnarchiver.unarchivedObject(from: Data(contentsOf: url)) as? CountedSet<AnyHashable>)
        #expect(Set(set) == Set([1, 2, 3, 4, 5] as [AnyHashable]))
        #expect(set.counts.values.allSatisfy { $0 == 5 })
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func countedSetRoundTripsWithItsCounts(format: PropertyListSerialization.PropertyListFormat) throws {
        let words: CountedSet = ["to", "be", "or", "not", "to", "be", "to"]
        let data = try KeyedArchiver.archivedData(withRootObject: words, format: format)
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(from: data) as? CountedSet<AnyHashable>)
        #expect(copy.counts == ["to": 3, "be": 2, "or": 1, "not": 1])
    }

    @Test func archiveUsesFoundationsCountedSetLayout() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CountedSet(["a", "a"]))
        let archive = try PropertyListEncoding.decode(data)
        guard case .array(let objects)? = archive["$objects"], case .uid(let root)? = archive["$top"]?["root"] else {
            Issue.record("not a keyed archive")
            return
        }
        let body = objects[Int(root)]
        #expect(body["NS.count"] == .integer(1))
        #expect(body["NS.count0"] == .integer(2))
        guard case .uid(let member)? = body["NS.object0"], case .uid(let classUID)? = body["$class"] else {
            Issue.record("no member or class")
            return
        }
        #expect(objects[Int(member)] == .string("a"))
        #expect(objects[Int(classUID)]["$classname"] == .string("NSCountedSet"))
    }

    @Test func foundationReadsOurCountedSetWithItsCounts() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CountedSet(["x", "y", "x"]))
        let decoded = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSCountedSet.self, NSString.self], from: data)
        let set = try #require(decoded as? NSCountedSet)
        #expect(set.count(for: "x") == 2)
        #expect(set.count(for: "y") == 1)
    }

    /// Bodies that break the layout: each throws rather than dropping members or counts.
    @Test(arguments: [
        [(key: "NS.count", value: PropertyListValue.integer(-1))],
        [(key: "NS.count", value: .integer(2)), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1))],
        [(key: "NS.count", value: .integer(1)), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(0))],
        [(key: "NS.count", value: .integer(1)), (key: "NS.object0", value: .uid(2))],
        [(key: "NS.count", value: .integer(1)), (key: "NS.object0", value: .uid(0)), (key: "NS.count0", value: .integer(1))],
        [(key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1))],
        [(key: "NS.count", value: .integer(.max)), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1))],
        [(key: "NS.count", value: .string("1")), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1))],
        [(key: "NS.count", value: .integer(1)), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .real(1.5))],
    ] as [[(key: String, value: PropertyListValue)]])
    func malformedCountedSetIsCorrupt(_ body: [(key: String, value: PropertyListValue)]) throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary(PropertyListDictionary(entries: body + [(key: "$class", value: .uid(3))])),
            .integer(7),
            classDictionary("NSCountedSet"),
        ])
        expectArchiveError(.corruptArchive, data)
    }

    @Test func repeatedMemberAddsItsCounts() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([
                (key: "NS.count", value: .integer(2)),
                (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1)),
                (key: "NS.object1", value: .uid(2)), (key: "NS.count1", value: .integer(2)),
                (key: "$class", value: .uid(3)),
            ]),
            .integer(7),
            classDictionary("NSCountedSet"),
        ])
        let set = try #require(try KeyedUnarchiver.unarchivedObject(from: data) as? CountedSet<AnyHashable>)
        #expect(set.count == 1 && set.count(for: 7) == 3)
    }

    @Test func countedSetHoldingNilIsNotArchived() throws {
        let set: CountedSet<String?> = ["a", nil, nil]
        #expect {
            try KeyedArchiver.archivedData(withRootObject: set)
        } throws: { ($0 as? ArchiveError)?.code == .invalidValue }
    }

    @Test func typedCountedSetReadsBackAsItsType() throws {
        let bag = WordBag()
        bag.words = ["to", "be", "to"]
        let data = try KeyedArchiver.archivedData(withRootObject: bag)
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: WordBag.self, from: data))
        #expect(copy.words.count(for: "to") == 2 && copy.words.count(for: "be") == 1)

        let root = try KeyedArchiver.archivedData(withRootObject: CountedSet(["x", "x"]))
        let typed = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: CountedSet<String>.self, from: root))
        #expect(typed.count(for: "x") == 2)
        let numbers = try KeyedArchiver.archivedData(withRootObject: CountedSet([1, 1]))
        #expect {
            try KeyedUnarchiver.unarchivedObject(ofClass: CountedSet<String>.self, from: numbers)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
    }
}

/// A model object with a typed counted-set property.
final class WordBag: ModelObject {
    @Attribute var words = CountedSet<String>()
}
