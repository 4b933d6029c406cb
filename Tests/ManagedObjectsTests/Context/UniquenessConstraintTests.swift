import Foundation
import Testing

@testable import ManagedObjects

/// A save that would give two objects the same values of a uniqueness constraint throws
/// Core Data's constraint conflict and changes nothing, or, under a merge-by-property policy,
/// merges the new object into the saved one (an upsert). Every store enforces it.
@Suite struct UniquenessConstraintTests {
    static let storeTypes: [PersistentStoreType] = [.inMemory, .binary, .sqlite]

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Customer", uniquenessConstraints: [["email"], ["firstName", "lastName"]]) {
                Property("email", .string)
                Property("firstName", .string)
                Property("lastName", .string)
                Property("note", .string)
                Property("orders", to: "Order", inverse: "customer", toMany: true)
            }
            Entity("VIP", parent: "Customer") {
                Property("level", .integer16, defaultValue: 1)
            }
            Entity("Order") {
                Property("number", .integer64, defaultValue: 0)
                Property("customer", to: "Customer", inverse: "orders")
            }
            Entity("Line", uniquenessConstraints: [["order", "position"]]) {
                Property("position", .integer16, defaultValue: 0)
                Property("order", to: "Order")
            }
        }
    }

    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        /// Reads what the store has (reset before each read).
        let reader: ManagedObjectContext
        let directory: TemporaryDirectory

        init(_ type: PersistentStoreType) throws {
            directory = try TemporaryDirectory()
            coordinator = PersistentStoreCoordinator(managedObjectModel: try UniquenessConstraintTests.makeModel())
            try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
            context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        @discardableResult
        func customer(_ email: String?, first: String? = nil, last: String? = nil, note: String? = nil, entity: String = "Customer") throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(email, forKey: "email")
            try object.setValue(first, forKey: "firstName")
            try object.setValue(last, forKey: "lastName")
            try object.setValue(note, forKey: "note")
            return object
        }

        /// Every saved customer, read by a fresh context, sorted by email.
        func saved() throws -> [ManagedObject] {
            reader.reset()
            return try reader.fetch(FetchRequest<ManagedObject>(entityName: "Customer", sortDescriptors: [KeyPathSortDescriptor(key: "email")]))
        }
    }

    @Test(arguments: storeTypes)
    func aDuplicateOfASavedRecordThrowsAndLosesNothing(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let first = try stack.customer("a@example.com", first: "Ann", note: "first")
        try stack.context.save()
        let second = try stack.customer("a@example.com", first: "Anna")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.code == .constraintConflict)
        #expect(error?.errorCode == 133_021)
        let conflict = try #require(error?.constraintConflicts.first)
        #expect(error?.constraintConflicts.count == 1)
        #expect(conflict.entityName == "Customer" && conflict.constraint == ["email"])
        #expect(conflict.constraintValues == ["email": .string("a@example.com")])
        #expect(conflict.databaseObjectID == first.objectID)
        #expect(conflict.databaseSnapshot?["note"] == .string("first"))
        #expect(conflict.conflictingObjectIDs == [second.objectID])
        #expect((error as NSError?)?.userInfo["conflictList"] as? [String] != nil)
        // Nothing changed: the object is still inserted, and a corrected save goes through.
        #expect(stack.context.insertedObjects.contains(second))
        #expect(try stack.saved().count == 1)
        try second.setValue("b@example.com", forKey: "email")
        try stack.context.save()
        #expect(try stack.saved().count == 2)
    }

    @Test(arguments: storeTypes)
    func duplicatesWithinOneSaveConflictWithEachOther(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let one = try stack.customer("x@example.com")
        let two = try stack.customer("x@example.com")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.code == .constraintConflict)
        #expect(error?.constraintConflicts.first?.databaseObjectID == nil)
        #expect(Set(error?.constraintConflicts.first?.conflictingObjectIDs ?? []) == [one.objectID, two.objectID])
        #expect(try stack.saved().isEmpty)
    }

    @Test(arguments: storeTypes)
    func compoundConstraintsNeedEveryValueEqual(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        try stack.customer("1@x", first: "Ann", last: "Lee")
        try stack.customer("2@x", first: "Ann", last: "Kim")
        try stack.customer("3@x", first: "Ann", last: nil)
        try stack.customer("4@x", first: "Ann", last: nil)
        try stack.customer(nil)
        try stack.customer(nil)
        try stack.context.save()  // no value set in one property: no conflict, as in a SQL unique index
        try stack.customer("5@x", first: "Ann", last: "Lee")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.constraintConflicts.map(\.constraint) == [["firstName", "lastName"]])
    }

    @Test(arguments: storeTypes)
    func updatingToATakenValueConflictsButMovingValuesAlongDoesNot(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let ann = try stack.customer("ann@x")
        let bob = try stack.customer("bob@x")
        try stack.context.save()
        try bob.setValue("ann@x", forKey: "email")
        #expect((#expect(throws: PersistenceError.self) { try stack.context.save() })?.code == .constraintConflict)
        // Deleting the holder frees the value in the same save.
        stack.context.delete(ann)
        try stack.context.save()
        #expect(try stack.saved().map { try $0.value(forKey: "email") as? String } == ["ann@x"])
    }

    @Test(arguments: storeTypes)
    func subentitiesShareTheirSuperentitysConstraint(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        try stack.customer("vip@x")
        try stack.context.save()
        try stack.customer("vip@x", entity: "VIP")
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.code == .constraintConflict)
    }

    @Test(arguments: storeTypes)
    func objectTrumpMergesTheNewObjectIntoTheSavedRecord(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let saved = try stack.customer("a@x", first: "Ann", last: "Lee", note: "kept")
        let order = try stack.context.insertNewObject(forEntityName: "Order")
        try order.setValue(saved, forKey: "customer")
        try stack.context.save()
        stack.context.mergePolicy = .objectTrump
        let incoming = try stack.customer("a@x", first: "Anna")
        let newOrder = try stack.context.insertNewObject(forEntityName: "Order")
        try newOrder.setValue(incoming, forKey: "customer")
        try stack.context.save()
        // One object per constrained value, in memory and in the store.
        #expect(incoming.managedObjectContext == nil, "the new object left the context, as Core Data deletes it")
        #expect(try saved.value(forKey: "firstName") as? String == "Anna", "the values the new object set win")
        #expect(try saved.value(forKey: "lastName") as? String == "Lee", "values it did not set stay")
        #expect(try saved.value(forKey: "note") as? String == "kept")
        #expect(try newOrder.value(forKey: "customer") as? ManagedObject === saved, "relationships move to the saved object")
        let rows = try stack.saved()
        #expect(rows.count == 1)
        #expect(try rows[0].value(forKey: "firstName") as? String == "Anna")
        #expect(ManagedObject.objects(inCollection: try rows[0].value(forKey: "orders")).count == 2)
    }

    @Test(arguments: storeTypes)
    func storeTrumpKeepsTheSavedValuesAndFillsTheMissingOnes(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let saved = try stack.customer("a@x", first: "Ann")
        try stack.context.save()
        stack.context.mergePolicy = .storeTrump
        try stack.customer("a@x", first: "Anna", last: "Lee")
        try stack.context.save()
        #expect(try saved.value(forKey: "firstName") as? String == "Ann")
        #expect(try saved.value(forKey: "lastName") as? String == "Lee")
        #expect(try stack.saved().count == 1)
    }

    @Test(arguments: storeTypes)
    func aMergePolicyKeepsTheFirstOfSeveralNewObjects(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        stack.context.mergePolicy = .objectTrump
        let first = try stack.customer("n@x", note: "first")
        let second = try stack.customer("n@x", first: "Second")
        try stack.context.save()
        #expect(first.managedObjectContext === stack.context && second.managedObjectContext == nil)
        #expect(try first.value(forKey: "firstName") as? String == "Second")
        let rows = try stack.saved()
        #expect(rows.count == 1 && rows[0].objectID == first.objectID)
    }

    @Test(arguments: storeTypes)
    func aMergeThroughAFaultReadsTheSavedRecord(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        try stack.customer("f@x", note: "saved")
        try stack.context.save()
        let other = ManagedObjectContext(coordinator: stack.coordinator, notificationCenter: NotificationCenter())
        other.mergePolicy = .objectTrump
        let incoming = try other.insertNewObject(forEntityName: "Customer")
        try incoming.setValue("f@x", forKey: "email")
        try incoming.setValue("New", forKey: "firstName")
        try other.save()
        let rows = try stack.saved()
        #expect(rows.count == 1)
        #expect(try rows[0].value(forKey: "note") as? String == "saved")
        #expect(try rows[0].value(forKey: "firstName") as? String == "New")
    }

    @Test(arguments: storeTypes)
    func storesRefuseDuplicateRecordsWrittenDirectly(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let one = try stack.customer("d@x")
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        let entity = one.entity
        let key = try store.newPrimaryKeys(for: entity, count: 1)[0]
        var values = [StoreValue](repeating: .null, count: entity.properties.count)
        values[try #require(entity.propertiesByName["email"]).index] = .string("d@x")
        values[try #require(entity.propertiesByName["orders"]).index] = .toMany([])
        var changes = SaveChanges()
        changes.inserted = [StoreRecord(objectID: ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: key), version: 1, values: values)]
        let error = #expect(throws: PersistenceError.self) { try store.apply(changes) }
        #expect(error?.code == .constraintConflict)
        #expect(try stack.saved().count == 1)
    }

    @Test(arguments: storeTypes)
    func overwriteTakesEveryNewValueAndRollbackNone(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let saved = try stack.customer("o@x", first: "Ann", last: "Lee", note: "saved")
        try stack.context.save()
        stack.context.mergePolicy = .overwrite
        try stack.customer("o@x", first: "Anna")
        try stack.context.save()
        #expect(try saved.value(forKey: "firstName") as? String == "Anna")
        #expect(try saved.value(forKey: "lastName") == nil, "overwrite takes the new object's nil too")
        stack.context.mergePolicy = .rollback
        let ignored = try stack.customer("o@x", first: "Zed", note: "ignored")
        try stack.context.save()
        #expect(ignored.managedObjectContext == nil)
        #expect(try saved.value(forKey: "firstName") as? String == "Anna")
        #expect(try saved.value(forKey: "note") == nil, "rollback kept what overwrite wrote")
        #expect(try stack.saved().count == 1)
    }

    @Test(arguments: storeTypes)
    func aToOneRelationshipCanBeConstrained(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let order = try stack.context.insertNewObject(forEntityName: "Order")
        func line(_ position: Int, of order: ManagedObject) throws -> ManagedObject {
            let line = try stack.context.insertNewObject(forEntityName: "Line")
            try line.setValue(position, forKey: "position")
            try line.setValue(order, forKey: "order")
            return line
        }
        _ = try line(1, of: order)
        let twin = try line(1, of: order)  // both related to an object not saved yet
        let first = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(first?.constraintConflicts.first?.constraint == ["order", "position"], "\(String(describing: first))")
        try twin.setValue(2, forKey: "position")
        try stack.context.save()
        _ = try line(2, of: order)
        let error = #expect(throws: PersistenceError.self) { try stack.context.save() }
        #expect(error?.constraintConflicts.first?.constraintValues["order"] == .toOne(order.objectID))
        stack.context.rollback()
        _ = try line(2, of: try stack.context.insertNewObject(forEntityName: "Order"))
        try stack.context.save()  // the same position in another order
    }

    @Test(arguments: storeTypes)
    func aValueFreedByAnUpdateCanBeTakenInTheSameSave(type: PersistentStoreType) throws {
        let stack = try Stack(type)
        let old = try stack.customer("x@x")
        try stack.context.save()
        try old.setValue("y@x", forKey: "email")
        try stack.customer("x@x")
        try stack.context.save()
        #expect(try stack.saved().map { try $0.value(forKey: "email") as? String } == ["x@x", "y@x"])
    }
}
