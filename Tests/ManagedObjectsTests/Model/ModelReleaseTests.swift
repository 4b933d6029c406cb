import Foundation
import Testing
@testable import ManagedObjects

/// A model that objects were made from is freed with its descriptions once nothing uses it: what
/// the object layer works out once per class and entity (field slots, validation plans, row
/// reads, collection accessors) goes with the entity instead of outliving it in a process-wide
/// cache. A process that loads models again and again (a test suite, a server with a model per
/// tenant, the model-file fuzz target) would otherwise keep every one.
@Suite struct ModelReleaseTests {
    @Test func aModelWhoseObjectsWereMadeSavedAndFetchedIsFreedWithItsDescriptions() throws {
        weak var weakModel: ManagedObjectModel?
        weak var weakEmployee: EntityDescription?
        weak var weakDepartment: EntityDescription?
        weak var weakEmployees: RelationshipDescription?
        let directory = try TemporaryDirectory()
        try {
            let model = try Self.releasedModel()
            weakModel = model
            weakEmployee = model.entity(named: "Employee")
            weakDepartment = model.entity(named: "Department")
            weakEmployees = model.entity(named: "Department")?.relationshipsByName["employees"]
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            // Typed fields, inverse maintenance through the set's accessors, validation, a save,
            // then a fetch that reads rows into objects: each asks its cache once.
            let department = ReleasedDepartment(context: context)
            department.name = "Research"
            let employee = ReleasedEmployee(context: context)
            employee.firstName = "Ann"
            try department.mutableSetValue(forKey: "employees").insert(employee)
            try context.save()
            context.reset()
            let fetched = try context.fetch(FetchRequest<ReleasedEmployee>(entityName: "Employee"))
            #expect(fetched.map(\.firstName) == ["Ann"])
            #expect(fetched.first?.department?.name == "Research")
            context.reset()
        }()
        // A class names the entity of the last model made with it (`ReleasedEmployee(context:)`
        // finds its entity that way): a second model takes that over.
        _ = try Self.releasedModel()
        // Compared as booleans: a failed expectation would print the value, and a description
        // kept by mistake is what is being checked.
        let modelFreed = weakModel == nil, employeeFreed = weakEmployee == nil
        let departmentFreed = weakDepartment == nil, relationshipFreed = weakEmployees == nil
        #expect(modelFreed)
        #expect(employeeFreed)
        #expect(departmentFreed)
        #expect(relationshipFreed)
    }

    @Test func aDescriptionKeptAfterItsModelIsGoneCanBeDumped() throws {
        var kept: EntityDescription?
        do {
            let model = try Self.releasedModel()
            kept = model.entity(named: "Department")
        }
        let department = try #require(kept)
        // Its relationship's destination entity is gone: `dump` shows the names, not the
        // references, which would point at freed memory.
        var text = ""
        dump(department, to: &text)
        #expect(text.contains("destinationEntityName: \"Employee\""))
        #expect(text.contains("name: \"employees\""))
        var relationshipText = ""
        dump(department.relationshipsByName["employees"], to: &relationshipText)
        #expect(relationshipText.contains("isToMany: true"))
        let name = try #require(department.attributesByName["name"])
        #expect(Mirror(reflecting: name).children.compactMap(\.label).contains("attributeType"))
    }

    private static func releasedModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Department", class: ReleasedDepartment.self) {
                Property("name", .string)
                Property("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee", class: ReleasedEmployee.self) {
                Property("firstName", .string)
                Property("department", to: "Department", inverse: "employees")
            }
        }
    }

    @Test func answersCachedForOneEntityAreNotGivenToAnotherAtTheSameAddress() throws {
        // Two models one after the other: the second's entities may be allocated where the
        // first's were. Each entity keeps its own answers, so the second model's objects get
        // the slots of their own layout (here a different property order), not the first's.
        for order in [["firstName", "lastName"], ["lastName", "firstName"]] {
            let model = try ManagedObjectModel {
                Entity("Person", class: CachedPerson.self) {
                    for name in order { Property(name, .string, optional: true) }
                }
            }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            coordinator.addPersistentStore(InMemoryStore())
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let person = CachedPerson(context: context)
            person.firstName = "Ann"
            person.lastName = "Lee"
            #expect(try person.value(forKey: "firstName") as? String == "Ann")
            #expect(try person.value(forKey: "lastName") as? String == "Lee")
            #expect(person.firstName == "Ann" && person.lastName == "Lee")
        }
    }
}

final class ReleasedDepartment: ManagedObject {
    @Managed var name: String?
    @Managed var employees: Set<ReleasedEmployee>
}

final class ReleasedEmployee: ManagedObject {
    @Managed var firstName: String?
    @Managed var department: ReleasedDepartment?
}

final class CachedPerson: ManagedObject {
    @Managed var firstName: String?
    @Managed var lastName: String?
}
