import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// A value of a column that breaks the model.
struct RowDamage: Sendable, CustomTestStringConvertible {
    var key: String
    var value: String
    var testDescription: String { "\(key) = \(value)" }
    init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// The SQLite store refuses, with an error naming the entity, the attribute and the record, a
/// row whose values the store would not have written for the model: NULL in a required
/// attribute, a number outside the attribute's type, another storage class. It never converts
/// such a value, so no save writes a converted one back.
@Suite struct SQLiteRowValidationTests {
    static let damages: [RowDamage] = [
        RowDamage("level", "100000"), RowDamage("level", "-40000"), RowDamage("level", "1e300"), RowDamage("level", "'old'"),
        RowDamage("level", "2.5"), RowDamage("level", "NULL"), RowDamage("level", "x'01'"),
        RowDamage("count32", "3000000000"), RowDamage("count32", "'3 apples'"),
        RowDamage("total", "'old'"), RowDamage("total", "1e300"), RowDamage("total", "0.5"),
        RowDamage("flag", "2"), RowDamage("flag", "-1"), RowDamage("flag", "'yes'"), RowDamage("flag", "0.5"),
        RowDamage("ratio", "'plenty'"), RowDamage("ratio", "x'00'"),
        RowDamage("single", "1e300"), RowDamage("single", "'x'"),
        RowDamage("taken", "'yesterday'"), RowDamage("taken", "NULL"), RowDamage("taken", "x'00'"),
        RowDamage("amount", "'lots'"), RowDamage("amount", "'12abc'"), RowDamage("amount", "'1e5'"), RowDamage("amount", "x'31'"),
        RowDamage("amount", "''"), RowDamage("amount", "'1.2.3'"),
        RowDamage("label", "x'FFFE'"), RowDamage("label", "CAST(x'FF41' AS TEXT)"), RowDamage("label", "NULL"),
        RowDamage("source", "x'01'"), RowDamage("source", "NULL"),
        RowDamage("bytes", "'text'"), RowDamage("bytes", "12"),
        RowDamage("sensor", "x'0102'"), RowDamage("sensor", "'00112233-4455-6677-8899-AABBCCDDEEFF'"), RowDamage("sensor", "NULL"),
    ]

    @Test(arguments: damages)
    func aRowThatBreaksTheModelIsRefusedWhenRead(_ damage: RowDamage) throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET Z\(damage.key.uppercased()) = \(damage.value) WHERE Z_PK = \(try file.key(1))")
        let context = try file.open()
        let id = file.readings[1]
        expectRefusal(of: id, key: damage.key) { _ = try context.fetch(FetchRequest<TestReading>(entityName: "Reading")) }
        expectRefusal(of: id, key: damage.key) { try context.object(with: id).fireFault() }
        expectRefusal(of: id, key: damage.key) { _ = try context.existingObject(with: id).value(forKey: damage.key) }
        expectRefusal(of: id, key: damage.key) {
            _ = try context.fetchDictionaries(FetchRequest<TestReading>(entityName: "Reading"), properties: [damage.key])
        }
        // The other records, and the other columns of this one, still read.
        let other = try context.existingObject(with: file.readings[0])
        #expect(try other.value(forKey: "label") as? String == "r0")
        let fresh = try file.open()
        expectRefusal(of: id, key: damage.key) { _ = try fresh.existingObject(with: id).value(forKey: "station") }
    }

    @Test func valuesAtTheEdgesOfTheirTypesAndTheFormsOtherWritersUseStillRead() throws {
        let file = try ReadingStore()
        let key = try file.key(2)
        try file.damage(
            """
            UPDATE ZREADING SET ZLEVEL = 32767, ZCOUNT32 = -2147483648, ZTOTAL = 9223372036854775807, ZFLAG = 0,
            ZRATIO = 5, ZSINGLE = 3.4028234663852886e38, ZAMOUNT = '-000.50', ZTAKEN = -978307200 WHERE Z_PK = \(key)
            """)
        let context = try file.open()
        let reading = try #require(try context.existingObject(with: file.readings[2]) as? TestReading)
        #expect(reading.level == Int16.max)
        #expect(try reading.value(forKey: "count32") as? Int32 == Int32.min)
        #expect(try reading.value(forKey: "total") as? Int64 == Int64.max)
        #expect(try reading.value(forKey: "flag") as? Bool == false)
        #expect(try reading.value(forKey: "ratio") as? Double == 5)
        #expect(try reading.value(forKey: "single") as? Float == Float.greatestFiniteMagnitude)
        #expect(try reading.value(forKey: "amount") as? Decimal == Decimal(string: "-0.5"))
        #expect(reading.taken == Date(timeIntervalSince1970: 0))
    }

    /// Every way of reading rows meets the damaged one and reports it, and none hands a
    /// converted value to the context.
    @Test func everyReadPathRefusesTheRow() throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET ZLEVEL = 100000 WHERE Z_PK = \(try file.key(1))")
        let context = try file.open()
        let id = file.readings[1]
        func fetch(
            _ format: String?, sort: [KeyPathSortDescriptor] = [], configure: (inout FetchRequest<TestReading>) -> Void = { _ in }
        ) throws {
            var request = FetchRequest<TestReading>(
                entityName: "Reading", predicate: try format.map { try KeyValuePredicate(format: $0) }, sortDescriptors: sort)
            configure(&request)
            _ = try context.fetch(request)
        }
        // In SQL, with the rest in memory, sorted in SQL and in memory, as objects and as rows.
        expectRefusal(of: id, key: "level") { try fetch("label == 'r1'") }
        expectRefusal(of: id, key: "level") { try fetch("level == 'x' OR label != nil") }
        expectRefusal(of: id, key: "level") { try fetch("SUBQUERY(station.readings, $r, $r.level > 0).@count > 0") }
        expectRefusal(of: id, key: "level") { try fetch(nil, sort: [KeyPathSortDescriptor(key: "level")]) }
        expectRefusal(of: id, key: "level") { try fetch(nil, sort: [KeyPathSortDescriptor(key: "label", comparison: .caseInsensitive)]) }
        expectRefusal(of: id, key: "level") { try fetch("label ==[c] 'R1'") { $0.returnsObjectsAsFaults = false } }
        expectRefusal(of: id, key: "level") { _ = try context.fetchDictionaries(FetchRequest<TestReading>(entityName: "Reading")) }
        expectRefusal(of: id, key: "level") {
            var request = FetchRequest<TestStation>(entityName: "Station")
            request.relationshipKeyPathsForPrefetching = ["readings"]
            _ = try context.fetch(request)
        }
        // A column left out is not read: the other attributes of the damaged row still come.
        let labels = try context.fetchDictionaries(FetchRequest<TestReading>(entityName: "Reading"), properties: ["label"])
        #expect(labels.compactMap { $0["label"] as? String }.sorted() == ["r0", "r1", "r2"])
        #expect(try context.count(for: FetchRequest<TestReading>(entityName: "Reading")) == 3)

        // Faults of a batch: the damaged one fails alone, its neighbours load.
        let batchContext = try file.open()
        var request = FetchRequest<TestReading>(entityName: "Reading", predicate: try KeyValuePredicate(format: "label != nil"))
        request.fetchBatchSize = 10
        let batch = try batchContext.fetch(request)
        #expect(batch.count == 3 && batch.allSatisfy(\.isFault))
        let damaged = try #require(batch.first { $0.objectID == id })
        expectRefusal(of: id, key: "level") { try damaged.fireFault() }
        #expect(batch.filter { $0.objectID != id }.map(\.label).sorted() == ["r0", "r2"])
        #expect(damaged.isFault)

        // Reached through a relationship.
        let station = try #require(try context.existingObject(with: file.station) as? TestStation)
        let readings = station.readings
        #expect(readings.count == 3)
        let related = try #require(readings.first { $0.objectID == id })
        expectRefusal(of: id, key: "level") { _ = try related.value(forKey: "label") }
    }

    /// Strings compared by `mo_compare` (and the non-text values the plain comparisons hand to
    /// it) are checked as reading them would: a blob or bytes that are not UTF-8 in a string
    /// column stop the fetch with the record's refusal. (Plain comparisons of text in SQL
    /// compare the bytes: a row they exclude is not read.)
    @Test(arguments: [
        ("x'5A6F65'", ["label == 'Zoe'", "label IN {'Zoe', 'x'}"]),
        ("CAST(x'FF41' AS TEXT)", ["label > 'Z'"]),
    ])
    func stringComparisonsInSQLRefuseWhatReadingRefuses(_ value: String, plain: [String]) throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET ZLABEL = \(value) WHERE Z_PK = \(try file.key(1))")
        let store = try #require(try file.open().persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let entity = try #require(file.model.entity(named: "Reading"))
        let context = try file.open()
        for format in plain + ["label ==[c] 'zoe'", "label BEGINSWITH 'Z'", "label LIKE '*o*'", "label MATCHES '.*'",
                               "station.name == 'S' AND label CONTAINS[d] 'o'"] {
            let predicate = try KeyValuePredicate(format: format)
            expectRefusal(of: file.readings[1], key: "label") { _ = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)) }
            expectRefusal(of: file.readings[1], key: "label") {
                _ = try context.fetch(FetchRequest<TestReading>(entityName: "Reading", predicate: predicate))
            }
        }
        // Through a to-many relationship's members.
        let stations = try #require(file.model.entity(named: "Station"))
        expectRefusal(of: file.readings[1], key: "label") {
            _ = try store.fetch(StoreFetchRequest(entity: stations, predicate: try KeyValuePredicate(format: "ANY readings.label ==[c] 'x'")))
        }
    }

    /// Before the store refused such rows, `100000` read as -31072 and the next save of the
    /// object wrote -31072 back. Now the object cannot be read, so it cannot be changed or saved,
    /// and a save of other changes leaves the row as it is.
    @Test func noSaveWritesAConvertedValueBack() throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET ZLEVEL = 100000, ZTAKEN = 'yesterday' WHERE Z_PK = \(try file.key(1))")
        let context = try file.open()
        let damaged = context.object(with: file.readings[1])
        #expect(throws: PersistenceError.self) { try damaged.setValue("changed", forKey: "label") }
        let station = try #require(try context.existingObject(with: file.station) as? TestStation)
        station.name = "Renamed"
        try context.save()
        #expect(try file.stored("ZLEVEL", of: 1) == ["integer|100000"])
        #expect(try file.stored("ZTAKEN", of: 1) == ["text|yesterday"])
        #expect(try file.stored("ZLABEL", of: 1) == ["text|r1"])
        #expect(try SQLiteProbe.query("SELECT ZNAME FROM ZSTATION", at: file.directory.file()) == ["Renamed"])
    }

    /// SQLite keeps NaN as NULL, which would read back as nil, or make a required attribute's
    /// record one the store refuses: the save refuses NaN instead, and writes nothing.
    @Test(arguments: ["ratio", "single", "taken"])
    func savingNaNThrowsInsteadOfStoringNull(_ key: String) throws {
        let file = try ReadingStore()
        let context = try file.open()
        let reading = try context.existingObject(with: file.readings[0])
        let nan: Any = key == "taken" ? Date(timeIntervalSinceReferenceDate: .nan) : key == "single" ? Float.nan as Any : Double.nan
        try reading.setValue(nan, forKey: key)
        try reading.setValue("changed", forKey: "label")
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.code == .saveFailed && error.key == key && error.objectID == file.readings[0]
        }
        #expect(try file.stored("ZLABEL", of: 0) == ["text|r0"])
    }

    /// A record version that is not a positive integer (text reads as 0, a huge real as
    /// `Int64.max`) is refused like a damaged value.
    @Test(arguments: ["'v2'", "1e300", "0", "-3", "2.5"])
    func aDamagedRecordVersionIsRefused(_ value: String) throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET Z_OPT = \(value) WHERE Z_PK = \(try file.key(0))")
        let context = try file.open()
        do {
            try context.object(with: file.readings[0]).fireFault()
            Issue.record("expected the version \(value) to be refused")
        } catch let error as PersistenceError {
            #expect(error.code == .operationFailed)
            #expect(error.message.contains("Z_OPT"), "\(error)")
        }
        #expect(try context.existingObject(with: file.readings[2]).value(forKey: "label") as? String == "r2")
    }
}
