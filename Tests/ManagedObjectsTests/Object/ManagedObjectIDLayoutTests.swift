import Foundation
import Testing

@testable import ManagedObjects

/// Object IDs are two words (the entity and a key packing the store and the number) that
/// compare and hash without touching a string, and behave as before: equality by store, key and
/// entity name; the URI round trip; keys too wide for the word.
@Suite struct ManagedObjectIDLayoutTests {
    @Test func anIDIsTwoWords() {
        #expect(MemoryLayout<ManagedObjectID>.size == 2 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<ManagedObjectID.Key>.size == MemoryLayout<UInt64>.size)
    }

    /// Keys at and around the edges of what a key's word holds (±2⁴⁷), and far outside them.
    static let primaryKeys: [Int64] = {
        let edge: Int64 = 1 << 47
        return [0, 1, -1, 7, edge - 1, -edge, edge, -edge - 1, Int64.max, Int64.min, 0x7FFF_0000_0000_0001]
    }()

    @Test(arguments: primaryKeys)
    func everyPrimaryKeyRoundTripsWhetherItFitsTheWordOrNot(primaryKey: Int64) throws {
        let model = try makeTestModel()
        let employee = try #require(model.entity(named: "Employee"))
        let store = UUID().uuidString
        let id = ManagedObjectID(entity: employee, storeIdentifier: store, primaryKey: primaryKey)
        #expect(id.primaryKey == primaryKey)
        #expect(id.storeIdentifier == store)
        #expect(!id.isTemporaryID)
        let again = ManagedObjectID(entity: employee, storeIdentifier: store, primaryKey: primaryKey)
        #expect(id == again && id.hashValue == again.hashValue)
        #expect(id != ManagedObjectID(entity: employee, storeIdentifier: store, primaryKey: primaryKey &+ 1))
        #expect(id != ManagedObjectID(entity: employee, storeIdentifier: store + "x", primaryKey: primaryKey))
        #expect(ManagedObjectID.Key(store: id.key.store, number: id.key.number) == id.key)
    }

    @Test func aStoreNumberTooLargeForTheWordStillRoundTrips() {
        let key = ManagedObjectID.Key(store: 0x1_0000, number: 5)
        #expect(key.store == 0x1_0000 && key.number == 5 && !key.isTemporary)
        #expect(key == ManagedObjectID.Key(store: 0x1_0000, number: 5))
        #expect(key != ManagedObjectID.Key(store: 0xFFFE, number: 5))
        #expect(ManagedObjectID.Key(store: 0xFFFE, number: 5).store == 0xFFFE)
    }

    @Test func storeIdentitiesAreNumberedAndFoundByTheirNumber() throws {
        let first = StoreIdentity.interned(UUID().uuidString)
        let second = StoreIdentity.interned(UUID().uuidString)
        #expect(first.address > 0 && second.address > first.address)
        #expect(StoreIdentity.identity(at: first.address) === first)
        #expect(StoreIdentity.identity(at: second.address) === second)
        #expect(StoreIdentity.identity(at: 0) == nil)
        #expect(StoreIdentity.identity(at: .max) == nil)
        #expect(StoreIdentity.interned(String(first.identifier.reversed().reversed())) === first)
    }

    @Test func idsOfTheSameStoreIdentifierMadeSeparatelyAreEqualAndHashAlike() throws {
        let model = try makeTestModel()
        let employee = try #require(model.entity(named: "Employee"))
        let store = UUID().uuidString
        let first = ManagedObjectID(entity: employee, storeIdentifier: store, primaryKey: 7)
        // A string equal to `store` but built again, so that it is not the same storage.
        let second = ManagedObjectID(entity: employee, storeIdentifier: String(store.reversed().reversed()), primaryKey: 7)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(second.storeIdentifier == store)
        #expect(second.primaryKey == 7)
        #expect(!second.isTemporaryID)
    }

    @Test func idsDifferingInStoreKeyOrEntityAreUnequal() throws {
        let model = try makeTestModel()
        let employee = try #require(model.entity(named: "Employee"))
        let department = try #require(model.entity(named: "Department"))
        let id = ManagedObjectID(entity: employee, storeIdentifier: "A", primaryKey: 1)
        #expect(id != ManagedObjectID(entity: employee, storeIdentifier: "B", primaryKey: 1))
        #expect(id != ManagedObjectID(entity: employee, storeIdentifier: "A", primaryKey: 2))
        #expect(id != ManagedObjectID(entity: department, storeIdentifier: "A", primaryKey: 1))
        // The same entity name in another model names the same record.
        let otherModel = try makeTestModel()
        let otherEmployee = try #require(otherModel.entity(named: "Employee"))
        #expect(id == ManagedObjectID(entity: otherEmployee, storeIdentifier: "A", primaryKey: 1))
    }

    @Test func aTemporaryIDNeverEqualsAPermanentOneWithTheSameNumber() throws {
        let model = try makeTestModel()
        let employee = try #require(model.entity(named: "Employee"))
        let temporary = ManagedObjectID.temporary(for: employee)
        let number = try #require(temporary.key.temporaryNumber)
        let permanent = ManagedObjectID(entity: employee, storeIdentifier: "A", primaryKey: Int64(bitPattern: number))
        #expect(temporary.isTemporaryID)
        #expect(temporary.storeIdentifier == nil)
        #expect(temporary.primaryKey == nil)
        #expect(temporary != permanent)
    }

    @Test func uriRepresentationsRoundTripThroughTheCoordinator() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada", salary: 1)
        let temporary = employee.objectID
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: temporary.uriRepresentation()) == temporary)
        try stack.context.save()
        let permanent = employee.objectID
        let uri = permanent.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(permanent.storeIdentifier ?? "")/Employee/p\(permanent.primaryKey ?? 0)")
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == permanent)
    }
}
