import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct KeyPathTests {
    // MARK: - Reading

    @Test func singleKeyPathIsTheKey() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 5)
        #expect(sameValue(try ada.value(forKeyPath: "firstName"), "Ada"))
        #expect(sameValue(try ada.value(forKeyPath: "salary"), 5.0))
    }

    @Test func followsToOneRelationships() throws {
        let ada = Employee()
        let engineering = Department(name: "Engineering", budget: 1_000)
        ada.department = engineering
        #expect(sameValue(try ada.value(forKeyPath: "department.name"), "Engineering"))
        #expect(sameValue(try ada.value(forKeyPath: "department.budget"), Decimal(1_000)))
    }

    @Test func followsChainsOfToOneRelationships() throws {
        let boss = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 0)
        boss.department = Department(name: "Navy")
        let ada = Employee()
        ada.manager = boss
        #expect(sameValue(try ada.value(forKeyPath: "manager.department.name"), "Navy"))
        #expect(sameValue(try ada.value(forKeyPath: "manager.fullName"), "Grace Hopper"))
    }

    @Test func nilIntermediateValueMakesTheResultNil() throws {
        let ada = Employee()
        #expect(try ada.value(forKeyPath: "department.name") == nil)
        #expect(try ada.value(forKeyPath: "manager.department.name") == nil)
        #expect(try ada.value(forKeyPath: "manager.undeclaredKey") == nil)
    }

    @Test func nilLeafIsNil() throws {
        let ada = Employee()
        ada.manager = Employee()
        #expect(try ada.value(forKeyPath: "manager.age") == nil)
    }

    @Test func throughOrderedToManyCollectsAnArrayInOrder() throws {
        let boss = Employee()
        boss.directReports = [
            Employee(firstName: "A", lastName: "", employeeID: 1, salary: 0),
            Employee(firstName: "B", lastName: "", employeeID: 2, salary: 0),
            Employee(firstName: "C", lastName: "", employeeID: 3, salary: 0),
        ]
        let names = try #require(try boss.value(forKeyPath: "directReports.firstName") as? [Any])
        #expect(names as? [String] == ["A", "B", "C"])
    }

    @Test func throughToManyNilValuesBecomeNSNull() throws {
        let boss = Employee()
        let first = Employee()
        first.age = 30
        let second = Employee()
        boss.directReports = [first, second]
        let ages = try #require(try boss.value(forKeyPath: "directReports.age") as? [Any])
        #expect(ages.count == 2)
        #expect(ages.first as? Int == 30)
        #expect(ages.last is NSNull)
    }

    @Test func throughToManyThenToOneKeepsNSNullForNilRelationships() throws {
        let boss = Employee()
        let first = Employee()
        first.department = Department(name: "Sales")
        let second = Employee()
        let third = Employee()
        third.department = Department(name: "Ops")
        boss.directReports = [first, second, third]
        let names = try #require(try boss.value(forKeyPath: "directReports.department.name") as? [Any])
        #expect(names.count == 3)
        #expect(names[0] as? String == "Sales")
        #expect(names[1] is NSNull)
        #expect(names[2] as? String == "Ops")
    }

    @Test func throughEmptyToManyIsAnEmptyArray() throws {
        let boss = Employee()
        let names = try #require(try boss.value(forKeyPath: "directReports.firstName") as? [Any])
        #expect(names.isEmpty)
    }

    @Test func throughUnorderedToManyCollectsASetWithoutNils() throws {
        let team = Team(name: "Core", projects: [
            Project(name: "Alpha", priority: 1),
            Project(name: "Beta", priority: 1),
            Project(name: "Gamma"),
        ])
        let names = try #require(try team.value(forKeyPath: "projects.name") as? Set<AnyHashable>)
        #expect(names == ["Alpha", "Beta", "Gamma"])
        let priorities = try #require(try team.value(forKeyPath: "projects.priority") as? Set<AnyHashable>)
        #expect(priorities == [1])
    }

    @Test func nestedToManyGivesAnArrayOfArrays() throws {
        let company = Company()
        let sales = Department(name: "Sales")
        sales.employees = [
            Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0),
            Employee(firstName: "Bob", lastName: "", employeeID: 2, salary: 0),
        ]
        let empty = Department(name: "Empty")
        let ops = Department(name: "Ops")
        ops.employees = [Employee(firstName: "Cy", lastName: "", employeeID: 3, salary: 0)]
        company.departments = [sales, empty, ops]

        let names = try #require(try company.value(forKeyPath: "departments.employees.firstName") as? [Any])
        #expect(names.count == 3)
        #expect(names[0] as? [String] == ["Ada", "Bob"])
        #expect(names[1] as? [String] == [])
        #expect(names[2] as? [String] == ["Cy"])
    }

    @Test func nestedUnorderedToManyGivesASetOfSets() throws {
        let company = Company()
        company.teams = [
            Team(name: "A", projects: [Project(name: "P1"), Project(name: "P2")]),
            Team(name: "B", projects: [Project(name: "P3")]),
        ]
        let names = try #require(try company.value(forKeyPath: "teams.projects.name") as? Set<AnyHashable>)
        let expected: Set<AnyHashable> = [
            AnyHashable(Set<AnyHashable>(["P1", "P2"])),
            AnyHashable(Set<AnyHashable>(["P3"])),
        ]
        #expect(names == expected)
    }

    @Test func readsIntoDictionaryAttributes() throws {
        let object = AllTypes()
        object.info = ["color": "red", "size": 3, "nested": ["depth": 2] as [String: Any]]
        #expect(sameValue(try object.value(forKeyPath: "info.color"), "red"))
        #expect(sameValue(try object.value(forKeyPath: "info.size"), 3))
        #expect(sameValue(try object.value(forKeyPath: "info.nested.depth"), 2))
        #expect(try object.value(forKeyPath: "info.missing") == nil)
        #expect(try object.value(forKeyPath: "info.missing.deeper") == nil)
    }

    @Test func readsIntoArraysOfDictionaries() throws {
        let object = AllTypes()
        object.records = [["v": 1], [:], ["v": 3]]
        let values = try #require(try object.value(forKeyPath: "records.v") as? [Any])
        #expect(values.count == 3)
        #expect(values[0] as? Int == 1)
        #expect(values[1] is NSNull)
        #expect(values[2] as? Int == 3)
    }

    // MARK: - Reading errors

    @Test(arguments: ["", ".", "a.", ".a", "firstName..b", "department..name", "department.", "manager.department..name"])
    func malformedKeyPathsThrow(path: String) {
        let ada = Employee()
        let error = expectKVCError(.malformedKeyPath) { _ = try ada.value(forKeyPath: path) }
        #expect(error?.key == path)
    }

    @Test func malformedPathThroughNonNilRelationshipThrows() {
        let ada = Employee()
        ada.department = Department(name: "Sales")
        expectKVCError(.malformedKeyPath) { _ = try ada.value(forKeyPath: "department..name") }
        expectKVCError(.malformedKeyPath) { _ = try ada.value(forKeyPath: "department.name.") }
    }

    @Test func undefinedFirstKeyThrowsUndefinedKey() {
        let ada = Employee()
        let error = expectKVCError(.undefinedKey) { _ = try ada.value(forKeyPath: "nickname.first") }
        #expect(error?.key == "nickname")
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test func undefinedKeyOnARelatedObjectNamesItsClass() {
        let ada = Employee()
        ada.department = Department(name: "Sales")
        let error = expectKVCError(.undefinedKey) { _ = try ada.value(forKeyPath: "department.floor") }
        #expect(error?.key == "floor")
        #expect(error?.className == "SampleModels.Department")
    }

    @Test func undefinedKeyThroughToManyThrows() {
        let boss = Employee()
        boss.directReports = [Employee()]
        expectKVCError(.undefinedKey) { _ = try boss.value(forKeyPath: "directReports.nickname") }
    }

    @Test func continuingPastAPlainValueThrowsNotKeyValueCodingCompliant() {
        let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        let error = expectKVCError(.notKeyValueCodingCompliant) { _ = try ada.value(forKeyPath: "firstName.count") }
        #expect(error?.key == "firstName.count")
        #expect(error?.className == "Swift.String")
        expectKVCError(.notKeyValueCodingCompliant) { _ = try ada.value(forKeyPath: "salary.sign") }
    }

    // MARK: - Setting

    @Test func setValueForSingleKeyPathSetsTheKey() throws {
        let ada = Employee()
        try ada.setValue("Ada", forKeyPath: "firstName")
        #expect(ada.firstName == "Ada")
    }

    @Test func setValueThroughToOneSetsOnTheRelatedObject() throws {
        let ada = Employee()
        let sales = Department(name: "Sales")
        ada.department = sales
        try ada.setValue("Marketing", forKeyPath: "department.name")
        #expect(sales.name == "Marketing")
        try ada.setValue(7, forKeyPath: "department.budget")
        #expect(sales.budget == 7)
    }

    @Test func setValueThroughAChainOfToOneRelationships() throws {
        let ada = Employee()
        let boss = Employee()
        boss.department = Department()
        ada.manager = boss
        try ada.setValue("Navy", forKeyPath: "manager.department.name")
        #expect(boss.department?.name == "Navy")
    }

    @Test func setValueThroughNilIntermediateDoesNothing() throws {
        let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        try ada.setValue("Marketing", forKeyPath: "department.name")
        try ada.setValue("Navy", forKeyPath: "manager.department.name")
        try ada.setValue("ignored", forKeyPath: "manager.undeclaredKey")
        #expect(ada.department == nil)
        #expect(ada.manager == nil)
        #expect(ada.firstName == "Ada")
    }

    @Test func setValueForKeyPathCanSetARelationshipToNil() throws {
        let ada = Employee()
        let boss = Employee()
        boss.department = Department()
        ada.manager = boss
        try ada.setValue(nil, forKeyPath: "manager.department")
        #expect(boss.department == nil)
    }

    @Test func setValueForKeyPathPropagatesTypeMismatch() {
        let ada = Employee()
        let sales = Department(name: "Sales")
        ada.department = sales
        let error = expectKVCError(.typeMismatch) { try ada.setValue(3.5, forKeyPath: "department.name") }
        #expect(sales.name == "Sales")
        #expect(error?.key == "name")
        #expect(error?.className == "SampleModels.Department")
    }

    @Test func setValueForKeyPathPropagatesUndefinedKeyOfTheLastKey() {
        let ada = Employee()
        ada.department = Department()
        let error = expectKVCError(.undefinedKey) { try ada.setValue(1, forKeyPath: "department.floor") }
        #expect(error?.key == "floor")
        #expect(error?.className == "SampleModels.Department")
    }

    @Test func setValueForKeyPathWithUndefinedIntermediateKeyThrows() {
        let ada = Employee()
        let error = expectKVCError(.undefinedKey) { try ada.setValue(1, forKeyPath: "office.floor") }
        #expect(error?.key == "office")
    }

    @Test func setValueForKeyPathPropagatesReadOnlyAndNilErrors() {
        let ada = Employee()
        ada.manager = Employee()
        expectKVCError(.readOnlyKey) { try ada.setValue("x", forKeyPath: "manager.fullName") }
        expectKVCError(.nilValueForNonOptional) { try ada.setValue(nil, forKeyPath: "manager.employeeID") }
    }

    @Test func setNilForKeyPathUsesTheTargetsSetNilValueForKey() throws {
        let ada = Employee()
        let boss = Employee()
        boss.salary = 100
        ada.manager = boss
        try ada.setValue(nil, forKeyPath: "manager.salary")
        #expect(boss.salary == 0)
    }

    @Test(arguments: ["", ".", "a.", ".a", "firstName.", ".firstName", "department..name", "department.name."])
    func setValueForMalformedKeyPathThrows(path: String) {
        let ada = Employee()
        ada.department = Department()
        let error = expectKVCError(.malformedKeyPath) { try ada.setValue("x", forKeyPath: path) }
        #expect(error?.key == path)
    }

    @Test func setValueThroughAPlainValueThrowsNotKeyValueCodingCompliant() {
        let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        let error = expectKVCError(.notKeyValueCodingCompliant) { try ada.setValue(1, forKeyPath: "firstName.count") }
        #expect(error?.key == "firstName.count")
        #expect(ada.firstName == "Ada")
    }

    @Test func setValueThroughAToManyRelationshipThrowsNotKeyValueCodingCompliant() {
        let boss = Employee()
        let report = Employee()
        boss.directReports = [report]
        expectKVCError(.notKeyValueCodingCompliant) { try boss.setValue(10, forKeyPath: "directReports.salary") }
        #expect(report.salary == 0)
    }
}
