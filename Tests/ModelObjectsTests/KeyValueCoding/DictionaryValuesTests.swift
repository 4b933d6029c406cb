import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct DictionaryValuesTests {
    // MARK: - dictionaryWithValues(forKeys:)

    @Test func returnsTheValueOfEveryKey() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 10)
        ada.age = 36
        let values = try ada.dictionaryWithValues(forKeys: ["firstName", "salary", "age", "fullName"])
        #expect(values.count == 4)
        #expect(sameValue(values["firstName"], "Ada"))
        #expect(sameValue(values["salary"], 10.0))
        #expect(sameValue(values["age"], 36))
        #expect(sameValue(values["fullName"], "Ada Lovelace"))
    }

    @Test func nilValuesAreNSNull() throws {
        let ada = Employee()
        let values = try ada.dictionaryWithValues(forKeys: ["age", "department", "manager"])
        #expect(values.count == 3)
        #expect(values["age"] is NSNull)
        #expect(values["department"] is NSNull)
        #expect(values["manager"] is NSNull)
    }

    @Test func relationshipsAreTheObjectsThemselves() throws {
        let ada = Employee()
        let sales = Department(name: "Sales")
        ada.department = sales
        let values = try ada.dictionaryWithValues(forKeys: ["department", "directReports"])
        #expect(values["department"] as? Department === sales)
        #expect((values["directReports"] as? [Employee])?.isEmpty == true)
    }

    @Test func noKeysGiveAnEmptyDictionary() throws {
        #expect(try Employee().dictionaryWithValues(forKeys: []).isEmpty)
    }

    @Test func undefinedKeyThrows() {
        let error = expectKVCError(.undefinedKey) {
            _ = try Employee().dictionaryWithValues(forKeys: ["firstName", "nickname"])
        }
        #expect(error?.key == "nickname")
    }

    @Test func extraKeysAnsweredByAnOverrideAreIncluded() throws {
        let department = LenientDepartment()
        department.name = "Ops"
        let values = try department.dictionaryWithValues(forKeys: ["name", "code", "nothing"])
        #expect(sameValue(values["code"], "D-Ops"))
        #expect(values["nothing"] is NSNull)
    }

    // MARK: - setValuesForKeys

    @Test func setsEveryKey() throws {
        let ada = Employee()
        let sales = Department(name: "Sales")
        try ada.setValuesForKeys([
            "firstName": "Ada", "lastName": "Lovelace", "salary": 100, "age": 36, "department": sales,
        ])
        #expect(ada.firstName == "Ada")
        #expect(ada.lastName == "Lovelace")
        #expect(ada.salary == 100)
        #expect(ada.age == 36)
        #expect(ada.department === sales)
    }

    @Test func emptyDictionaryChangesNothing() throws {
        let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        try ada.setValuesForKeys([:])
        #expect(ada.firstName == "Ada")
    }

    @Test func nsNullStandsForNil() throws {
        let ada = Employee()
        ada.age = 36
        ada.department = Department()
        ada.salary = 500
        try ada.setValuesForKeys(["age": NSNull(), "department": NSNull(), "salary": NSNull()])
        #expect(ada.age == nil)
        #expect(ada.department == nil)
        #expect(ada.salary == 0)
    }

    @Test func roundTripsWithDictionaryWithValues() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 10)
        let keys = ["firstName", "lastName", "employeeID", "salary", "age", "department"]
        let values = try ada.dictionaryWithValues(forKeys: keys)
        let copy = Employee()
        copy.age = 99
        copy.department = Department()
        try copy.setValuesForKeys(values)
        #expect(copy.firstName == "Ada")
        #expect(copy.lastName == "Lovelace")
        #expect(copy.employeeID == 1)
        #expect(copy.salary == 10)
        #expect(copy.age == nil)
        #expect(copy.department == nil)
    }

    /// Values for many keys plus one bad entry: whatever the dictionary's order, the keys set
    /// before the bad one must be put back.
    private func assertAllOrNothing(
        bad: (key: String, value: Any), code: KeyValueCodingError.Code,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ada = RecordingEmployee()
        let sales = Department(name: "Sales")
        ada.firstName = "Ada"
        ada.lastName = "Lovelace"
        ada.employeeID = 1
        ada.salary = 10
        ada.age = 36
        ada.hasDriversLicense = true
        ada.startDate = Date(timeIntervalSinceReferenceDate: 5)
        ada.department = sales
        var values: [String: Any] = [
            "firstName": "Grace", "lastName": "Hopper", "employeeID": 2, "salary": 20.0, "age": NSNull(),
            "hasDriversLicense": false, "startDate": Date(timeIntervalSinceReferenceDate: 6),
            "department": Department(name: "Navy"),
        ]
        values[bad.key] = bad.value
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try ada.startRecording() }

        expectKVCError(code, sourceLocation: sourceLocation) { try ada.setValuesForKeys(values) }

        #expect(ada.firstName == "Ada", sourceLocation: sourceLocation)
        #expect(ada.lastName == "Lovelace", sourceLocation: sourceLocation)
        #expect(ada.employeeID == 1, sourceLocation: sourceLocation)
        #expect(ada.salary == 10, sourceLocation: sourceLocation)
        #expect(ada.age == 36, sourceLocation: sourceLocation)
        #expect(ada.hasDriversLicense == true, sourceLocation: sourceLocation)
        #expect(ada.startDate == Date(timeIntervalSinceReferenceDate: 5), sourceLocation: sourceLocation)
        #expect(ada.department === sales, sourceLocation: sourceLocation)
        // Every key set before the failing one is set again, latest first, to restore it. (The
        // failing key itself is recorded only when it got as far as setValue(_:forKey:).)
        let others = ada.keysSet.filter { $0 != bad.key }
        #expect(others.count % 2 == 0, "\(ada.keysSet)", sourceLocation: sourceLocation)
        let set = Array(others[..<(others.count / 2)])
        let restored = Array(others[(others.count / 2)...])
        #expect(restored == set.reversed(), "\(ada.keysSet)", sourceLocation: sourceLocation)
        if let failing = ada.keysSet.firstIndex(of: bad.key) {
            #expect(failing == set.count, "\(ada.keysSet)", sourceLocation: sourceLocation)
        }
    }

    @Test func wrongTypedValuePutsBackTheKeysAlreadySet() {
        assertAllOrNothing(bad: ("salary", "a lot"), code: .typeMismatch)
    }

    @Test func undefinedKeyPutsBackTheKeysAlreadySet() {
        assertAllOrNothing(bad: ("nickname", "Ada"), code: .undefinedKey)
    }

    @Test func readOnlyKeyPutsBackTheKeysAlreadySet() {
        assertAllOrNothing(bad: ("fullName", "Grace Hopper"), code: .readOnlyKey)
    }

    @Test func nilForNonOptionalKeyPutsBackTheKeysAlreadySet() {
        assertAllOrNothing(bad: ("employeeID", NSNull()), code: .nilValueForNonOptional)
    }

    @Test func failureRestoresTheOtherKeyWhateverTheDictionaryOrder() throws {
        // Two keys in dictionaries of varying order: the valid one is always put back.
        for _ in 0..<20 {
            let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
            expectKVCError(.typeMismatch) { try ada.setValuesForKeys(["firstName": "Grace", "employeeID": 2.5]) }
            #expect(ada.firstName == "Ada")
            #expect(ada.employeeID == 1)
        }
    }
}
