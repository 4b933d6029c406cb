import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct SetValueForKeyTests {
    @Test func setsAttributesVisibleThroughTheTypedProperties() throws {
        let employee = Employee()
        try employee.setValue("Ada", forKey: "firstName")
        try employee.setValue(52_000.5, forKey: "salary")
        try employee.setValue(9, forKey: "employeeID")
        try employee.setValue(true, forKey: "hasDriversLicense")
        try employee.setValue(Date(timeIntervalSinceReferenceDate: 10), forKey: "startDate")
        #expect(employee.firstName == "Ada")
        #expect(employee.salary == 52_000.5)
        #expect(employee.employeeID == 9)
        #expect(employee.hasDriversLicense == true)
        #expect(employee.startDate == Date(timeIntervalSinceReferenceDate: 10))
    }

    @Test func setValueThenValueForKeyRoundTrips() throws {
        let employee = Employee()
        try employee.setValue("Lovelace", forKey: "lastName")
        #expect(sameValue(try employee.value(forKey: "lastName"), "Lovelace"))
    }

    @Test func setsOptionalAttributeToValueAndBackToNil() throws {
        let employee = Employee()
        try employee.setValue(36, forKey: "age")
        #expect(employee.age == 36)
        try employee.setValue(nil, forKey: "age")
        #expect(employee.age == nil)
    }

    @Test func nsNullSetsAnOptionalAttributeToNil() throws {
        let employee = Employee()
        employee.age = 36
        try employee.setValue(NSNull(), forKey: "age")
        #expect(employee.age == nil)
    }

    @Test func setsAndClearsToOneRelationship() throws {
        let employee = Employee()
        let sales = Department(name: "Sales")
        try employee.setValue(sales, forKey: "department")
        #expect(employee.department === sales)
        try employee.setValue(nil, forKey: "department")
        #expect(employee.department == nil)
    }

    @Test func acceptsASubclassInstanceForARelationship() throws {
        let employee = Employee()
        let boss = Manager()
        try employee.setValue(boss, forKey: "manager")
        #expect(employee.manager === boss)
    }

    @Test func replacesOrderedToManyRelationship() throws {
        let boss = Employee()
        let reports = [Employee(), Employee()]
        try boss.setValue(reports, forKey: "directReports")
        #expect(boss.directReports.count == 2)
        #expect(boss.directReports[0] === reports[0])
        #expect(boss.directReports[1] === reports[1])
    }

    @Test func replacesUnorderedToManyRelationship() throws {
        let team = Team()
        let alpha = Project(name: "Alpha")
        try team.setValue(Set([alpha]), forKey: "projects")
        #expect(team.projects == [alpha])
    }

    @Test func acceptsAnArrayOfASubclassOrOfAnyForToMany() throws {
        let boss = Employee()
        let managers = [Manager(), Manager()]
        try boss.setValue(managers, forKey: "directReports")
        #expect(boss.directReports.count == 2)
        #expect(boss.directReports[1] === managers[1])
        let other = Employee()
        try other.setValue(try boss.value(forKeyPath: "directReports") as? [Any], forKey: "directReports")
        #expect(other.directReports.count == 2)
        #expect(other.directReports[0] === managers[0])
    }

    @Test func acceptsASetOfAnyHashableForUnorderedToMany() throws {
        let team = Team()
        let alpha = Project(name: "Alpha")
        try team.setValue(Set<AnyHashable>([alpha]), forKey: "projects")
        #expect(team.projects == [alpha])
    }

    @Test func wrongTypedValueThrowsTypeMismatchAndLeavesObjectUnchanged() {
        let employee = Employee()
        employee.salary = 1_000
        let error = expectKVCError(.typeMismatch) { try employee.setValue("ten", forKey: "salary") }
        #expect(employee.salary == 1_000)
        #expect(error?.className == "SampleModels.Employee")
        #expect(error?.key == "salary")
        #expect(error?.expectedType == "Swift.Double")
        #expect(error?.givenType == "Swift.String")
    }

    @Test func wrongClassForRelationshipThrowsTypeMismatch() {
        let employee = Employee()
        let boss = Employee()
        employee.manager = boss
        let error = expectKVCError(.typeMismatch) { try employee.setValue(Department(), forKey: "manager") }
        #expect(employee.manager === boss)
        #expect(error?.key == "manager")
        #expect(error?.className == "SampleModels.Employee")
        #expect(error?.expectedType == "Swift.Optional<SampleModels.Employee>")
        #expect(error?.givenType == "SampleModels.Department")
    }

    @Test func arrayOfWrongElementsForToManyThrowsTypeMismatch() {
        let boss = Employee()
        let report = Employee()
        boss.directReports = [report]
        let error = expectKVCError(.typeMismatch) { try boss.setValue([Department()], forKey: "directReports") }
        #expect(boss.directReports.count == 1)
        #expect(boss.directReports.first === report)
        #expect(error?.expectedType == "Swift.Array<SampleModels.Employee>")
        #expect(error?.givenType == "Swift.Array<SampleModels.Department>")
    }

    @Test func setForUnorderedToManyRejectsAnArray() {
        let team = Team()
        let alpha = Project(name: "Alpha")
        expectKVCError(.typeMismatch) { try team.setValue([alpha], forKey: "projects") }
        #expect(team.projects.isEmpty)
    }

    @Test func undefinedKeyThrowsUndefinedKey() {
        let employee = Employee()
        let error = expectKVCError(.undefinedKey) { try employee.setValue("x", forKey: "nickname") }
        #expect(error?.key == "nickname")
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test func derivedKeyIsReadOnly() {
        let employee = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)
        let error = expectKVCError(.readOnlyKey) { try employee.setValue("Someone Else", forKey: "fullName") }
        #expect(error?.key == "fullName")
        #expect(error?.className == "SampleModels.Employee")
        #expect(employee.fullName == "Ada Lovelace")
        #expect(employee.firstName == "Ada")
    }

    @Test func nilForDerivedKeyIsAlsoReadOnly() {
        let employee = Employee()
        expectKVCError(.readOnlyKey) { try employee.setValue(nil, forKey: "fullNameAndID") }
    }

    @Test func defaultSetValueForUndefinedKeyThrowsUndefinedKeyOrReadOnlyKey() {
        let employee = Employee()
        expectKVCError(.undefinedKey) { try employee.setValue(1, forUndefinedKey: "nickname") }
        expectKVCError(.readOnlyKey) { try employee.setValue("x", forUndefinedKey: "fullName") }
    }

    @Test func nilForNonOptionalAttributeThrowsNilValueForNonOptional() {
        let employee = Employee()
        employee.employeeID = 5
        let error = expectKVCError(.nilValueForNonOptional) { try employee.setValue(nil, forKey: "employeeID") }
        #expect(employee.employeeID == 5)
        #expect(error?.key == "employeeID")
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test(arguments: ["firstName", "hasDriversLicense", "startDate", "directReports"])
    func nilForEveryOtherNonOptionalEmployeeKeyThrows(key: String) {
        let employee = Employee()
        expectKVCError(.nilValueForNonOptional) { try employee.setValue(nil, forKey: key) }
    }

    @Test func nilForNonOptionalStructAttributeThrows() {
        let object = AllTypes()
        object.rect = CGRect(x: 1, y: 1, width: 1, height: 1)
        expectKVCError(.nilValueForNonOptional) { try object.setValue(nil, forKey: "rect") }
        #expect(object.rect == CGRect(x: 1, y: 1, width: 1, height: 1))
    }

    @Test func defaultSetNilValueForKeyThrows() {
        let department = Department()
        let error = expectKVCError(.nilValueForNonOptional) { try department.setNilValueForKey("budget") }
        #expect(error?.key == "budget")
        #expect(error?.className == "SampleModels.Department")
    }

    @Test func employeeMapsNilSalaryToZero() throws {
        let employee = Employee()
        employee.salary = 75_000
        try employee.setValue(nil, forKey: "salary")
        #expect(employee.salary == 0)
    }

    @Test func employeeSetNilValueForKeyCalledDirectly() throws {
        let employee = Employee()
        employee.salary = 10
        try employee.setNilValueForKey("salary")
        #expect(employee.salary == 0)
        expectKVCError(.nilValueForNonOptional) { try employee.setNilValueForKey("employeeID") }
    }

    @Test func subclassInheritsTheSetNilValueForKeyOverride() throws {
        let manager = Manager()
        manager.salary = 10
        try manager.setValue(nil, forKey: "salary")
        #expect(manager.salary == 0)
        expectKVCError(.nilValueForNonOptional) { try manager.setValue(nil, forKey: "bonus") }
    }

    @Test func nsNullForNonOptionalAttributeIsATypeMismatch() {
        let employee = Employee()
        employee.salary = 3
        let error = expectKVCError(.typeMismatch) { try employee.setValue(NSNull(), forKey: "salary") }
        #expect(employee.salary == 3)
        #expect(error?.givenType == "Foundation.NSNull")
    }

    // MARK: - Overridden undefined-key hooks

    @Test func overriddenValueForUndefinedKeyAnswersExtraKeys() throws {
        let department = LenientDepartment()
        department.name = "Sales"
        #expect(sameValue(try department.value(forKey: "code"), "D-Sales"))
        #expect(try department.value(forKey: "nothing") == nil)
        #expect(department.undefinedKeysRead == ["code", "nothing"])
    }

    @Test func overriddenValueForUndefinedKeyIsNotCalledForDeclaredKeys() throws {
        let department = LenientDepartment()
        department.name = "Sales"
        #expect(sameValue(try department.value(forKey: "name"), "Sales"))
        #expect(department.undefinedKeysRead.isEmpty)
    }

    @Test func overriddenValueForUndefinedKeyCanFallBackToSuper() {
        let department = LenientDepartment()
        let error = expectKVCError(.undefinedKey) { _ = try department.value(forKey: "missing") }
        #expect(error?.className == "ModelObjectsTests.LenientDepartment")
        #expect(error?.key == "missing")
    }

    @Test func overriddenHooksWorkThroughKeyPaths() throws {
        let company = Company()
        let headquarters = LenientDepartment()
        headquarters.name = "HQ"
        company.headquarters = headquarters
        #expect(sameValue(try company.value(forKeyPath: "headquarters.code"), "D-HQ"))
        try company.setValue(42, forKeyPath: "headquarters.x-floor")
        #expect(sameValue(try company.value(forKeyPath: "headquarters.x-floor"), 42))
    }

    @Test func overriddenSetValueForUndefinedKeyAcceptsExtraKeys() throws {
        let department = LenientDepartment()
        try department.setValue("blue", forKey: "x-color")
        #expect(department.extras["x-color"] as? String == "blue")
        #expect(sameValue(try department.value(forKey: "x-color"), "blue"))
    }

    @Test func overriddenSetValueForUndefinedKeyCanFallBackToSuper() {
        let department = LenientDepartment()
        let error = expectKVCError(.undefinedKey) { try department.setValue(1, forKey: "color") }
        #expect(error?.className == "ModelObjectsTests.LenientDepartment")
        #expect(department.extras.isEmpty)
    }

    @Test func overriddenSetValueForUndefinedKeyIsNotCalledForDeclaredKeys() throws {
        let department = LenientDepartment()
        try department.setValue("Ops", forKey: "name")
        #expect(department.name == "Ops")
        #expect(department.extras.isEmpty)
    }
}
