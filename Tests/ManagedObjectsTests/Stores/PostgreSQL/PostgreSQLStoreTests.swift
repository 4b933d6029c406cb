import Foundation
import Testing
@testable import ManagedObjects

extension PostgreSQLTests {
    @Suite struct StoreTests {
        /// Writes one record with `values` in a new store, opens the database again, and reads it back.
        private func roundTrip(_ values: [StoreValue]) throws -> StoreRecord? {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try SQLiteTypeTests.makeModel()
            let entity = try #require(model.entity(named: "Everything"))
            let store = try PostgreSQLStore(url: database.url, model: model)
            let key = try #require(try store.newPrimaryKeys(for: entity, count: 1).first)
            let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: key))
            var changes = SaveChanges()
            changes.inserted = [StoreRecord(objectID: id, version: 1, values: values)]
            try store.apply(changes)
            let reopened = try PostgreSQLStore(url: database.url, model: try SQLiteTypeTests.makeModel())
            #expect(reopened.identifier == store.identifier)
            return try reopened.record(for: id)
        }

        @Test func everyTypeRoundTripsExactly() throws {
            let date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
            let values: [StoreValue] = [
                .integer(Int64(Int16.min)), .integer(Int64(Int32.max)), .integer(Int64.min),
                .double(-0.1), .double(Double(Float(3.25))), .decimal(Decimal(string: "-1234.5678") ?? 0),
                .string("héllo, 世界 and \"quotes\" and 'apostrophes'"), .boolean(true), .date(date),
                .data(Data([0, 1, 2, 255])), .uuid(UUID()), .uri(URL(string: "https://example.com/a?b=c#d") ?? URL(fileURLWithPath: "/")),
                .data(Data("transformed".utf8)), .null,
            ]
            let record = try #require(try roundTrip(values))
            #expect(record.values == values)
            #expect(record.version == 1)
        }

        @Test(arguments: SQLiteTypeTests.decimals)
        func decimalsRoundTripExactly(_ decimal: Decimal) throws {
            var values = [StoreValue](repeating: .null, count: 14)
            values[5] = .decimal(decimal)
            let record = try #require(try roundTrip(values))
            #expect(record.values[5] == .decimal(decimal))
        }

        @Test func extremeDoublesRoundTrip() throws {
            for double in [Double.infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-300, 0.1 + 0.2] {
                var values = [StoreValue](repeating: .null, count: 14)
                values[3] = .double(double)
                let record = try #require(try roundTrip(values))
                #expect(record.values[3] == .double(double), "\(double)")
            }
        }

        @Test func emptyValuesAndNilStayDistinct() throws {
            let values: [StoreValue] = [
                .integer(0), .null, .null, .double(0), .null, .null, .string(""), .boolean(false),
                .date(Date(timeIntervalSinceReferenceDate: -1.5)), .data(Data()), .null, .null, .null, .null,
            ]
            let record = try #require(try roundTrip(values))
            #expect(record.values == values)
        }

        @Test func aStringHoldingNULFailsTheSaveAndWritesNothing() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let ada = TestEmployee(context: context)
            ada.firstName = "Ada"
            let bad = TestEmployee(context: context)
            bad.firstName = "a\u{0}b"
            #expect {
                try context.save()
            } throws: { error in
                (error as? PersistenceError)?.code == .saveFailed
            }
            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            #expect(try reader.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 0)
        }

        @Test func theSchemaUsesPostgreSQLTypesAndASequencePerTable() throws {
            let database = try TemporaryPostgreSQLDatabase()
            _ = try PostgreSQLStore(url: database.url, model: try SQLiteTypeTests.makeModel())
            let connection = try database.connect()
            let result = try connection.run(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'ZEVERYTHING' ORDER BY ordinal_position")
            var types: [String: String] = [:]
            for row in 0..<result.rowCount { types[result.text(row, 0) ?? ""] = result.text(row, 1) }
            #expect(types["Z_PK"] == "bigint")
            #expect(types["ZINT16"] == "smallint")
            #expect(types["ZINT32"] == "integer")
            #expect(types["ZINT64"] == "bigint")
            #expect(types["ZDOUBLE"] == "double precision")
            #expect(types["ZDATE"] == "double precision")
            #expect(types["ZDECIMAL"] == "numeric")
            #expect(types["ZSTRING"] == "text")
            #expect(types["ZBOOLEAN"] == "boolean")
            #expect(types["ZDATA"] == "bytea")
            #expect(types["ZUUID"] == "uuid")
            #expect(types["ZSCRATCH"] == nil)
            let sequences = try connection.run("SELECT sequence_name FROM information_schema.sequences")
            #expect(sequences.rowCount == 1)
            #expect(sequences.text(0, 0) == "Z_SEQ_EVERYTHING")
        }

        @Test func aSecondCoordinatorSeesTheSavedObjectsUnderTheSameIDs() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let first = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try first.addPersistentStore(type: .postgreSQL, at: database.url)
            let writer = ManagedObjectContext(coordinator: first, notificationCenter: NotificationCenter())
            let research = TestDepartment(context: writer)
            research.name = "Research"
            research.budget = Decimal(string: "1234.50") ?? 0
            let ada = TestEmployee(context: writer)
            ada.firstName = "Ada"
            ada.department = research
            let project = TestProject(context: writer)
            project.title = "Engine"
            ada.projects = [project]
            try writer.save()

            let second = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try second.addPersistentStore(type: .postgreSQL, at: database.url)
            #expect(second.persistentStores.first?.identifier == first.persistentStores.first?.identifier)
            let reader = ManagedObjectContext(coordinator: second, notificationCenter: NotificationCenter())
            let read = try #require(try reader.existingObject(with: ada.objectID) as? TestEmployee)
            #expect(read.firstName == "Ada")
            #expect(read.department?.name == "Research")
            #expect(read.department?.budget == Decimal(string: "1234.50"))
            #expect(read.projects.map(\.title) == ["Engine"])
            #expect(read.department?.employees.map(\.firstName) == ["Ada"])
        }

        @Test func aDatabaseWrittenWithAnotherModelIsRefused() throws {
            let database = try TemporaryPostgreSQLDatabase()
            _ = try PostgreSQLStore(url: database.url, model: try makeTestModel())
            #expect {
                try PostgreSQLStore(url: database.url, model: try SQLiteTypeTests.makeModel())
            } throws: { error in
                guard let error = error as? PersistenceError, error.code == .incompatibleModel else { return false }
                return error.message.contains("Everything") && error.message.contains(database.name)
            }
        }

        @Test func aDatabaseWithOtherTablesIsRefused() throws {
            let database = try TemporaryPostgreSQLDatabase()
            try database.connect().execute("CREATE TABLE customers (id bigint)")
            #expect {
                try PostgreSQLStore(url: database.url, model: try makeTestModel())
            } throws: { error in
                (error as? PersistenceError)?.code == .invalidStore && (error as? PersistenceError)?.message.contains("customers") == true
            }
        }

        @Test func twoCoordinatorsInsertingAtOnceGetDifferentKeys() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let model = try makeTestModel()
            let entity = try #require(model.entity(named: "Employee"))
            let first = try PostgreSQLStore(url: database.url, model: model)
            let second = try PostgreSQLStore(url: database.url, model: model)
            var keys: [Int64] = []
            for _ in 0..<5 {
                keys += try first.newPrimaryKeys(for: entity, count: 3)
                keys += try second.newPrimaryKeys(for: entity, count: 2)
            }
            #expect(Set(keys).count == 25)
        }

        @Test func aWrongPasswordOrAMissingDatabaseIsAConnectionErrorWithoutThePassword() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            let wrong = PostgreSQLTestServer.url(database.url, password: "wrong-secret")
            do {
                try coordinator.addPersistentStore(type: .postgreSQL, at: wrong)
                Issue.record("opened with a wrong password")
            } catch let error as PersistenceError {
                #expect(error.code == .connectionFailed)
                #expect(error.message.contains(database.name))
                #expect(!error.description.contains("wrong-secret"))
                #expect(!"\(error.errorUserInfo)".contains("wrong-secret"))
            }
            let missing = PostgreSQLTestServer.url(database.url, database: database.name + "_missing")
            #expect {
                try coordinator.addPersistentStore(type: .postgreSQL, at: missing)
            } throws: { error in
                (error as? PersistenceError)?.code == .connectionFailed
                    && (error as? PersistenceError)?.message.contains(database.name + "_missing") == true
            }
            #expect(coordinator.persistentStores.isEmpty)
        }

        @Test func theStoreURLLeavesThePasswordOut() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let store = try PostgreSQLStore(url: database.url, model: try makeTestModel())
            let password = try #require(URLComponents(url: database.url, resolvingAgainstBaseURL: false)?.password)
            #expect(store.url?.absoluteString.contains(password) == false)
            #expect(store.url?.absoluteString.contains(database.name) == true)
        }

        @Test func aLostConnectionFailsOneOperationAndTheNextReconnects() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let ada = TestEmployee(context: context)
            ada.firstName = "Ada"
            try context.save()
            try database.terminateConnections()
            ada.firstName = "Augusta"
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? PersistenceError else { return false }
                return error.code == .connectionFailed && error.message.contains(database.name)
            }
            #expect(ada.hasChanges)
            try context.save()
            let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let read = try #require(try reader.existingObject(with: ada.objectID) as? TestEmployee)
            #expect(read.firstName == "Augusta")
        }

        @Test func aSaveIsOneTransaction() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let store = try PostgreSQLStore(url: database.url, model: try makeTestModel())
            let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
            coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            for name in ["Ada", "Grace", "Alan"] {
                TestEmployee(context: context).firstName = name
            }
            let statements = try store.recordingSQL { try context.save() }
            #expect(statements.filter { $0 == "BEGIN" }.count == 1)
            #expect(statements.filter { $0 == "COMMIT" }.count == 1)
        }
    }
}

extension PostgreSQLTests {
    @Suite struct ChangeListenerTests {
        @Test func aListenerReportsAnotherCoordinatorsSaveForMerging() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let writerCoordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try writerCoordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            let writer = ManagedObjectContext(coordinator: writerCoordinator, notificationCenter: NotificationCenter())
            let ada = TestEmployee(context: writer), grace = TestEmployee(context: writer)
            ada.firstName = "Ada"
            grace.firstName = "Grace"
            try writer.save()

            let readerCoordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            let store = try #require(try readerCoordinator.addPersistentStore(type: .postgreSQL, at: database.url) as? PostgreSQLStore)
            let listener = try store.makeChangeListener()
            let center = NotificationCenter()
            let reader = ManagedObjectContext(coordinator: readerCoordinator, notificationCenter: center)
            let readAda = try #require(try reader.existingObject(with: ada.objectID) as? TestEmployee)
            _ = try reader.existingObject(with: grace.objectID)
            #expect(readAda.firstName == "Ada")
            #expect(try listener.nextChanges(waitingUpTo: 0) == nil)

            ada.firstName = "Augusta"
            writer.delete(grace)
            let alan = TestEmployee(context: writer)
            alan.firstName = "Alan"
            try writer.save()

            let changes = try #require(try listener.nextChanges(waitingUpTo: 10))
            #expect(changes.name == PostgreSQLChangeListener.remoteChangeNotification)
            #expect(changes.userInfo?[ManagedObjectContext.updatedObjectIDsKey] as? Set<ManagedObjectID> == [ada.objectID])
            #expect(changes.userInfo?[ManagedObjectContext.deletedObjectIDsKey] as? Set<ManagedObjectID> == [grace.objectID])
            #expect(changes.userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID> == [alan.objectID])

            let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: center)
            reader.mergeChanges(fromContextDidSave: changes)
            #expect(readAda.firstName == "Augusta")
            #expect(reader.registeredObjects.contains { $0.objectID == grace.objectID } == false)
            #expect(recorder.notifications.count == 1)

            // The reader's own saves are not reported to its listener.
            readAda.salary = 5
            try reader.save()
            #expect(try listener.nextChanges(waitingUpTo: 0.5) == nil)
        }

        @Test func aListenerWhoseConnectionBrokeReconnectsOnTheNextCall() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let other = try PostgreSQLStore(url: database.url, model: try makeTestModel())
            let listener = try other.makeChangeListener()
            try database.terminateConnections()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            #expect {
                try listener.nextChanges(waitingUpTo: 2)
            } throws: { error in
                (error as? PersistenceError)?.code == .connectionFailed
            }
            #expect(try listener.nextChanges(waitingUpTo: 0) == nil)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            TestEmployee(context: context).firstName = "Ada"
            try context.save()
            let changes = try #require(try listener.nextChanges(waitingUpTo: 10))
            #expect((changes.userInfo?[ManagedObjectContext.insertedObjectIDsKey] as? Set<ManagedObjectID>)?.count == 1)
        }
    }
}
