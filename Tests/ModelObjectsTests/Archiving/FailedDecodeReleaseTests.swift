import Foundation
import Synchronization
import Testing
@testable import ModelObjects

/// Counts the live instances of the classes below (only this suite makes them).
private let liveCycleNodes = Atomic<Int>(0)

/// A model object counted in `liveCycleNodes` from its initializer to its `deinit`.
class CountedNode: ModelObject {
    required init(coder: Coder) throws {
        liveCycleNodes.add(1, ordering: .relaxed)
        // Fully initialized before it can throw: a failed object is deinitialized too.
        try super.init(coder: coder)
    }

    required init() {
        liveCycleNodes.add(1, ordering: .relaxed)
        super.init()
    }

    deinit { liveCycleNodes.subtract(1, ordering: .relaxed) }
}

/// A node whose relationships make cycles: a group holding members that point back at it.
final class CycleGroup: CountedNode {
    @Relationship var members: [CycleMember] = []
    @Attribute var title = ""
}

final class CycleMember: CountedNode {
    @Relationship var group: CycleGroup?
    @Relationship var friends: Set<CycleMember> = []
    @Attribute var name = ""
}

/// A decode that fails part-way through a graph with cycles frees every object it made (the
/// objects hold each other through relationships and their inverses, and nothing outside holds
/// them), and a later decode does not get objects that refer to a failed one.
@Suite(.serialized) struct FailedDecodeReleaseTests {
    /// `$objects` of a group (UID 1) with two members that point back at it and at each other;
    /// the group's `title` (decoded after `members`) is `title`.
    private func groupObjects(title: PropertyListValue) -> [PropertyListValue] {
        [
            .string("$null"),
            .dictionary([(key: "members", value: .uid(3)), (key: "title", value: title), (key: "$class", value: .uid(2))]),
            classDictionary(String(reflecting: CycleGroup.self)),
            .dictionary([(key: "NS.objects", value: .array([.uid(5), .uid(6)])), (key: "$class", value: .uid(4))]),
            classDictionary("NSArray"),
            .dictionary([(key: "group", value: .uid(1)), (key: "friends", value: .uid(7)), (key: "name", value: .uid(9)), (key: "$class", value: .uid(8))]),
            .dictionary([(key: "group", value: .uid(1)), (key: "friends", value: .uid(10)), (key: "name", value: .uid(9)), (key: "$class", value: .uid(8))]),
            .dictionary([(key: "NS.objects", value: .array([.uid(6)])), (key: "$class", value: .uid(11))]),
            classDictionary(String(reflecting: CycleMember.self)),
            .string("member"),
            .dictionary([(key: "NS.objects", value: .array([.uid(5)])), (key: "$class", value: .uid(11))]),
            classDictionary("NSSet"),
        ]
    }

    @Test func theWellFormedGraphDecodesWithItsCycles() throws {
        let before = liveCycleNodes.load(ordering: .relaxed)
        do {
            let data = try keyedArchive(objects: groupObjects(title: .uid(9)))
            let group = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: CycleGroup.self, from: data))
            #expect(group.members.count == 2)
            #expect(group.members.allSatisfy { $0.group === group })
            #expect(group.members[0].friends.first === group.members[1])
            #expect(liveCycleNodes.load(ordering: .relaxed) == before + 3)
            // A decoded graph is the caller's: its cycles are broken by the caller, as in Cocoa.
            for member in group.members { member.group = nil; member.friends = [] }
        }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)
    }

    @Test func aFailedDecodeFreesTheObjectsOfItsCycles() throws {
        let before = liveCycleNodes.load(ordering: .relaxed)
        // The title is a number: a type mismatch after the members were decoded and had
        // taken references back to the group.
        let data = try keyedArchive(objects: groupObjects(title: .integer(7)))
        #expect {
            try KeyedUnarchiver.unarchivedObject(from: data)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)
    }

    /// `value` with every dictionary entry named `key` given `replacement`.
    private func replacing(_ key: String, with replacement: PropertyListValue, in value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements):
            return .array(elements.map { replacing(key, with: replacement, in: $0) })
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(dictionary.elements.map { entry in
                (entry.key, entry.key == key ? replacement : replacing(key, with: replacement, in: entry.value))
            }))
        default:
            return value
        }
    }

    @Test func aFailedClassicDecodeFreesTheObjectsOfItsCycles() throws {
        let before = liveCycleNodes.load(ordering: .relaxed)
        var data = Data()
        do {
            let group = CycleGroup()
            let first = CycleMember(), second = CycleMember()
            group.members = [first, second]
            first.group = group
            second.group = group
            first.friends = [second]
            data = try SequentialArchiver.archivedData(withRootObject: group)
            for member in group.members { member.group = nil; member.friends = [] }
            let decoded = try #require(try SequentialUnarchiver.unarchivedObject(ofClass: CycleGroup.self, from: data))
            #expect(decoded.members.count == 2 && decoded.members.allSatisfy { $0.group === decoded })
            for member in decoded.members { member.group = nil; member.friends = [] }
        }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)
        // The group's title becomes a number: the decode fails after the members were made.
        let tree = try PropertyListEncoding.decode(data)
        let corrupt = try PropertyListEncoding.encode(replacing("title", with: .integer(7), in: tree), format: .binary)
        #expect {
            try SequentialUnarchiver.unarchivedObject(from: corrupt)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)
    }

    @Test func aLaterDecodeOfTheSameArchiveDoesNotReturnObjectsOfTheFailedOne() throws {
        let before = liveCycleNodes.load(ordering: .relaxed)
        do {
            // The root (UID 1 in `groupObjects`) fails; a second key names a member (UID 5)
            // that the failed decode had finished: it is decoded again, and its group too,
            // which fails the same way instead of coming back half made.
            let archive = try PropertyListEncoding.encode(.dictionary([
                (key: "$version", value: .integer(100_000)),
                (key: "$archiver", value: .string("NSKeyedArchiver")),
                (key: "$top", value: .dictionary([(key: "root", value: .uid(1)), (key: "member", value: .uid(5))])),
                (key: "$objects", value: .array(groupObjects(title: .integer(7)))),
            ]), format: .binary)
            let unarchiver = try KeyedUnarchiver(forReadingFrom: archive)
            #expect(throws: ArchiveError.self) { try unarchiver.decodeObject(forKey: "root") }
            #expect(throws: ArchiveError.self) { try unarchiver.decodeObject(forKey: "member") }
        }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)
    }

    @Test func aRootOfTheWrongTypeFreesTheGraphDecodedForIt() throws {
        let before = liveCycleNodes.load(ordering: .relaxed)
        let data = try keyedArchive(objects: groupObjects(title: .uid(9)))
        #expect {
            try KeyedUnarchiver.unarchivedObject(ofClass: CycleMember.self, from: data)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before)

        let group = CycleGroup()
        let member = CycleMember()
        group.members = [member]
        member.group = group
        let classic = try SequentialArchiver.archivedData(withRootObject: group)
        member.group = nil
        #expect {
            try SequentialUnarchiver.unarchivedObject(ofClass: CycleMember.self, from: classic)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
        #expect(liveCycleNodes.load(ordering: .relaxed) == before + 2)
    }
}
