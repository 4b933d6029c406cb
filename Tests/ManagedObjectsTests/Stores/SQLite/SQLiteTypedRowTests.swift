import Foundation
import Testing
@testable import ManagedObjects

/// The SQLite store decodes the rows of a fault fired alone, of a batch of faults and of a
/// fetch straight into the objects' typed storage (`TypedRowReading`), with no record per row:
/// the values, the refusals of a damaged row and their errors are those of the record path.
@Suite struct SQLiteTypedRowTests {
    /// A sink that keeps each row, as the context's would, resolving to-one IDs with `context`.
    struct KeepingSink: ContextRowSink {
        let context: ManagedObjectContext
        var rows: [(id: ManagedObjectID, version: Int64, values: PropertyValues)] = []

        mutating func receiveRow(_ id: ManagedObjectID, version: Int64, values: consuming PropertyValues) {
            rows.append((id, version, values))
        }
    }

    /// What a test compares of an error: everything but the underlying SQLite error.
    static func summary(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch let error as PersistenceError {
            return "\(error.code) \(error.message) key: \(error.key ?? "-") id: \(error.objectID.map { "\($0)" } ?? "-") sql: \(error.sql ?? "-")"
        } catch {
            return "\(error)"
        }
    }

    private func sqliteStore(of context: ManagedObjectContext) throws -> SQLiteStore {
        try #require(context.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
    }

    /// A new context on a new coordinator of `model` with the SQLite store in `directory`.
    private static func context(of model: ManagedObjectModel, storeIn directory: TemporaryDirectory) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    /// A value as a test compares it.
    private func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let object = value as? ManagedObject { return "object \(object.objectID)" }
        return "\(type(of: value)) \(value)"
    }

    /// The attribute and to-one values of `values`, a row of `entity`, described.
    private func describeRow(_ values: PropertyValues, of entity: EntityDescription) -> [String] {
        entity.properties.filter { !entity.isToManyByIndex[$0.index] }.map { "\($0.name): \(describe(values[$0.index]))" }
    }

    @Test func rowsDecodeIntoTheValuesTheRecordPathGives() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let store = try sqliteStore(of: context)
        let entity = try #require(file.model.entity(named: "Reading"))

        var expected: [ManagedObjectID: [String]] = [:]
        for id in file.readings {
            let record = try #require(try store.faultRecord(for: id))
            expected[id] = describeRow(try context.objectValues(from: record, of: context.object(with: id)), of: entity)
        }
        // A fault fired alone, a batch, a fetch.
        for id in file.readings {
            var sink = KeepingSink(context: context)
            #expect(try store.readFaultRow(for: id, into: &sink))
            #expect(sink.rows.map(\.id) == [id])
            #expect(sink.rows.first.map { describeRow($0.values, of: entity) } == expected[id])
            #expect(sink.rows.first?.version == 1)
        }
        var batch = KeepingSink(context: context)
        try store.readFaultRows(for: file.readings, into: &batch)
        #expect(Set(batch.rows.map(\.id)) == Set(file.readings))
        for row in batch.rows { #expect(describeRow(row.values, of: entity) == expected[row.id]) }
        var fetched = KeepingSink(context: context)
        let applied = try store.readFetchRows(StoreFetchRequest(entity: entity, includesSubentities: true), into: &fetched)
        #expect(applied == (true, true))
        #expect(fetched.rows.count == 3)
        for row in fetched.rows { #expect(describeRow(row.values, of: entity) == expected[row.id]) }

        // And through the context: the objects hold them.
        let reader = try file.open()
        let readings = try reader.fetch(FetchRequest<TestReading>(entityName: "Reading", sortDescriptors: [KeyPathSortDescriptor(key: "label")]))
        #expect(readings.map { describeRow($0.fetchedRow, of: entity) } == file.readings.map { expected[$0] })
        for reading in readings { try reading.fireFault() }
        #expect(readings.map { describeRow($0.values, of: entity) } == file.readings.map { expected[$0] })
    }

    static let damages: [String] = [
        "ZLEVEL = 100000", "ZLEVEL = NULL", "ZCOUNT32 = 3000000000", "ZTOTAL = 0.5", "ZFLAG = 2", "ZRATIO = x'00'",
        "ZSINGLE = 1e300", "ZTAKEN = 'yesterday'", "ZAMOUNT = '12abc'", "ZLABEL = x'FFFE'", "ZSOURCE = NULL",
        "ZBYTES = 'text'", "ZSENSOR = x'0102'", "Z_OPT = 'v2'", "Z_OPT = 0", "ZSTATION = 'S'", "ZSTATION = 2.5",
    ]

    /// Each refusal of a damaged row reaches the fault fired alone, the batch and the fetch
    /// with the error the record path gives, word for word.
    @Test(arguments: damages)
    func aDamagedRowIsRefusedWithTheRecordPathsError(_ damage: String) throws {
        let file = try ReadingStore()
        try file.damage("UPDATE ZREADING SET \(damage) WHERE Z_PK = \(try file.key(1))")
        let context = try file.open()
        let store = try sqliteStore(of: context)
        let id = file.readings[1]
        let entity = try #require(file.model.entity(named: "Reading"))
        let request = StoreFetchRequest(entity: entity, includesSubentities: true)

        let fault = Self.summary { _ = try store.faultRecord(for: id) }
        #expect(fault.hasPrefix("\(PersistenceError.Code.operationFailed)"), "\(fault)")
        #expect(Self.summary { var sink = KeepingSink(context: context); _ = try store.readFaultRow(for: id, into: &sink) } == fault)
        let batch = Self.summary { _ = try store.faultRecords(for: file.readings) }
        #expect(batch.hasPrefix("\(PersistenceError.Code.operationFailed)"), "\(batch)")
        #expect(Self.summary { var sink = KeepingSink(context: context); try store.readFaultRows(for: file.readings, into: &sink) } == batch)
        let fetch = Self.summary { _ = try store.fetch(request) }
        #expect(fetch.hasPrefix("\(PersistenceError.Code.operationFailed)"), "\(fetch)")
        #expect(Self.summary { var sink = KeepingSink(context: context); _ = try store.readFetchRows(request, into: &sink) } == fetch)

        // Through a context: the fault fired alone throws it; the batch's damaged fault alone.
        #expect(Self.summary { try context.object(with: id).fireFault() } == fault)
        #expect(Self.summary { _ = try context.fetch(FetchRequest<TestReading>(entityName: "Reading")) } == fetch)
        let batchContext = try file.open()
        var batched = FetchRequest<TestReading>(entityName: "Reading", predicate: try KeyValuePredicate(format: "label != nil"))
        batched.fetchBatchSize = 10
        let objects = try batchContext.fetch(batched)
        let damaged = try #require(objects.first { $0.objectID == id })
        #expect(Self.summary { try damaged.fireFault() } == fault)
        #expect(damaged.isFault)
        #expect(objects.filter { $0.objectID != id }.map(\.label).sorted() == ["r0", "r2"])
    }

    @Test func aFaultFiredAloneRelatesTheRegisteredObjectOrANewFault() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let station = try context.existingObject(with: file.station)
        let first = try #require(try context.existingObject(with: file.readings[0]) as? TestReading)
        #expect(first.station === station)

        let other = try file.open()
        let second = try #require(try other.existingObject(with: file.readings[1]) as? TestReading)
        let related = try #require(second.station)
        #expect(related.isFault && related.objectID == file.station)
        #expect(other.registeredObject(for: file.station) === related)
        // The to-many relationship stays a fault until read, then reads its IDs.
        #expect(related.name == "S")
        #expect(Set(related.readings.map(\.objectID)) == Set(file.readings))
        #expect(related.readings.contains(second))
    }

    @Test func eachReadCostsOneStatement() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let store = try sqliteStore(of: context)
        var before = store.statementCount
        let reading = context.object(with: file.readings[0])
        try reading.fireFault()
        #expect(store.statementCount == before + 1)

        let batchContext = try file.open()
        let batchStore = try sqliteStore(of: batchContext)
        var request = FetchRequest<TestReading>(entityName: "Reading", predicate: try KeyValuePredicate(format: "label != nil"))
        request.fetchBatchSize = 10
        let objects = try batchContext.fetch(request)
        before = batchStore.statementCount
        try objects[0].fireFault()
        #expect(batchStore.statementCount == before + 1)
        #expect(objects.allSatisfy { !$0.isFault || $0.fetchedRow.hasBuffer })

        let fetchContext = try file.open()
        let fetchStore = try sqliteStore(of: fetchContext)
        before = fetchStore.statementCount
        var loaded = FetchRequest<TestReading>(entityName: "Reading")
        loaded.returnsObjectsAsFaults = false
        let fetched = try fetchContext.fetch(loaded)
        #expect(fetchStore.statementCount == before + 1)
        #expect(fetched.count == 3 && fetched.allSatisfy { !$0.isFault })
    }

    @Test func aLoadedObjectKeepsItsChangesAndAFaultTakesTheFresherRow() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let readings = try context.fetch(FetchRequest<TestReading>(entityName: "Reading", sortDescriptors: [KeyPathSortDescriptor(key: "label")]))
        let changed = readings[0], fault = readings[1]
        changed.label = "changed"
        try file.damage("UPDATE ZREADING SET ZLABEL = 'saved elsewhere', Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(try file.key(0)), \(try file.key(1)))")

        let again = try context.fetch(FetchRequest<TestReading>(entityName: "Reading"))
        #expect(again.count == 3)
        #expect(changed.label == "changed" && changed.hasChanges)
        #expect(!changed.fetchedRow.hasBuffer)
        #expect(fault.isFault)
        #expect(fault.label == "saved elsewhere")
        #expect(fault.snapshotVersion == 2)
    }

    @Test func transformableAttributesGoThroughTheirTransformerOnEveryPath() throws {
        let name = PrefixingTransformer.registerUniquely(for: "SQLiteTypedRowTests", prefix: "A")
        defer { ValueTransformerRegistry.unregister(name: name) }
        let model = try ManagedObjectModel {
            Entity("Box") {
                Property("payload", .transformable, transformer: name)
                Property("title", .string)
                Property("scratch", .string, transient: true, defaultValue: "initial")
            }
        }
        let entity = try #require(model.entity(named: "Box"))
        let directory = try TemporaryDirectory()
        func open() throws -> ManagedObjectContext { try Self.context(of: model, storeIn: directory) }
        let writer = try open()
        var boxes: [ManagedObject] = []
        for index in 0..<3 {
            let box = ManagedObject(entity: entity, insertInto: writer)
            try box.setValue("hello \(index)", forKey: "payload")
            try box.setValue("box \(index)", forKey: "title")
            boxes.append(box)
        }
        try writer.save()
        let ids = boxes.map(\.objectID)
        #expect(ids.allSatisfy { !$0.isTemporaryID })

        let alone = try open()
        let box = try alone.existingObject(with: ids[0])
        #expect(try box.value(forKey: "payload") as? String == "hello 0")
        #expect(try box.value(forKey: "scratch") as? String == "initial")

        let fetching = try open()
        let fetched = try fetching.fetch(FetchRequest<ManagedObject>(entityName: "Box", sortDescriptors: [KeyPathSortDescriptor(key: "title")]))
        #expect(try fetched.map { try $0.value(forKey: "payload") as? String } == ["hello 0", "hello 1", "hello 2"])
        #expect(try fetched.map { try $0.value(forKey: "scratch") as? String } == ["initial", "initial", "initial"])

        let batching = try open()
        var request = FetchRequest<ManagedObject>(entityName: "Box", predicate: try KeyValuePredicate(format: "title != nil"))
        request.fetchBatchSize = 5
        let batch = try batching.fetch(request)
        try batch[0].fireFault()
        #expect(batch.allSatisfy { !$0.isFault || $0.fetchedRow.hasBuffer })
        #expect(Set(try batch.map { try $0.value(forKey: "payload") as? String }) == ["hello 0", "hello 1", "hello 2"])

        // A transformer that cannot read the value: the fault fired alone throws; a fetch and a
        // batch leave the fault without a row, which throws when it fires.
        ValueTransformerRegistry.register(PrefixingTransformer(prefix: "B"), forName: name)
        let failing = try open()
        #expect((#expect(throws: PersistenceError.self) { try failing.object(with: ids[0]).fireFault() })?.code == .operationFailed)
        let failingFetch = try open()
        let faults = try failingFetch.fetch(FetchRequest<ManagedObject>(entityName: "Box"))
        #expect(faults.count == 3 && faults.allSatisfy { $0.isFault && !$0.fetchedRow.hasBuffer })
        #expect((#expect(throws: PersistenceError.self) { try faults[0].fireFault() })?.code == .operationFailed)
        let failingBatch = try open()
        let batchFaults = try failingBatch.fetch(request)
        #expect((#expect(throws: PersistenceError.self) { try batchFaults[0].fireFault() })?.code == .operationFailed)
        #expect(batchFaults.allSatisfy { $0.isFault && !$0.fetchedRow.hasBuffer })
    }

    /// Objects a fetch loads wake once the store has read every row: their `awakeFromFetch`
    /// may read the store (here a to-many relationship) and sees the rows read after theirs.
    @Test func objectsLoadedByAFetchWakeAfterTheStoreIsDone() throws {
        final class Shelf: ManagedObject {
            @Managed var name: String?
            @Managed var booksAtAwake: Int32
            override func awakeFromFetch() {
                let books = (try? value(forKey: "books")) as? Set<ManagedObject>
                booksAtAwake = Int32(books?.count ?? -1)
            }
        }
        let model = try ManagedObjectModel {
            Entity("Shelf", class: Shelf.self) {
                Property("name", .string)
                Property("booksAtAwake", .integer32, transient: true, defaultValue: 0)
                Property("books", to: "Book", inverse: "shelf", toMany: true)
            }
            Entity("Book") {
                Property("title", .string)
                Property("shelf", to: "Shelf", inverse: "books")
            }
        }
        let directory = try TemporaryDirectory()
        func open() throws -> ManagedObjectContext { try Self.context(of: model, storeIn: directory) }
        let writer = try open()
        for (index, count) in [2, 0, 3].enumerated() {
            let shelf = Shelf(context: writer)
            shelf.name = "shelf \(index)"
            for number in 0..<count {
                let book = try writer.insertNewObject(forEntityName: "Book")
                try book.setValue("book \(number)", forKey: "title")
                try book.setValue(shelf, forKey: "shelf")
            }
        }
        try writer.save()

        let reader = try open()
        var request = FetchRequest<Shelf>(entityName: "Shelf", sortDescriptors: [KeyPathSortDescriptor(key: "name")])
        request.returnsObjectsAsFaults = false
        let shelves = try reader.fetch(request)
        #expect(shelves.allSatisfy { !$0.isFault })
        #expect(shelves.map(\.booksAtAwake) == [2, 0, 3])
        #expect(!reader.hasChanges)
    }

    /// A sink whose rows land in a buffer of its own: the store must never copy it (a copy of a
    /// sink gathering objects would copy them all at each row, a fetch quadratic in its rows).
    struct UniqueBufferSink: ContextRowSink {
        final class Rows { var ids: [ManagedObjectID] = [] }
        let context: ManagedObjectContext
        var rows = Rows()
        var sharedAtSomeRow = false

        mutating func receiveRow(_ id: ManagedObjectID, version: Int64, values: consuming PropertyValues) {
            if !isKnownUniquelyReferenced(&rows) { sharedAtSomeRow = true }
            rows.ids.append(id)
        }
    }

    @Test func theStoreNeverCopiesTheSink() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let store = try sqliteStore(of: context)
        let entity = try #require(file.model.entity(named: "Reading"))
        var fetched = UniqueBufferSink(context: context)
        _ = try store.readFetchRows(StoreFetchRequest(entity: entity, includesSubentities: true), into: &fetched)
        #expect(fetched.rows.ids.count == 3 && !fetched.sharedAtSomeRow)
        var batch = UniqueBufferSink(context: context)
        try store.readFaultRows(for: file.readings, into: &batch)
        #expect(batch.rows.ids.count == 3 && !batch.sharedAtSomeRow)
        var alone = UniqueBufferSink(context: context)
        #expect(try store.readFaultRow(for: file.readings[0], into: &alone))
        #expect(alone.rows.ids.count == 1 && !alone.sharedAtSomeRow)
    }

    /// The attribute values of each reading, fired alone, from a batch and from a fetch, by key.
    private func valuesOnEveryPath(_ file: ReadingStore, keys: [String]) throws -> [[String]] {
        func describeAll(_ objects: [ManagedObject]) throws -> [[String]] {
            try file.readings.map { id in
                let object = try #require(objects.first { $0.objectID == id })
                return try keys.map { "\($0): \(describe(try object.value(forKey: $0)))" }
            }
        }
        let alone = try file.open()
        let fired = try file.readings.map { id in
            let object = alone.object(with: id)
            try object.fireFault()
            return object
        }
        let batchContext = try file.open()
        var batched = FetchRequest<TestReading>(entityName: "Reading")
        batched.fetchBatchSize = 10
        let batch: [ManagedObject] = try batchContext.fetch(batched)
        let fetchContext = try file.open()
        let fetched: [ManagedObject] = try fetchContext.fetch(FetchRequest<TestReading>(entityName: "Reading"))
        let paths = [try describeAll(fired), try describeAll(batch), try describeAll(fetched)]
        #expect(paths[1] == paths[0] && paths[2] == paths[0])
        return paths[0]
    }

    /// Decoded straight into the slots, a NULL column of an optional attribute reads as nil and
    /// a zero as zero, whatever the type, on every path.
    @Test func nullReadsAsNilAndZeroAsZeroOnEveryPath() throws {
        let file = try ReadingStore()
        try file.damage(
            "UPDATE ZREADING SET ZCOUNT32 = NULL, ZTOTAL = NULL, ZFLAG = NULL, ZRATIO = NULL, ZSINGLE = NULL WHERE Z_PK = \(try file.key(0))")
        try file.damage("UPDATE ZREADING SET ZCOUNT32 = 0, ZTOTAL = 0, ZFLAG = 0, ZRATIO = 0.0, ZSINGLE = 0.0 WHERE Z_PK = \(try file.key(1))")
        try file.damage("UPDATE ZREADING SET ZCOUNT32 = 7.0, ZTOTAL = 8.0, ZFLAG = 1.0, ZRATIO = 3, ZSINGLE = 4 WHERE Z_PK = \(try file.key(2))")
        let values = try valuesOnEveryPath(file, keys: ["count32", "total", "flag", "ratio", "single", "level"])
        #expect(values == [
            ["count32: nil", "total: nil", "flag: nil", "ratio: nil", "single: nil", "level: Int16 0"],
            ["count32: Int32 0", "total: Int64 0", "flag: Bool false", "ratio: Double 0.0", "single: Float 0.0", "level: Int16 1"],
            ["count32: Int32 7", "total: Int64 8", "flag: Bool true", "ratio: Double 3.0", "single: Float 4.0", "level: Int16 2"],
        ])
    }

    /// A batch whose faults come in no particular order of their keys, one of whose records is
    /// gone, still gives each fault its own row in one statement; the fault of the gone record
    /// throws `objectNotFound` (133000) when it fires.
    @Test func aBatchMatchesRowsToFaultsInAnyOrderOfKeys() throws {
        let file = try ReadingStore()
        let context = try file.open()
        let store = try sqliteStore(of: context)
        let faults = file.readings.reversed().map { context.object(with: $0) }
        try file.damage("DELETE FROM ZREADING WHERE Z_PK = \(try file.key(1))")
        let before = store.statementCount
        context.loadBatch(FaultBatch(objectIDs: faults.map(\.objectID)))
        #expect(store.statementCount == before + 1)
        #expect(faults.map(\.fetchedRow.hasBuffer) == [true, false, true])
        let labels = try [faults[0], faults[2]].map { try #require($0.value(forKey: "label") as? String) }
        #expect(labels == ["r2", "r0"])
        #expect(store.statementCount == before + 1)
        #expect { try faults[1].fireFault() } throws: { PersistenceError.Code.objectNotFound ~= $0 }
        #expect(PersistenceError.Code.objectNotFound.rawValue == 133000)

        // Rows of records not asked for are ignored.
        let other = try file.open()
        let asked = other.object(with: file.readings[2])
        var sink = FaultBatchRowSink(context: other, faults: [asked], read: other.persistentStoreCoordinator.savedRecords.read())
        try sqliteStore(of: other).readFaultRows(for: [file.readings[0], file.readings[2]], into: &sink)
        #expect(asked.fetchedRow.hasBuffer)
        #expect(other.registeredObject(for: file.readings[0]) == nil)
    }

    /// Two reading stores in one coordinator (the second's labels prefixed with "second "), and
    /// a context of it.
    private func twoStores() throws -> (ReadingStore, ReadingStore, PersistentStoreCoordinator, ManagedObjectContext) {
        let first = try ReadingStore(), second = try ReadingStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: first.model)
        try coordinator.addPersistentStore(type: .sqlite, at: first.directory.file())
        try coordinator.addPersistentStore(type: .sqlite, at: second.directory.file())
        try second.damage("UPDATE ZREADING SET ZLABEL = 'second ' || ZLABEL")
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        return (first, second, coordinator, context)
    }

    /// A context whose faults belong to two stores of its coordinator fires each from its own
    /// store, alternating (the context keeps the last store at hand).
    @Test func faultsOfTwoStoresFireFromTheirOwnStores() throws {
        let (first, second, coordinator, context) = try twoStores()
        var labels: [String] = []
        for index in 0..<3 {
            for file in [first, second] {
                // The ID as this coordinator's model names it.
                let id = try #require(coordinator.managedObjectID(forURIRepresentation: file.readings[index].uriRepresentation()))
                let object = context.object(with: id)
                try object.fireFault()
                labels.append(try #require(object.value(forKey: "label") as? String))
            }
        }
        #expect(labels == ["r0", "second r0", "r1", "second r1", "r2", "second r2"])
    }

    /// A batch whose faults belong to two stores of its coordinator reads each fault's row from
    /// its own store when its first fault fires.
    @Test func aBatchOfFaultsOfTwoStoresReadsEachRowFromItsOwnStore() throws {
        let (_, _, _, context) = try twoStores()
        var request = FetchRequest<TestReading>(entityName: "Reading")
        request.fetchBatchSize = 10
        let readings = try context.fetch(request)
        #expect(readings.count == 6)
        #expect(readings.allSatisfy { $0.isFault && $0.faultBatch === readings[0].faultBatch })
        _ = readings[0].label
        #expect(readings.allSatisfy { $0 === readings[0] || ($0.isFault && $0.fetchedRow.hasBuffer) })
        #expect(readings.map(\.label).sorted() == ["r0", "r1", "r2", "second r0", "second r1", "second r2"])
    }
}
