import Foundation
import Testing

@testable import ManagedObjects

extension PostgreSQLTests {
    /// A fetch from the PostgreSQL store registers its new objects together, as from the SQLite
    /// store (see `FetchRegistrationTests`): a to-one relationship to a record of the same
    /// fetch finds the one object of that record, and the registry grows once.
    @Suite struct FetchRegistrationTests {
        typealias Nodes = ManagedObjectsTests.FetchRegistrationTests

        private func ring(of count: Int, linked: Bool = true, in database: TemporaryPostgreSQLDatabase) throws -> ManagedObjectContext {
            try Nodes.ring(of: count, linked: linked) { coordinator in
                try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            }
        }

        @Test(arguments: [true, false])
        func rowsRelatedToRowsOfTheSameFetchShareOneObjectPerRecord(asFaults: Bool) throws {
            let database = try TemporaryPostgreSQLDatabase()
            let context = try ring(of: 25, in: database)
            let nodes = try Nodes.fetchAll(context, asFaults: asFaults)
            #expect(nodes.count == 25)
            #expect(Set(nodes.map(ObjectIdentifier.init)).count == 25)
            #expect(nodes.allSatisfy { $0.isFault == asFaults })
            for (index, node) in nodes.enumerated() {
                #expect(try node.value(forKey: "next") as? ManagedObject === nodes[(index + 1) % nodes.count])
                #expect(try node.value(forKey: "previous") as? ManagedObject === nodes[(index + nodes.count - 1) % nodes.count])
                #expect(context.registeredObject(for: node.objectID) === node)
            }
            #expect(context.registered.count == 25)
            #expect(context.registered.checkInvariants())
        }

        @Test func aFetchGrowsTheRegistryOnceToThreeQuartersFull() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let context = try ring(of: 1_000, linked: false, in: database)
            let nodes = try Nodes.fetchAll(context)
            #expect(nodes.count == 1_000)
            #expect(context.registered.count == 1_000)
            #expect(context.registered.capacity == ObjectRegistry.capacity(for: 1_000))
            #expect(context.registered.checkInvariants())
            #expect(nodes.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
        }
    }
}
