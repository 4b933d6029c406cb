import Foundation
import ModelObjects
import Testing

/// A decimal number as a dictionary key or set member: found by the archive fuzz target. On
/// Linux, Foundation crashes (unbounded recursion hashing `NSDecimalNumber`) when such a
/// collection is cast to a class, so the unarchiver refuses it there with an error.
@Suite struct DecimalKeyArchiveTests {
    let key: Decimal = 1.5

    @Test func aDecimalDictionaryKeyIsRefusedOnLinuxAndKeptElsewhere() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [AnyHashable(key): "x"] as [AnyHashable: Any])
        #if canImport(Darwin)
        let decoded = try KeyedUnarchiver.unarchivedObject(from: data) as? [AnyHashable: Any]
        #expect(decoded?[AnyHashable(key)] as? String == "x")
        #else
        expectArchiveError(.corruptArchive, data)
        #endif
    }

    @Test func aDecimalSetMemberIsRefusedOnLinuxAndKeptElsewhere() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Set([AnyHashable(key), AnyHashable(1)]))
        #if canImport(Darwin)
        let decoded = try KeyedUnarchiver.unarchivedObject(from: data) as? Set<AnyHashable>
        #expect(decoded?.contains(AnyHashable(key)) == true)
        #else
        expectArchiveError(.corruptArchive, data)
        #endif
    }
}
