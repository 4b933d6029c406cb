import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// A class that overrides `validateValue(_:forKey:)`: records each key it is asked about and
/// refuses the name "refused", a value the model's constraints accept.
final class ValidateValueRecordingThing: ManagedObject {
    var validatedKeys: [String] = []

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        validatedKeys.append(key)
        if key == "name", value as? String == "refused" {
            throw ValidationError(.keyValueValidation, key: key, value: value, object: self, message: "refused by the class")
        }
        try super.validateValue(&value, forKey: key)
    }
}

/// Declares a validator for `count` (the Swift form of `validateCount:error:`): odd counts fail.
final class CountValidatingThing: ManagedObject {
    override class func validator(forKey key: String) -> KeyValueValidator? {
        guard key == "count" else { return super.validator(forKey: key) }
        return KeyValueValidator { (_: CountValidatingThing, count: inout Int64) in
            if count % 2 != 0 { throw ValidationError(key: "count", value: count, message: "count must be even") }
        }
    }
}

/// Neither overrides `validateValue(_:forKey:)` nor declares a validator.
final class PlainThing: ManagedObject {}

/// Adds nothing to its superclass: it inherits the superclass's override.
final class RecordingSubclassThing: ManagedObjectSubclassBase {}

/// An intermediate class overriding `validateValue(_:forKey:)`, so that a subclass inherits it.
class ManagedObjectSubclassBase: ManagedObject {
    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        try super.validateValue(&value, forKey: key)
    }
}

@Suite struct ManagedValidationFastPathTests {
    /// A "Thing" entity of class `type` on an in-memory store: a mandatory name, a count of 0 to
    /// 10, an optional score of at least 0, a mandatory to-one owner.
    private func context(for type: ManagedObject.Type) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            Entity("Thing", class: type) {
                Property("name", .string, optional: false, defaultValue: "")
                Property("count", .integer64, defaultValue: Int64(0), minimum: Int64(0), maximum: Int64(10))
                Property("score", .double, minimum: 0.0)
                Property("owner", to: "Owner", inverse: "things", optional: false)
            }
            Entity("Owner") { Property("things", to: "Thing", inverse: "owner", toMany: true) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator)
    }

    private func thing(in context: ManagedObjectContext, name: String = "ok", count: Int64 = 2) throws -> ManagedObject {
        let thing = try context.insertNewObject(forEntityName: "Thing")
        try thing.setValue(name, forKey: "name")
        try thing.setValue(count, forKey: "count")
        try thing.setValue(try context.insertNewObject(forEntityName: "Owner"), forKey: "owner")
        return thing
    }

    @Test func overridesOfValidateValueAreFoundFromTheClassesMethodTables() {
        #expect(ValidateValueOverrides.entryOffset != nil)
        #expect(!ValidateValueOverrides.overridesValidateValue(ManagedObject.self))
        #expect(!ValidateValueOverrides.overridesValidateValue(PlainThing.self))
        #expect(!ValidateValueOverrides.overridesValidateValue(CountValidatingThing.self))
        #expect(ValidateValueOverrides.overridesValidateValue(ValidateValueRecordingThing.self))
        #expect(ValidateValueOverrides.overridesValidateValue(ManagedObjectSubclassBase.self))
        #expect(ValidateValueOverrides.overridesValidateValue(RecordingSubclassThing.self))
    }

    @Test func anOverriddenValidateValueIsAskedAboutEveryPropertyOnSave() throws {
        let context = try context(for: ValidateValueRecordingThing.self)
        let thing = try #require(try thing(in: context) as? ValidateValueRecordingThing)
        try context.save()
        #expect(thing.validatedKeys.filter { $0 != "validatedKeys" }.sorted() == ["count", "name", "owner", "score"])
    }

    @Test func anOverriddenValidateValueRefusesAValueTheModelAccepts() throws {
        let context = try context(for: ValidateValueRecordingThing.self)
        _ = try thing(in: context, name: "refused")
        let failures = validationFailures(saving: context)
        #expect(failures.map { $0.code } == [1024])
        #expect(failures.map { $0.key } == ["name"])
    }

    @Test func aKeysValidatorRunsOnSaveForAValueTheModelAccepts() throws {
        let context = try context(for: CountValidatingThing.self)
        _ = try thing(in: context, count: 3)
        let failures = validationFailures(saving: context)
        #expect(failures.map { $0.code } == [1024])
        #expect(failures.map { $0.key } == ["count"])
        let even = try thing(in: context, count: 4)
        context.delete(try #require(context.insertedObjects.first { (try? $0.value(forKey: "count")) as? Int64 == 3 }))
        try context.save()
        #expect(!even.objectID.isTemporaryID)
    }

    @Test func theCompiledChecksLeaveFailuresToTheGeneralCheckWithCoreDatasCodes() throws {
        let context = try context(for: PlainThing.self)
        let thing = try thing(in: context, count: 11)
        try thing.setValue(-1.0, forKey: "score")
        try thing.setValue(nil, forKey: "owner")
        let failures = validationFailures(saving: context)
        #expect(failures.map { $0.code } == [1610, 1570, 1620])
        #expect(failures.map { $0.key } == ["count", "owner", "score"])
        try thing.setValue(-1, forKey: "count")
        #expect(validationFailures(saving: context).first?.code == 1620)
    }

    @Test func valuesTheCompiledChecksPassAreSaved() throws {
        let context = try context(for: PlainThing.self)
        let within = try thing(in: context, count: 10)
        let atMinimum = try thing(in: context, count: 0)
        try atMinimum.setValue(0.0, forKey: "score")
        try context.save()
        #expect(!within.objectID.isTemporaryID && !atMinimum.objectID.isTemporaryID)
    }

    @Test func eachPropertyCompilesToTheCheckItsConstraintsNeed() throws {
        let context = try context(for: PlainThing.self)
        let entity = try #require(context.persistentStoreCoordinator.managedObjectModel.entity(named: "Thing"))
        func check(_ key: String) throws -> ValidationCheck {
            entity.layout.validationChecks[try #require(entity.propertiesByName[key]).index]
        }
        guard case .required = try check("name") else { Issue.record("name: \(try check("name"))"); return }
        guard case .integer(0, 10, true) = try check("count") else { Issue.record("count: \(try check("count"))"); return }
        guard case .double(0.0, nil, true) = try check("score") else { Issue.record("score: \(try check("score"))"); return }
        guard case .required = try check("owner") else { Issue.record("owner: \(try check("owner"))"); return }
        let owner = try #require(context.persistentStoreCoordinator.managedObjectModel.entity(named: "Owner"))
        guard case .none = owner.layout.validationChecks[0] else { Issue.record("things: \(owner.layout.validationChecks[0])"); return }
    }

    @Test func aPlainClassCallsValidateValueOnlyForWhatItsChecksDoNotPass() throws {
        let context = try context(for: PlainThing.self)
        let thing = try thing(in: context)
        #expect(thing.validationPlan().callsValidateValue == [false, false, false, false])
        let recording = try self.context(for: ValidateValueRecordingThing.self)
        #expect(try self.thing(in: recording).validationPlan().callsValidateValue == [true, true, true, true])
        let validating = try self.context(for: CountValidatingThing.self)
        let counted = try self.thing(in: validating)
        let countIndex = try #require(counted.entity.propertiesByName["count"]).index
        #expect(counted.validationPlan().callsValidateValue.enumerated().map { $0.element == ($0.offset == countIndex) }.allSatisfy { $0 })
    }
}
