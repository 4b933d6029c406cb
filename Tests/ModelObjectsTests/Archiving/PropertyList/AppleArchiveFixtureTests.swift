import Foundation
import ModelObjects
import Testing

/// Archives written by Apple's Foundation (NSKeyedArchiver) on macOS, read from
/// `../shared/fixtures/apple-archives` next to the package; skipped when that folder is absent.
@Suite(
    "Apple-written archives",
    .enabled(if: AppleArchives.isAvailable, "Apple's archives are not at ../shared/fixtures/apple-archives"))
struct AppleArchiveFixtureTests {
    static let files = AppleArchives.files

    @Test("the fixture folder holds both XML and binary archives")
    func fixturesPresent() throws {
        let formats = try Self.files.map { try PropertyListValue.decode(Data(contentsOf: $0)).format }
        #expect(formats.contains(.xml))
        #expect(formats.contains(.binary))
        #expect(Self.files.count >= 20)
    }

    @Test("every archive parses as a keyed archive", arguments: files)
    func parsesAsKeyedArchive(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        let (value, format) = try PropertyListValue.decode(data)
        #expect(format == (data.starts(with: Array("bplist00".utf8)) ? .binary : .xml))
        #expect(value["$archiver"] == "NSKeyedArchiver")
        #expect(value["$version"] == 100_000)
        let objects = try #require(value["$objects"]?.arrayValue)
        #expect(objects.first == "$null")
        let top = try #require(value["$top"]?.dictionaryValue)
        #expect(!top.isEmpty)
        // Every UID anywhere refers into $objects.
        var uids = [UInt64]()
        func collect(_ value: PropertyListValue) {
            switch value {
            case .uid(let uid): uids.append(uid)
            case .array(let elements): elements.forEach(collect)
            case .dictionary(let dictionary): dictionary.values.forEach(collect)
            default: break
            }
        }
        collect(value)
        #expect(!uids.isEmpty)
        #expect(uids.allSatisfy { $0 < UInt64(objects.count) })
        // Class descriptions have $classname and $classes.
        let classes = objects.compactMap { $0["$classname"]?.stringValue }
        #expect(!classes.isEmpty)
    }

    @Test("both readers agree with Foundation's reader on the archives' contents", arguments: files)
    func agreesWithFoundationWherePossible(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        let ours = try PropertyListValue(decoding: data)
        // Foundation reads UIDs as opaque objects, so compare with UIDs masked out.
        let theirs = try PropertyListSerialization.propertyList(from: data, format: nil)
        #expect(matchesIgnoringUIDs(ours, theirs))
    }

    @Test("the archives survive binary and XML round trips", arguments: files)
    func roundTrips(_ url: URL) throws {
        let value = try PropertyListValue(decoding: Data(contentsOf: url))
        let binary = try BinaryPropertyListWriter().write(value)
        #expect(try BinaryPropertyListReader().read(binary) == value)
        let xml = try XMLPropertyListWriter().write(value)
        #expect(sameIgnoringOrder(try XMLPropertyListReader().read(xml), value))
        var unsorted = XMLPropertyListWriter()
        unsorted.sortsKeys = false
        #expect(try XMLPropertyListReader().read(unsorted.write(value)) == value)
    }

    /// Core Foundation writes XML deterministically (sorted keys), so rewriting reproduces
    /// Apple's bytes exactly. Its binary writer shares objects by pointer identity (the same
    /// class-name string may be written twice, a repeated UID object written again but never
    /// referenced), which values cannot reproduce; there the rewrite must read back equal,
    /// keep Apple's key order, and be no larger.
    @Test("rewriting an archive reproduces Apple's XML bytes, and Apple's binary content", arguments: files)
    func reproducesAppleBytes(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        let (value, format) = try PropertyListValue.decode(data)
        let rewritten = try value.encoded(as: format)
        switch format {
        case .xml:
            #expect(rewritten == Array(data), "\(url.lastPathComponent) differs from Apple's bytes")
        case .binary:
            #expect(try BinaryPropertyListReader().read(rewritten) == value)
            #expect(rewritten.count <= data.count)
            #expect(rewritten.prefix(8).elementsEqual(data.prefix(8)))
        }
    }
}

/// Whether our value matches what Foundation read, treating Foundation's UID objects as
/// matching any UID.
private func matchesIgnoringUIDs(_ ours: PropertyListValue, _ theirs: Any) -> Bool {
    switch ours {
    case .uid:
        return value(fromFoundation: theirs) == nil  // an opaque UID object
    case .array(let elements):
        guard let array = theirs as? [Any], array.count == elements.count else { return false }
        return zip(elements, array).allSatisfy { matchesIgnoringUIDs($0, $1) }
    case .dictionary(let dictionary):
        guard let other = theirs as? [AnyHashable: Any], other.count == dictionary.count else { return false }
        return dictionary.allSatisfy { entry in
            other[AnyHashable(entry.key)].map { matchesIgnoringUIDs(entry.value, $0) } ?? false
        }
    default:
        guard let converted = value(fromFoundation: theirs) else { return false }
        return converted == ours
    }
}
