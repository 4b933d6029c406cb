import Foundation
import ModelObjects
import SampleModels
import Testing

/// A department of three employees; Bob has no age and no department.
private func makeDepartment() -> Department {
    let department = Department(name: "Engineering")
    let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    ada.age = 36
    ada.startDate = Date(timeIntervalSinceReferenceDate: 300)
    let bob = Employee(firstName: "Bob", lastName: "Babbage", employeeID: 2, salary: 50)
    bob.startDate = Date(timeIntervalSinceReferenceDate: 100)
    let cy = Employee(firstName: "Cy", lastName: "Lovelace", employeeID: 3, salary: 150)
    cy.age = 40
    cy.startDate = Date(timeIntervalSinceReferenceDate: 200)
    department.employees = [ada, bob, cy]
    return department
}

/// A team with three projects; Beta has no priority.
private func makeTeam() -> Team {
    Team(name: "Core", projects: [
        Project(name: "Alpha", budget: 10, priority: 1),
        Project(name: "Beta", budget: 20.5),
        Project(name: "Gamma", budget: 30, priority: 3),
    ])
}

/// An object whose `records` attribute is an array of dictionaries with the values `v`.
private func makeRecords(_ values: [Any]) -> AllTypes {
    let object = AllTypes()
    object.records = values.map { ["v": $0] }
    return object
}

@Suite struct CollectionOperatorTests {
    // MARK: - @count

    @Test func countOfOrderedToMany() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@count"), 3))
    }

    @Test func countOfUnorderedToMany() throws {
        #expect(sameValue(try makeTeam().value(forKeyPath: "projects.@count"), 3))
    }

    @Test func countIgnoresARightKeyPath() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@count.salary"), 3))
    }

    @Test func countOfEmptyCollectionsIsZero() throws {
        #expect(sameValue(try Department().value(forKeyPath: "employees.@count"), 0))
        #expect(sameValue(try Team().value(forKeyPath: "projects.@count"), 0))
    }

    @Test func countIncludesNSNullElements() throws {
        // "employees.department" is [Department or NSNull]; Bob's is NSNull.
        let department = makeDepartment()
        department.employees[0].department = department
        #expect(sameValue(try department.value(forKeyPath: "employees.department.@count"), 3))
    }

    // MARK: - @sum

    @Test func sumOfDoublesIsADouble() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@sum.salary"), 300.0))
    }

    @Test func sumOfIntegersIsAnInt() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@sum.employeeID"), 6))
    }

    @Test func sumSkipsNilValues() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@sum.age"), 76))
    }

    @Test func sumOfOnlyNilValuesIsZero() throws {
        let department = Department()
        department.employees = [Employee(), Employee()]
        #expect(sameValue(try department.value(forKeyPath: "employees.@sum.age"), 0))
    }

    @Test func sumOfEmptyCollectionIsZero() throws {
        #expect(sameValue(try Department().value(forKeyPath: "employees.@sum.salary"), 0))
        #expect(sameValue(try Team().value(forKeyPath: "projects.@sum.budget"), 0))
    }

    @Test func sumOverASet() throws {
        #expect(sameValue(try makeTeam().value(forKeyPath: "projects.@sum.budget"), 60.5))
        #expect(sameValue(try makeTeam().value(forKeyPath: "projects.@sum.priority"), 4))
    }

    @Test func sumOfDecimalsIsAnExactDecimal() throws {
        let company = Company()
        company.departments = [
            Department(name: "A", budget: Decimal(string: "0.1")!),
            Department(name: "B", budget: Decimal(string: "0.2")!),
        ]
        #expect(sameValue(try company.value(forKeyPath: "departments.@sum.budget"), Decimal(string: "0.3")!))
    }

    @Test func sumOfIntegerNSNumbersIsAnInt() throws {
        // Documented: @sum is an Int when every value is an integer.
        let sum = try makeRecords([NSNumber(value: 1), NSNumber(value: 2)]).value(forKeyPath: "records.@sum.v")
        #expect(sameValue(sum, 3), "got \(String(describing: sum)) (\(typeName(sum)))")
    }

    @Test func sumOfIntegersAndDoublesIsADouble() throws {
        #expect(sameValue(try makeRecords([1, 2.5]).value(forKeyPath: "records.@sum.v"), 3.5))
    }

    @Test func sumOfIntegersAndDecimalsIsADecimal() throws {
        let sum = try makeRecords([1, Decimal(string: "2.25")!]).value(forKeyPath: "records.@sum.v")
        #expect(sameValue(sum, Decimal(string: "3.25")!))
    }

    @Test func integerSumThatOverflowsIsAnExactDecimal() throws {
        let sum = try makeRecords([Int.max, 1]).value(forKeyPath: "records.@sum.v")
        #expect(sameValue(sum, Decimal(string: "9223372036854775808")!))
    }

    @Test func sumFollowsAKeyPathOnTheRightAndSkipsNSNull() throws {
        let department = makeDepartment()
        let company = Company()
        company.departments = [department]
        department.employees[0].department = Department(name: "X", budget: 5)
        department.employees[2].department = Department(name: "Y", budget: 7)
        #expect(sameValue(try department.value(forKeyPath: "employees.@sum.department.budget"), Decimal(12)))
        #expect(sameValue(try department.value(forKeyPath: "employees.department.@sum.budget"), Decimal(12)))
    }

    // MARK: - @avg

    @Test func averageOfDoubles() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@avg.salary"), 100.0))
    }

    @Test func averageOfIntegersIsADouble() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@avg.employeeID"), 2.0))
    }

    @Test func averageCountsNilValuesAsZero() throws {
        #expect(sameValue(try makeDepartment().value(forKeyPath: "employees.@avg.age"), 76.0 / 3.0))
        #expect(sameValue(try makeTeam().value(forKeyPath: "projects.@avg.priority"), 4.0 / 3.0))
    }

    @Test func averageOfOnlyNilValuesIsZero() throws {
        let department = Department()
        department.employees = [Employee(), Employee()]
        #expect(sameValue(try department.value(forKeyPath: "employees.@avg.age"), 0.0))
    }

    @Test func averageOfEmptyCollectionIsNil() throws {
        #expect(try Department().value(forKeyPath: "employees.@avg.salary") == nil)
        #expect(try Team().value(forKeyPath: "projects.@avg.budget") == nil)
    }

    @Test func averageOfDecimalsIsADecimal() throws {
        let company = Company()
        company.departments = [
            Department(name: "A", budget: Decimal(string: "0.1")!),
            Department(name: "B", budget: Decimal(string: "0.2")!),
        ]
        #expect(sameValue(try company.value(forKeyPath: "departments.@avg.budget"), Decimal(string: "0.15")!))
    }

    @Test func averageOverASet() throws {
        #expect(sameValue(try makeTeam().value(forKeyPath: "projects.@avg.budget"), 60.5 / 3))
    }

    // MARK: - @max and @min

    @Test func maxAndMinOfNumbers() throws {
        let department = makeDepartment()
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.salary"), 150.0))
        #expect(sameValue(try department.value(forKeyPath: "employees.@min.salary"), 50.0))
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.employeeID"), 3))
        #expect(sameValue(try department.value(forKeyPath: "employees.@min.employeeID"), 1))
    }

    @Test func maxAndMinSkipNilValues() throws {
        let department = makeDepartment()
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.age"), 40))
        #expect(sameValue(try department.value(forKeyPath: "employees.@min.age"), 36))
    }

    @Test func maxAndMinOfStringsCompareLexically() throws {
        let department = makeDepartment()
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.lastName"), "Lovelace"))
        #expect(sameValue(try department.value(forKeyPath: "employees.@min.lastName"), "Babbage"))
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.firstName"), "Cy"))
    }

    @Test func maxAndMinOfDates() throws {
        let department = makeDepartment()
        #expect(sameValue(try department.value(forKeyPath: "employees.@max.startDate"), Date(timeIntervalSinceReferenceDate: 300)))
        #expect(sameValue(try department.value(forKeyPath: "employees.@min.startDate"), Date(timeIntervalSinceReferenceDate: 100)))
    }

    @Test func maxAndMinOverASet() throws {
        let team = makeTeam()
        #expect(sameValue(try team.value(forKeyPath: "projects.@max.budget"), 30.0))
        #expect(sameValue(try team.value(forKeyPath: "projects.@min.name"), "Alpha"))
        #expect(sameValue(try team.value(forKeyPath: "projects.@max.priority"), 3))
    }

    @Test func maxAndMinReturnTheWinningValueItselfAcrossNumericTypes() throws {
        let object = makeRecords([1, 2.5, Int8(2), Decimal(-3)])
        #expect(sameValue(try object.value(forKeyPath: "records.@max.v"), 2.5))
        #expect(sameValue(try object.value(forKeyPath: "records.@min.v"), Decimal(-3)))
    }

    @Test func maxAndMinKeepTheFirstOfEqualValues() throws {
        let object = makeRecords([1, 1.0, Int8(1)])
        #expect(sameValue(try object.value(forKeyPath: "records.@max.v"), 1))
        #expect(sameValue(try object.value(forKeyPath: "records.@min.v"), 1))
    }

    @Test func maxAndMinOfEmptyOrAllNilCollectionsAreNil() throws {
        #expect(try Department().value(forKeyPath: "employees.@max.salary") == nil)
        #expect(try Department().value(forKeyPath: "employees.@min.salary") == nil)
        #expect(try Team().value(forKeyPath: "projects.@max.budget") == nil)
        let department = Department()
        department.employees = [Employee(), Employee()]
        #expect(try department.value(forKeyPath: "employees.@max.age") == nil)
        #expect(try department.value(forKeyPath: "employees.@min.age") == nil)
    }

    @Test func maxOfASingleNonComparableValueIsThatValue() throws {
        let department = makeDepartment()
        let sales = Department(name: "Sales")
        department.employees[0].department = sales
        #expect(try department.value(forKeyPath: "employees.@max.department") as? Department === sales)
    }

    // MARK: - @unionOfObjects and @distinctUnionOfObjects

    @Test func unionOfObjectsKeepsOrderAndDuplicates() throws {
        let names = try makeDepartment().value(forKeyPath: "employees.@unionOfObjects.lastName")
        #expect(names as? [String] == ["Lovelace", "Babbage", "Lovelace"])
    }

    @Test func unionOfObjectsSkipsNilValues() throws {
        let ages = try makeDepartment().value(forKeyPath: "employees.@unionOfObjects.age")
        #expect(ages as? [Int] == [36, 40])
    }

    @Test func unionOfObjectsOverASetIsAnArray() throws {
        let names = try #require(try makeTeam().value(forKeyPath: "projects.@unionOfObjects.name") as? [Any])
        #expect((names as? [String])?.sorted() == ["Alpha", "Beta", "Gamma"])
    }

    @Test func distinctUnionOfObjectsKeepsFirstOccurrencesInOrder() throws {
        let names = try makeDepartment().value(forKeyPath: "employees.@distinctUnionOfObjects.lastName")
        #expect(names as? [String] == ["Lovelace", "Babbage"])
    }

    @Test func distinctUnionOfObjectsOverASetIsASet() throws {
        let team = makeTeam()
        team.projects.insert(Project(name: "Alpha"))
        let names = try #require(try team.value(forKeyPath: "projects.@distinctUnionOfObjects.name") as? Set<AnyHashable>)
        #expect(names == ["Alpha", "Beta", "Gamma"])
    }

    @Test func unionsOfEmptyCollectionsAreEmpty() throws {
        let empty = Department()
        #expect((try empty.value(forKeyPath: "employees.@unionOfObjects.lastName") as? [Any])?.isEmpty == true)
        #expect((try empty.value(forKeyPath: "employees.@distinctUnionOfObjects.lastName") as? [Any])?.isEmpty == true)
        #expect((try Team().value(forKeyPath: "projects.@distinctUnionOfObjects.name") as? Set<AnyHashable>)?.isEmpty == true)
    }

    // MARK: - Unions of collections

    /// Sales: Ada Lovelace, Bob Babbage; Empty; Ops: Cy Lovelace, Di Hopper, Ed (no last name).
    private func makeCompany() -> Company {
        let company = Company()
        let sales = Department(name: "Sales")
        sales.employees = [
            Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0),
            Employee(firstName: "Bob", lastName: "Babbage", employeeID: 2, salary: 0),
        ]
        let ops = Department(name: "Ops")
        ops.employees = [
            Employee(firstName: "Cy", lastName: "Lovelace", employeeID: 3, salary: 0),
            Employee(firstName: "Di", lastName: "Hopper", employeeID: 4, salary: 0),
        ]
        company.departments = [sales, Department(name: "Empty"), ops]
        return company
    }

    @Test func unionOfArraysFlattensInOrder() throws {
        let names = try makeCompany().value(forKeyPath: "departments.employees.@unionOfArrays.lastName")
        #expect(names as? [String] == ["Lovelace", "Babbage", "Lovelace", "Hopper"])
    }

    @Test func distinctUnionOfArraysFlattensKeepingFirstOccurrences() throws {
        let names = try makeCompany().value(forKeyPath: "departments.employees.@distinctUnionOfArrays.lastName")
        #expect(names as? [String] == ["Lovelace", "Babbage", "Hopper"])
    }

    @Test func unionOfArraysOfEmptyCollectionIsEmpty() throws {
        let names = try Company().value(forKeyPath: "departments.employees.@unionOfArrays.lastName")
        #expect((names as? [Any])?.isEmpty == true)
    }

    @Test func unionOfArraysAppliesTheRightKeyPathToEachElement() throws {
        // Cocoa: each element's value at the right key path must be a collection, and those
        // collections are joined, so a to-many key on the right flattens it.
        let company = makeCompany()
        let employees = try #require(try company.value(forKeyPath: "departments.@unionOfArrays.employees") as? [Employee])
        #expect(employees.map(\.firstName) == ["Ada", "Bob", "Cy", "Di"])
        let lastNames = try company.value(forKeyPath: "departments.@distinctUnionOfArrays.employees.lastName")
        #expect(lastNames as? [String] == ["Lovelace", "Babbage", "Hopper"])
    }

    @Test func operatorsNestInTheRightKeyPath() throws {
        let company = makeCompany()
        #expect(sameValue(try company.value(forKeyPath: "departments.@sum.employees.@count"), 4))
        #expect(sameValue(try company.value(forKeyPath: "departments.@max.employees.@count"), 2))
        #expect(sameValue(try company.value(forKeyPath: "departments.@min.employees.@count"), 0))
    }

    @Test func distinctUnionOfSetsOverASetOfSetsIsASet() throws {
        let company = Company()
        let shared = Project(name: "Shared")
        company.teams = [
            Team(name: "A", projects: [Project(name: "P1"), shared]),
            Team(name: "B", projects: [Project(name: "P2"), shared]),
        ]
        let names = try #require(try company.value(forKeyPath: "teams.projects.@distinctUnionOfSets.name") as? Set<AnyHashable>)
        #expect(names == ["P1", "P2", "Shared"])
    }

    @Test func distinctUnionOfSetsOverAnArrayIsAnArray() throws {
        // Documented: the distinct unions answer a set only for a set receiver (as Cocoa, whose
        // NSArray @distinctUnionOfSets answers an NSArray).
        let company = Company()
        company.orderedTeams = [
            Team(name: "A", projects: [Project(name: "P1")]),
            Team(name: "B", projects: [Project(name: "P2"), Project(name: "P1")]),
        ]
        let result = try company.value(forKeyPath: "orderedTeams.projects.@distinctUnionOfSets.name")
        let names = try #require(result as? [Any], "got \(typeName(result))")
        #expect((names as? [String])?.sorted() == ["P1", "P2"])
    }

    @Test func distinctUnionOfArraysOverASetIsASet() throws {
        // Documented: the distinct unions answer a set for a set receiver (as Cocoa's NSSet does).
        let company = Company()
        company.teams = [
            Team(name: "A", members: [Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)]),
            Team(name: "B", members: [Employee(firstName: "Cy", lastName: "Lovelace", employeeID: 2, salary: 0)]),
        ]
        let result = try company.value(forKeyPath: "teams.members.@distinctUnionOfArrays.lastName")
        let names = try #require(result as? Set<AnyHashable>, "got \(typeName(result))")
        #expect(names == ["Lovelace"])
    }

    @Test func unionOfArraysOverASetIsAnArray() throws {
        let company = Company()
        company.teams = [
            Team(name: "A", members: [Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)]),
            Team(name: "B", members: [Employee(firstName: "Cy", lastName: "Lovelace", employeeID: 2, salary: 0)]),
        ]
        let names = try company.value(forKeyPath: "teams.members.@unionOfArrays.lastName")
        #expect(names as? [String] == ["Lovelace", "Lovelace"])
    }

    @Test func unionOfArraysOverElementsThatAreNotCollectionsThrows() {
        let department = makeDepartment()
        expectKVCError(.operatorOnNonCollection) {
            _ = try department.value(forKeyPath: "employees.@unionOfArrays.firstName")
        }
    }

    // MARK: - Receivers that are nil or not collections

    @Test func operatorAfterANilValueIsNil() throws {
        let ada = Employee()
        #expect(try ada.value(forKeyPath: "department.employees.@count") == nil)
        #expect(try ada.value(forKeyPath: "department.employees.@sum.salary") == nil)
    }

    @Test func operatorOnAModelObjectThrowsOperatorOnNonCollection() {
        let ada = Employee()
        let error = expectKVCError(.operatorOnNonCollection) { _ = try ada.value(forKeyPath: "@count") }
        #expect(error?.key == "@count")
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test func operatorOnAPlainValueThrowsOperatorOnNonCollection() {
        let ada = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        ada.department = Department(name: "Sales")
        let error = expectKVCError(.operatorOnNonCollection) { _ = try ada.value(forKeyPath: "firstName.@count") }
        #expect(error?.key == "firstName.@count")
        #expect(error?.className == "Swift.String")
        expectKVCError(.operatorOnNonCollection) { _ = try ada.value(forKeyPath: "department.@sum.budget") }
    }

    // MARK: - Values operators cannot use

    @Test(arguments: ["employees.@sum.firstName", "employees.@avg.lastName", "employees.@sum.startDate"])
    func sumAndAverageOfNonNumbersThrowNonNumericValue(path: String) {
        let department = makeDepartment()
        let error = expectKVCError(.nonNumericValue) { _ = try department.value(forKeyPath: path) }
        #expect(error?.key == path)
    }

    @Test func maxAndMinOfIncomparableValuesThrowNonNumericValue() {
        let mixed = makeRecords([1, "one"])
        expectKVCError(.nonNumericValue) { _ = try mixed.value(forKeyPath: "records.@max.v") }
        expectKVCError(.nonNumericValue) { _ = try mixed.value(forKeyPath: "records.@min.v") }
        let department = makeDepartment()
        department.employees[0].department = Department(name: "A")
        department.employees[1].department = Department(name: "B")
        let error = expectKVCError(.nonNumericValue) { _ = try department.value(forKeyPath: "employees.@max.department") }
        #expect(error?.key == "employees.@max.department")
    }

    @Test func sumOfModelObjectsThrowsNonNumericValue() {
        let department = makeDepartment()
        department.employees[0].department = Department(name: "A")
        expectKVCError(.nonNumericValue) { _ = try department.value(forKeyPath: "employees.@sum.department") }
    }

    @Test func unknownKeyOnTheRightThrowsUndefinedKey() {
        let department = makeDepartment()
        let error = expectKVCError(.undefinedKey) { _ = try department.value(forKeyPath: "employees.@sum.nickname") }
        #expect(error?.key == "nickname")
    }

    // MARK: - Malformed operators

    @Test(arguments: ["@median.salary", "@foo", "@.salary", "@SUM.salary", "@unionOfSets.salary", "@countOf"])
    func unknownOperatorThrowsUnknownCollectionOperator(operatorPath: String) {
        let department = makeDepartment()
        let path = "employees." + operatorPath
        let error = expectKVCError(.unknownCollectionOperator) { _ = try department.value(forKeyPath: path) }
        #expect(error?.key == path)
    }

    @Test(arguments: [
        "@sum", "@avg", "@max", "@min", "@unionOfObjects", "@distinctUnionOfObjects",
        "@unionOfArrays", "@distinctUnionOfArrays", "@distinctUnionOfSets",
    ])
    func operatorWithoutRightKeyPathThrowsMissingOperatorKeyPath(operatorName: String) {
        let department = makeDepartment()
        let path = "employees." + operatorName
        let error = expectKVCError(.missingOperatorKeyPath) { _ = try department.value(forKeyPath: path) }
        #expect(error?.key == path)
    }

    @Test func operatorFollowedByAnEmptyKeyIsMalformed() {
        let department = makeDepartment()
        expectKVCError(.malformedKeyPath) { _ = try department.value(forKeyPath: "employees.@sum.") }
        expectKVCError(.malformedKeyPath) { _ = try department.value(forKeyPath: "employees.@sum..salary") }
    }
}
