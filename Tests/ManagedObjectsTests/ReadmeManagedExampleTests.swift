import Foundation
import ManagedObjects
import Testing

/// The README's managed-objects example, kept compiling and checked here. Keep the two in step.
enum ReadmeExample {
    final class Department: ManagedObject {
        @Managed(.required, minimumLength: 1) var name: String
        @Managed(inverse: \Employee.department, deleteRule: .cascade) var employees: Set<Employee>
    }

    final class Employee: ManagedObject {
        @Managed(defaultValue: "") var firstName: String
        @Managed(minimum: 0, defaultValue: 0) var salary: Double
        @Managed var department: Department?
    }
}

@Test func readmeManagedObjectsExampleWorksAsDocumented() throws {
    typealias Department = ReadmeExample.Department
    typealias Employee = ReadmeExample.Employee
    let model = try ManagedObjectModel(classes: [Department.self, Employee.self])
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .inMemory)
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    context.undoManager = ModelUndoManager(notificationCenter: NotificationCenter())

    let research = Department(context: context)
    research.name = "Research"
    let ada = Employee(context: context)
    ada.firstName = "Ada"
    ada.department = research
    #expect(research.employees == [ada])
    try context.save()

    ada.salary = -1
    var code: Int?
    do { try context.save() } catch let error as ValidationError { code = error.code.rawValue }
    #expect(code == 1620)
    context.rollback()
    #expect(ada.salary == 0)
}
