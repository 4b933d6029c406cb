import Foundation
import Testing
@testable import ManagedObjects

/// The typed accessors cannot throw: of a fault that cannot load (the store refuses its record,
/// or the record is gone) they read empty values, and non-optional `Date`, `UUID` and `URL`
/// properties read a placeholder instead of stopping the program; `fireFault()` and key-value
/// coding throw the error.
@Suite struct ManagedUnloadableFaultTests {
    @Test func aRequiredDateThatIsNullInTheFileReadsAPlaceholderThroughTypedAccessors() throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET ZTAKEN = NULL WHERE Z_PK = \(try file.key(1))")
        let context = try file.open()
        let reading = try #require(context.object(with: file.readings[1]) as? TestReading)
        #expect(reading.taken == Date(timeIntervalSinceReferenceDate: 0))
        #expect(reading.sensor == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(reading.source.absoluteString == "about:blank")
        #expect(reading.label == "" && reading.level == 0 && reading.station == nil)
        #expect(reading.isFault)
        expectRefusal(of: file.readings[1], key: "taken") { try reading.fireFault() }
        expectRefusal(of: file.readings[1], key: "taken") { _ = try reading.value(forKey: "taken") }
        // Its neighbours read as saved.
        let other = try #require(context.object(with: file.readings[2]) as? TestReading)
        #expect(other.taken == Date(timeIntervalSinceReferenceDate: 120))
    }

    @Test func aFaultWhoseRecordIsGoneReadsPlaceholdersThroughTypedAccessors() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let reading = try #require(context.object(with: file.readings[0]) as? TestReading)
        try file.damage("DELETE FROM ZREADING WHERE Z_PK = \(try file.key(0))")
        #expect(reading.taken == Date(timeIntervalSinceReferenceDate: 0))
        #expect(reading.source.absoluteString == "about:blank")
        #expect(throws: PersistenceError.self) { try reading.fireFault() }
    }
}
