import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct KeyValueCodingErrorTests {
    @Test(arguments: [
        (KeyValueCodingError.Code.undefinedKey, 1, "undefinedKey"),
        (.typeMismatch, 2, "typeMismatch"),
        (.nilValueForNonOptional, 3, "nilValueForNonOptional"),
        (.readOnlyKey, 4, "readOnlyKey"),
        (.malformedKeyPath, 5, "malformedKeyPath"),
        (.unknownCollectionOperator, 6, "unknownCollectionOperator"),
        (.operatorOnNonCollection, 7, "operatorOnNonCollection"),
        (.missingOperatorKeyPath, 8, "missingOperatorKeyPath"),
        (.nonNumericValue, 9, "nonNumericValue"),
        (.notKeyValueCodingCompliant, 10, "notKeyValueCodingCompliant"),
        (.indexOutOfRange, 11, "indexOutOfRange"),
        (.notACollection, 12, "notACollection"),
        (.unmappableKeyPath, 13, "unmappableKeyPath"),
    ])
    func codesHaveStableRawValuesAndNames(code: KeyValueCodingError.Code, rawValue: Int, name: String) {
        #expect(code.rawValue == rawValue)
        #expect(code.description == name)
        #expect(KeyValueCodingError.Code(rawValue: rawValue) == code)
    }

    @Test func unknownCodeDescribesItsNumber() {
        #expect(KeyValueCodingError.Code(rawValue: 99).description == "code 99")
    }

    @Test func codeMatchesThrownErrorsInCatchClauses() {
        let employee = Employee()
        var caught = ""
        do {
            try employee.setValue("ten", forKey: "salary")
        } catch KeyValueCodingError.Code.undefinedKey {
            caught = "undefinedKey"
        } catch KeyValueCodingError.Code.typeMismatch {
            caught = "typeMismatch"
        } catch {
            caught = "other"
        }
        #expect(caught == "typeMismatch")
    }

    @Test func codeDoesNotMatchOtherErrors() {
        struct OtherError: Error {}
        #expect(!(KeyValueCodingError.Code.undefinedKey ~= OtherError()))
        #expect(KeyValueCodingError.Code.undefinedKey ~= KeyValueCodingError(.undefinedKey, key: "k", message: "m"))
        #expect(!(KeyValueCodingError.Code.typeMismatch ~= KeyValueCodingError(.undefinedKey, key: "k", message: "m")))
    }

    @Test func descriptionNamesCodeClassKeyAndMessage() {
        let error = expectKVCError(.undefinedKey) { _ = try Employee().value(forKey: "nickname") }
        #expect(error?.description
            == "KeyValueCodingError.undefinedKey [SampleModels.Employee] key 'nickname': SampleModels.Employee is not key value coding-compliant for the key 'nickname'")
        #expect(error?.errorDescription == error?.description)
    }

    @Test func descriptionWithoutAClassName() {
        let error = KeyValueCodingError(.malformedKeyPath, key: "a..b", message: "empty key")
        #expect(error.description == "KeyValueCodingError.malformedKeyPath key 'a..b': empty key")
        #expect(error.className == nil)
        #expect(error.expectedType == nil)
        #expect(error.givenType == nil)
    }

    @Test func typeMismatchMessageNamesBothTypesAndTheValue() {
        let error = expectKVCError(.typeMismatch) { try Employee().setValue("ten", forKey: "salary") }
        #expect(error?.message == "expected a value of type Swift.Double, got Swift.String (ten)")
    }

    @Test func malformedKeyPathErrorHasNoClassName() {
        let error = expectKVCError(.malformedKeyPath) { _ = try Employee().value(forKeyPath: "a.") }
        #expect(error?.className == nil)
        #expect(error?.key == "a.")
    }
}
