import Foundation
import ModelObjects
import SampleModels

/// An element of unordered to-many relationships (`Set<Project>`).
final class Project: ModelObject {
    @Attribute var name = ""
    @Attribute var budget = 0.0
    @Attribute var priority: Int? = nil
    @Relationship var lead: Employee?

    convenience init(name: String, budget: Double = 0, priority: Int? = nil) {
        self.init()
        self.name = name
        self.budget = budget
        self.priority = priority
    }
}

/// A team: an unordered to-many relationship to projects and an ordered one to its members.
final class Team: ModelObject {
    @Attribute var name = ""
    @Relationship var projects: Set<Project> = []
    @Relationship var members: [Employee] = []

    convenience init(name: String, projects: Set<Project> = [], members: [Employee] = []) {
        self.init()
        self.name = name
        self.projects = projects
        self.members = members
    }
}

/// A company: to-many relationships whose elements have to-many relationships themselves.
final class Company: ModelObject {
    @Attribute var name = ""
    @Relationship var departments: [Department] = []
    @Relationship var teams: Set<Team> = []
    @Relationship var orderedTeams: [Team] = []
    @Relationship var headquarters: Department?
}

/// An `Employee` subclass that adds keys to the sample model.
final class Manager: Employee {
    @Attribute var bonus = 0.0
    @Derived("salary", "bonus", compute: { (manager: Manager) in manager.salary + manager.bonus })
    var totalCompensation: Double

    /// A read-only computed property that reads a derived key: not itself a declared key.
    var shoutedName: String { fullName.uppercased() }
}

/// A `Department` subclass that answers extra keys through the undefined-key hooks.
final class LenientDepartment: Department {
    /// Values stored for accepted undefined keys (those starting with "x-").
    var extras: [String: Any] = [:]
    /// Every key that reached `value(forUndefinedKey:)`.
    var undefinedKeysRead: [String] = []

    override func value(forUndefinedKey key: String) throws -> Any? {
        undefinedKeysRead.append(key)
        if key == "code" { return "D-\(name)" }
        if key == "nothing" { return nil }
        if let value = extras[key] { return value }
        return try super.value(forUndefinedKey: key)
    }

    override func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        guard key.hasPrefix("x-") else {
            try super.setValue(value, forUndefinedKey: key)
            return
        }
        extras[key] = value
    }
}

/// An `Employee` subclass that records, through key-value observing, every key that changes.
final class RecordingEmployee: Employee {
    var keysSet: [String] = []
    private var tokens: [KeyValueObservation] = []

    /// Starts recording changes of every declared stored key.
    func startRecording() throws {
        for key in attributeKeys + relationshipKeys {
            try tokens.append(observe(key) { [unowned self] _, _ in self.keysSet.append(key) })
        }
    }
}
