import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    /// The PostgreSQL store decodes the rows of a fault fired alone, of a batch of faults and of
    /// a fetch straight into the objects' typed storage (`TypedRowReading`), as the SQLite store
    /// does: the values, the refusals of a damaged row and their errors are those of its record
    /// path.
    @Suite struct TypedRowTests {
        typealias KeepingSink = SQLiteTypedRowTests.KeepingSink

        /// A store of the `Everything` model holding two records: one with a value of every type
        /// but the transformable one (read through its transformer as on SQLite, see `SQLiteTypedRowTests`),
        /// one with every optional value NULL.
        struct EverythingStore {
            let database: TemporaryPostgreSQLDatabase
            let model: ManagedObjectModel
            let entity: EntityDescription
            let ids: [ManagedObjectID]

            init() throws {
                database = try TemporaryPostgreSQLDatabase()
                model = try SQLiteTypeTests.makeModel()
                let entity = try #require(model.entity(named: "Everything"))
                self.entity = entity
                let store = try PostgreSQLStore(url: database.url, model: model)
                let keys = try store.newPrimaryKeys(for: entity, count: 2)
                let ids = keys.map { ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: $0)) }
                self.ids = ids
                let full: [StoreValue] = [
                    .integer(-12), .integer(70_000), .integer(1 << 40), .double(2.5), .double(0.25), .decimal(Decimal(string: "12.75") ?? 0),
                    .string("héllo"), .boolean(true), .date(Date(timeIntervalSinceReferenceDate: 1_000)), .data(Data([1, 2, 3])),
                    .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()), .uri(URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/")),
                    .null, .null,
                ]
                var changes = SaveChanges()
                changes.inserted = [
                    StoreRecord(objectID: ids[0], version: 1, values: full),
                    StoreRecord(objectID: ids[1], version: 1, values: [StoreValue](repeating: .null, count: full.count)),
                ]
                try store.apply(changes)
            }

            func open() throws -> (ManagedObjectContext, PostgreSQLStore) {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                let store = try #require(try coordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
                return (ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()), store)
            }
        }

        /// The attribute values of `values`, described.
        private func describeRow(_ values: PropertyValues, of entity: EntityDescription) -> [String] {
            entity.properties.map { property in "\(property.name): " + (values[property.index].map { "\(type(of: $0)) \($0)" } ?? "nil") }
        }

        /// What a test compares of an error (see `SQLiteTypedRowTests.summary(_:)`).
        private func summary(_ body: () throws -> Void) -> String { SQLiteTypedRowTests.summary(body) }

        @Test func rowsDecodeIntoTheValuesTheRecordPathGives() throws {
            let file = try EverythingStore()
            let (context, store) = try file.open()
            var expected: [ManagedObjectID: [String]] = [:]
            for id in file.ids {
                let record = try #require(try store.faultRecord(for: id))
                expected[id] = describeRow(try context.objectValues(from: record, of: context.object(with: id)), of: file.entity)
            }
            #expect(expected[file.ids[0]]?.contains("string: String héllo") == true)
            for id in file.ids {
                var sink = KeepingSink(context: context)
                #expect(try store.readFaultRow(for: id, into: &sink))
                #expect(sink.rows.map(\.id) == [id])
                #expect(sink.rows.first?.version == 1)
                #expect(sink.rows.first.map { describeRow($0.values, of: file.entity) } == expected[id])
            }
            var batch = KeepingSink(context: context)
            try store.readFaultRows(for: file.ids, into: &batch)
            #expect(Set(batch.rows.map(\.id)) == Set(file.ids))
            for row in batch.rows { #expect(describeRow(row.values, of: file.entity) == expected[row.id]) }
            var fetched = KeepingSink(context: context)
            let applied = try store.readFetchRows(StoreFetchRequest(entity: file.entity, includesSubentities: true), into: &fetched)
            #expect(applied == (true, true))
            #expect(Set(fetched.rows.map(\.id)) == Set(file.ids))
            for row in fetched.rows { #expect(describeRow(row.values, of: file.entity) == expected[row.id]) }

            // An ID the store does not have reads no row.
            let missing = ManagedObjectID(entity: file.entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: 999))
            var none = KeepingSink(context: context)
            #expect(try !store.readFaultRow(for: missing, into: &none))
            #expect(none.rows.isEmpty)
        }

        static let damages: [String] = [
            #""ZFLOAT" = 1e300"#, #""ZDECIMAL" = 'NaN'"#, #""Z_OPT" = 0"#, #""Z_ENT" = 'Nowhere'"#,
        ]

        /// Each refusal of a damaged row reaches the fault fired alone, the batch and the fetch
        /// with the error the record path gives, word for word.
        @Test(arguments: damages)
        func aDamagedRowIsRefusedWithTheRecordPathsError(_ damage: String) throws {
            let file = try EverythingStore()
            try file.database.connect().run(#"UPDATE "ZEVERYTHING" SET "# + damage + #" WHERE "Z_PK" = "# + String(file.ids[0].primaryKey ?? 0))
            try expectTheRecordPathsRefusal(file)
        }

        /// Columns another writer gave another type, holding values the attribute's slot cannot
        /// take: the binary values are decoded straight into the slots, with the record path's
        /// checks (length, range, Boolean bytes).
        static let retypings: [String] = [
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZINT16" TYPE bigint; UPDATE "ZEVERYTHING" SET "ZINT16" = 70000"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZINT32" TYPE bigint; UPDATE "ZEVERYTHING" SET "ZINT32" = -3000000000"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZINT64" TYPE text USING 'x'"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZBOOLEAN" TYPE smallint USING 1"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZBOOLEAN" TYPE text USING 'y'"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZDOUBLE" TYPE smallint USING 2"#,
            #"ALTER TABLE "ZEVERYTHING" ALTER COLUMN "ZDATE" TYPE text USING 'later'"#,
        ]

        @Test(arguments: retypings)
        func aValueOfAnotherColumnTypeIsRefusedWithTheRecordPathsError(_ retyping: String) throws {
            let file = try EverythingStore()
            try file.database.connect().execute(retyping)
            try expectTheRecordPathsRefusal(file)
        }

        /// The fault fired alone, the batch and the fetch refuse `file`'s first record with the
        /// error the record path gives, word for word.
        private func expectTheRecordPathsRefusal(_ file: EverythingStore) throws {
            let (context, store) = try file.open()
            let request = StoreFetchRequest(entity: file.entity, includesSubentities: true)

            let batch = summary { _ = try store.faultRecords(for: file.ids) }
            #expect(batch.hasPrefix("\(PersistenceError.Code.operationFailed)"), "\(batch)")
            #expect(summary { var sink = KeepingSink(context: context); try store.readFaultRows(for: file.ids, into: &sink) } == batch)
            let fetch = summary { _ = try store.fetch(request) }
            #expect(fetch.hasPrefix("\(PersistenceError.Code.operationFailed)"), "\(fetch)")
            #expect(summary { var sink = KeepingSink(context: context); _ = try store.readFetchRows(request, into: &sink) } == fetch)
            let fault = summary { _ = try store.faultRecord(for: file.ids[0]) }
            #expect(summary { var sink = KeepingSink(context: context); _ = try store.readFaultRow(for: file.ids[0], into: &sink) } == fault)
            // Through a context: the fault fired alone gives the record path's answer.
            if fault == "no error" {
                // A row naming another entity is not the asked ID's row: the fault has no record.
                #expect((#expect(throws: PersistenceError.self) { try context.object(with: file.ids[0]).fireFault() })?.code == .objectNotFound)
            } else {
                #expect(summary { try context.object(with: file.ids[0]).fireFault() } == fault)
            }
            #expect(summary { _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Everything")) } == fetch)
        }

        @Test func eachReadCostsOneStatement() throws {
            let file = try EverythingStore()
            let (context, store) = try file.open()
            var before = store.statementCount
            let object = context.object(with: file.ids[0])
            try object.fireFault()
            #expect(store.statementCount == before + 1)
            #expect(try object.value(forKey: "string") as? String == "héllo")

            let (fetching, fetchStore) = try file.open()
            before = fetchStore.statementCount
            var loaded = FetchRequest<ManagedObject>(entityName: "Everything")
            loaded.returnsObjectsAsFaults = false
            let fetched = try fetching.fetch(loaded)
            #expect(fetchStore.statementCount == before + 1)
            #expect(fetched.count == 2 && fetched.allSatisfy { !$0.isFault })
        }
    }
}
