import Foundation
import Testing
@testable import ManagedObjects

/// Helpers for child-context scenarios: what the store has, read by a fresh context.
extension ManagedTestStack {
    /// The first names of the saved employees, as a new context of the coordinator reads them.
    func storedFirstNames() throws -> [String] {
        let reader = makeContext()
        return try withExtendedLifetime(reader) {
            try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")]))
                .compactMap(\.firstName)
        }
    }

    /// The employee named `firstName` in `context`.
    func employee(named firstName: String, in context: ManagedObjectContext) throws -> TestEmployee? {
        try context.fetch(FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "firstName == %@", firstName))).first
    }
}

@Suite struct ChildContextScratchpadTests {
    enum Discard: CaseIterable { case drop, rollback, reset }

    @Test(arguments: Discard.allCases)
    func discardingAnEditedChildLeavesTheParentUnchanged(_ discard: Discard) throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        var child: ManagedObjectContext? = ManagedObjectContext(parent: stack.context)
        if let editor = child {
            let draft = try #require(try editor.existingObject(with: ada.objectID) as? TestEmployee)
            draft.salary = 99
            _ = stack.employee("Grace", in: editor)
            #expect(editor.hasChanges)
            switch discard {
            case .drop: child = nil
            case .rollback: editor.rollback()
            case .reset: editor.reset()
            }
        }
        #expect(!stack.context.hasChanges)
        #expect(ada.salary == 1)
        #expect(try stack.employee(named: "Grace", in: stack.context) == nil)
        #expect(try stack.storedFirstNames() == ["Ada"])
        _ = child
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aSavedChildChangesTheParentAndTheStoreOnlyWhenTheParentSaves(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        let ada = stack.employee("Ada", salary: 1)
        ada.department = research
        try stack.context.save()

        let editor = ManagedObjectContext(parent: stack.context)
        let draft = try #require(try editor.existingObject(with: ada.objectID) as? TestEmployee)
        draft.salary = 2
        let grace = stack.employee("Grace", in: editor)
        grace.department = draft.department
        try editor.save()
        #expect(!editor.hasChanges)

        // The parent has the changes, unsaved; the store does not.
        #expect(ada.salary == 2)
        #expect(ada.isUpdated)
        let parentGrace = try #require(try stack.employee(named: "Grace", in: stack.context))
        #expect(parentGrace.isInserted)
        #expect(parentGrace.objectID == grace.objectID)
        #expect(parentGrace.department === research)
        #expect(research.employees == [ada, parentGrace])
        #expect(try stack.storedFirstNames() == ["Ada"])

        try stack.context.save()
        #expect(try stack.storedFirstNames() == ["Ada", "Grace"])
        let reader = stack.makeContext()
        let stored = try #require(try stack.employee(named: "Ada", in: reader))
        #expect(stored.salary == 2)
        #expect(try stack.employee(named: "Grace", in: reader)?.department?.name == "Research")
        _ = reader
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aChildDeletionAppliesDeleteRulesInTheParent(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack(employeesRule: .cascade) }
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        ada.department = research
        grace.department = research
        let sales = stack.department("Sales")
        let alan = stack.employee("Alan")
        alan.department = sales
        try stack.context.save()

        let editor = ManagedObjectContext(parent: stack.context)
        editor.delete(try editor.existingObject(with: research.objectID))
        editor.delete(try editor.existingObject(with: alan.objectID))
        try editor.save()
        #expect(research.isDeleted && ada.isDeleted && grace.isDeleted)
        #expect(alan.isDeleted)
        #expect(sales.employees.isEmpty)
        try stack.context.save()
        #expect(try stack.storedFirstNames().isEmpty)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func theChildsSaveIsOneUndoableChangeInTheParent(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack(undo: true) }
        let research = stack.department("Research")
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let undo = try #require(stack.context.undoManager)
        undo.removeAllActions()

        let editor = ManagedObjectContext(parent: stack.context)
        let draft = try #require(try editor.existingObject(with: ada.objectID) as? TestEmployee)
        draft.salary = 2
        draft.department = try #require(try editor.existingObject(with: research.objectID) as? TestDepartment)
        _ = stack.employee("Grace", in: editor)
        try editor.save()
        #expect(ada.salary == 2 && ada.department === research)
        #expect(stack.context.insertedObjects.count == 1)

        try undo.undo()
        #expect(ada.salary == 1)
        #expect(ada.department == nil)
        #expect(research.employees.isEmpty)
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(!undo.canUndo)
        try undo.redo()
        #expect(ada.salary == 2 && ada.department === research)
    }

    @Test func aValidationFailureInTheChildLeavesTheParentUntouched() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let editor = ManagedObjectContext(parent: stack.context)
        let draft = try #require(try editor.existingObject(with: ada.objectID) as? TestEmployee)
        draft.salary = -5
        _ = stack.employee("Grace", in: editor)
        #expect {
            try editor.save()
        } throws: { error in
            ValidationError.Code.numberTooSmall ~= error
        }
        #expect(!stack.context.hasChanges)
        #expect(ada.salary == 1)
        #expect(editor.hasChanges)
        #expect(draft.salary == -5)
    }

    @Test func theParentsChangeNotificationListsWhatTheChildSaved() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let recorder = NotificationRecorder(ManagedObjectContext.objectsDidChangeNotification, center: stack.center)
        let editor = ManagedObjectContext(parent: stack.context)
        let draft = try #require(try editor.existingObject(with: ada.objectID) as? TestEmployee)
        draft.salary = 2
        try editor.save()
        let parentNotes = recorder.notifications.filter { $0.object as? ManagedObjectContext === stack.context }
        #expect(parentNotes.count == 1)
        #expect(parentNotes.first?.userInfo?[ManagedObjectContext.updatedObjectsKey] as? Set<ManagedObject> == [ada])
    }
}

@Suite struct ChildContextFetchTests {
    /// Ada (1), Grace (2) and Alan (3) saved; then, unsaved in the parent: Grace's salary 10,
    /// Alan deleted, Edsger (5) inserted.
    private func parentWithChanges(_ kind: TestStore.Kind) throws -> (ManagedTestStack, ManagedObjectContext) {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        _ = stack.employee("Ada", salary: 1)
        let grace = stack.employee("Grace", salary: 2)
        let alan = stack.employee("Alan", salary: 3)
        try stack.context.save()
        grace.salary = 10
        stack.context.delete(alan)
        _ = stack.employee("Edsger", salary: 5)
        return (stack, ManagedObjectContext(parent: stack.context))
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func fetchesSeeTheParentsInsertsUpdatesAndDeletes(_ kind: TestStore.Kind) throws {
        let (_, child) = try parentWithChanges(kind)
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        let all = try child.fetch(request)
        #expect(all.map(\.firstName) == ["Ada", "Edsger", "Grace"])
        #expect(all.map(\.salary) == [1, 5, 10])
        #expect(all.allSatisfy { $0.managedObjectContext === child })
        #expect(!child.hasChanges)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func predicatesSortsAndLimitsApplyToTheMergedResults(_ kind: TestStore.Kind) throws {
        let (_, child) = try parentWithChanges(kind)
        var request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "salary > 2"),
            sortDescriptors: [KeyPathSortDescriptor(key: "salary", ascending: false)])
        #expect(try child.fetch(request).map(\.firstName) == ["Grace", "Edsger"])
        request.fetchLimit = 1
        #expect(try child.fetch(request).map(\.firstName) == ["Grace"])
        request.fetchLimit = 0
        request.fetchOffset = 1
        #expect(try child.fetch(request).map(\.firstName) == ["Edsger"])
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func countsIDsAndDictionariesSeeTheParentsChanges(_ kind: TestStore.Kind) throws {
        let (stack, child) = try parentWithChanges(kind)
        let request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "salary >= 2"),
            sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        #expect(try child.count(for: request) == 2)
        let edsger = try #require(try stack.employee(named: "Edsger", in: stack.context))
        let grace = try #require(try stack.employee(named: "Grace", in: stack.context))
        #expect(try child.fetchObjectIDs(request) == [edsger.objectID, grace.objectID])
        let rows = try child.fetchDictionaries(request, properties: ["firstName", "salary"])
        #expect(rows.map { $0["firstName"] as? String } == ["Edsger", "Grace"])
        #expect(rows.map { $0["salary"] as? Double } == [5, 10])
    }

    /// The parent is the child's store: its unsaved changes are what a fetch without the
    /// child's own pending changes reads, as in Core Data.
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func withoutPendingChangesTheChildStillSeesTheParentsChanges(_ kind: TestStore.Kind) throws {
        let (stack, child) = try parentWithChanges(kind)
        _ = stack.employee("Barbara", salary: 7, in: child)
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.includesPendingChanges = false
        #expect(try child.fetch(request).map(\.firstName) == ["Ada", "Edsger", "Grace"])
        #expect(try child.count(for: request) == 3)
        request.includesPendingChanges = true
        #expect(try child.count(for: request) == 4)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func aCleanChainIsAnsweredByTheStore(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        _ = stack.employee("Ada", salary: 1)
        _ = stack.employee("Grace", salary: 2)
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.fetchLimit = 1
        #expect(try child.fetch(request).map(\.firstName) == ["Ada"])
        #expect(try child.count(for: FetchRequest<TestEmployee>(entityName: "Employee")) == 2)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func predicatesThroughRelationshipsSeeTheParentsRelatedChanges(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        _ = stack.employee("Grace")
        try stack.context.save()
        research.name = "Lab"
        let grace = try #require(try stack.employee(named: "Grace", in: stack.context))
        grace.department = research
        let child = ManagedObjectContext(parent: stack.context)
        let request = FetchRequest<TestEmployee>(
            entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == 'Lab'"),
            sortDescriptors: [KeyPathSortDescriptor(key: "firstName")])
        #expect(try child.fetch(request).map(\.firstName) == ["Ada", "Grace"])
        let department = try #require(try child.existingObject(with: research.objectID) as? TestDepartment)
        #expect(Set(department.employees.compactMap(\.firstName)) == ["Ada", "Grace"])
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func faultsOfTheChildFireWithTheParentsValues(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        ada.salary = 7
        let sales = stack.department("Sales")
        ada.department = sales
        let child = ManagedObjectContext(parent: stack.context)
        let fault = try #require(child.object(with: ada.objectID) as? TestEmployee)
        #expect(fault.isFault)
        #expect(fault.salary == 7)
        #expect(fault.department?.name == "Sales")
        #expect(fault.department?.objectID.isTemporaryID == true)
        #expect(fault.department?.employees.map(\.objectID) == [ada.objectID])
    }
}

extension ChildContextFetchTests {
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func batchedFetchesAndPrefetchingReadThroughTheParent(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        for (index, name) in ["Ada", "Grace", "Alan", "Edsger"].enumerated() {
            stack.employee(name, salary: Double(index + 1)).department = research
        }
        try stack.context.save()
        let alan = try #require(try stack.employee(named: "Alan", in: stack.context))
        alan.salary = 30
        let child = ManagedObjectContext(parent: stack.context)
        var request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        request.fetchBatchSize = 2
        let batched = try child.fetch(request)
        #expect(batched.map(\.firstName) == ["Ada", "Grace", "Edsger", "Alan"])
        #expect(batched.last?.salary == 30)
        var departments = FetchRequest<TestDepartment>(entityName: "Department")
        departments.relationshipKeyPathsForPrefetching = ["employees"]
        let fetched = try #require(try child.fetch(departments).first)
        #expect(fetched.employees.count == 4)
        #expect(fetched.employees.first { $0.firstName == "Alan" }?.salary == 30)
    }
}

@Suite struct ChildContextChainTests {
    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func threeLevelsSaveStepByStep(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let middle = ManagedObjectContext(parent: stack.context)
        let leaf = ManagedObjectContext(parent: middle)
        #expect(leaf.parent === middle && middle.parent === stack.context && stack.context.parent == nil)

        let draft = try #require(try leaf.existingObject(with: ada.objectID) as? TestEmployee)
        draft.salary = 3
        let grace = stack.employee("Grace", in: leaf)
        try leaf.save()
        let middleAda = try #require(try middle.existingObject(with: ada.objectID) as? TestEmployee)
        #expect(middleAda.salary == 3)
        #expect(try stack.employee(named: "Grace", in: middle)?.objectID == grace.objectID)
        #expect(ada.salary == 1)
        #expect(try stack.employee(named: "Grace", in: stack.context) == nil)

        try middle.save()
        #expect(ada.salary == 3)
        #expect(try stack.employee(named: "Grace", in: stack.context) != nil)
        #expect(try stack.storedFirstNames() == ["Ada"])

        try stack.context.save()
        #expect(try stack.storedFirstNames() == ["Ada", "Grace"])
    }

    @Test func aGrandchildSeesChangesOfEveryAncestor() throws {
        let stack = try ManagedTestStack()
        _ = stack.employee("Ada", salary: 1)
        try stack.context.save()
        _ = stack.employee("Grace", salary: 2)
        let middle = ManagedObjectContext(parent: stack.context)
        _ = stack.employee("Alan", salary: 3, in: middle)
        let leaf = ManagedObjectContext(parent: middle)
        let request = FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "salary")])
        #expect(try leaf.fetch(request).map(\.firstName) == ["Ada", "Grace", "Alan"])
        #expect(try leaf.count(for: request) == 3)
    }

    @Test func temporaryIDsNameTheParentsObjectsAndBecomePermanentWhenTheRootSaves() throws {
        let stack = try ManagedTestStack()
        let child = ManagedObjectContext(parent: stack.context)
        let grace = stack.employee("Grace", in: child)
        let temporary = grace.objectID
        #expect(temporary.isTemporaryID)
        try child.save()
        #expect(grace.objectID == temporary)
        let parentGrace = try #require(stack.context.registeredObject(for: temporary))
        try stack.context.save()
        #expect(!parentGrace.objectID.isTemporaryID)
        // The live child sees its object under the permanent ID too.
        #expect(grace.objectID == parentGrace.objectID)
        #expect(child.registeredObject(for: parentGrace.objectID) === grace)
        #expect(child.object(with: temporary) === grace)
        grace.salary = 5
        try child.save()
        #expect((parentGrace as? TestEmployee)?.salary == 5)
    }

    @Test func obtainPermanentIDsWorksThroughTheChain() throws {
        let stack = try ManagedTestStack()
        let middle = ManagedObjectContext(parent: stack.context)
        let leaf = ManagedObjectContext(parent: middle)
        let grace = stack.employee("Grace", in: leaf)
        try leaf.save()
        let middleGrace = try #require(middle.registeredObject(for: grace.objectID))
        try leaf.obtainPermanentIDs(for: [grace])
        #expect(!grace.objectID.isTemporaryID)
        #expect(middleGrace.objectID == grace.objectID)
        try middle.save()
        let rootGrace = try #require(stack.context.registeredObject(for: grace.objectID))
        #expect(rootGrace.isInserted)
        try stack.context.save()
        #expect(rootGrace.objectID == grace.objectID)
        let reader = stack.makeContext()
        #expect(try reader.existingObject(with: grace.objectID).value(forKey: "firstName") as? String == "Grace")
    }

    @Test func anObjectTheParentInsertedCanBeEditedInTheChild() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        let child = ManagedObjectContext(parent: stack.context)
        let draft = try #require(try child.existingObject(with: ada.objectID) as? TestEmployee)
        #expect(draft.firstName == "Ada")
        draft.salary = 4
        try child.save()
        #expect(ada.salary == 4)
        #expect(ada.isInserted)
    }
}

@Suite struct ChildContextConflictTests {
    /// Ada saved in the parent; children A and B read her; A changes first name and salary and
    /// saves; B changes salary and last name under `policy`.
    private func conflict(
        policy: MergePolicy, _ kind: TestStore.Kind
    ) throws -> (ManagedTestStack, TestEmployee, ManagedObjectContext, TestEmployee) {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let ada = stack.employee("Ada", salary: 1)
        ada.lastName = "Byron"
        try stack.context.save()
        let first = ManagedObjectContext(parent: stack.context)
        let second = ManagedObjectContext(parent: stack.context)
        let theirs = try #require(try first.existingObject(with: ada.objectID) as? TestEmployee)
        let mine = try #require(try second.existingObject(with: ada.objectID) as? TestEmployee)
        theirs.firstName = "Augusta"
        theirs.salary = 2
        try first.save()
        second.mergePolicy = policy
        mine.salary = 3
        mine.lastName = "Lovelace"
        return (stack, ada, second, mine)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func errorPolicyReportsTheConflictAndLeavesTheParentAsTheFirstChildSavedIt(_ kind: TestStore.Kind) throws {
        let (_, ada, second, mine) = try conflict(policy: .error, kind)
        do {
            try second.save()
            Issue.record("expected a merge conflict")
        } catch let error as PersistenceError {
            #expect(error.code == .mergeConflict)
            #expect(error.conflicts.map(\.objectID) == [ada.objectID])
        }
        #expect(ada.firstName == "Augusta" && ada.salary == 2 && ada.lastName == "Byron")
        #expect(mine.isUpdated && mine.salary == 3)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func storeTrumpKeepsTheParentsChangesAndPushesTheChildsOthers(_ kind: TestStore.Kind) throws {
        let (_, ada, second, mine) = try conflict(policy: .storeTrump, kind)
        try second.save()
        #expect(ada.firstName == "Augusta" && ada.salary == 2 && ada.lastName == "Lovelace")
        #expect(mine.firstName == "Augusta" && mine.salary == 2 && mine.lastName == "Lovelace")
        #expect(!mine.hasChanges)
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func objectTrumpPushesTheChildsChangesAndTakesTheParentsOthers(_ kind: TestStore.Kind) throws {
        let (_, ada, second, mine) = try conflict(policy: .objectTrump, kind)
        try second.save()
        #expect(ada.firstName == "Augusta" && ada.salary == 3 && ada.lastName == "Lovelace")
        #expect(mine.firstName == "Augusta")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func overwritePushesTheChildsObjectWhole(_ kind: TestStore.Kind) throws {
        let (_, ada, second, _) = try conflict(policy: .overwrite, kind)
        try second.save()
        #expect(ada.firstName == "Ada" && ada.salary == 3 && ada.lastName == "Lovelace")
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func rollbackDropsTheChildsChangesToObjectsInConflict(_ kind: TestStore.Kind) throws {
        let (stack, ada, second, mine) = try conflict(policy: .rollback, kind)
        let grace = stack.employee("Grace", in: second)
        try second.save()
        #expect(ada.firstName == "Augusta" && ada.salary == 2 && ada.lastName == "Byron")
        #expect(mine.salary == 2 && mine.lastName == "Byron" && !mine.isUpdated)
        #expect(try stack.employee(named: "Grace", in: stack.context)?.objectID == grace.objectID)
    }

    @Test func theParentsOwnEditsMeanwhileConflictToo() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        let mine = try #require(try child.existingObject(with: ada.objectID) as? TestEmployee)
        mine.salary = 2
        ada.salary = 5
        #expect { try child.save() } throws: { PersistenceError.Code.mergeConflict ~= $0 }
        child.mergePolicy = .storeTrump
        try child.save()
        #expect(ada.salary == 5 && mine.salary == 5)
    }

    @Test(arguments: [MergePolicy.error, .rollback, .objectTrump])
    func aChildsDeletionOfAnObjectTheParentChangedMeanwhile(_ policy: MergePolicy) throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        child.mergePolicy = policy
        let mine = try child.existingObject(with: ada.objectID)
        child.delete(mine)
        ada.salary = 5
        switch policy {
        case .error:
            #expect { try child.save() } throws: { PersistenceError.Code.mergeConflict ~= $0 }
            #expect(mine.isDeleted && !ada.isDeleted)
        case .rollback:
            try child.save()
            #expect(!mine.isDeleted && mine.managedObjectContext === child)
            #expect((mine as? TestEmployee)?.salary == 5)
            #expect(!ada.isDeleted)
        default:
            try child.save()
            #expect(ada.isDeleted)
            #expect(mine.managedObjectContext == nil)
        }
    }

    @Test(arguments: [TestStore.Kind.inMemory, .sqlite])
    func additionsToAToManyRelationshipOnBothSidesSurviveUnderObjectTrump(_ kind: TestStore.Kind) throws {
        let stack = try TestStore.$kind.withValue(kind) { try ManagedTestStack() }
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        child.mergePolicy = .objectTrump
        let department = try #require(try child.existingObject(with: research.objectID) as? TestDepartment)
        #expect(department.employees.count == 1)
        let grace = stack.employee("Grace", in: child)
        grace.department = department
        let alan = stack.employee("Alan")
        alan.department = research
        try child.save()
        #expect(Set(research.employees.compactMap(\.firstName)) == ["Ada", "Alan", "Grace"])
        #expect(Set(department.employees.compactMap(\.firstName)) == ["Ada", "Alan", "Grace"])
        try stack.context.save()
        #expect(try stack.storedFirstNames() == ["Ada", "Alan", "Grace"])
    }

    @Test(arguments: [MergePolicy.error, .storeTrump, .objectTrump, .overwrite, .rollback])
    func anObjectTheParentDeletedMeanwhileConflictsOrLeavesTheChild(_ policy: MergePolicy) throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        child.mergePolicy = policy
        let mine = try #require(try child.existingObject(with: ada.objectID) as? TestEmployee)
        mine.salary = 2
        stack.context.delete(ada)
        if policy == .error {
            do {
                try child.save()
                Issue.record("expected a merge conflict")
            } catch let error as PersistenceError {
                #expect(error.code == .mergeConflict)
                #expect(error.conflicts.first?.newVersion == nil)
            }
            #expect(mine.isUpdated)
        } else {
            try child.save()
            #expect(mine.managedObjectContext == nil)
        }
        #expect(ada.isDeleted)
    }
}

extension ChildContextChainTests {
    @Test func aSiblingMergesAChildsSaveFromItsNotification() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let first = ManagedObjectContext(parent: stack.context)
        let second = ManagedObjectContext(parent: stack.context)
        let theirs = try #require(try first.existingObject(with: ada.objectID) as? TestEmployee)
        let mine = try #require(try second.existingObject(with: ada.objectID) as? TestEmployee)
        let recorder = NotificationRecorder(ManagedObjectContext.didSaveNotification, center: stack.center)
        theirs.salary = 2
        try first.save()
        let saved = try #require(recorder.notifications.first { $0.object as? ManagedObjectContext === first })
        second.mergeChanges(fromContextDidSave: saved)
        #expect(mine.salary == 2)
        mine.lastName = "Lovelace"
        try second.save()
        #expect(ada.salary == 2 && ada.lastName == "Lovelace")
    }

    @Test func liveResultsOverTheParentFollowAChildsSave() throws {
        let stack = try ManagedTestStack()
        _ = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let controller = try FetchedResultsController(
            fetchRequest: FetchRequest<TestEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "firstName")]),
            managedObjectContext: stack.context)
        try controller.performFetch()
        let child = ManagedObjectContext(parent: stack.context)
        _ = stack.employee("Grace", in: child)
        try child.save()
        #expect(controller.fetchedObjects?.map(\.firstName) == ["Ada", "Grace"])
        #expect(controller.fetchedObjects?.allSatisfy { $0.managedObjectContext === stack.context } == true)
    }

    @Test func refreshingInTheChildReadsTheParentsCurrentValues() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada", salary: 1)
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        let mine = try #require(try child.existingObject(with: ada.objectID) as? TestEmployee)
        #expect(mine.salary == 1)
        ada.salary = 4
        #expect(mine.salary == 1)
        child.refresh(mine, mergeChanges: false)
        #expect(mine.salary == 4)
        mine.lastName = "Lovelace"
        ada.salary = 6
        child.refresh(mine, mergeChanges: true)
        #expect(mine.salary == 6 && mine.lastName == "Lovelace")
        try child.save()
        #expect(ada.lastName == "Lovelace" && ada.salary == 6)
    }

    @Test func anInsertionUndoneAndRedoneInTheChildAfterItsSaveUpdatesTheParentsObject() throws {
        let stack = try ManagedTestStack()
        let child = ManagedObjectContext(parent: stack.context)
        child.undoManager = ModelUndoManager()
        let grace = stack.employee("Grace", in: child)
        child.processPendingChanges()
        try child.save()
        let undo = try #require(child.undoManager)
        try undo.undo()
        try undo.redo()
        grace.salary = 7
        try child.save()
        let inParent = stack.context.insertedObjects.compactMap { $0 as? TestEmployee }
        #expect(inParent.count == 1)
        #expect(inParent.first?.salary == 7)
    }
}

@Suite struct ChildContextErrorPathTests {
    @Test func relatingAChildObjectToAParentObjectThrows() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let child = ManagedObjectContext(parent: stack.context)
        let grace = stack.employee("Grace", in: child)
        #expect { try grace.setValue(research, forKey: "department") } throws: { PersistenceError.Code.objectInWrongContext ~= $0 }
    }

    @Test func obtainPermanentIDsRefusesAnObjectOfTheParent() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        let child = ManagedObjectContext(parent: stack.context)
        #expect { try child.obtainPermanentIDs(for: [ada]) } throws: { PersistenceError.Code.objectInWrongContext ~= $0 }
        #expect(ada.objectID.isTemporaryID)
    }

    @Test func aTemporaryIDTheChainDoesNotKnowIsNotFound() throws {
        let stack = try ManagedTestStack()
        let stranger = stack.employee("Stranger", in: stack.makeContext())
        let child = ManagedObjectContext(parent: stack.context)
        #expect { _ = try child.existingObject(with: stranger.objectID) } throws: { PersistenceError.Code.objectNotFound ~= $0 }
        #expect(child.registeredObject(for: stranger.objectID) == nil)
    }

    @Test func aFaultOfAnObjectTheParentDeletedIsNotFound() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada")
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        let fault = child.object(with: ada.objectID)
        stack.context.delete(ada)
        #expect { try fault.fireFault() } throws: { PersistenceError.Code.objectNotFound ~= $0 }
        #expect { _ = try child.existingObject(with: ada.objectID) } throws: { PersistenceError.Code.objectNotFound ~= $0 }
    }

    @Test func relatingAnObjectTheParentDeletedFailsTheChildsSaveAndLeavesTheParentUntouched() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        // The department's own change (its employees) gives way to the parent's deletion.
        child.mergePolicy = .objectTrump
        let department = try #require(try child.existingObject(with: research.objectID) as? TestDepartment)
        let draft = try #require(try child.existingObject(with: ada.objectID) as? TestEmployee)
        stack.context.delete(research)
        stack.context.processPendingChanges()
        draft.department = department
        #expect { try child.save() } throws: { PersistenceError.Code.objectNotFound ~= $0 }
        #expect(ada.department == nil && !ada.isUpdated)
        #expect(child.hasChanges)
    }
}
