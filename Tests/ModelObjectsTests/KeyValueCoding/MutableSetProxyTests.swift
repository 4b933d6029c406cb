import Foundation
import ModelObjects
import SampleModels
import Testing

/// A team with the projects Alpha and Beta.
private func makeTeam() -> (team: Team, alpha: Project, beta: Project) {
    let alpha = Project(name: "Alpha")
    let beta = Project(name: "Beta")
    return (Team(name: "Core", projects: [alpha, beta]), alpha, beta)
}

private func names(_ projects: Set<Project>) -> Set<String> { Set(projects.map(\.name)) }

@Suite struct MutableSetProxyTests {
    @Test func proxyNamesItsObjectAndKey() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        #expect(proxy.object === team)
        #expect(proxy.key == "projects")
    }

    @Test func elementsCountAndContains() throws {
        let (team, alpha, beta) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        #expect(try proxy.count() == 2)
        #expect(try proxy.elements() == [AnyHashable(alpha), AnyHashable(beta)])
        #expect(try proxy.contains(alpha))
        #expect(try proxy.contains(Project(name: "Alpha")) == false)
    }

    @Test func proxyIsLive() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        team.projects = []
        #expect(try proxy.count() == 0)
    }

    @Test func insertAddsANewElement() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        let gamma = Project(name: "Gamma")
        try proxy.insert(gamma)
        #expect(team.projects.contains(gamma))
        #expect(names(team.projects) == ["Alpha", "Beta", "Gamma"])
    }

    @Test func insertingAPresentElementChangesNothing() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.insert(alpha)
        #expect(team.projects.count == 2)
    }

    @Test func formUnionAddsEveryNewElement() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.formUnion([alpha, Project(name: "Gamma"), Project(name: "Delta")])
        #expect(names(team.projects) == ["Alpha", "Beta", "Gamma", "Delta"])
        #expect(team.projects.count == 4)
    }

    @Test func removeTakesOutAnElement() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.remove(alpha)
        #expect(names(team.projects) == ["Beta"])
    }

    @Test func removingAnAbsentElementChangesNothing() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.remove(Project(name: "Alpha"))
        #expect(team.projects.count == 2)
    }

    @Test func subtractRemovesEveryGivenElement() throws {
        let (team, alpha, beta) = makeTeam()
        let gamma = Project(name: "Gamma")
        team.projects.insert(gamma)
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.subtract([alpha, beta, Project(name: "Absent")])
        #expect(team.projects == [gamma])
    }

    @Test func formIntersectionKeepsOnlyTheGivenElements() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.formIntersection([alpha, Project(name: "Other")])
        #expect(team.projects == [alpha])
    }

    @Test func setElementsReplacesTheWholeSet() throws {
        let (team, alpha, _) = makeTeam()
        let gamma = Project(name: "Gamma")
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.setElements([alpha, gamma])
        #expect(team.projects == [alpha, gamma])
        try proxy.setElements([])
        #expect(team.projects.isEmpty)
    }

    @Test func removeAllEmptiesTheSet() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        try proxy.removeAll()
        #expect(team.projects.isEmpty)
        try proxy.removeAll()
        #expect(team.projects.isEmpty)
    }

    // MARK: - Type errors

    @Test func insertingAWrongTypeThrowsTypeMismatchAndChangesNothing() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        let error = expectKVCError(.typeMismatch) { try proxy.insert(Employee()) }
        #expect(error?.key == "projects")
        #expect(error?.className == "ModelObjectsTests.Team")
        #expect(error?.expectedType == "ModelObjectsTests.Project")
        #expect(error?.givenType == "SampleModels.Employee")
        #expect(team.projects.count == 2)
    }

    @Test func oneWrongElementRejectsTheWholeUnion() throws {
        let (team, _, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        let error = expectKVCError(.typeMismatch) { try proxy.formUnion([Project(name: "Gamma"), "Delta"]) }
        #expect(error?.givenType == "Swift.String")
        #expect(names(team.projects) == ["Alpha", "Beta"])
    }

    @Test func wrongTypesInOtherMutationsThrowAndChangeNothing() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(forKey: "projects")
        expectKVCError(.typeMismatch) { try proxy.remove("Alpha") }
        expectKVCError(.typeMismatch) { try proxy.subtract([alpha, 1]) }
        expectKVCError(.typeMismatch) { try proxy.formIntersection([alpha, 1]) }
        expectKVCError(.typeMismatch) { try proxy.setElements([alpha, 1]) }
        #expect(names(team.projects) == ["Alpha", "Beta"])
    }

    // MARK: - Set attributes

    @Test func editsSetAttributesConvertingFoundationValues() throws {
        let object = AllTypes()
        let proxy = try object.mutableSetValue(forKey: "tags")
        try proxy.insert("a")
        try proxy.insert(NSString(string: "b"))
        #expect(object.tags == ["a", "b"])
        #expect(try proxy.contains("b"))
        try proxy.remove("a")
        #expect(object.tags == ["b"])
        expectKVCError(.typeMismatch) { try proxy.insert(1) }
        #expect(object.tags == ["b"])
    }

    // MARK: - Keys that are not sets

    @Test(arguments: ["name", "members"])
    func proxyForAKeyThatIsNotASetThrowsNotACollection(key: String) {
        let error = expectKVCError(.notACollection) { _ = try Team().mutableSetValue(forKey: key) }
        #expect(error?.key == key)
        #expect(error?.className == "ModelObjectsTests.Team")
    }

    @Test func proxyForNonSetEmployeeKeysThrowsNotACollection() {
        for key in ["firstName", "department", "directReports", "fullName"] {
            expectKVCError(.notACollection) { _ = try Employee().mutableSetValue(forKey: key) }
        }
        expectKVCError(.notACollection) { _ = try AllTypes().mutableSetValue(forKey: "strings") }
    }

    @Test func proxyForAnUndefinedKeyThrowsUndefinedKey() {
        let error = expectKVCError(.undefinedKey) { _ = try Team().mutableSetValue(forKey: "tasks") }
        #expect(error?.key == "tasks")
        #expect(error?.className == "ModelObjectsTests.Team")
    }

    @Test func proxyForATypedKeyPath() throws {
        let (team, alpha, _) = makeTeam()
        let proxy = try team.mutableSetValue(for: \.projects)
        #expect(proxy.key == "projects")
        try proxy.remove(alpha)
        #expect(names(team.projects) == ["Beta"])
    }
}
