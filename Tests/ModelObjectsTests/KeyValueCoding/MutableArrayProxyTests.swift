import Foundation
import ModelObjects
import SampleModels
import Testing

/// A manager with the direct reports A, B and C, in that order.
private func makeManager() -> (manager: Employee, reports: [Employee]) {
    let manager = Employee(firstName: "M", lastName: "", employeeID: 0, salary: 0)
    let reports = ["A", "B", "C"].enumerated().map { index, name in
        Employee(firstName: name, lastName: "", employeeID: index + 1, salary: 0)
    }
    manager.directReports = reports
    return (manager, reports)
}

private func names(_ employees: [Employee]) -> [String] { employees.map(\.firstName) }

private func newEmployee(_ name: String) -> Employee {
    Employee(firstName: name, lastName: "", employeeID: 99, salary: 0)
}

@Suite struct MutableArrayProxyTests {
    // MARK: - Reading

    @Test func proxyNamesItsObjectAndKey() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        #expect(proxy.object === manager)
        #expect(proxy.key == "directReports")
    }

    @Test func countElementsAndElementAtIndex() throws {
        let (manager, reports) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        #expect(try proxy.count() == 3)
        let elements = try proxy.elements()
        #expect(elements.count == 3)
        #expect(elements[0] as? Employee === reports[0])
        #expect(elements[2] as? Employee === reports[2])
        #expect(try proxy.element(at: 1) as? Employee === reports[1])
    }

    @Test func proxyIsLive() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        manager.directReports = [newEmployee("Z")]
        #expect(try proxy.count() == 1)
        #expect((try proxy.element(at: 0) as? Employee)?.firstName == "Z")
    }

    @Test(arguments: [-1, 3, 100])
    func elementAtAnIndexOutsideTheArrayThrows(index: Int) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        let error = expectKVCError(.indexOutOfRange) { _ = try proxy.element(at: index) }
        #expect(error?.key == "directReports")
        #expect(error?.className == "SampleModels.Employee")
    }

    // MARK: - Inserting

    @Test(arguments: [0, 1, 3])
    func insertAtIndexPlacesTheElementThere(index: Int) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.insert(newEmployee("X"), at: index)
        var expected = ["A", "B", "C"]
        expected.insert("X", at: index)
        #expect(names(manager.directReports) == expected)
    }

    @Test(arguments: [-1, 4])
    func insertAtAnIndexOutsideTheArrayThrowsAndChangesNothing(index: Int) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.insert(newEmployee("X"), at: index) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func insertElementsAtIndexesPlacesEachAtItsFinalIndex() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        var indexes = IndexSet()
        indexes.insert(0)
        indexes.insert(2)
        indexes.insert(5)
        try proxy.insert([newEmployee("X"), newEmployee("Y"), newEmployee("Z")], at: indexes)
        #expect(names(manager.directReports) == ["X", "A", "Y", "B", "C", "Z"])
    }

    @Test func insertElementsWithMismatchedIndexCountThrows() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.insert([newEmployee("X")], at: IndexSet([0, 1])) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func insertElementsPastTheEndThrowsAndChangesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) {
            try proxy.insert([newEmployee("X"), newEmployee("Y")], at: IndexSet([0, 5]))
        }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func insertNoElementsDoesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.insert([], at: IndexSet())
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func appendAddsAtTheEnd() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.append(newEmployee("D"))
        #expect(names(manager.directReports) == ["A", "B", "C", "D"])
    }

    @Test func appendContentsOfAddsAllAtTheEndInOrder() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.append(contentsOf: [newEmployee("D"), newEmployee("E")])
        #expect(names(manager.directReports) == ["A", "B", "C", "D", "E"])
        try proxy.append(contentsOf: [])
        #expect(manager.directReports.count == 5)
    }

    @Test func appendToAnEmptyArray() throws {
        let employee = Employee()
        let proxy = try employee.mutableArrayValue(forKey: "directReports")
        try proxy.append(newEmployee("A"))
        #expect(names(employee.directReports) == ["A"])
    }

    @Test func appendAcceptsASubclassInstance() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        let boss = Manager()
        try proxy.append(boss)
        #expect(manager.directReports.last === boss)
    }

    // MARK: - Removing

    @Test(arguments: [(0, ["B", "C"]), (1, ["A", "C"]), (2, ["A", "B"])])
    func removeAtIndexRemovesThatElement(index: Int, expected: [String]) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.remove(at: index)
        #expect(names(manager.directReports) == expected)
    }

    @Test(arguments: [-1, 3])
    func removeAtAnIndexOutsideTheArrayThrowsAndChangesNothing(index: Int) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.remove(at: index) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func removeAtIndexesRemovesAllOfThem() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.remove(at: IndexSet([0, 2]))
        #expect(names(manager.directReports) == ["B"])
    }

    @Test func removeAtIndexesPastTheEndThrowsAndChangesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.remove(at: IndexSet([0, 3])) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func removeAtNoIndexesDoesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.remove(at: IndexSet())
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func removeLastRemovesTheLastElement() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.removeLast()
        #expect(names(manager.directReports) == ["A", "B"])
    }

    @Test func removeLastOfAnEmptyArrayThrows() throws {
        let employee = Employee()
        let proxy = try employee.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.removeLast() }
        #expect(employee.directReports.isEmpty)
    }

    @Test func removeAllEmptiesTheArray() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.removeAll()
        #expect(manager.directReports.isEmpty)
        try proxy.removeAll()
        #expect(manager.directReports.isEmpty)
    }

    // MARK: - Replacing

    @Test func replaceAtIndexReplacesThatElement() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.replace(at: 1, with: newEmployee("X"))
        #expect(names(manager.directReports) == ["A", "X", "C"])
    }

    @Test(arguments: [-1, 3])
    func replaceAtAnIndexOutsideTheArrayThrowsAndChangesNothing(index: Int) throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.replace(at: index, with: newEmployee("X")) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func replaceAtIndexesReplacesEachInOrder() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.replace(at: IndexSet([0, 2]), with: [newEmployee("X"), newEmployee("Z")])
        #expect(names(manager.directReports) == ["X", "B", "Z"])
    }

    @Test func replaceWithMismatchedCountsThrowsAndChangesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.indexOutOfRange) { try proxy.replace(at: IndexSet([0, 1]), with: [newEmployee("X")]) }
        expectKVCError(.indexOutOfRange) { try proxy.replace(at: IndexSet([0, 3]), with: [newEmployee("X"), newEmployee("Y")]) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func replaceAtNoIndexesDoesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        try proxy.replace(at: IndexSet(), with: [])
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    // MARK: - Type errors

    @Test func insertingAWrongTypeThrowsTypeMismatchAndChangesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        let error = expectKVCError(.typeMismatch) { try proxy.append(Department()) }
        #expect(error?.key == "directReports")
        #expect(error?.className == "SampleModels.Employee")
        #expect(error?.expectedType == "SampleModels.Employee")
        #expect(error?.givenType == "SampleModels.Department")
        expectKVCError(.typeMismatch) { try proxy.insert("text", at: 0) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func oneWrongElementRejectsTheWholeInsertion() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        let error = expectKVCError(.typeMismatch) { try proxy.append(contentsOf: [newEmployee("D"), Department()]) }
        #expect(error?.givenType == "SampleModels.Department")
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    @Test func replacingWithAWrongTypeThrowsAndChangesNothing() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(forKey: "directReports")
        expectKVCError(.typeMismatch) { try proxy.replace(at: 0, with: 42) }
        expectKVCError(.typeMismatch) { try proxy.replace(at: IndexSet([0, 1]), with: [newEmployee("X"), "Y"]) }
        #expect(names(manager.directReports) == ["A", "B", "C"])
    }

    // MARK: - Array attributes

    @Test func editsArrayAttributes() throws {
        let object = AllTypes()
        object.strings = ["a", "c"]
        let proxy = try object.mutableArrayValue(forKey: "strings")
        try proxy.insert("b", at: 1)
        try proxy.append(NSString(string: "d"))
        #expect(object.strings == ["a", "b", "c", "d"])
        try proxy.replace(at: 0, with: "A")
        try proxy.remove(at: 3)
        #expect(object.strings == ["A", "b", "c"])
        expectKVCError(.typeMismatch) { try proxy.append(1) }
        #expect(object.strings == ["A", "b", "c"])
    }

    @Test func convertsElementsLosslesslyForArrayAttributes() throws {
        let object = AllTypes()
        let proxy = try object.mutableArrayValue(forKey: "doubles")
        try proxy.append(3)
        try proxy.append(Float(0.5))
        #expect(object.doubles == [3.0, 0.5])
        #expect(sameValue(try proxy.element(at: 0), 3.0))
        let error = expectKVCError(.typeMismatch) { try proxy.append("4") }
        #expect(error?.expectedType == "Swift.Double")
        #expect(object.doubles == [3.0, 0.5])
    }

    // MARK: - Keys that are not arrays

    @Test(arguments: ["firstName", "salary", "age", "department", "manager", "fullName"])
    func proxyForAKeyThatIsNotAnArrayThrowsNotACollection(key: String) {
        let employee = Employee()
        let error = expectKVCError(.notACollection) { _ = try employee.mutableArrayValue(forKey: key) }
        #expect(error?.key == key)
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test func proxyForASetKeyThrowsNotACollection() {
        expectKVCError(.notACollection) { _ = try Team().mutableArrayValue(forKey: "projects") }
        expectKVCError(.notACollection) { _ = try AllTypes().mutableArrayValue(forKey: "tags") }
    }

    @Test func proxyForAnUndefinedKeyThrowsUndefinedKey() {
        let error = expectKVCError(.undefinedKey) { _ = try Employee().mutableArrayValue(forKey: "reports") }
        #expect(error?.key == "reports")
    }

    @Test func proxyForATypedKeyPath() throws {
        let (manager, _) = makeManager()
        let proxy = try manager.mutableArrayValue(for: \.directReports)
        #expect(proxy.key == "directReports")
        try proxy.remove(at: 0)
        #expect(names(manager.directReports) == ["B", "C"])
    }
}
