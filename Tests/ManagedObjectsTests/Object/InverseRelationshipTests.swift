import Foundation
import Testing
@testable import ManagedObjects

@Suite struct InverseRelationshipTests {
    @Test func settingAToOneAddsToTheInverseToManyAndRemovesFromThePreviousOne() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        ada.department = research
        #expect(research.employees == [ada])
        ada.department = sales
        #expect(research.employees.isEmpty)
        #expect(sales.employees == [ada])
        ada.department = nil
        #expect(sales.employees.isEmpty)
    }

    @Test func settingAToOneToTheObjectItHoldsChangesNothing() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        try stack.context.save()
        ada.department = research
        stack.context.processPendingChanges()
        #expect(!stack.context.hasChanges)
        #expect(!ada.isUpdated && !research.isUpdated)
        #expect(research.employees == [ada])
    }

    @Test func undoingTypedToOneSetsRestoresBothSides() throws {
        let stack = try ManagedTestStack(undo: true)
        let undoManager = try #require(stack.context.undoManager)
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        stack.context.processPendingChanges()
        ada.department = research
        stack.context.processPendingChanges()
        ada.department = sales
        stack.context.processPendingChanges()
        try undoManager.undo()
        #expect(ada.department === research)
        #expect(research.employees == [ada] && sales.employees.isEmpty)
        try undoManager.undo()
        #expect(ada.department == nil)
        #expect(research.employees.isEmpty && sales.employees.isEmpty)
        try undoManager.redo()
        #expect(ada.department === research && research.employees == [ada])
    }

    @Test func changesMadeWithoutAnUndoManagerAreNotUndoneByOneSetLater() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada")
        ada.department = research
        ada.salary = 2000
        stack.context.processPendingChanges()
        let undoManager = ModelUndoManager()
        stack.context.undoManager = undoManager
        ada.salary = 3000
        stack.context.processPendingChanges()
        try undoManager.undo()
        #expect(ada.salary == 2000)
        #expect(ada.department === research && research.employees == [ada])
        #expect(!undoManager.canUndo)
    }

    @Test func insertingIntoAToManySetsTheInverseToOneAndTakesItFromTheOtherOwner() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        research.employees.insert(ada)
        #expect(ada.department === research)
        sales.employees.insert(ada)
        #expect(ada.department === sales)
        #expect(research.employees.isEmpty)
        sales.employees = []
        #expect(ada.department == nil)
    }

    @Test func oneToOneStealsTheTargetFromItsPreviousOwner() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        research.manager = ada
        #expect(ada.managedDepartment === research)
        sales.manager = ada
        #expect(ada.managedDepartment === sales)
        #expect(research.manager == nil)
        ada.managedDepartment = research
        #expect(research.manager === ada)
        #expect(sales.manager == nil)
    }

    @Test func manyToManyKeepsBothSides() throws {
        let stack = try ManagedTestStack()
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        let compiler = TestProject(context: stack.context), engine = TestProject(context: stack.context)
        ada.projects = [compiler, engine]
        grace.projects.insert(compiler)
        #expect(compiler.members == [ada, grace])
        #expect(engine.members == [ada])
        compiler.members.remove(ada)
        #expect(ada.projects == [engine])
    }

    @Test func settingAToManyByKeyRelatesTheGivenObjectsAndUnrelatesTheRest() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace"), alan = stack.employee("Alan")
        try research.setValue(Set([ada, grace]), forKey: "employees")
        #expect(ada.department === research && grace.department === research)
        try research.setValue([grace, alan], forKey: "employees")
        #expect(ada.department == nil)
        #expect(alan.department === research)
        #expect(research.employees == [grace, alan])
    }

    @Test func mutableSetProxyEditsKeepInverses() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research")
        let ada = stack.employee("Ada"), grace = stack.employee("Grace")
        let employees = try research.mutableSetValue(forKey: "employees")
        try employees.insert(ada)
        try employees.formUnion([grace])
        #expect(ada.department === research && grace.department === research)
        try employees.remove(ada)
        #expect(ada.department == nil)
        #expect(try employees.count() == 1)
        #expect(throws: KeyValueCodingError.self) { try employees.insert(research) }
    }

    @Test func orderedRelationshipsKeepOrderAndInverses() throws {
        let stack = try ManagedTestStack()
        let project = TestProject(context: stack.context)
        let first = TestMilestone(context: stack.context), second = TestMilestone(context: stack.context)
        let third = TestMilestone(context: stack.context)
        first.title = "1"; second.title = "2"; third.title = "3"
        let milestones = try project.mutableArrayValue(forKey: "milestones")
        try milestones.append(first)
        try milestones.append(third)
        try milestones.insert(second, at: 1)
        #expect(project.milestones.map(\.title) == ["1", "2", "3"])
        #expect(second.project === project)
        try milestones.remove(at: 0)
        #expect(first.project == nil)
        third.project = nil
        #expect(project.milestones.map(\.title) == ["2"])
        first.project = project
        #expect(project.milestones.map(\.title) == ["2", "1"])
        #expect(throws: KeyValueCodingError.self) { try milestones.remove(at: 5) }
    }

    @Test func toOneChangeNotifiesBothSidesInNestedOrder() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        ada.department = research
        var log: [String] = []
        let tokens = try [
            ada.observe("department", options: [.old, .new, .prior]) { _, change in
                log.append("ada.department \(change.isPrior ? "prior" : "after")")
            },
            research.observe("employees", options: [.old, .new]) { _, change in
                log.append("research.employees \(change.kind) \(change.oldValue.map { "\($0)" }?.contains("TestEmployee") == true ? "old" : "-")")
            },
            sales.observe("employees", options: [.new]) { _, change in
                log.append("sales.employees \(change.kind)")
            },
        ]
        ada.department = sales
        #expect(log == [
            "ada.department prior", "research.employees removal old", "sales.employees insertion", "ada.department after",
        ])
        tokens.forEach { $0.invalidate() }
    }

    @Test func modeledKeysDoNotNotifyAutomaticallyYetObserversHearEveryChangeOnce() throws {
        let stack = try ManagedTestStack()
        #expect(!TestEmployee.automaticallyNotifiesObservers(forKey: "salary"))
        #expect(TestEmployee.automaticallyNotifiesObservers(forKey: "nickname"))
        let ada = stack.employee("Ada", salary: 1)
        var values: [Double?] = []
        let token = try ada.observe("salary", options: [.new]) { _, change in values.append(change.newValue as? Double) }
        ada.salary = 2
        try ada.setValue(3.0, forKey: "salary")
        try ada.setValue(4.0, forKeyPath: "salary")
        #expect(values == [2, 3, 4])
        token.invalidate()
    }

    @Test func keyPathObservationThroughAManagedRelationshipFollowsTheNewTarget() throws {
        let stack = try ManagedTestStack()
        let research = stack.department("Research"), sales = stack.department("Sales")
        let ada = stack.employee("Ada")
        ada.department = research
        var names: [String?] = []
        let token = try ada.observe("department.name", options: [.new]) { _, change in names.append(change.newValue as? String) }
        research.name = "R&D"
        ada.department = sales
        research.name = "Ignored"
        sales.name = "Field Sales"
        #expect(names == ["R&D", "Sales", "Field Sales"])
        token.invalidate()
    }
}
