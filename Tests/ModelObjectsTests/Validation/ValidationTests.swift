import Foundation
import Synchronization
import Testing
import ModelObjects
import SampleModels

/// A class whose validator coerces, and one whose validator calls `validateValue` on itself.
final class ValidatedPerson: ModelObject {
    @Attribute var name = ""
    @Attribute var nickname: String? = nil
    @Attribute var score = 0
    static let nicknameValidations = Atomic<Int>(0)

    override class func validator(forKey key: String) -> KeyValueValidator? {
        switch key {
        case "name":
            // Coercion: trims whitespace; rejects empty names.
            return KeyValueValidator { (_: ValidatedPerson, name: inout String) in
                name = name.trimmingCharacters(in: .whitespaces)
                if name.isEmpty { throw ValidationError(message: "A name is required") }
            }
        case "nickname":
            // Calls validateValue for its own key: must not recurse forever.
            return KeyValueValidator { (person: ValidatedPerson, nickname: inout String?) in
                nicknameValidations.add(1, ordering: .relaxed)
                var again: Any? = nickname
                try person.validateValue(&again, forKey: "nickname")
            }
        case "score":
            return KeyValueValidator { (_: ValidatedPerson, score: inout Int) in
                struct NotAValidationError: Error {}
                if score > 100 { throw NotAValidationError() }
            }
        default:
            return super.validator(forKey: key)
        }
    }
}

@Suite struct ValidateValueTests {
    @Test func keyWithoutValidatorPasses() throws {
        var value: Any? = "anything"
        try Employee().validateValue(&value, forKey: "firstName")
        #expect(value as? String == "anything")
    }

    @Test func ageMustBeGreaterThanZero() throws {
        let employee = Employee()
        var value: Any? = 0
        #expect {
            try employee.validateValue(&value, forKey: "age")
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            return error.code == .keyValueValidation && error.key == "age"
                && error.rejectedValue as? Int == 0 && error.message == "Age must be greater than zero"
        }
    }

    @Test func nilAgePasses() throws {
        var value: Any? = nil
        try Employee().validateValue(&value, forKey: "age")
        #expect(value == nil)
    }

    @Test func positiveAgePasses() throws {
        var value: Any? = 41
        try Employee().validateValue(&value, forKey: "age")
        #expect(value as? Int == 41)
    }

    @Test func negativeSalaryFails() throws {
        var value: Any? = -1.5
        #expect(throws: ValidationError.self) { try Employee().validateValue(&value, forKey: "salary") }
    }

    @Test func validatorMayCoerceTheValue() throws {
        var value: Any? = "  Ada  "
        try ValidatedPerson().validateValue(&value, forKey: "name")
        #expect(value as? String == "Ada")
    }

    @Test func wrongTypedValueFailsBeforeTheValidatorRuns() throws {
        var value: Any? = 42
        #expect {
            try ValidatedPerson().validateValue(&value, forKey: "name")
        } throws: { ($0 as? ValidationError)?.code == .keyValueValidation }
    }

    @Test func validatorCallingValidateValueForItsOwnKeyDoesNotRecurse() throws {
        let before = ValidatedPerson.nicknameValidations.load(ordering: .relaxed)
        var value: Any? = "Lulu"
        try ValidatedPerson().validateValue(&value, forKey: "nickname")
        #expect(ValidatedPerson.nicknameValidations.load(ordering: .relaxed) == before + 1)
    }

    @Test func otherErrorsAreWrappedAsKeyValueValidationErrors() throws {
        var value: Any? = 101
        #expect {
            try ValidatedPerson().validateValue(&value, forKey: "score")
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            return error.code == .keyValueValidation && error.key == "score" && error.rejectedValue as? Int == 101
        }
    }
}

@Suite struct ObjectValidationTests {
    @Test func validObjectPassesEveryCheck() throws {
        let employee = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 10)
        employee.age = 36
        employee.hasDriversLicense = true
        try employee.validateForInsert()
        try employee.validateForUpdate()
        try employee.validateForDelete()
    }

    @Test func twelveYearOldWithLicenseFailsUpdate() throws {
        let employee = Employee(firstName: "Tom", lastName: "Sawyer", employeeID: 2, salary: 0)
        employee.age = 12
        employee.hasDriversLicense = true
        #expect {
            try employee.validateForUpdate()
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            return error.code == .managedObjectValidation && error.key == nil
                && error.message == "Tom Sawyer is 12 and cannot hold a driver's license"
        }
    }

    @Test func everyFailureIsReportedNotOnlyTheFirst() throws {
        let employee = Employee(firstName: "Tom", lastName: "Sawyer", employeeID: 2, salary: -1)
        employee.age = -12
        employee.hasDriversLicense = true
        let error = try #require(throws: ValidationError.self) { try employee.validateForUpdate() }
        #expect(error.code == .multipleErrors)
        #expect(error.failures.map(\.code) == [.keyValueValidation, .keyValueValidation, .managedObjectValidation])
        #expect(error.failures.map(\.key) == ["salary", "age", nil])
    }

    @Test func defaultInsertValidationRunsPropertyValidators() throws {
        let employee = Employee()
        employee.salary = -3
        #expect(throws: ValidationError.self) { try employee.validateForInsert() }
    }
}

@Suite struct ValidationErrorTests {
    @Test func combiningNoErrorsIsNil() {
        #expect(ValidationError.combining([]) == nil)
    }

    @Test func combiningOneErrorIsThatError() throws {
        let one = ValidationError(.numberTooLarge, key: "age", value: 200, message: "too old")
        let combined = try #require(ValidationError.combining([one]))
        #expect(combined.code == .numberTooLarge && combined.key == "age")
    }

    @Test func combiningFlattensNestedMultipleErrors() throws {
        let a = ValidationError(key: "a", message: "a")
        let b = ValidationError(key: "b", message: "b")
        let c = ValidationError(key: "c", message: "c")
        let inner = try #require(ValidationError.combining([a, b]))
        let outer = try #require(ValidationError.combining([inner, c]))
        #expect(outer.code == .multipleErrors)
        #expect(outer.underlyingErrors.map(\.key) == ["a", "b", "c"])
    }

    @Test func bridgesToNSErrorWithCocoasUserInfoKeys() {
        let error = ValidationError(.stringTooLong, key: "name", value: "abcdef", message: "Name is too long")
        let nsError = error as NSError
        #expect(nsError.domain == NSCocoaErrorDomain)
        #expect(nsError.code == 1660)
        #expect(nsError.userInfo["NSValidationErrorKey"] as? String == "name")
        #expect(nsError.userInfo["NSValidationErrorValue"] as? String == "abcdef")
        #expect(nsError.userInfo[NSLocalizedDescriptionKey] as? String == "Name is too long")
    }

    @Test func multipleErrorsBridgeWithDetailedErrors() throws {
        let combined = try #require(ValidationError.combining([
            ValidationError(key: "a", message: "first"), ValidationError(key: "b", message: "second"),
        ]))
        let nsError = combined as NSError
        #expect(nsError.code == 1560)
        let detailed = try #require(nsError.userInfo["NSDetailedErrors"] as? [NSError])
        #expect(detailed.map(\.code) == [1024, 1024])
        #expect(detailed.map { $0.userInfo["NSValidationErrorKey"] as? String } == ["a", "b"])
    }

    @Test(arguments: [
        (ValidationError.Code.keyValueValidation, 1024), (.managedObjectValidation, 1550), (.multipleErrors, 1560),
        (.missingMandatoryProperty, 1570), (.relationshipLacksMinimumCount, 1580),
        (.relationshipExceedsMaximumCount, 1590), (.relationshipDeniedDelete, 1600), (.numberTooLarge, 1610),
        (.numberTooSmall, 1620), (.dateTooLate, 1630), (.dateTooSoon, 1640), (.invalidDate, 1650),
        (.stringTooLong, 1660), (.stringTooShort, 1670), (.stringPatternMatching, 1680),
    ])
    func codesAreCocoas(code: ValidationError.Code, number: Int) {
        #expect(code.rawValue == number)
    }

    @Test func codesMatchThrownErrors() {
        do {
            throw ValidationError(.numberTooSmall, message: "small")
        } catch ValidationError.Code.numberTooSmall {
            // matched
        } catch {
            Issue.record("did not match by code: \(error)")
        }
    }
}
