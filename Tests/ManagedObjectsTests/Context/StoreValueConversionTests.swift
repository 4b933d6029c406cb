import Foundation
import Testing
@testable import ManagedObjects

/// The context converts a store's numbers to the attribute's width without loss or not at all:
/// whatever store hands over an integer outside an `Int16` attribute, the read throws instead
/// of wrapping it (100000 used to read as -31072, which the next save wrote back).
@Suite struct StoreValueConversionTests {
    @Test(arguments: [("age", StoreValue.integer(100_000)), ("age", .integer(-40_000))])
    func aNumberTheAttributeCannotHoldThrowsWhenRead(key: String, value: StoreValue) throws {
        let model = try makeTestModel()
        let store = InMemoryStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let entity = try #require(model.entity(named: "Employee"))
        let property = try #require(entity.propertiesByName[key])
        let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: 1))
        var values = [StoreValue](repeating: .null, count: entity.properties.count)
        values[property.index] = value
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(objectID: id, version: 1, values: values)]
        try store.apply(changes)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        #expect {
            _ = try context.existingObject(with: id).value(forKey: key)
        } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.code == .operationFailed && error.key == key && error.objectID == id
        }
    }

    /// Values live in slots of the attribute's own type: a store value of another kind that
    /// does not convert without loss (a string where an integer belongs) throws when read,
    /// instead of being kept in a slot that cannot hold it.
    @Test(arguments: [("age", StoreValue.string("forty")), ("salary", .string("high")), ("department", .integer(3))])
    func aValueOfAnotherKindThrowsWhenRead(key: String, value: StoreValue) throws {
        let model = try makeTestModel()
        let store = InMemoryStore()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        let entity = try #require(model.entity(named: "Employee"))
        let property = try #require(entity.propertiesByName[key])
        let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: store.identifier, primaryKey: 1))
        var values = [StoreValue](repeating: .null, count: entity.properties.count)
        values[property.index] = value
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(objectID: id, version: 1, values: values)]
        try store.apply(changes)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        #expect {
            _ = try context.existingObject(with: id).value(forKey: key)
        } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.code == .operationFailed && error.key == key && error.objectID == id
        }
    }
}
