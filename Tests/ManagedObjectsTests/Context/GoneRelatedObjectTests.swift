import Foundation
import Testing
@testable import ManagedObjects

/// Context A holds a department as a fault related to its employee; context B deletes the
/// department and saves. Whatever A then does around the gone department throws a typed
/// error (never traps), keeps A and B usable and loses none of A's other changes.
@Suite struct GoneRelatedObjectTests {
    /// The scene: B's view is `stack.context`; A is a second context holding Ada loaded and her
    /// department (deleted by B) as a fault. Grace, in another department, is A's other change.
    struct Scene {
        let stack: ManagedTestStack
        let a: ManagedObjectContext
        let ada: TestEmployee
        let gone: TestDepartment
        let grace: TestEmployee
        let other: TestDepartment
    }

    /// With `otherCoordinator`, B deletes through a coordinator of its own on the same SQLite
    /// file, as another process would.
    static func scene(_ kind: TestStore.Kind, otherCoordinator: Bool = false) throws -> Scene {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        ada.department = research
        grace.department = sales
        try stack.context.save()
        let a = stack.makeContext()
        let adaInA = try #require(try a.existingObject(with: ada.objectID) as? TestEmployee)
        let graceInA = try #require(try a.existingObject(with: grace.objectID) as? TestEmployee)
        let gone = try #require(a.registeredObject(for: research.objectID) as? TestDepartment)
        #expect(gone.isFault)
        let otherInA = try #require(try a.existingObject(with: sales.objectID) as? TestDepartment)
        if otherCoordinator {
            let (coordinator, b) = try stack.reopened()
            b.delete(try b.existingObject(with: research.objectID))
            try b.save()
            _ = coordinator
        } else {
            stack.context.delete(research)
            try stack.context.save()
        }
        graceInA.salary = 4242
        return Scene(stack: stack, a: a, ada: adaInA, gone: gone, grace: graceInA, other: otherInA)
    }

    /// A's save meets B's change of Ada's row (B nullified her department); with a merge policy
    /// it goes through, Grace's change included.
    static func expectConflictThenSave(_ scene: Scene, adaDeleted: Bool = false) throws {
        #expect((#expect(throws: PersistenceError.self) { try scene.a.save() })?.code == .mergeConflict)
        #expect(scene.grace.salary == 4242)
        scene.a.mergePolicy = .objectTrump
        try scene.a.save()
        let check = scene.stack.makeContext()
        let grace = try #require(try check.existingObject(with: scene.grace.objectID) as? TestEmployee)
        #expect(grace.salary == 4242)
        if adaDeleted {
            #expect(throws: PersistenceError.self) { try check.existingObject(with: scene.ada.objectID) }
        } else {
            let ada = try #require(try check.existingObject(with: scene.ada.objectID) as? TestEmployee)
            #expect(ada.department == nil || ada.department?.objectID == scene.other.objectID)
        }
        // B is still usable.
        _ = scene.stack.employee("Hedy")
        try scene.stack.context.save()
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func settingTheRelationshipToNilByKey(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        try scene.ada.setValue(nil, forKey: "department")
        #expect(scene.ada.department == nil)
        try Self.expectConflictThenSave(scene)
    }

    @Test func aDeletionByAnotherCoordinatorOnTheSameFileGivesTheSameAnswers() throws {
        let scene = try Self.scene(.sqlite, otherCoordinator: true)
        try scene.ada.setValue(nil, forKey: "department")
        scene.a.delete(scene.gone)
        try Self.expectConflictThenSave(scene)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func settingAnotherObjectByKey(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        try scene.ada.setValue(scene.other, forKey: "department")
        #expect(scene.other.employees.contains(scene.ada))
        try Self.expectConflictThenSave(scene)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func settingThroughTypedAccessors(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.ada.department = nil
        scene.ada.department = scene.other
        try Self.expectConflictThenSave(scene)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func deletingTheObjectThatHoldsTheFault(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.a.delete(scene.ada)
        scene.a.processPendingChanges()
        try Self.expectConflictThenSave(scene, adaDeleted: true)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func deletingTheGoneObject(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.a.delete(scene.gone)
        scene.a.processPendingChanges()
        #expect((#expect(throws: PersistenceError.self) { try scene.a.save() })?.code == .mergeConflict)
        scene.a.mergePolicy = .objectTrump
        try scene.a.save()
        let check = scene.stack.makeContext()
        #expect((try check.existingObject(with: scene.grace.objectID) as? TestEmployee)?.salary == 4242)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func relatingToTheGoneObjectByKeyThrowsAndChangesNothing(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        let error = #expect(throws: PersistenceError.self) { try scene.grace.setValue(scene.gone, forKey: "department") }
        #expect(error?.code == .objectNotFound)
        #expect(scene.grace.department === scene.other)
        #expect(scene.other.employees.contains(scene.grace))
        try scene.a.save()
        let check = scene.stack.makeContext()
        #expect((try check.existingObject(with: scene.grace.objectID) as? TestEmployee)?.salary == 4242)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func relatingToTheGoneObjectThroughTypedAccessorsFailsTheSave(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.grace.department = scene.gone
        let error = #expect(throws: PersistenceError.self) { try scene.a.save() }
        #expect(error?.code == .objectNotFound)
        #expect(error?.objectID == scene.gone.objectID)
        scene.grace.department = scene.other
        try scene.a.save()
        let check = scene.stack.makeContext()
        let grace = try #require(try check.existingObject(with: scene.grace.objectID) as? TestEmployee)
        #expect(grace.salary == 4242 && grace.department?.name == "Sales")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func changingTheGoneObjectThroughTypedAccessorsFailsTheSaveUntilRefreshed(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.gone.budget = 12
        #expect(scene.gone.budget == 12 && scene.gone.name == nil)
        let error = #expect(throws: PersistenceError.self) { try scene.a.save() }
        #expect(error?.code == .objectNotFound)
        #expect(error?.objectID == scene.gone.objectID)
        scene.a.mergePolicy = .objectTrump
        #expect((#expect(throws: PersistenceError.self) { try scene.a.save() })?.code == .objectNotFound)
        scene.a.refresh(scene.gone, mergeChanges: false)
        #expect(!scene.gone.hasChanges && scene.gone.budget == 0)
        try scene.a.save()
        let check = scene.stack.makeContext()
        #expect((try check.existingObject(with: scene.grace.objectID) as? TestEmployee)?.salary == 4242)
        #expect(throws: PersistenceError.self) { try check.existingObject(with: scene.gone.objectID) }
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func rollingBackAChangedGoneObjectForgetsTheChange(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        scene.gone.budget = 12
        scene.a.rollback()
        #expect(!scene.gone.hasChanges && scene.gone.budget == 0 && !scene.a.hasChanges)
        try scene.a.save()
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func addingTheGoneObjectThroughAProxyFailsTheSave(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        let employees = try scene.other.mutableSetValue(forKey: "employees")
        let gone = try Self.goneEmployee(in: scene)
        try employees.insert(gone)
        #expect((#expect(throws: PersistenceError.self) { try scene.a.save() })?.code == .objectNotFound)
        try employees.remove(gone)
        try scene.a.save()
    }

    /// A fault in A for an employee B deletes.
    static func goneEmployee(in scene: Scene) throws -> ManagedObject {
        let hedy = scene.stack.employee("Hedy")
        try scene.stack.context.save()
        let gone = scene.a.object(with: hedy.objectID)
        scene.stack.context.delete(hedy)
        try scene.stack.context.save()
        return gone
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func observersOfKeyPathsThroughTheGoneObjectHearTheChange(kind: TestStore.Kind) throws {
        let scene = try Self.scene(kind)
        var heard: [String?] = []
        let token = try scene.ada.observe("department.name", options: [.old, .new]) { _, change in
            heard.append(change.newValue as? String)
        }
        scene.ada.department = scene.other
        try scene.ada.setValue(nil, forKey: "department")
        #expect(heard == ["Sales", nil])
        _ = token
    }

    /// A department whose row cannot be read (its budget is not a number): taking an employee out
    /// of it cannot edit its side, so the save throws until the employee is refreshed.
    @Test func anUnreadableRelatedRecordFailsTheSaveInsteadOfHalfEditing() throws {
        let scene = try Self.scene(.sqlite)
        let url = try #require(scene.stack.sqliteStore?.url)
        let sales = scene.other.objectID
        let connection = try SQLiteConnection(path: url.path, create: false)
        let graceFresh = scene.stack.makeContext()
        let grace = try #require(try graceFresh.existingObject(with: scene.grace.objectID) as? TestEmployee)
        try connection.execute("UPDATE ZDEPARTMENT SET ZBUDGET = 'lots' WHERE Z_PK = \(try #require(sales.primaryKey))")
        #expect(graceFresh.registeredObject(for: sales)?.isFault == true)
        grace.department = nil
        let error = #expect(throws: PersistenceError.self) { try graceFresh.save() }
        #expect(error?.code == .operationFailed)
        #expect(error.map { "\($0)".contains("Employee.department") } == true)
        graceFresh.refresh(grace, mergeChanges: false)
        try graceFresh.save()
        // The same by key.
        try grace.setValue(nil, forKey: "department")
        #expect((#expect(throws: PersistenceError.self) { try graceFresh.save() })?.code == .operationFailed)
    }

    /// What context A does to objects related to Ada, whom context B deleted.
    enum EditAroundGoneEmployee: String, CaseIterable, Sendable {
        case emptyTheDepartmentTyped, removeFromTheDepartmentByKey, clearTheManagerTyped, clearTheManagerByKey
        case emptyTheProjectTyped, removeFromTheProjectByKey, deleteTheDepartmentCascading, deleteTheProject
        case relateAnotherEmployeeByKey
    }

    static let editsAndStores = EditAroundGoneEmployee.allCases.flatMap { edit in
        [TestStore.Kind.inMemory, .sqlite].map { (edit, $0) }
    }

    @Test(arguments: editsAndStores)
    func editingAroundAGoneEmployee(edit: EditAroundGoneEmployee, kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack(employeesRule: .cascade) }
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), bob = stack.employee("Bob"), grace = stack.employee("Grace")
        research.employees = [ada, bob]
        research.manager = ada
        let project = TestProject(context: stack.context)
        project.title = "Compilers"
        project.members = [ada, bob]
        try stack.context.save()

        let a = stack.makeContext()
        let researchInA = try #require(try a.existingObject(with: research.objectID) as? TestDepartment)
        let projectInA = try #require(try a.existingObject(with: project.objectID) as? TestProject)
        let graceInA = try #require(try a.existingObject(with: grace.objectID) as? TestEmployee)
        let bobInA = try #require(try a.existingObject(with: bob.objectID) as? TestEmployee)
        #expect(researchInA.employees.count == 2 && projectInA.members.count == 2)
        let adaInA = try #require(a.registeredObject(for: ada.objectID))
        #expect(adaInA.isFault)
        stack.context.delete(ada)
        try stack.context.save()
        graceInA.salary = 4242

        switch edit {
        case .emptyTheDepartmentTyped: researchInA.employees = []
        case .removeFromTheDepartmentByKey: try researchInA.mutableSetValue(forKey: "employees").remove(adaInA)
        case .clearTheManagerTyped: researchInA.manager = nil
        case .clearTheManagerByKey: try researchInA.setValue(nil, forKey: "manager")
        case .emptyTheProjectTyped: projectInA.members = []
        case .removeFromTheProjectByKey: try projectInA.mutableSetValue(forKey: "members").remove(adaInA)
        case .deleteTheDepartmentCascading: a.delete(researchInA)
        case .deleteTheProject: a.delete(projectInA)
        case .relateAnotherEmployeeByKey: try researchInA.setValue(bobInA, forKey: "manager")
        }
        a.processPendingChanges()
        do {
            try a.save()
        } catch let error as PersistenceError {
            #expect(error.code == .mergeConflict)
            a.mergePolicy = .objectTrump
            try a.save()
        }
        let check = stack.makeContext()
        #expect((try check.existingObject(with: grace.objectID) as? TestEmployee)?.salary == 4242)
        #expect(throws: PersistenceError.self) { try check.existingObject(with: ada.objectID) }
        if edit == .relateAnotherEmployeeByKey {
            #expect((try check.existingObject(with: research.objectID) as? TestDepartment)?.manager?.firstName == "Bob")
        }
        // B is still usable.
        _ = stack.employee("Hedy")
        try stack.context.save()
    }
}
