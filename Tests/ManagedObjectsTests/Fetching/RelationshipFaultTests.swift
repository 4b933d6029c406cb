import Foundation
import Testing
@testable import ManagedObjects

/// A fired object's to-many relationships stay relationship faults until read: no object is
/// made or registered for their members, and saving or editing around them loses nothing.
@Suite struct RelationshipFaultTests {
    /// A saved department with three employees (two on a project), read back in a new context.
    func makeSaved(_ kind: TestStore.Kind) throws -> (ManagedTestStack, ManagedObjectContext, ManagedObjectID, ManagedObjectID) {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        let compiler = TestProject(context: stack.context)
        compiler.title = "Compiler"
        for name in ["Ada", "Grace", "Alan"] {
            let employee = stack.employee(name)
            employee.department = research
            if name != "Alan" { employee.projects = [compiler] }
        }
        try stack.context.save()
        return (stack, stack.makeContext(), research.objectID, compiler.objectID)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aFiredObjectsToManyStaysAFaultUntilRead(kind: TestStore.Kind) throws {
        let (_, context, researchID, _) = try makeSaved(kind)
        let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
        #expect(!research.isFault)
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        #expect(context.registeredObjects.count == 1, "no object is made for the members")
        // A fault fired alone from SQLite has not read its to-many IDs yet; the in-memory store has them.
        #expect(research.description.contains(kind == .sqlite ? "relationship fault>" : "relationship fault: 3 objects"))
        #expect(research.changedValues().isEmpty)

        let committed = try #require(research.committedValues(forKeys: nil)["employees"] as? Set<TestEmployee>)
        #expect(committed.count == 3, "committed values list an unread relationship's objects")
        #expect(research.hasFault(forRelationshipNamed: "employees"), "without loading the relationship")
        let names = Set(research.employees.compactMap(\.firstName))
        #expect(names == ["Ada", "Grace", "Alan"])
        #expect(!research.hasFault(forRelationshipNamed: "employees"))
        #expect(research.changedValues().isEmpty, "loading a relationship is not a change")
        #expect(!research.hasChanges)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aToOneRelationshipIsAFaultWhileItsTargetIs(kind: TestStore.Kind) throws {
        let (_, context, researchID, _) = try makeSaved(kind)
        let ada = try #require(try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'Ada'"))).first)
        try ada.fireFault()
        let research = try #require(context.registeredObject(for: researchID))
        #expect(research.isFault)
        #expect(ada.hasFault(forRelationshipNamed: "department"), "the department is a fault")
        #expect(research.isFault, "asking fires nothing")
        try research.fireFault()
        #expect(!ada.hasFault(forRelationshipNamed: "department"))
        ada.department = nil
        #expect(!ada.hasFault(forRelationshipNamed: "department"), "no target, no fault")
        #expect(!ada.hasFault(forRelationshipNamed: "noSuchRelationship"))
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func savingAroundAnUntouchedRelationshipFaultKeepsIt(kind: TestStore.Kind) throws {
        let (stack, context, researchID, compilerID) = try makeSaved(kind)
        let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
        let compiler = try #require(try context.existingObject(with: compilerID) as? TestProject)
        #expect(research.hasFault(forRelationshipNamed: "employees") && compiler.hasFault(forRelationshipNamed: "members"))
        research.name = "R&D"
        compiler.title = "Compilers"
        try context.save()

        let reader = stack.makeContext()
        let saved = try #require(try reader.existingObject(with: researchID) as? TestDepartment)
        #expect(saved.name == "R&D")
        #expect(saved.employees.count == 3)
        let project = try #require(try reader.existingObject(with: compilerID) as? TestProject)
        #expect(Set(project.members.compactMap(\.firstName)) == ["Ada", "Grace"])
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func editingThroughTheOtherSideKeepsInversesRight(kind: TestStore.Kind) throws {
        let (stack, context, researchID, _) = try makeSaved(kind)
        let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
        let ada = try #require(try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'Ada'"))).first)
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        let sales = stack.department("Sales", in: context)
        ada.department = sales  // takes Ada out of research's employees, which must load to do so
        #expect(!research.hasFault(forRelationshipNamed: "employees"))
        #expect(Set(research.employees.compactMap(\.firstName)) == ["Grace", "Alan"])
        #expect(sales.employees.map(\.firstName) == ["Ada"])
        try context.save()

        let reader = stack.makeContext()
        let saved = try #require(try reader.existingObject(with: researchID) as? TestDepartment)
        #expect(Set(saved.employees.compactMap(\.firstName)) == ["Grace", "Alan"])
    }

    @Test func aRelationshipFaultWithNoContextThrowsWhenReadByKey() throws {
        let (_, context, researchID, _) = try RelationshipFaultTests().makeSaved(.sqlite)
        var research: TestDepartment? = try context.existingObject(with: researchID) as? TestDepartment
        withExtendedLifetime(context) {}
        let detached = try #require(research)
        research = nil
        context.reset()
        let error = #expect(throws: PersistenceError.self) { try detached.value(forKey: "employees") }
        #expect(error?.code == .objectNotFound)
        #expect(detached.employees.isEmpty, "the typed accessor reads an empty set")
    }

    /// Objects related both ways hold each other once the relationship is loaded, as in Core
    /// Data; `reset()` and `refresh(_:mergeChanges: false)` let them go.
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func resetAndRefreshFreeObjectsThatHoldEachOther(kind: TestStore.Kind) throws {
        let (_, context, researchID, _) = try makeSaved(kind)
        weak var department: TestDepartment?
        weak var member: TestEmployee?
        do {
            let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
            let first = try #require(research.employees.first)
            #expect(first.department === research)  // both sides loaded: a cycle
            department = research
            member = first
        }
        #expect(department != nil, "the loaded relationship keeps both alive")
        context.reset()
        #expect(department == nil && member == nil)

        do {
            let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
            _ = research.employees.map(\.firstName)
            department = research
            for employee in research.employees { context.refresh(employee, mergeChanges: false) }
            context.refresh(research, mergeChanges: false)
        }
        context.processPendingChanges()  // the objects-did-change notification holds refreshed objects until then
        #expect(department == nil)
    }

    /// A reorder of an ordered relationship saved by another context reaches a context that
    /// had loaded it, through a merge, and its next save does not write the old order back.
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func mergingAReorderOfALoadedOrderedRelationshipKeepsIt(kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let project = TestProject(context: stack.context)
        project.title = "Compiler"
        let milestones = try project.mutableArrayValue(forKey: "milestones")
        for title in ["one", "two", "three"] {
            let milestone = TestMilestone(context: stack.context)
            milestone.title = title
            try milestones.append(milestone)
        }
        try stack.context.save()

        let reader = stack.makeContext()
        let loaded = try #require(try reader.existingObject(with: project.objectID) as? TestProject)
        #expect(try (loaded.value(forKey: "milestones") as? [TestMilestone])?.map(\.title) == ["one", "two", "three"])

        let recorder = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        let last = try milestones.element(at: 2)
        try milestones.remove(at: 2)
        try milestones.insert(last, at: 0)
        try stack.context.save()
        reader.mergeChanges(fromContextDidSave: try #require(recorder.notifications.last))
        #expect(try (loaded.value(forKey: "milestones") as? [TestMilestone])?.map(\.title) == ["three", "one", "two"])

        loaded.title = "Compilers"
        try reader.save()
        let check = stack.makeContext()
        let saved = try #require(try check.existingObject(with: project.objectID) as? TestProject)
        #expect(try (saved.value(forKey: "milestones") as? [TestMilestone])?.map(\.title) == ["three", "one", "two"])
        #expect(saved.title == "Compilers")
    }
}

/// Objects still held after `reset()` read their entity's defaults through typed accessors,
/// take new values without trapping, and throw when read by key.
@Suite struct ResetObjectTests {
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func heldObjectsAfterResetReadDefaultsAndDoNotTrap(kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let ada = stack.employee("Ada", salary: 5000)
        ada.department = stack.department("Research")
        try stack.context.save()
        stack.context.reset()
        #expect(ada.managedObjectContext == nil)
        #expect(ada.salary == 0 && ada.firstName == nil && ada.department == nil)
        ada.salary = 10
        ada.firstName = "Augusta"
        #expect(ada.salary == 10 && ada.firstName == "Augusta")
        #expect((#expect(throws: PersistenceError.self) { try ada.value(forKey: "salary") })?.code == .objectNotFound)
    }
}

/// A department whose class validates its employees (at most two).
final class SmallDepartment: ManagedObject {
    @Managed var name: String?
    @Managed var employees: Set<ManagedObject>

    /// Departments of this class and employees without a class.
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Department", class: SmallDepartment.self) {
                Property("name", .string)
                Property("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Property("name", .string)
                Property("department", to: "Department", inverse: "employees")
            }
        }
    }

    override class func validator(forKey key: String) -> KeyValueValidator? {
        guard key == "employees" else { return super.validator(forKey: key) }
        return KeyValueValidator { (_: SmallDepartment, employees: inout Set<ManagedObject>) in
            if employees.count > 2 { throw ValidationError(key: "employees", value: employees.count, message: "at most two employees") }
        }
    }
}

/// Validation sees objects, never a relationship fault: unread relationships are checked on the
/// model's counts, or loaded for a class validator of the key.
@Suite struct RelationshipFaultValidationTests {
    @Test(arguments: [PersistentStoreType.inMemory, .sqlite])
    func aClassValidatorSeesTheLoadedObjects(type: PersistentStoreType) throws {
        let model = try SmallDepartment.makeModel()
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: type == .inMemory ? nil : directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let department = SmallDepartment(context: writer)
        department.name = "Small"
        for name in ["Ada", "Grace"] {
            let employee = try writer.insertNewObject(forEntityName: "Employee")
            try employee.setValue(name, forKey: "name")
            try employee.setValue(department, forKey: "department")
        }
        try writer.save()

        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let loaded = try #require(try reader.existingObject(with: department.objectID) as? SmallDepartment)
        #expect(loaded.hasFault(forRelationshipNamed: "employees"))
        loaded.name = "Smaller"
        try reader.save()  // the validator gets the two employees, not a fault

        let third = try reader.insertNewObject(forEntityName: "Employee")
        try third.setValue("Alan", forKey: "name")
        try third.setValue(loaded, forKey: "department")
        let error = #expect(throws: ValidationError.self) { try reader.save() }
        #expect(error?.message.contains("at most two") == true)
    }
}

/// A fault fired alone from the SQLite store reads its row in one statement; each to-many
/// relationship's IDs are read when first used (by a read, a save, validation or a delete rule).
@Suite struct UnreadRelationshipFaultTests {

    private func firedAlone() throws -> (ManagedTestStack, ManagedObjectContext, SQLiteStore, TestDepartment, TestProject) {
        let (stack, context, researchID, compilerID) = try RelationshipFaultTests().makeSaved(.sqlite)
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let research = try #require(try context.existingObject(with: researchID) as? TestDepartment)
        let compiler = try #require(try context.existingObject(with: compilerID) as? TestProject)
        return (stack, context, store, research, compiler)
    }

    @Test func aFaultFiredAloneReadsItsRowInOneStatementAndEachToManyWhenFirstUsed() throws {
        let (_, context, store, _, _) = try firedAlone()
        let ada = try #require(try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == 'Ada'"))).first)
        context.refresh(ada, mergeChanges: false)
        let firing = try store.recordingSQL { try ada.fireFault() }
        #expect(firing.count == 1, "the row only: \(firing)")
        #expect(ada.hasFault(forRelationshipNamed: "projects"))
        #expect(ada.changedValues().isEmpty)
        let reading = store.recordingSQL { #expect(ada.projects.compactMap(\.title) == ["Compiler"]) }
        // The relationship's IDs, then the project's row (its fault, not registered before).
        #expect(reading.count == 2 && reading[0].contains("Z_EMPLOYEE_PROJECTS"), "\(reading)")
        #expect(!ada.hasFault(forRelationshipNamed: "projects"))
        #expect(store.recordingSQL { _ = ada.projects }.isEmpty, "read once")
    }

    @Test func anUnreadToManyIsCommittedSavedAndValidatedWithTheStoresIDs() throws {
        let (stack, context, store, research, compiler) = try firedAlone()
        #expect(research.hasFault(forRelationshipNamed: "employees") && compiler.hasFault(forRelationshipNamed: "members"))
        let committed = try #require(research.committedValues(forKeys: ["employees"])["employees"] as? Set<TestEmployee>)
        #expect(Set(committed.compactMap(\.firstName)) == ["Ada", "Grace", "Alan"])
        // Saving changes to both keeps the many-to-many join rows, read for the write.
        research.name = "R&D"
        compiler.title = "Compilers"
        try context.save()
        let reader = stack.makeContext()
        let project = try #require(try reader.existingObject(with: compiler.objectID) as? TestProject)
        #expect(Set(project.members.compactMap(\.firstName)) == ["Ada", "Grace"])
        #expect(project.members.count <= 3, "the model's maximum, checked on the store's IDs")
        _ = store
    }

    @Test func savingAroundUnreadToManyRelationshipsReadsAndWritesNoneOfThem() throws {
        // Department.employees has no count to validate (Project.members has a maximum, so
        // validating a changed project reads its members' IDs).
        let (stack, context, store, research, _) = try firedAlone()
        research.name = "R&D"
        let saving = try store.recordingSQL { try context.save() }
        #expect(!saving.contains { $0.contains("ZEMPLOYEE") }, "\(saving)")
        #expect(research.hasFault(forRelationshipNamed: "employees"))
        let reader = stack.makeContext()
        let department = try #require(try reader.existingObject(with: research.objectID) as? TestDepartment)
        #expect(department.name == "R&D")
        #expect(Set(department.employees.compactMap(\.firstName)) == ["Ada", "Grace", "Alan"])
    }

    @Test(arguments: ["objectTrump", "storeTrump", "overwrite"])
    func aConflictOverAnObjectWithUnreadRelationshipsKeepsThem(policy: String) throws {
        let (stack, context, _, research, _) = try firedAlone()
        context.mergePolicy = ["objectTrump": .objectTrump, "storeTrump": .storeTrump][policy] ?? .overwrite
        research.name = "Mine"
        let other = stack.makeContext()
        let theirs = try #require(try other.existingObject(with: research.objectID) as? TestDepartment)
        theirs.name = "Theirs"
        try other.save()
        try context.save()
        let index = research.entity.relationshipsByName["employees"]!.index
        #expect((research.values[index] as? RelationshipFault).map { $0.ids == nil } == true, "still unread")
        let reader = stack.makeContext()
        let saved = try #require(try reader.existingObject(with: research.objectID) as? TestDepartment)
        #expect(saved.name == (policy == "storeTrump" ? "Theirs" : "Mine"))
        #expect(Set(saved.employees.compactMap(\.firstName)) == ["Ada", "Grace", "Alan"])
    }

    @Test func aDenyRuleSeesAnUnreadToMany() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack(employeesRule: .deny) }
        let research = stack.department("Research")
        stack.employee("Ada").department = research
        try stack.context.save()
        let reader = stack.makeContext()
        let fired = try #require(try reader.existingObject(with: research.objectID) as? TestDepartment)
        #expect(fired.hasFault(forRelationshipNamed: "employees"))
        reader.delete(fired)
        let failure = #expect(throws: ValidationError.self) { try reader.save() }
        #expect(failure?.code == .relationshipDeniedDelete)
    }

    @Test func aCountConstrainedUnreadToManyIsValidatedOnTheStoresIDs() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let record = try stack.context.insertNewObject(forEntityName: "Record")
        try record.setValue("AB", forKey: "code")
        let tag = try stack.context.insertNewObject(forEntityName: "Tag")
        try tag.setValue(record, forKey: "record")
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let reader = stack.makeContext()
        let fired = try reader.existingObject(with: record.objectID)
        #expect(fired.hasFault(forRelationshipNamed: "tags"))
        try fired.setValue("CD", forKey: "code")
        let statements = try store.recordingSQL { try reader.save() }
        #expect(statements.contains { $0.contains("ZTAG") }, "the tags' IDs are read to check the counts: \(statements)")
        #expect(try stack.makeContext().existingObject(with: record.objectID).value(forKey: "code") as? String == "CD")
    }
}
