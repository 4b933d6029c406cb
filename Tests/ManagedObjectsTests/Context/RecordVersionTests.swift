import Foundation
import Testing
@testable import ManagedObjects

/// A record's version (`Z_OPT`) comes from the file; a save that would take it past
/// `Int64.max` throws instead of overflowing, and writes nothing.
@Suite struct RecordVersionTests {
    @Test func savingARecordWhoseVersionIsTheLargestThrows() throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET Z_OPT = 9223372036854775807 WHERE Z_PK = \(try file.key(0))")
        let context = try file.open()
        let reading = try #require(try context.existingObject(with: file.readings[0]) as? TestReading)
        let other = try #require(try context.existingObject(with: file.readings[1]) as? TestReading)
        reading.label = "changed"
        other.label = "also changed"
        do {
            try context.save()
            Issue.record("expected the save to throw")
        } catch let error as PersistenceError {
            #expect(error.code == .saveFailed)
            #expect(error.objectID == file.readings[0])
        }
        #expect(try file.stored("ZLABEL", of: 0) == ["text|r0"])
        #expect(try file.stored("ZLABEL", of: 1) == ["text|r1"])
        #expect(try file.stored("Z_OPT", of: 0) == ["integer|9223372036854775807"])
        // The context keeps its changes and stays usable.
        #expect(reading.label == "changed" && context.hasChanges)
        context.rollback()
        other.label = "saved"
        try context.save()
        #expect(try file.stored("ZLABEL", of: 1) == ["text|saved"])
    }

    /// The merge of a conflict gives the record the store's version plus one: the same check.
    @Test func mergingOverARecordWhoseVersionIsTheLargestThrows() throws {
        let file = try ReadingStore()
        let context = try file.open()
        context.mergePolicy = .objectTrump
        let reading = try #require(try context.existingObject(with: file.readings[0]) as? TestReading)
        _ = reading.label
        try file.damage("UPDATE ZREADING SET Z_OPT = 9223372036854775807 WHERE Z_PK = \(try file.key(0))")
        reading.label = "mine"
        #expect {
            try context.save()
        } throws: { error in
            (error as? PersistenceError)?.code == .saveFailed && (error as? PersistenceError)?.objectID == file.readings[0]
        }
        #expect(try file.stored("ZLABEL", of: 0) == ["text|r0"])
    }
}
