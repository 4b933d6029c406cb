import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ManagedObjectBasicsTests {
    @Test func initWithEntityAndNilContextMakesAnUnregisteredObjectWithDefaults() throws {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Employee"))
        let employee = TestEmployee(entity: entity, insertInto: nil)
        #expect(employee.entity === entity)
        #expect(employee.managedObjectContext == nil)
        #expect(employee.objectID.isTemporaryID)
        #expect(!employee.isInserted && !employee.isUpdated && !employee.isDeleted && !employee.isFault)
        #expect(employee.salary == 0)
        #expect(employee.age == 30)
        #expect(employee.firstName == nil)
        #expect(employee.projects.isEmpty)
    }

    @Test func insertingGivesATemporaryIDAndJoinsInsertedObjects() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        #expect(employee.managedObjectContext === stack.context)
        #expect(employee.isInserted)
        #expect(employee.objectID.isTemporaryID)
        #expect(stack.context.insertedObjects == [employee])
        #expect(stack.context.registeredObjects == [employee])
        #expect(stack.context.hasChanges)
        #expect(employee.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Employee/t"))
    }

    @Test func insertNewObjectByEntityNameUsesTheEntitysClass() throws {
        let stack = try ManagedTestStack()
        let department = try stack.context.insertNewObject(forEntityName: "Department")
        #expect(department is TestDepartment)
        let person = try stack.context.insertNewObject(forEntityName: "Person")
        #expect(type(of: person) == ManagedObject.self)
        #expect(person.entity.name == "Person")
    }

    @Test func insertNewObjectForAnUnknownEntityThrows() throws {
        let stack = try ManagedTestStack()
        #expect(throws: ModelError.self) { try stack.context.insertNewObject(forEntityName: "Nope") }
    }

    @Test func saveMakesIDsPermanentAndUniquesThem() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        let temporary = employee.objectID
        try stack.context.save()
        #expect(!employee.objectID.isTemporaryID)
        #expect(employee.objectID != temporary)
        #expect(stack.context.object(with: employee.objectID) === employee)
        #expect(stack.context.registeredObject(for: temporary) == nil)
        #expect(!employee.isInserted)
        #expect(!stack.context.hasChanges)
        let uri = employee.objectID.uriRepresentation()
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == employee.objectID)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Employee/p1")!) == nil)
    }

    @Test func objectIDsAreSendableHashableValues() async throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        try stack.context.save()
        let id = employee.objectID
        let echoed = await Task.detached { id }.value
        #expect(echoed == id)
        #expect(Set([id, echoed]).count == 1)
        #expect(id.entity.name == "Employee")
        #expect(id.primaryKey != nil)
    }

    @Test func keyValueCodingReadsAndWritesModeledStorage() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        try employee.setValue("Lovelace", forKey: "lastName")
        try employee.setValue(52_000, forKey: "salary")  // Int converts to Double
        try employee.setValue(41, forKey: "age")  // Int converts to Int16
        #expect(try employee.value(forKey: "lastName") as? String == "Lovelace")
        #expect(try employee.value(forKey: "salary") as? Double == 52_000)
        #expect(try employee.value(forKey: "age") as? Int16 == 41)
        #expect(employee.lastName == "Lovelace")
        #expect(employee.age == 41)
        #expect(try employee.value(forKey: "nickname") as? String == "")
        try employee.setValue("Countess", forKey: "nickname")
        #expect(employee.nickname == "Countess")
    }

    @Test func unmodeledKeysThrowUndefinedKey() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        #expect(throws: KeyValueCodingError.self) { try employee.value(forKey: "shoeSize") }
        #expect(throws: KeyValueCodingError.self) { try employee.setValue(1, forKey: "shoeSize") }
        #expect(throws: KeyValueCodingError.self) { try employee.primitiveValue(forKey: "shoeSize") }
        #expect(throws: KeyValueCodingError.self) { try employee.setPrimitiveValue(1, forKey: "shoeSize") }
    }

    @Test func wrongValueTypesThrowAndChangeNothing() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada", salary: 10)
        #expect(throws: KeyValueCodingError.self) { try employee.setValue("lots", forKey: "salary") }
        #expect(throws: KeyValueCodingError.self) { try employee.setValue(100_000, forKey: "age") }  // beyond Int16
        #expect(throws: KeyValueCodingError.self) { try employee.setValue(employee, forKey: "department") }
        #expect(throws: KeyValueCodingError.self) { try employee.setPrimitiveValue(2.5, forKey: "age") }
        #expect(employee.salary == 10)
        #expect(employee.age == 30)
        #expect(employee.department == nil)
    }

    @Test func nilIsAcceptedForModeledScalarsAndReadsAsZeroThroughTypedAccessors() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada", salary: 10)
        try employee.setValue(nil, forKey: "salary")
        #expect(try employee.value(forKey: "salary") == nil)
        #expect(employee.salary == 0)
    }

    @Test func primitiveAccessorsDoNotNotifyOrRecord() throws {
        let stack = try ManagedTestStack(undo: true)
        let employee = stack.employee("Ada")
        try stack.context.save()
        var changes = 0
        let token = try employee.observe("firstName", options: [.new]) { _, _ in changes += 1 }
        try employee.setPrimitiveValue("Grace", forKey: "firstName")
        #expect(try employee.primitiveValue(forKey: "firstName") as? String == "Grace")
        #expect(changes == 0)
        #expect(!employee.isUpdated)
        #expect(!stack.context.hasChanges)
        token.invalidate()
    }

    @Test func entityWithoutClassIsUsableByKey() throws {
        let stack = try ManagedTestStack()
        let person = try stack.context.insertNewObject(forEntityName: "Person")
        let passport = try stack.context.insertNewObject(forEntityName: "Passport")
        try person.setValue("Ada", forKey: "name")
        try person.setValue(passport, forKey: "passport")
        try passport.setValue("AB1234", forKey: "number")
        #expect(try passport.value(forKey: "owner") as? ManagedObject === person)
        #expect(try person.value(forKeyPath: "passport.number") as? String == "AB1234")
        try stack.context.save()
        #expect(!person.objectID.isTemporaryID)
    }

    @Test func descriptionNamesEntityAndIDAndNeverFiresAFault() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        try stack.context.save()
        #expect(employee.description.contains("entity: Employee"))
        #expect(employee.description.contains("firstName = \"Ada\""))
        let other = stack.makeContext()
        let fault = other.object(with: employee.objectID)
        #expect(fault.isFault)
        #expect(fault.description.contains("<fault>"))
        _ = fault.objectID
        _ = fault.entity
        _ = fault.hashValue
        #expect(fault == fault)
        #expect(fault.isFault)
    }

    @Test func faultFiresOnFirstReadAndThenAwakesFromFetch() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada", salary: 5)
        try stack.context.save()
        let other = stack.makeContext()
        let fault = try #require(other.object(with: employee.objectID) as? TestEmployee)
        let log = HookLog()
        fault.log = log
        #expect(fault.isFault)
        #expect(fault.hasFault(forRelationshipNamed: "department"))
        #expect(fault.salary == 5)
        #expect(!fault.isFault)
        #expect(log.entries == ["awakeFromFetch"])
        #expect(fault.firstName == "Ada")
        #expect(log.entries == ["awakeFromFetch"])
    }

    @Test func existingObjectThrowsForAnUnknownRecord() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        #expect(throws: PersistenceError.self) { try stack.makeContext().existingObject(with: employee.objectID) }
        try stack.context.save()
        let found = try stack.makeContext().existingObject(with: employee.objectID)
        #expect(!found.isFault)
        #expect(try found.value(forKey: "firstName") as? String == "Ada")
    }

    @Test func firingAFaultWhoseRecordWasDeletedThrowsObjectNotFound() throws {
        let stack = try ManagedTestStack()
        let employee = stack.employee("Ada")
        try stack.context.save()
        let other = stack.makeContext()
        let fault = other.object(with: employee.objectID)
        stack.context.delete(employee)
        try stack.context.save()
        #expect(throws: PersistenceError.self) { try fault.fireFault() }
        do {
            _ = try fault.value(forKey: "firstName")
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(error.code == .objectNotFound)
            #expect(error.objectID == employee.objectID)
        }
    }

    @Test func changedAndCommittedValuesCoverPersistentPropertiesOnly() throws {
        let stack = try ManagedTestStack()
        let person = try stack.context.insertNewObject(forEntityName: "Person")
        try person.setValue("Ada", forKey: "name")
        try person.setValue("temp", forKey: "scratch")
        #expect(person.changedValues().keys.sorted() == ["name"])
        #expect(person.committedValues(forKeys: nil).isEmpty)
        try stack.context.save()
        #expect(person.changedValues().isEmpty)
        try person.setValue("Grace", forKey: "name")
        try person.setValue("other", forKey: "scratch")
        #expect(person.changedValues().keys.sorted() == ["name"])
        #expect(person.changedValues()["name"] as? String == "Grace")
        #expect(person.committedValues(forKeys: ["name", "scratch"]).keys.sorted() == ["name"])
        #expect(person.committedValues(forKeys: nil)["name"] as? String == "Ada")
        #expect(person.hasPersistentChangedValues)
    }

    @Test func objectsOfTwoContextsCannotBeRelatedByKey() throws {
        let stack = try ManagedTestStack()
        let department = stack.department("R&D")
        let otherContext = stack.makeContext()
        let other = stack.employee("Ada", in: otherContext)
        #expect(throws: PersistenceError.self) { try other.setValue(department, forKey: "department") }
        #expect(other.department == nil)
    }
}
