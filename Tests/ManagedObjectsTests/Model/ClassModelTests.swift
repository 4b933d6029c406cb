import Foundation
import ModelObjects
import SampleModels
import Testing

@testable import ManagedObjects

// Classes declaring the company model of Fixtures/Models/Company.xcdatamodel with `@Managed`
// arguments alone.

class CMPerson: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(name: "Person", abstract: true, userInfo: ["table": "people"])
    }
    @Managed var birthDate: Date?
    @Managed(.required, minimumLength: 1, maximumLength: 80, pattern: "^[A-Z].*", renamingIdentifier: "fullName")
    var name: String
}

final class CMEmployee: CMPerson {
    override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Employee") }
    @Managed var badge: UUID?
    @Managed(defaultValue: Decimal(string: "0.5")) var bonus: Decimal?
    @Managed(.required, defaultValue: 0) var employeeID: Int64
    @Managed var homepage: URL?
    @Managed(.required, defaultValue: false) var isManager: Bool
    @Managed(.required, minimum: 1, maximum: 9, defaultValue: 1) var level: Int16
    @Managed var photo: Data?
    @Managed(transformer: "PreferencesTransformer") var preferences: [String: String]?
    @Managed(defaultValue: 2.5) var rating: Float?
    @Managed(.required, minimum: 0, maximum: 1_000_000, defaultValue: 0) var salary: Double
    @Managed(.transient) var scratch: String?
    @Managed(defaultValue: Date(timeIntervalSinceReferenceDate: 0)) var startDate: Date?
    @Managed(.required, defaultValue: 25) var vacationDays: Int32
    @Managed var department: CMDepartment?
    @Managed(inverse: \CMEmployee.reports, deleteRule: .noAction) var manager: CMEmployee?
    @Managed(deleteRule: .deny) var reports: Set<CMEmployee>
}

final class CMDepartment: ManagedObject {
    override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Department") }
    @Managed(defaultValue: Decimal(string: "1000.25")) var budget: Decimal?
    @Managed(.required) var name: String
    @Managed(.required, inverse: \CMEmployee.department, deleteRule: .cascade, minCount: 1, maxCount: 50)
    var employees: [CMEmployee]
}

// Version 2 of Fixtures/Models/Zoo.xcdatamodeld (the current one).

final class CMZooAnimal: ManagedObject {
    override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Animal") }
    @Managed(.required, renamingIdentifier: "name") var commonName: String
    @Managed(.required, defaultValue: 4) var legs: Int16
    @Managed var keeper: CMZooKeeper?
}

final class CMZooKeeper: ManagedObject {
    override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Keeper") }
    @Managed(.required) var name: String
    @Managed(inverse: \CMZooAnimal.keeper) var animals: Set<CMZooAnimal>
}

// The README's first managed example, as the issue writes it.

final class CMReadmeDepartment: ManagedObject {
    @Managed(.required, minimumLength: 1) var name: String
    @Managed(inverse: \CMReadmeEmployee.department, deleteRule: .cascade) var employees: Set<CMReadmeEmployee>
}

final class CMReadmeEmployee: ManagedObject {
    @Managed(.required, minimum: 0, defaultValue: 0) var salary: Double
    @Managed var department: CMReadmeDepartment?
}

// Inheritance through a class that is not in the model: its fields belong to its subclass's entity.

class CMTimestamped: ManagedObject {
    @Managed var created: Date?
}

final class CMNote: CMTimestamped {
    @Managed var text: String?
}

// Classes the model reader refuses.

struct CMPoint: Sendable { var x = 0.0, y = 0.0 }

final class CMUnsupported: ManagedObject {
    @Managed var point: CMPoint?
}

final class CMLonelyA: ManagedObject {
    @Managed var b: CMLonelyB?
}

final class CMLonelyB: ManagedObject {
    @Managed var a: CMLonelyA?
}

class CMAnimal: ManagedObject {}
final class CMCat: CMAnimal {}
final class CMDog: CMAnimal {}

final class CMKeeper: ManagedObject {
    @Managed var animals: Set<CMAnimal>
}

final class CMOwner: ManagedObject {
    @Managed(inverse: \CMPet.owner) var pets: Set<CMPet>
    @Managed(inverse: \CMPet.owner) var favourite: CMPet?
}

final class CMPet: ManagedObject {
    @Managed var owner: CMOwner?
    var buddy: CMPet? { nil }
}

final class CMWrongRoot: ManagedObject {
    @Managed(inverse: \CMPet.owner) var notes: Set<CMNote>
}

final class CMComputedInverse: ManagedObject {
    @Managed(inverse: \CMPet.buddy) var pet: CMPet?
}

final class CMTransientAny: ManagedObject {
    @Managed(.transient) var cache: CMPoint?
    @Managed(type: .integer32) var count: Int
    @Managed(versionHashModifier: "v2", userInfo: ["note": "kept"]) var label: String?
}

/// Sets and reads its properties in its initializer, which reading the class must survive.
final class CMBusyInit: ManagedObject {
    @Managed(defaultValue: "x") var label: String?
    @Managed(.required) var count: Int

    required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        label = "set in init"
        count = label == nil ? 1 : 2
    }

    required init() { super.init() }

    required init(coder: Coder) throws { try super.init(coder: coder) }
}

@Suite struct ClassModelTests {
    /// Makes a model from classes that must fail, and returns its error.
    private func failure(_ classes: [ManagedObject.Type], sourceLocation: SourceLocation = #_sourceLocation) -> ModelError? {
        #expect(throws: ModelError.self, sourceLocation: sourceLocation) {
            _ = try ManagedObjectModel(classes: classes)
        }
    }

    @Test func sampleModelFromClassesHasTheBuilderModelsVersionHashes() throws {
        let built = try SampleModel.makeModel()
        let fromClasses = try ManagedObjectModel(classes: [ManagedDepartment.self, ManagedEmployee.self])
        #expect(fromClasses.entityVersionHashesByName == built.entityVersionHashesByName)
        #expect(fromClasses.versionHash == built.versionHash)
        let employee = try #require(fromClasses.entity(named: "Employee"))
        #expect(employee.managedObjectClass == ManagedEmployee.self)
        #expect(employee.attributesByName["salary"]?.minimumValue as? Double == 0)
        #expect(employee.attributesByName["age"]?.maximumValue as? Int16 == 120)
        #expect(employee.attributesByName["startDate"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(employee.relationshipsByName["directReports"]?.isOrdered == true)
        #expect(employee.relationshipsByName["manager"]?.inverseRelationship?.name == "directReports")
        let department = try #require(fromClasses.entity(named: "Department"))
        #expect(department.attributesByName["name"]?.maximumLength == 60)
        #expect(department.relationshipsByName["employees"]?.deleteRule == .cascade)
    }

    @Test func companyClassesHaveTheXcodeModelFilesVersionHashes() throws {
        let file = try ManagedObjectModel(contentsOf: ModelFixtures.url("Company", "xcdatamodel"))
        let fromClasses = try ManagedObjectModel(classes: [CMPerson.self, CMEmployee.self, CMDepartment.self])
        #expect(fromClasses.entityVersionHashesByName == file.entityVersionHashesByName)
        let person = try #require(fromClasses.entity(named: "Person"))
        #expect(person.isAbstract)
        #expect(person.userInfo == ["table": "people"])
        #expect(person.attributesByName["name"]?.renamingIdentifier == "fullName")
        #expect(person.attributesByName["name"]?.regularExpression == "^[A-Z].*")
        let employee = try #require(fromClasses.entity(named: "Employee"))
        #expect(employee.superentity === person)
        #expect(employee.attributesByName["preferences"]?.attributeType == .transformable)
        #expect(employee.attributesByName["preferences"]?.valueTransformerName == "PreferencesTransformer")
        #expect(employee.attributesByName["scratch"]?.isTransient == true)
        #expect(employee.attributesByName["bonus"]?.defaultValue as? Decimal == Decimal(string: "0.5"))
        #expect(employee.attributesByName["level"]?.minimumValue as? Int16 == 1)
        #expect(employee.relationshipsByName["reports"]?.deleteRule == .deny)
        #expect(employee.relationshipsByName["reports"]?.inverseRelationship?.name == "manager")
        let employees = try #require(fromClasses.entity(named: "Department")?.relationshipsByName["employees"])
        #expect(employees.minCount == 1 && employees.maxCount == 50 && employees.isOrdered && !employees.isOptional)
    }

    @Test func zooClassesHaveTheCurrentVersionsHashes() throws {
        let file = try ManagedObjectModel(contentsOf: ModelFixtures.url("Zoo", "xcdatamodeld"))
        let fromClasses = try ManagedObjectModel(classes: [CMZooAnimal.self, CMZooKeeper.self])
        #expect(fromClasses.versionHash == file.versionHash)
        #expect(fromClasses.entity(named: "Animal")?.attributesByName["commonName"]?.renamingIdentifier == "name")
    }

    @Test func readmeClassesMatchTheirBuilderModel() throws {
        let fromClasses = try ManagedObjectModel(classes: [CMReadmeDepartment.self, CMReadmeEmployee.self])
        let built = try ManagedObjectModel {
            Entity("CMReadmeDepartment", class: CMReadmeDepartment.self) {
                Property("name", .string, optional: false, minimumLength: 1)
                Property("employees", to: "CMReadmeEmployee", inverse: "department", toMany: true, deleteRule: .cascade)
            }
            Entity("CMReadmeEmployee", class: CMReadmeEmployee.self) {
                Property("salary", .double, optional: false, defaultValue: 0.0, minimum: 0.0)
                Property("department", to: "CMReadmeDepartment", inverse: "employees")
            }
        }
        #expect(fromClasses.entityVersionHashesByName == built.entityVersionHashesByName)
    }

    @Test func objectsOfAClassBuiltModelWorkInAContext() throws {
        let model = try ManagedObjectModel(classes: [CMReadmeDepartment.self, CMReadmeEmployee.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let research = CMReadmeDepartment(context: context)
        research.name = "Research"
        let ada = CMReadmeEmployee(context: context)
        ada.salary = 52_000
        ada.department = research
        #expect(research.employees == [ada])
        try context.save()
        ada.salary = -1
        #expect(throws: ValidationError.self) { try context.save() }
        context.rollback()
        #expect(ada.salary == 52_000)
    }

    @Test func unlistedSuperclassFieldsBelongToTheSubclassEntity() throws {
        let model = try ManagedObjectModel(classes: [CMNote.self])
        let note = try #require(model.entity(named: "CMNote"))
        #expect(note.superentity == nil)
        #expect(note.properties.map(\.name) == ["created", "text"])
    }

    @Test func declarationsNameTypeTransienceAndHashModifiers() throws {
        let model = try ManagedObjectModel(classes: [CMTransientAny.self])
        let entity = try #require(model.entity(named: "CMTransientAny"))
        #expect(entity.attributesByName["cache"]?.attributeType == .undefined)
        #expect(entity.attributesByName["count"]?.attributeType == .integer32)
        #expect(entity.attributesByName["label"]?.versionHashModifier == "v2")
        #expect(entity.attributesByName["label"]?.userInfo == ["note": "kept"])
    }

    @Test func aClassWhoseInitializerSetsItsPropertiesCanBeRead() throws {
        let model = try ManagedObjectModel(classes: [CMBusyInit.self])
        let entity = try #require(model.entity(named: "CMBusyInit"))
        #expect(entity.attributesByName["label"]?.defaultValue as? String == "x")
        #expect(entity.attributesByName["count"]?.isOptional == false)
        let object = CMBusyInit(entity: entity, insertInto: nil)
        #expect(object.label == "set in init" && object.count == 2)
    }

    @Test func classesAreReadOnce() throws {
        let first = try ClassModelReader.levels(of: CMEmployee.self)
        let second = try ClassModelReader.levels(of: CMEmployee.self)
        #expect(first.map { $0.fields.map(\.name) } == second.map { $0.fields.map(\.name) })
        #expect(first.map { String(describing: $0.type) } == ["CMEmployee", "CMPerson"])
    }

    @Test func classModelsBuildOnSeveralThreadsAtOnceAlike() async throws {
        let hashes = await withTaskGroup(of: Data?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        // Objects made meanwhile, with declaration arguments, must not disturb the reading.
                        let model = try? SampleModel.makeModel()
                        for _ in 0..<50 { _ = model.flatMap { $0.entity(named: "Employee") }.map { ManagedEmployee(entity: $0, insertInto: nil) } }
                    }
                    return try? ManagedObjectModel(classes: [CMPerson.self, CMEmployee.self, CMDepartment.self]).versionHash
                }
            }
            var hashes: [Data?] = []
            for await hash in group { hashes.append(hash) }
            return hashes
        }
        #expect(hashes.count == 8 && Set(hashes).count == 1 && hashes.first.flatMap { $0 } != nil)
    }

    @Test func aTypeNoAttributeHoldsIsRefused() {
        #expect(failure([CMUnsupported.self])?.code == .unsupportedPropertyType)
    }

    @Test func aClassListedTwiceIsADuplicateEntity() {
        #expect(failure([CMNote.self, CMNote.self])?.code == .duplicateEntity)
    }

    @Test func relationshipsWithoutInverseAreRefused() {
        #expect(failure([CMLonelyA.self, CMLonelyB.self])?.code == .missingInverse)
    }

    @Test func aDestinationSeveralClassesDescendFromIsAmbiguous() {
        #expect(failure([CMKeeper.self, CMCat.self, CMDog.self])?.code == .ambiguousDestination)
    }

    @Test func aDestinationNotAmongTheClassesIsUnknown() {
        #expect(failure([CMReadmeEmployee.self])?.code == .unknownDestination)
    }

    @Test func twoRelationshipsNamingOneInverseAreRefused() {
        #expect(failure([CMOwner.self, CMPet.self])?.code == .inverseMismatch)
    }

    @Test func anInverseKeyPathOfAnotherClassIsRefused() {
        #expect(failure([CMWrongRoot.self, CMPet.self, CMNote.self])?.code == .inverseMismatch)
    }

    @Test func anInverseKeyPathThatReadsNoManagedRelationshipIsRefused() {
        #expect(failure([CMComputedInverse.self, CMPet.self])?.code == .unknownInverse)
    }

    @Test func newCodesHaveNames() {
        #expect(ModelError.Code.unsupportedPropertyType.description == "unsupportedPropertyType")
        #expect(ModelError.Code.missingInverse.description == "missingInverse")
        #expect(ModelError.Code.ambiguousDestination.description == "ambiguousDestination")
    }
}
