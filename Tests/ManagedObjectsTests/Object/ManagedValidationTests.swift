import Foundation
import Testing
@testable import ManagedObjects

@Suite struct ManagedValidationTests {
    private func record(_ stack: ManagedTestStack) throws -> ManagedObject {
        let record = try stack.context.insertNewObject(forEntityName: "Record")
        try record.setValue("ABC", forKey: "code")
        let tag = try stack.context.insertNewObject(forEntityName: "Tag")
        try record.mutableSetValue(forKey: "tags").insert(tag)
        return record
    }

    private func code(validating value: Any?, forKey key: String, of object: ManagedObject) -> Int? {
        var value = value
        do {
            try object.validateValue(&value, forKey: key)
            return nil
        } catch let error as ValidationError {
            return error.code.rawValue
        } catch {
            return -1
        }
    }

    @Test func eachModelConstraintHasCoreDatasCode() throws {
        let stack = try ManagedTestStack()
        let record = try record(stack)
        #expect(code(validating: "ABC", forKey: "code", of: record) == nil)
        #expect(code(validating: nil, forKey: "code", of: record) == 1570)
        #expect(code(validating: "A", forKey: "code", of: record) == 1670)
        #expect(code(validating: "ABCDE", forKey: "code", of: record) == 1660)
        #expect(code(validating: "ab", forKey: "code", of: record) == 1680)
        #expect(code(validating: 0, forKey: "count", of: record) == 1620)
        #expect(code(validating: 11, forKey: "count", of: record) == 1610)
        #expect(code(validating: 5, forKey: "count", of: record) == nil)
        #expect(code(validating: Date(timeIntervalSinceReferenceDate: -1), forKey: "when", of: record) == 1640)
        #expect(code(validating: Date(timeIntervalSinceReferenceDate: 2_000_000), forKey: "when", of: record) == 1630)
        let tags = (0..<3).map { _ in (try? stack.context.insertNewObject(forEntityName: "Tag")) }
        #expect(code(validating: Set<ManagedObject>(), forKey: "tags", of: record) == 1570)
        #expect(code(validating: Set(tags.compactMap { $0 }), forKey: "tags", of: record) == 1590)
    }

    @Test func relationshipBelowItsMinimumCountFailsWith1580() throws {
        let model = try ManagedObjectModel {
            Entity("Team") { Property("players", to: "Player", inverse: "team", toMany: true, minCount: 2) }
            Entity("Player") { Property("team", to: "Team", inverse: "players") }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insertNewObject(forEntityName: "Team")
        let player = try context.insertNewObject(forEntityName: "Player")
        try player.setValue(team, forKey: "team")
        #expect(code(validating: Set([player]), forKey: "players", of: team) == 1580)
        #expect(throws: ValidationError.self) { try context.save() }
    }

    @Test func saveReportsEveryFailureOfEveryObjectInOneError() throws {
        let stack = try ManagedTestStack()
        let department = TestDepartment(context: stack.context)  // name is mandatory
        let employee = stack.employee("Ada", salary: -5)  // below the minimum
        employee.age = 5  // below the minimum
        _ = department
        do {
            try stack.context.save()
            Issue.record("the save should fail")
        } catch let error as ValidationError {
            #expect(error.code == .multipleErrors)
            #expect(error.failures.map(\.code.rawValue).sorted() == [1570, 1620, 1620])
            #expect(Set(error.failures.compactMap(\.key)) == ["name", "salary", "age"])
            let bridged = error as NSError
            #expect(bridged.code == 1560)
            #expect((bridged.userInfo[ValidationError.detailedErrorsKey] as? [Any])?.count == 3)
        }
        #expect(stack.context.hasChanges)
        #expect(employee.objectID.isTemporaryID)
        department.name = "Fixed"
        employee.salary = 5
        employee.age = 20
        try stack.context.save()
    }

    @Test func theClassValidatorRunsAfterTheModelConstraints() throws {
        let stack = try ManagedTestStack()
        let passport = try stack.context.insertNewObject(forEntityName: "Passport")
        var value: Any? = "xx"
        #expect(throws: ValidationError.self) { try passport.validateValue(&value, forKey: "number") }
        value = "AB1234"
        try passport.validateValue(&value, forKey: "number")
    }

    @Test func denyRuleBlocksTheSaveAndDeletesNothing() throws {
        let stack = try ManagedTestStack(employeesRule: .deny)
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        stack.context.delete(research)
        do {
            try stack.context.save()
            Issue.record("the deny rule should fail the save")
        } catch let error as ValidationError {
            #expect(error.code == .relationshipDeniedDelete)
            #expect(error.key == "employees")
        }
        #expect(try stack.makeContext().existingObject(with: research.objectID).value(forKey: "name") as? String == "Research")
        #expect(ada.department === research)
    }
}
