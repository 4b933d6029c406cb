import Foundation
import Testing

@testable import ManagedObjects

@Suite struct ModelBuildingTests {
    private func companyModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: ModelFixtures.companyEntities())
    }

    @Test func builderListsEntitiesInOrderWithTheirProperties() throws {
        let model = try ManagedObjectModel {
            Entity("Department", class: ModelTestDepartment.self) {
                Property("name", .string, optional: false)
                Property("budget", .decimal, defaultValue: Decimal(0))
                Property(
                    "employees", to: "Employee", inverse: "department", toMany: true, ordered: true,
                    deleteRule: .cascade)
            }
            Entity("Employee") {
                Property("firstName", .string)
                Property("salary", .double, defaultValue: 0.0, minimum: 0)
                Property("department", to: "Department", inverse: "employees", deleteRule: .nullify)
            }
        }
        #expect(model.entities.map(\.name) == ["Department", "Employee"])
        #expect(model.entitiesByName.keys.sorted() == ["Department", "Employee"])
        let department = try #require(model.entity(named: "Department"))
        #expect(department.properties.map(\.name) == ["name", "budget", "employees"])
        #expect(department.attributes.map(\.name) == ["name", "budget"])
        #expect(department.relationships.map(\.name) == ["employees"])
        #expect(department.managedObjectModel === model)
        #expect(model.entity(named: "Nobody") == nil)
        #expect(model.description == "ManagedObjectModel(Department, Employee)")
    }

    @Test func attributesKeepTheirTypeFlagsAndConvertedValues() throws {
        let model = try companyModel()
        let department = try #require(model.entity(named: "Department"))
        let employee = try #require(model.entity(named: "Employee"))

        let name = try #require(department.attributesByName["name"])
        #expect(name.attributeType == .string)
        #expect(name.valueType == String.self)
        #expect(!name.isOptional)
        #expect(!name.isTransient)
        #expect(name.defaultValue == nil)
        #expect(name.entity === department)

        let budget = try #require(department.attributesByName["budget"])
        #expect(budget.isOptional)
        #expect(budget.defaultValue as? Decimal == Decimal(0))

        let salary = try #require(employee.attributesByName["salary"])
        #expect(salary.attributeType == .double)
        #expect(salary.defaultValue as? Double == 0.0)
        // `minimum: 0` is an Int literal; the model converts it to the attribute's type.
        #expect(salary.minimumValue as? Double == 0.0)
        #expect(salary.maximumValue == nil)
        #expect(salary.description == "AttributeDescription(Employee.salary: double)")
    }

    @Test(arguments: [
        (AttributeType.integer16, 7 as any Sendable, "Int16"),
        (.integer32, Int8(7), "Int32"),
        (.integer64, UInt16(7), "Int64"),
        (.double, Float(1.5), "Double"),
        (.float, 2, "Float"),
        (.decimal, 0.1, "Decimal"),
        (.uri, "https://example.com/a", "URL"),
        (.uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "UUID"),
        (.binaryData, [UInt8(1), 2], "Data"),
        (.string, Substring("abc"), "String"),
    ])
    func defaultValuesAreConvertedToTheTypesValueType(type: AttributeType, value: any Sendable, expected: String)
        throws
    {
        let model = try ManagedObjectModel {
            Entity("Thing") { Property("value", type, defaultValue: value) }
        }
        let attribute = try #require(model.entity(named: "Thing")?.attributesByName["value"])
        let stored = try #require(attribute.defaultValue)
        #expect(String(describing: Swift.type(of: stored)) == expected)
        if type == .decimal {
            #expect(stored as? Decimal == Decimal(string: "0.1"))
        }
    }

    @Test func relationshipsResolveTheirDestinationAndInverse() throws {
        let model = try companyModel()
        let department = try #require(model.entity(named: "Department"))
        let employee = try #require(model.entity(named: "Employee"))
        let employees = try #require(department.relationshipsByName["employees"])
        let departmentOfEmployee = try #require(employee.relationshipsByName["department"])

        #expect(employees.destinationEntityName == "Employee")
        #expect(employees.destinationEntity === employee)
        #expect(employees.inverseRelationshipName == "department")
        #expect(employees.inverseRelationship === departmentOfEmployee)
        #expect(departmentOfEmployee.inverseRelationship === employees)
        #expect(employees.inverseRelationship?.inverseRelationship === employees)
        #expect(employees.isToMany && employees.isOrdered)
        #expect(employees.deleteRule == .cascade)
        #expect(employees.minCount == 0 && employees.maxCount == 0)
        #expect(!departmentOfEmployee.isToMany && !departmentOfEmployee.isOrdered)
        #expect(departmentOfEmployee.maxCount == 1)
        #expect(departmentOfEmployee.deleteRule == .nullify)
        #expect(employees.description == "RelationshipDescription(Department.employees -> Employee, ordered to-many)")
        #expect(department.relationships(forDestination: employee).map(\.name) == ["employees"])
        #expect(employee.relationships(forDestination: employee).isEmpty)
    }

    @Test func relationshipWithoutInverseAndSelfReferencesAreAllowed() throws {
        let model = try ManagedObjectModel {
            Entity("Node") {
                Property("parent", to: "Node", inverse: "children")
                Property("children", to: "Node", inverse: "parent", toMany: true, minCount: 0, maxCount: 8)
                Property("bookmark", to: "Node")
            }
        }
        let node = try #require(model.entity(named: "Node"))
        let parent = try #require(node.relationshipsByName["parent"])
        let children = try #require(node.relationshipsByName["children"])
        let bookmark = try #require(node.relationshipsByName["bookmark"])
        #expect(parent.destinationEntity === node)
        #expect(parent.inverseRelationship === children)
        #expect(children.maxCount == 8)
        #expect(bookmark.inverseRelationship == nil && bookmark.inverseRelationshipName == nil)
        #expect(node.relationships(forDestination: node).count == 3)
    }

    @Test func entityClassIsTheExplicitClassOrTheNamedOneOrManagedObject() throws {
        let model = try ManagedObjectModel {
            Entity("Department", class: ModelTestDepartment.self)
            Entity("Employee", className: "ManagedObjectsTests.ModelTestEmployee")
            Entity("Ghost", className: "ManagedObjectsTests.NoSuchClass")
            Entity("NotAManagedObject", className: "Foundation.NSObject")
            Entity("Plain")
        }
        let classes = model.entitiesByName.mapValues { ObjectIdentifier($0.managedObjectClass) }
        let classNames = model.entitiesByName.mapValues(\.managedObjectClassName)
        #expect(classes["Department"] == ObjectIdentifier(ModelTestDepartment.self))
        #expect(classNames["Department"] == "ManagedObjectsTests.ModelTestDepartment")
        #expect(classes["Employee"] == ObjectIdentifier(ModelTestEmployee.self))
        #expect(classes["Ghost"] == ObjectIdentifier(ManagedObject.self))
        #expect(classNames["Ghost"] == "ManagedObjectsTests.NoSuchClass")
        #expect(classes["NotAManagedObject"] == ObjectIdentifier(ManagedObject.self))
        #expect(classes["Plain"] == ObjectIdentifier(ManagedObject.self))
        #expect(classNames["Plain"] == "ManagedObjects.ManagedObject")
    }

    @Test func classResolverFollowsXcodesNamingForms() {
        let plain = ClassResolver()
        #expect(plain.resolve("ManagedObjectsTests.ModelTestEmployee") == ModelTestEmployee.self)
        #expect(plain.resolve(".ModelTestEmployee") == nil)
        #expect(plain.resolve("ModelTestEmployee") == nil)
        #expect(plain.resolve("NSManagedObject") == ManagedObject.self)
        #expect(plain.resolve("") == nil)

        let inModule = ClassResolver(moduleName: "ManagedObjectsTests")
        #expect(inModule.resolve(".ModelTestEmployee") == ModelTestEmployee.self)
        #expect(inModule.resolve("ModelTestDepartment") == ModelTestDepartment.self)

        let explicit = ClassResolver(classes: [ModelTestDepartment.self])
        #expect(explicit.resolve("ModelTestDepartment") == ModelTestDepartment.self)
        #expect(explicit.resolve(".ModelTestDepartment") == ModelTestDepartment.self)
        // Written for an app module; the explicit class of the same name is used.
        #expect(explicit.resolve("SomeApp.ModelTestDepartment") == ModelTestDepartment.self)
    }

    private func inheritanceModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person", class: ModelTestPerson.self, abstract: true) {
                Property("name", .string, optional: false)
                Property("birthDate", .date)
            }
            Entity("Employee", class: ModelTestEmployee.self, parent: "Person") {
                Property("salary", .double, defaultValue: 0)
                Property("department", to: "Department", inverse: "members")
            }
            Entity("Manager", parent: "Employee") {
                Property("reports", to: "Employee", toMany: true)
            }
            Entity("Contractor", parent: "Person") {
                Property("agency", .string)
            }
            Entity("Department") {
                Property("members", to: "Employee", inverse: "department", toMany: true)
            }
        }
    }

    @Test func subentitiesInheritPropertiesSuperentitysFirst() throws {
        let model = try inheritanceModel()
        let person = try #require(model.entity(named: "Person"))
        let employee = try #require(model.entity(named: "Employee"))
        let manager = try #require(model.entity(named: "Manager"))

        #expect(person.isAbstract && !employee.isAbstract)
        #expect(employee.superentity === person && manager.superentity === employee)
        #expect(person.superentity == nil)
        #expect(person.properties.map(\.name) == ["name", "birthDate"])
        #expect(employee.properties.map(\.name) == ["name", "birthDate", "salary", "department"])
        #expect(manager.properties.map(\.name) == ["name", "birthDate", "salary", "department", "reports"])
        #expect(manager.ownProperties.map(\.name) == ["reports"])
        #expect(Set(manager.attributesByName.keys) == ["name", "birthDate", "salary"])
        #expect(Set(manager.relationshipsByName.keys) == ["department", "reports"])
        #expect(manager.propertiesByName.count == 5)
        // Inherited properties are the superentity's own descriptions, declared by it.
        #expect(manager.attributesByName["name"] === person.attributesByName["name"])
        #expect(manager.attributesByName["name"]?.entity === person)
        #expect(manager.relationshipsByName["department"]?.entity === employee)
        #expect(employee.description == "EntityDescription(Employee : Person) { name, birthDate, salary, department }")
        #expect(person.description == "EntityDescription(Person, abstract) { name, birthDate }")
    }

    @Test func entitiesKnowTheirSubentities() throws {
        let model = try inheritanceModel()
        let person = try #require(model.entity(named: "Person"))
        #expect(person.subentityNames == ["Employee", "Contractor"])
        #expect(person.subentities.map(\.name) == ["Employee", "Contractor"])
        #expect(model.entity(named: "Employee")?.subentities.map(\.name) == ["Manager"])
        #expect(model.entity(named: "Department")?.subentities.isEmpty == true)
    }

    @Test func isKindOfFollowsTheSuperentityChain() throws {
        let model = try inheritanceModel()
        let person = try #require(model.entity(named: "Person"))
        let employee = try #require(model.entity(named: "Employee"))
        let manager = try #require(model.entity(named: "Manager"))
        let contractor = try #require(model.entity(named: "Contractor"))
        let department = try #require(model.entity(named: "Department"))

        #expect(manager.isKindOf(entity: manager))
        #expect(manager.isKindOf(entity: employee))
        #expect(manager.isKindOf(entity: person))
        #expect(!employee.isKindOf(entity: manager))
        #expect(!contractor.isKindOf(entity: employee))
        #expect(!department.isKindOf(entity: person))

        let copy = try inheritanceModel()
        let otherPerson = try #require(copy.entity(named: "Person"))
        #expect(manager.isKindOf(entity: otherPerson))
    }

    @Test func relationshipsMayInheritTheirInverse() throws {
        let model = try inheritanceModel()
        let department = try #require(model.entity(named: "Department"))
        let manager = try #require(model.entity(named: "Manager"))
        let members = try #require(department.relationshipsByName["members"])
        #expect(members.inverseRelationship === manager.relationshipsByName["department"])
    }

    @Test func emptyTemplatesAndConfigurationsAreSpelledAsLiterals() throws {
        let model = try ManagedObjectModel(entities: [Entity("A")], fetchRequestTemplates: [:], configurations: [:])
        #expect(model.fetchRequestTemplatesByName.isEmpty && model.configurations.isEmpty)
    }

    @Test func configurationsAndFetchRequestTemplatesAreKept() throws {
        let model = try ManagedObjectModel(
            entities: ModelFixtures.companyEntities(),
            fetchRequestTemplates: [
                "rich": FetchRequestTemplate(entityName: "Employee", predicateFormat: "salary > 100"),
                "all": FetchRequestTemplate(entityName: "Department"),
            ],
            configurations: ["Staff": ["Employee"], "Everything": ["Employee", "Department"]])
        #expect(model.configurations == ["Everything", "Staff"])
        #expect(model.entities(forConfigurationName: "Staff")?.map(\.name) == ["Employee"])
        #expect(model.entities(forConfigurationName: "Everything")?.map(\.name) == ["Department", "Employee"])
        #expect(model.entities(forConfigurationName: nil)?.count == 2)
        #expect(model.entities(forConfigurationName: "Missing") == nil)
        #expect(model.fetchRequestTemplatesByName["rich"]?.entityName == "Employee")
        #expect(model.fetchRequestTemplatesByName["rich"]?.predicateFormat == "salary > 100")
        #expect(model.fetchRequestTemplatesByName["all"]?.predicateFormat == nil)
    }

    @Test func builderTakesConditionalsLoopsAndArrays() throws {
        let withAudit = true
        let model = try ManagedObjectModel {
            for name in ["A", "B"] {
                Entity(name) {
                    Property("title", .string)
                    if withAudit {
                        Property("createdAt", .date)
                    } else {
                        Property("unused", .string)
                    }
                    if !withAudit { Property("never", .string) }
                    [Property("x", .integer64), Property("y", .integer64)]
                }
            }
            if withAudit {
                Entity("AuditLog", properties: [Property("entry", .string)])
            }
        }
        #expect(model.entities.map(\.name) == ["A", "B", "AuditLog"])
        #expect(model.entity(named: "A")?.properties.map(\.name) == ["title", "createdAt", "x", "y"])
    }

    @Test func attributeConstraintsAreKept() throws {
        let earliest = Date(timeIntervalSinceReferenceDate: 0)
        let model = try ManagedObjectModel {
            Entity("Account") {
                Property("handle", .string, minimumLength: 3, maximumLength: 20, pattern: "^[a-z]+$")
                Property("avatar", .binaryData, maximumLength: 1_000_000)
                Property("age", .integer16, minimum: 0, maximum: 150)
                Property("opened", .date, minimum: earliest)
                Property("ratio", .float, minimum: 0, maximum: 1)
            }
        }
        let account = try #require(model.entity(named: "Account"))
        let handle = try #require(account.attributesByName["handle"])
        #expect(handle.minimumLength == 3 && handle.maximumLength == 20)
        #expect(handle.regularExpression == "^[a-z]+$")
        #expect(account.attributesByName["avatar"]?.maximumLength == 1_000_000)
        #expect(account.attributesByName["age"]?.minimumValue as? Int16 == 0)
        #expect(account.attributesByName["age"]?.maximumValue as? Int16 == 150)
        #expect(account.attributesByName["opened"]?.minimumValue as? Date == earliest)
        #expect(account.attributesByName["ratio"]?.maximumValue as? Float == 1)
    }

    @Test func transientUndefinedAttributesAreAllowed() throws {
        let model = try ManagedObjectModel {
            Entity("Cache") { Property("scratch", .undefined, transient: true, defaultValue: [1, 2, 3]) }
        }
        let scratch = try #require(model.entity(named: "Cache")?.attributesByName["scratch"])
        #expect(scratch.isTransient)
        #expect(scratch.valueType == nil)
        #expect(scratch.defaultValue as? [Int] == [1, 2, 3])
    }

    @Test func userInfoAndRenamingIdentifiersAreKept() throws {
        let model = try ManagedObjectModel {
            Entity("Item", renamingIdentifier: "Product", userInfo: ["table": "items"]) {
                Property("label", .string, renamingIdentifier: "name", userInfo: ["column": "LABEL"])
                Property("owner", to: "Item", renamingIdentifier: "parent", userInfo: ["note": "self"])
            }
        }
        let item = try #require(model.entity(named: "Item"))
        #expect(item.renamingIdentifier == "Product")
        #expect(item.userInfo == ["table": "items"])
        #expect(item.propertiesByName["label"]?.renamingIdentifier == "name")
        #expect(item.propertiesByName["label"]?.userInfo == ["column": "LABEL"])
        #expect(item.propertiesByName["owner"]?.renamingIdentifier == "parent")
        #expect(item.propertiesByName["owner"]?.userInfo == ["note": "self"])
    }

    @Test func descriptionsAreEqualOnlyToThemselves() throws {
        let first = try companyModel()
        let second = try companyModel()
        let employee = try #require(first.entity(named: "Employee"))
        let sameSchema = try #require(second.entity(named: "Employee"))
        #expect(employee == first.entity(named: "Employee"))
        #expect(employee != sameSchema)
        #expect(employee.versionHash == sameSchema.versionHash)
        let entities: Set<EntityDescription> = [employee, sameSchema, employee]
        #expect(entities.count == 2)
        let salary = try #require(employee.propertiesByName["salary"])
        let properties: Set<PropertyDescription> = [salary, salary, employee.properties[0]]
        #expect(properties.count == 2)
    }

    @Test func modelCrossesIsolationDomains() async throws {
        let model = try companyModel()
        let names = await Task.detached { model.entities.flatMap { $0.properties.map(\.name) } }.value
        #expect(names == ["name", "budget", "employees", "firstName", "salary", "department"])
        let destination = await Task.detached {
            model.entity(named: "Employee")?.relationshipsByName["department"]?.destinationEntity?.name
        }.value
        #expect(destination == "Department")
    }

    @Test func modelAndDescriptionsAreFreedWithoutRetainCycles() throws {
        weak var weakModel: ManagedObjectModel?
        weak var weakEmployee: EntityDescription?
        weak var weakRelationship: RelationshipDescription?
        var keptEntity: EntityDescription?
        do {
            let model = try companyModel()
            weakModel = model
            weakEmployee = model.entity(named: "Employee")
            weakRelationship = model.entity(named: "Employee")?.relationshipsByName["department"]
            keptEntity = model.entity(named: "Department")
        }
        #expect(weakModel == nil)
        #expect(weakEmployee == nil)
        #expect(weakRelationship == nil)
        // An entity kept alone still has its own data; its back-references are gone with the model.
        let department = try #require(keptEntity)
        #expect(department.properties.map(\.name) == ["name", "budget", "employees"])
        #expect(department.managedObjectModel == nil)
        #expect(department.relationshipsByName["employees"]?.destinationEntity == nil)
        #expect(department.relationshipsByName["employees"]?.destinationEntityName == "Employee")
        #expect(department.subentities.isEmpty)
    }
}
