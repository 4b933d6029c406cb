import Foundation
import ModelObjects
import SampleModels
import Testing

/// `validateValue(_:forKeyPath:)` validates the last key on the object the path leads to.
@Suite struct ValidateKeyPathTests {
    private func clerkAtDesk() -> Clerk {
        let clerk = Clerk()
        clerk.desk = Desk()
        return clerk
    }

    @Test func theLastKeysValidatorRunsOnTheObjectThePathLeadsTo() throws {
        let clerk = clerkAtDesk()
        var value: Any? = -12
        try clerk.validateValue(&value, forKeyPath: "desk.number")
        #expect(value as? Int == 12)
        var tooBig: Any? = 1_200
        let error = #expect(throws: ValidationError.self) { try clerk.validateValue(&tooBig, forKeyPath: "desk.number") }
        #expect(error?.code == .keyValueValidation)
        #expect(error?.key == "number")
    }

    @Test func aOneKeyPathIsValidateValueForKey() throws {
        let employee = Employee()
        var age: Any? = 0
        let error = #expect(throws: ValidationError.self) { try employee.validateValue(&age, forKeyPath: "age") }
        #expect(error?.key == "age")
    }

    @Test func throughSeveralRelationships() throws {
        let desk = Desk()
        desk.clerk = clerkAtDesk()
        var value: Any? = -3
        try desk.validateValue(&value, forKeyPath: "clerk.desk.number")
        #expect(value as? Int == 3)
    }

    /// Cocoa's message to nil answers `NO`: the value is invalid.
    @Test func aNilOnTheWayIsInvalid() throws {
        var value: Any? = 5
        let error = #expect(throws: ValidationError.self) { try Clerk().validateValue(&value, forKeyPath: "desk.number") }
        #expect(error?.code == .keyValueValidation)
        #expect(error?.key == "desk")
        #expect(value as? Int == 5)
    }

    @Test func aPathThroughACollectionIsNotKeyValueCodingCompliant() {
        let clerk = Clerk()
        clerk.tags = ["a"]
        var value: Any? = 1
        expectKVCError(.notKeyValueCodingCompliant) { try clerk.validateValue(&value, forKeyPath: "tags.count") }
    }

    @Test func badPathsThrowKeyValueCodingErrors() {
        let clerk = clerkAtDesk()
        var value: Any? = 1
        expectKVCError(.undefinedKey) { try clerk.validateValue(&value, forKeyPath: "chair.number") }
        expectKVCError(.malformedKeyPath) { try clerk.validateValue(&value, forKeyPath: "desk..number") }
        expectKVCError(.notKeyValueCodingCompliant) { try clerk.validateValue(&value, forKeyPath: "name.count") }
    }
}
