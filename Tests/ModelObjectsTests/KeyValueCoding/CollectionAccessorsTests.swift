import Foundation
import ModelObjects
import SampleModels
import Testing

/// A portfolio whose ordered "projects" are A, B, C.
private func makePortfolio() -> Portfolio {
    let portfolio = Portfolio()
    portfolio.projects = ["A", "B", "C"].map { Project(name: $0) }
    return portfolio
}

private func names(_ projects: [Project]) -> [String] { projects.map(\.name) }

@Suite struct CollectionAccessorsTests {
    @Test func classesWithoutAccessorsProvideNone() {
        #expect(ModelObject.collectionAccessors(forKey: "anything") == nil)
        #expect(Employee.collectionAccessors(forKey: "directReports") == nil)
        #expect(Portfolio.collectionAccessors(forKey: "calls") == nil)
        #expect(Portfolio.collectionAccessors(forKey: "projects") != nil)
    }

    @Test func unorderedAccessorsNeedAnAddAndARemoveAccessor() {
        let noAdd = CollectionAccessors.unordered(removeObject: { (_: Portfolio, _: Project) in })
        let noRemove = CollectionAccessors.unordered(addObject: { (_: Portfolio, _: Project) in })
        let bulk = CollectionAccessors.unordered(
            add: { (_: Portfolio, _: Set<Project>) in }, remove: { (_: Portfolio, _: Set<Project>) in })
        #expect(noAdd == nil)
        #expect(noRemove == nil)
        #expect(bulk != nil)
    }

    // MARK: - Ordered accessors

    @Test func countAndElementsComeFromTheAccessors() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        #expect(try proxy.count() == 3)
        #expect(portfolio.calls == ["count"])
        portfolio.calls = []
        #expect((try proxy.element(at: 1) as? Project)?.name == "B")
        #expect(portfolio.calls.contains("objectAt(1)"))
        portfolio.calls = []
        #expect((try proxy.elements() as? [Project]).map(names) == ["A", "B", "C"])
        #expect(portfolio.calls.filter { $0.hasPrefix("objectAt") } == ["objectAt(0)", "objectAt(1)", "objectAt(2)"])
    }

    @Test func insertCallsTheInsertAccessor() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.insert(Project(name: "X"), at: 1)
        #expect(portfolio.mutatingCalls == ["insert(X,1)"])
        #expect(names(portfolio.projects) == ["A", "X", "B", "C"])
    }

    @Test func appendCallsTheInsertAccessorAtTheEnd() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.append(Project(name: "D"))
        try proxy.append(contentsOf: [Project(name: "E"), Project(name: "F")])
        #expect(portfolio.mutatingCalls == ["insert(D,3)", "insert(E,4)", "insert(F,5)"])
        #expect(names(portfolio.projects) == ["A", "B", "C", "D", "E", "F"])
    }

    @Test func insertAtIndexesCallsTheInsertAccessorInAscendingOrder() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.insert([Project(name: "X"), Project(name: "Y")], at: IndexSet([0, 2]))
        #expect(portfolio.mutatingCalls == ["insert(X,0)", "insert(Y,2)"])
        #expect(names(portfolio.projects) == ["X", "A", "Y", "B", "C"])
    }

    @Test func removeCallsTheRemoveAccessorFromTheHighestIndexDown() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.remove(at: IndexSet([0, 2]))
        #expect(portfolio.mutatingCalls == ["remove(2)", "remove(0)"])
        #expect(names(portfolio.projects) == ["B"])
        portfolio.calls = []
        try proxy.removeLast()
        #expect(portfolio.mutatingCalls == ["remove(0)"])
        #expect(portfolio.projects.isEmpty)
    }

    @Test func removeAllCallsTheRemoveAccessorForEveryIndex() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.removeAll()
        #expect(portfolio.mutatingCalls == ["remove(2)", "remove(1)", "remove(0)"])
        #expect(portfolio.projects.isEmpty)
    }

    @Test func replaceCallsTheReplaceAccessor() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        try proxy.replace(at: 1, with: Project(name: "X"))
        try proxy.replace(at: IndexSet([0, 2]), with: [Project(name: "Y"), Project(name: "Z")])
        #expect(portfolio.mutatingCalls == ["replace(1,X)", "replace(0,Y)", "replace(2,Z)"])
        #expect(names(portfolio.projects) == ["Y", "X", "Z"])
    }

    @Test func wrongTypeIsRejectedBeforeAnyAccessorIsCalled() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        let error = expectKVCError(.typeMismatch) { try proxy.append(contentsOf: [Project(name: "D"), Employee()]) }
        #expect(error?.key == "projects")
        #expect(error?.givenType == "SampleModels.Employee")
        expectKVCError(.typeMismatch) { try proxy.replace(at: 0, with: "X") }
        #expect(portfolio.mutatingCalls.isEmpty)
        #expect(names(portfolio.projects) == ["A", "B", "C"])
    }

    @Test func indexErrorsAreReportedBeforeAnyAccessorIsCalled() throws {
        let portfolio = makePortfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "projects")
        expectKVCError(.indexOutOfRange) { try proxy.insert(Project(name: "X"), at: 4) }
        expectKVCError(.indexOutOfRange) { try proxy.remove(at: 3) }
        expectKVCError(.indexOutOfRange) { try proxy.replace(at: 3, with: Project(name: "X")) }
        expectKVCError(.indexOutOfRange) { _ = try proxy.element(at: 3) }
        #expect(portfolio.mutatingCalls.isEmpty)
        #expect(names(portfolio.projects) == ["A", "B", "C"])
    }

    // MARK: - Ordered accessors without storage or replace accessor

    @Test func accessorsAloneMakeAnOrderedKeyEditable() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "milestones")
        try proxy.append("alpha")
        try proxy.append("beta")
        try proxy.insert("start", at: 0)
        #expect(portfolio.milestoneStorage == ["start", "alpha", "beta"])
        #expect(try proxy.count() == 3)
        #expect(try proxy.elements() as? [String] == ["start", "alpha", "beta"])
        try proxy.remove(at: 1)
        #expect(portfolio.milestoneStorage == ["start", "beta"])
    }

    @Test func replaceWithoutAReplaceAccessorRemovesThenInserts() throws {
        let portfolio = Portfolio()
        portfolio.milestoneStorage = ["a", "b", "c"]
        let proxy = try portfolio.mutableArrayValue(forKey: "milestones")
        try proxy.replace(at: 1, with: "B")
        #expect(portfolio.mutatingCalls == ["remove(1)", "insert(B,1)"])
        #expect(portfolio.milestoneStorage == ["a", "B", "c"])
    }

    @Test func accessorOnlyOrderedKeyConvertsElementsWhenTheAccessorIsCalled() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableArrayValue(forKey: "milestones")
        let error = expectKVCError(.typeMismatch) { try proxy.append(5) }
        #expect(error?.expectedType == "Swift.String")
        #expect(portfolio.milestoneStorage.isEmpty)
    }

    @Test func accessorOnlyOrderedKeyRejectsAWholeInsertionWithOneWrongElement() throws {
        // Documented for insert(_:at:): a wrong element throws typeMismatch and nothing changes.
        let portfolio = Portfolio()
        portfolio.milestoneStorage = ["start"]
        let proxy = try portfolio.mutableArrayValue(forKey: "milestones")
        expectKVCError(.typeMismatch) { try proxy.append(contentsOf: ["alpha", 5]) }
        #expect(portfolio.milestoneStorage == ["start"])
    }

    @Test func accessorOnlyOrderedKeyRejectsAWrongReplacementWithoutRemovingTheOldElement() throws {
        // Documented for replace(at:with:): a wrong element throws typeMismatch and nothing changes.
        let portfolio = Portfolio()
        portfolio.milestoneStorage = ["start", "end"]
        let proxy = try portfolio.mutableArrayValue(forKey: "milestones")
        expectKVCError(.typeMismatch) { try proxy.replace(at: 0, with: 5) }
        #expect(portfolio.milestoneStorage == ["start", "end"])
    }

    @Test func accessorOnlyKeysAreReadByValueForKey() throws {
        // As Cocoa's valueForKey: finds countOf<Key>/objectIn<Key>AtIndex: and the set accessors.
        let portfolio = Portfolio()
        portfolio.milestoneStorage = ["a", "b"]
        portfolio.labelStorage = ["red"]
        #expect(try portfolio.value(forKey: "milestones") as? [Any] as? [String] == ["a", "b"])
        #expect(try portfolio.value(forKey: "labels") as? Set<AnyHashable> == ["red"])
        expectKVCError(.undefinedKey) { _ = try portfolio.value(forKey: "archivedCount") }
    }

    // MARK: - Unordered accessors

    @Test func setProxyAddsThroughTheAddObjectAccessor() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        let alpha = Project(name: "Alpha")
        try proxy.insert(alpha)
        #expect(portfolio.mutatingCalls == ["addObject(Alpha)"])
        #expect(portfolio.archived == [alpha])
    }

    @Test func setProxyCallsAddObjectForEachElementOfAUnion() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        try proxy.formUnion([Project(name: "A"), Project(name: "B")])
        #expect(portfolio.mutatingCalls.sorted() == ["addObject(A)", "addObject(B)"])
        #expect(portfolio.archived.count == 2)
    }

    @Test func setProxyRemovesThroughTheRemoveObjectAccessor() throws {
        let portfolio = Portfolio()
        let alpha = Project(name: "Alpha")
        let beta = Project(name: "Beta")
        portfolio.archived = [alpha, beta]
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        try proxy.remove(alpha)
        #expect(portfolio.mutatingCalls == ["removeObject(Alpha)"])
        #expect(portfolio.archived == [beta])
    }

    @Test func intersectionWithoutAnIntersectAccessorRemovesTheOthers() throws {
        let portfolio = Portfolio()
        let alpha = Project(name: "Alpha")
        let beta = Project(name: "Beta")
        let gamma = Project(name: "Gamma")
        portfolio.archived = [alpha, beta, gamma]
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        try proxy.formIntersection([beta])
        #expect(portfolio.mutatingCalls.sorted() == ["removeObject(Alpha)", "removeObject(Gamma)"])
        #expect(portfolio.archived == [beta])
    }

    @Test func setElementsRemovesTheOldAndAddsTheNewThroughAccessors() throws {
        let portfolio = Portfolio()
        let alpha = Project(name: "Alpha")
        let beta = Project(name: "Beta")
        let gamma = Project(name: "Gamma")
        portfolio.archived = [alpha, beta]
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        try proxy.setElements([beta, gamma])
        #expect(portfolio.mutatingCalls == ["removeObject(Alpha)", "addObject(Gamma)"])
        #expect(portfolio.archived == [beta, gamma])
    }

    @Test func setProxyRejectsWrongTypesBeforeCallingAccessors() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableSetValue(forKey: "archived")
        expectKVCError(.typeMismatch) { try proxy.formUnion([Project(name: "A"), Employee()]) }
        #expect(portfolio.mutatingCalls.isEmpty)
        #expect(portfolio.archived.isEmpty)
    }

    @Test func accessorsAloneWithMembersMakeAnUnorderedKeyEditable() throws {
        let portfolio = Portfolio()
        let proxy = try portfolio.mutableSetValue(forKey: "labels")
        try proxy.formUnion(["red", "green"])
        try proxy.insert("blue")
        #expect(portfolio.labelStorage == ["red", "green", "blue"])
        #expect(try proxy.count() == 3)
        #expect(try proxy.contains("green"))
        #expect(try proxy.elements() == ["red", "green", "blue"])
        try proxy.remove("red")
        #expect(portfolio.labelStorage == ["green", "blue"])
        #expect(portfolio.mutatingCalls == ["add(green,red)", "add(blue)", "remove(red)"])
    }

    @Test func intersectionCallsTheIntersectAccessor() throws {
        let portfolio = Portfolio()
        portfolio.labelStorage = ["red", "green", "blue"]
        let proxy = try portfolio.mutableSetValue(forKey: "labels")
        try proxy.formIntersection(["green", "yellow"])
        #expect(portfolio.mutatingCalls == ["intersect(green,yellow)"])
        #expect(portfolio.labelStorage == ["green"])
    }

    @Test func removeAllThroughAccessors() throws {
        let portfolio = Portfolio()
        portfolio.labelStorage = ["red", "green"]
        let proxy = try portfolio.mutableSetValue(forKey: "labels")
        try proxy.removeAll()
        #expect(portfolio.mutatingCalls == ["remove(green,red)"])
        #expect(portfolio.labelStorage.isEmpty)
    }

    @Test func accessorOnlyUnorderedKeyIsNotAnArray() {
        expectKVCError(.notACollection) { _ = try Portfolio().mutableArrayValue(forKey: "labels") }
        expectKVCError(.notACollection) { _ = try Portfolio().mutableSetValue(forKey: "milestones") }
    }

    @Test func aNegativeCountReadsAsEmpty() throws {
        let list = MiscountedList()
        let items = try list.mutableArrayValue(forKey: "items")
        #expect(try items.count() == 0)
        #expect(try items.elements().isEmpty)
        expectKVCError(.indexOutOfRange) { try items.removeLast() }
        expectKVCError(.indexOutOfRange) { _ = try items.element(at: 0) }
        try items.append(contentsOf: ["x", "y"])
        try items.removeAll()
        #expect(list.calls == ["insert(x, 0)", "insert(y, 1)"])
    }

    @Test func aHugeCountNeitherOverflowsNorTraps() throws {
        let list = MiscountedList()
        list.reportedCount = Int.max
        let items = try list.mutableArrayValue(forKey: "items")
        try items.insert("x", at: 0)
        try items.insert(["y"], at: IndexSet(integer: Int.max - 1))
        expectKVCError(.indexOutOfRange) { try items.append("z") }
        try items.removeLast()
        #expect(list.calls == ["insert(x, 0)", "insert(y, \(Int.max - 1))", "remove(\(Int.max - 1))"])
    }
}
