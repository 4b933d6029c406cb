import Foundation
import Testing

@testable import ManagedObjects

/// Every way making a model in code can fail, matched by code.
@Suite struct ModelErrorTests {
    /// Makes a model that must fail, and returns its error.
    private func failure(_ entities: [Entity], sourceLocation: SourceLocation = #_sourceLocation) -> ModelError? {
        #expect(throws: ModelError.self, sourceLocation: sourceLocation) {
            _ = try ManagedObjectModel(entities: entities)
        }
    }

    @Test func unknownDestinationNamesTheRelationshipAndTheMissingEntity() throws {
        let error = try #require(
            failure([
                Entity("Department") { Property("employees", to: "Employe", toMany: true) },
                Entity("Employee") { Property("name", .string) },
            ]))
        #expect(error.code == .unknownDestination)
        #expect(error.entityName == "Department" && error.propertyName == "employees")
        #expect(error.message.contains("'Employe'"))
        #expect(error.message.contains("Department, Employee"))
        #expect("\(error)".hasPrefix("ModelError.unknownDestination [Department.employees]: "))
    }

    @Test func emptyDestinationIsAnUnknownDestination() {
        let error = failure([Entity("A") { Property("b", to: "") }])
        #expect(error?.code == .unknownDestination)
    }

    @Test func unknownInverseIsReported() {
        let error = failure([
            Entity("Department") { Property("employees", to: "Employee", inverse: "dept", toMany: true) },
            Entity("Employee") { Property("department", to: "Department", inverse: "employees") },
        ])
        #expect(error?.code == .unknownInverse)
        #expect(error?.entityName == "Department" && error?.propertyName == "employees")
        #expect(error?.message.contains("Employee.dept") == true)
    }

    @Test func inverseThatIsAnAttributeIsAnUnknownInverse() {
        let error = failure([
            Entity("Department") { Property("employees", to: "Employee", inverse: "name", toMany: true) },
            Entity("Employee") { Property("name", .string) },
        ])
        #expect(error?.code == .unknownInverse)
        #expect(error?.message.contains("an attribute") == true)
    }

    @Test func inverseThatNamesNoInverseIsAMismatch() {
        let error = failure([
            Entity("Department") { Property("employees", to: "Employee", inverse: "department", toMany: true) },
            Entity("Employee") { Property("department", to: "Department") },
        ])
        #expect(error?.code == .inverseMismatch)
        #expect(error?.message.contains("names no inverse") == true)
    }

    @Test func inverseThatPointsElsewhereIsAMismatch() {
        let error = failure([
            Entity("Department") {
                Property("employees", to: "Employee", inverse: "department", toMany: true)
                Property("alumni", to: "Employee", inverse: "department", toMany: true)
            },
            Entity("Employee") { Property("department", to: "Department", inverse: "employees") },
        ])
        #expect(error?.code == .inverseMismatch)
        #expect(error?.entityName == "Department" && error?.propertyName == "alumni")
        #expect(error?.message.contains("Department.employees") == true)
    }

    @Test func inverseLeadingToAnotherEntityIsAMismatch() {
        let error = failure([
            Entity("Department") { Property("employees", to: "Employee", inverse: "department", toMany: true) },
            Entity("Team") { Property("employees", to: "Employee", toMany: true) },
            Entity("Employee") { Property("department", to: "Team", inverse: "employees") },
        ])
        #expect(error?.code == .inverseMismatch)
        #expect(error?.entityName == "Department")
    }

    @Test func propertyDeclaredTwiceIsADuplicate() {
        let error = failure([
            Entity("Employee") {
                Property("name", .string)
                Property("name", to: "Employee")
            }
        ])
        #expect(error?.code == .duplicateProperty)
        #expect(error?.entityName == "Employee" && error?.propertyName == "name")
    }

    @Test func redeclaredInheritedPropertyIsADuplicate() {
        let error = failure([
            Entity("Person") { Property("name", .string) },
            Entity("Employee", parent: "Manager") { Property("salary", .double) },
            Entity("Manager", parent: "Person") { Property("name", .string, optional: false) },
        ])
        #expect(error?.code == .duplicateProperty)
        #expect(error?.entityName == "Manager" && error?.propertyName == "name")
        #expect(error?.message.contains("inherits from 'Person'") == true)
    }

    @Test func twoEntitiesWithOneNameAreDuplicates() {
        let error = failure([Entity("A"), Entity("B"), Entity("A")])
        #expect(error?.code == .duplicateEntity)
        #expect(error?.entityName == "A")
    }

    @Test func unknownSuperentityIsReported() {
        let error = failure([Entity("Employee", parent: "Persn")])
        #expect(error?.code == .unknownSuperentity)
        #expect(error?.message.contains("'Persn'") == true)
    }

    @Test(arguments: [
        ([Entity("A", parent: "A")], "A -> A"),
        ([Entity("A", parent: "B"), Entity("B", parent: "A")], "A -> B -> A"),
        (
            [Entity("Root"), Entity("A", parent: "C"), Entity("B", parent: "A"), Entity("C", parent: "B")],
            "A -> C -> B -> A"
        ),
    ])
    func inheritanceCyclesAreReportedWithTheCycle(entities: [Entity], cycle: String) {
        let error = failure(entities)
        #expect(error?.code == .inheritanceCycle)
        #expect(error?.message.hasSuffix(cycle) == true)
    }

    @Test(arguments: ["", "first.name", "first name", "@count", "tab\there"])
    func propertyNamesThatCannotBeKeysAreInvalid(name: String) {
        let error = failure([Entity("Person") { Property(name, .string) }])
        #expect(error?.code == .invalidName)
    }

    @Test func entityNamesThatCannotBeKeysAreInvalid() {
        #expect(failure([Entity("")])?.code == .invalidName)
        #expect(failure([Entity("My.Entity")])?.code == .invalidName)
    }

    @Test func undefinedTypeIsOnlyForTransientAttributes() {
        let error = failure([Entity("Cache") { Property("scratch", .undefined) }])
        #expect(error?.code == .unsupportedAttributeType)
        #expect(error?.propertyName == "scratch")
    }

    @Test func unknownAttributeTypeIsUnsupported() {
        let error = failure([Entity("Shape") { Property("composite", AttributeType(rawValue: 2100)) }])
        #expect(error?.code == .unsupportedAttributeType)
        #expect(error?.message.contains("2100") == true)
    }

    @Test(arguments: [
        (AttributeType.integer16, 70_000 as any Sendable),
        (.integer32, "12"),
        (.integer64, 1.5),
        (.boolean, 1),
        (.date, "2024-01-01"),
        (.string, 42),
        (.uuid, "not-a-uuid"),
        (.double, "0"),
    ])
    func defaultValuesOfTheWrongTypeAreInvalid(type: AttributeType, value: any Sendable) {
        let error = failure([Entity("Thing") { Property("value", type, defaultValue: value) }])
        #expect(error?.code == .invalidDefaultValue)
        #expect(error?.entityName == "Thing" && error?.propertyName == "value")
    }

    @Test(arguments: [
        ("minimum above maximum", Property("n", .integer32, minimum: 10, maximum: 1)),
        ("decimal minimum above maximum", Property("n", .decimal, minimum: 2.5, maximum: 1)),
        (
            "date minimum above maximum",
            Property("d", .date, minimum: Date(timeIntervalSince1970: 10), maximum: Date(timeIntervalSince1970: 0))
        ),
        ("minimum on a string", Property("s", .string, minimum: 1)),
        ("minimum of the wrong type", Property("n", .double, minimum: "zero")),
        ("length on a number", Property("n", .integer16, maximumLength: 3)),
        ("negative length", Property("s", .string, minimumLength: -1)),
        ("negative maximum length", Property("s", .string, maximumLength: -1)),
        ("minimum length above maximum", Property("s", .string, minimumLength: 5, maximumLength: 2)),
        ("pattern on a number", Property("n", .integer64, pattern: "^1")),
        ("pattern that does not compile", Property("s", .string, pattern: "([a-z")),
        ("ordered to-one", Property("r", to: "Thing", ordered: true)),
        ("to-one with maximum 2", Property("r", to: "Thing", maxCount: 2)),
        ("to-one with minimum 2", Property("r", to: "Thing", minCount: 2)),
        ("negative minimum count", Property("r", to: "Thing", toMany: true, minCount: -1)),
        ("negative maximum count", Property("r", to: "Thing", toMany: true, maxCount: -3)),
        ("minimum count above maximum", Property("r", to: "Thing", toMany: true, minCount: 4, maxCount: 3)),
    ])
    func impossibleConstraintsAreInvalid(label: String, property: Property) {
        let error = failure([Entity("Thing", properties: [property])])
        #expect(error?.code == .invalidConstraint, "\(label)")
        #expect(error?.propertyName == property.name, "\(label)")
    }

    @Test func templatesAndConfigurationsMustNameEntities() {
        let templateError = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(
                entities: [Entity("A")], fetchRequestTemplates: ["all": FetchRequestTemplate(entityName: "B")])
        }
        #expect(templateError?.code == .unknownEntity && templateError?.entityName == "B")
        let error = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(entities: [Entity("A")], configurations: ["Main": ["A", "Z"]])
        }
        #expect(error?.code == .unknownEntity && error?.entityName == "Z")
    }

    @Test func codesMatchInCatchClauses() {
        var matched = false
        do {
            _ = try ManagedObjectModel { Entity("A", parent: "A") }
        } catch ModelError.Code.inheritanceCycle {
            matched = true
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(matched)
        #expect(!(ModelError.Code.unknownFile ~= CocoaError(.fileNoSuchFile)))
    }

    @Test func errorsBridgeToNSError() throws {
        let url = URL(fileURLWithPath: "/tmp/Model.xcdatamodel/contents")
        let error = ModelError(
            .malformedModelFile, entity: "A", property: "b", file: url, line: 12, message: "bad",
            underlyingError: CocoaError(.fileReadCorruptFile))
        let nsError = error as NSError
        #expect(nsError.domain == "ModelObjects.ModelError")
        #expect(nsError.code == ModelError.Code.malformedModelFile.rawValue)
        #expect(nsError.userInfo[NSFilePathErrorKey] as? String == url.path)
        #expect(nsError.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(error.description == "ModelError.malformedModelFile [A.b] [file \(url.path):12]: bad")
        #expect(error.localizedDescription == error.description)
        #expect(ModelError.Code(rawValue: 999).description == "code 999")
    }
}
