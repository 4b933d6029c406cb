import Foundation
import ModelObjects
import SampleModels

// Test-only model classes for the key-value-observing tests.

/// An account whose `balance` notifies manually (automatic notification is off for it), while
/// `score` notifies automatically and also has a setter that notifies manually on top.
final class KVOAccount: ModelObject {
    @Attribute var name = ""
    @Attribute var balance = 0
    @Attribute var score = 0
    @Attribute var nickname: String? = nil

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        if key == "balance" { return false }
        return super.automaticallyNotifiesObservers(forKey: key)
    }

    /// Changes the balance with manual notification, as Cocoa's guide shows.
    func deposit(_ amount: Int) {
        willChangeValue(forKey: "balance")
        balance += amount
        didChangeValue(forKey: "balance")
    }

    /// A setter that notifies manually although `score` notifies automatically too: the typed
    /// set inside posts its own will/did, nested in this pair.
    func setScoreNotifyingManually(_ value: Int) {
        willChangeValue(forKey: "score")
        score = value
        didChangeValue(forKey: "score")
    }
}

/// A playlist whose `tracks` (an ordered array attribute) and `tags` (a set attribute) notify
/// manually with the to-many forms of will/did.
final class KVOPlaylist: ModelObject {
    @Attribute var name = ""
    @Attribute var tracks: [String] = []
    @Attribute var tags: Set<String> = []

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        if key == "tracks" || key == "tags" { return false }
        return super.automaticallyNotifiesObservers(forKey: key)
    }

    func insertTracks(_ newTracks: [String], at indexes: IndexSet) {
        willChange(.insertion, valuesAt: indexes, forKey: "tracks")
        for (track, index) in zip(newTracks, indexes) { tracks.insert(track, at: index) }
        didChange(.insertion, valuesAt: indexes, forKey: "tracks")
    }

    func removeTracks(at indexes: IndexSet) {
        willChange(.removal, valuesAt: indexes, forKey: "tracks")
        for index in indexes.reversed() { tracks.remove(at: index) }
        didChange(.removal, valuesAt: indexes, forKey: "tracks")
    }

    func replaceTrack(at index: Int, with track: String) {
        let indexes = IndexSet(integer: index)
        willChange(.replacement, valuesAt: indexes, forKey: "tracks")
        tracks[index] = track
        didChange(.replacement, valuesAt: indexes, forKey: "tracks")
    }

    func mutateTags(_ mutation: KeyValueSetMutation, with objects: Set<String>) {
        let given = Set(objects.map { AnyHashable($0) })
        willChangeValue(forKey: "tags", withSetMutation: mutation, using: given)
        switch mutation {
        case .union: tags.formUnion(objects)
        case .minus: tags.subtract(objects)
        case .intersect: tags.formIntersection(objects)
        default: tags = objects
        }
        didChangeValue(forKey: "tags", withSetMutation: mutation, using: given)
    }
}

/// A team with an unordered to-many relationship to employees.
final class KVOTeam: ModelObject {
    @Attribute var name = ""
    @Relationship var members: Set<Employee> = []
}

/// A department with a bulk modifier that appends through the mutable array proxy, as the
/// seed's `addObjectsToEmployeesFromArray:` does: one insertion for all the new employees.
final class KVOBulkDepartment: Department {
    func addObjectsToEmployees(from newEmployees: [Employee]) throws {
        try mutableArrayValue(forKey: "employees").append(contentsOf: newEmployees)
    }
}

/// A department whose `employees` notify manually; its bulk modifier brackets one typed append
/// with a single ordered will/did pair.
final class KVOManualDepartment: Department {
    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        if key == "employees" { return false }
        return super.automaticallyNotifiesObservers(forKey: key)
    }

    func addObjectsToEmployees(from newEmployees: [Employee]) {
        let indexes = IndexSet(integersIn: employees.count..<(employees.count + newEmployees.count))
        willChange(.insertion, valuesAt: indexes, forKey: "employees")
        employees.append(contentsOf: newEmployees)
        didChange(.insertion, valuesAt: indexes, forKey: "employees")
    }
}

/// An employee with a derived `formalName` declared to depend on `lastName`, plus `title` added
/// by an override of `keyPathsForValuesAffectingValue(forKey:)` that calls `super`.
final class KVOFormalEmployee: Employee {
    @Attribute var title = ""

    @Derived("lastName", compute: { (employee: KVOFormalEmployee) in "\(employee.title) \(employee.lastName)" })
    var formalName: String

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        var keyPaths = super.keyPathsForValuesAffectingValue(forKey: key)
        if key == "formalName" { keyPaths.insert("title") }
        return keyPaths
    }
}

/// An employee whose derived `greetingName` declares no dependencies; they are registered with
/// the legacy `setKeys(_:triggerChangeNotificationsForDependentKey:)`.
class KVOLegacyEmployee: Employee {
    @Attribute var nickname = ""

    @Derived(compute: { (employee: KVOLegacyEmployee) in
        employee.nickname.isEmpty ? employee.firstName : employee.nickname
    })
    var greetingName: String

    /// Registers the dependencies; idempotent.
    static func registerLegacyDependencies() {
        setKeys(["nickname", "firstName"], triggerChangeNotificationsForDependentKey: "greetingName")
    }
}

/// A subclass that inherits the dependencies registered on ``KVOLegacyEmployee``.
final class KVOLegacyEmployeeSubclass: KVOLegacyEmployee {}

/// A chain of dependencies: `a` depends on `b`, which depends on `c`.
final class KVOChain: ModelObject {
    @Attribute var c = 1
    @Derived("c", compute: { (chain: KVOChain) in chain.c * 10 })
    var b: Int
    @Derived("b", compute: { (chain: KVOChain) in chain.b + 1 })
    var a: Int
}

/// Keys that depend on each other in a cycle: `x` on `y`, `y` on `z`, `z` on `x`.
final class KVOCycle: ModelObject {
    @Attribute var x = 0
    @Attribute var y = 0
    @Attribute var z = 0

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        var keyPaths = super.keyPathsForValuesAffectingValue(forKey: key)
        switch key {
        case "x": keyPaths.insert("y")
        case "y": keyPaths.insert("z")
        case "z": keyPaths.insert("x")
        default: break
        }
        return keyPaths
    }
}

/// A model object that tells when it is deinitialized.
final class KVODeinitProbe: ModelObject {
    @Attribute var name = ""
    @Attribute var value = 0
    var onDeinit: (() -> Void)?

    deinit {
        onDeinit?()
    }
}
