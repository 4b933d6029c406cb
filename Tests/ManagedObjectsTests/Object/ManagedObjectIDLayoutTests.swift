import Foundation
import Testing

@testable import ManagedObjects

/// Object IDs are three words that compare and hash without touching a string, and behave as
/// before: equality by store, key and entity name; the URI round trip.
@Suite struct ManagedObjectIDLayoutTests {
    @Test func anIDIsThreeWords() {
        #expect(MemoryLayout<ManagedObjectID>.size <= 3 * MemoryLayout<Int>.size)
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
