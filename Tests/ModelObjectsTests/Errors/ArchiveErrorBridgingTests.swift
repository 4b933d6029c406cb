import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Archive errors bridge to `NSError` with the codes Foundation's `NSKeyedUnarchiver` reports
/// (4864 for every read failure), keeping the library's finer code as a detail.
@Suite struct ArchiveErrorBridgingTests {
    /// The error a decode throws, as `ArchiveError` and as the `NSError` Cocoa code sees.
    func failure(_ decode: () throws -> Any?) throws -> (ArchiveError, NSError) {
        do {
            _ = try decode()
        } catch let error as ArchiveError {
            return (error, error as NSError)
        }
        throw ArchiveError(.valueNotFound, message: "expected an ArchiveError")
    }

    func expectBridged(
        _ error: (ArchiveError, NSError), code: ArchiveError.Code, cocoaCode: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.0.code == code, sourceLocation: sourceLocation)
        #expect(error.1.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error.1.code == cocoaCode, sourceLocation: sourceLocation)
        #expect(error.1.userInfo[ArchiveError.detailCodeKey] as? Int == code.rawValue, sourceLocation: sourceLocation)
    }

    @Test func corruptInputBridgesToCoderReadCorrupt() throws {
        let error = try failure { try KeyedUnarchiver.unarchivedObject(from: Data("not an archive".utf8)) }
        expectBridged(error, code: .corruptArchive, cocoaCode: 4864)
    }

    @Test func unknownClassBridgesToCoderReadCorrupt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"), .dictionary([(key: "$class", value: .uid(2))]), classDictionary("NoSuchClass"),
        ])
        let error = try failure { try KeyedUnarchiver.unarchivedObject(from: data) }
        expectBridged(error, code: .unknownClass, cocoaCode: 4864)
        #expect(error.0.className == "NoSuchClass")
    }

    @Test func typeMismatchBridgesToCoderReadCorrupt() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: "text")
        let error = try failure { try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data) }
        expectBridged(error, code: .typeMismatch, cocoaCode: 4864)
    }

    @Test func tooDeepNestingBridgesToCoderReadCorrupt() throws {
        var objects: [PropertyListValue] = [.string("$null"), classDictionary("NSArray")]
        for index in 0..<300 {
            let next: UInt64 = index == 299 ? 0 : UInt64(objects.count + 1)
            objects.append(.dictionary([(key: "NS.objects", value: .array([.uid(next)])), (key: "$class", value: .uid(1))]))
        }
        let data = try keyedArchive(objects: objects, root: 2)
        let error = try failure { try KeyedUnarchiver.unarchivedObject(from: data) }
        expectBridged(error, code: .nestingTooDeep, cocoaCode: 4864)
    }

    @Test func missingValueBridgesToCoderValueNotFound() throws {
        let data = try SequentialArchiver.archivedData(withRootObject: Greedy())
        let error = try failure { try SequentialUnarchiver.unarchivedObject(from: data) }
        expectBridged(error, code: .valueNotFound, cocoaCode: 4865)
    }

    @Test func unencodableValueBridgesToCoderInvalidValue() throws {
        struct Opaque {}
        let error = try failure { try KeyedArchiver.archivedData(withRootObject: Opaque()) }
        expectBridged(error, code: .invalidValue, cocoaCode: 4866)
    }
}
