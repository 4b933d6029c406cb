import Foundation
import Testing
@testable import ManagedObjects

// The custom accessors of the "Managed Object Accessor Methods" guide, Listings 1 to 4, in Swift.

/// Listing 1: a name accessor pair over the primitive accessors, with access and change
/// notifications.
final class ListingDepartment: ManagedObject {
    var name: String? {
        get {
            willAccessValue(forKey: "name")
            defer { didAccessValue(forKey: "name") }
            return (try? primitiveValue(forKey: "name")) as? String
        }
        set {
            willChangeValue(forKey: "name")
            try? setPrimitiveValue(newValue, forKey: "name")
            didChangeValue(forKey: "name")
        }
    }

    /// Listing 2: a copying setter; the stored value does not follow later edits of the
    /// mutable string it was given.
    func setName(copying newName: NSMutableString) {
        willChangeValue(forKey: "name")
        try? setPrimitiveValue(String(newName), forKey: "name")
        didChangeValue(forKey: "name")
    }
}

/// Listing 3: a scalar kept in the class's own stored property, with custom primitive accessors
/// so the context reads and writes it there.
final class Circle: ManagedObject {
    private var storedRadius = 0.0

    var radius: Double {
        get {
            willAccessValue(forKey: "radius")
            defer { didAccessValue(forKey: "radius") }
            return storedRadius
        }
        set {
            willChangeValue(forKey: "radius")
            storedRadius = newValue
            didChangeValue(forKey: "radius")
        }
    }

    override func primitiveValue(forKey key: String) throws -> Any? {
        key == "radius" ? storedRadius : try super.primitiveValue(forKey: key)
    }

    override func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
        guard key == "radius" else { return try super.setPrimitiveValue(value, forKey: key) }
        storedRadius = (value as? Double) ?? 0
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        // The fault's values arrive in the internal storage; move the radius into the property.
        if let radius = try? super.primitiveValue(forKey: "radius") as? Double { storedRadius = radius }
    }
}

/// Listing 4: to-many accessors that post set mutations around edits of the primitive set; the
/// framework calls them when it edits the relationship.
final class ListingTeam: ManagedObject {
    var calls: [String] = []

    private var primitiveMembers: Set<ManagedObject> {
        get { ((try? primitiveValue(forKey: "members")) as? Set<ManagedObject>) ?? [] }
        set { try? setPrimitiveValue(newValue, forKey: "members") }
    }

    func addMembersObject(_ value: ManagedObject) {
        calls.append("addMembersObject")
        let changed: Set<AnyHashable> = [value]
        willChangeValue(forKey: "members", withSetMutation: .union, using: changed)
        primitiveMembers.insert(value)
        didChangeValue(forKey: "members", withSetMutation: .union, using: changed)
    }

    func removeMembersObject(_ value: ManagedObject) {
        calls.append("removeMembersObject")
        let changed: Set<AnyHashable> = [value]
        willChangeValue(forKey: "members", withSetMutation: .minus, using: changed)
        primitiveMembers.remove(value)
        didChangeValue(forKey: "members", withSetMutation: .minus, using: changed)
    }

    func addMembers(_ values: Set<ManagedObject>) {
        calls.append("addMembers")
        let changed = Set(values.map { AnyHashable($0) })
        willChangeValue(forKey: "members", withSetMutation: .union, using: changed)
        primitiveMembers.formUnion(values)
        didChangeValue(forKey: "members", withSetMutation: .union, using: changed)
    }

    func removeMembers(_ values: Set<ManagedObject>) {
        calls.append("removeMembers")
        let changed = Set(values.map { AnyHashable($0) })
        willChangeValue(forKey: "members", withSetMutation: .minus, using: changed)
        primitiveMembers.subtract(values)
        didChangeValue(forKey: "members", withSetMutation: .minus, using: changed)
    }

    override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        guard key == "members" else { return super.collectionAccessors(forKey: key) }
        return .unordered(
            members: { (team: ListingTeam) in team.primitiveMembers },
            addObject: { $0.addMembersObject($1) }, removeObject: { $0.removeMembersObject($1) },
            add: { $0.addMembers($1) }, remove: { $0.removeMembers($1) })
    }
}

@Suite struct CustomAccessorListingTests {
    private func makeContext() throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            Entity("Department", class: ListingDepartment.self) { Property("name", .string) }
            Entity("Circle", class: Circle.self) { Property("radius", .double, defaultValue: 0.0) }
            Entity("Team", class: ListingTeam.self) {
                Property("members", to: "Member", inverse: "team", toMany: true)
            }
            Entity("Member") { Property("team", to: "Team", inverse: "members") }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        context.undoManager = ModelUndoManager(notificationCenter: NotificationCenter())
        return context
    }

    @Test func listing1NameAccessorsNotifyTrackAndUndo() throws {
        let context = try makeContext()
        let department = ListingDepartment(context: context)
        try context.save()
        var names: [String?] = []
        let token = try department.observe("name", options: [.new]) { _, change in names.append(change.newValue as? String) }
        department.name = "Engineering"
        #expect(try department.value(forKey: "name") as? String == "Engineering")
        #expect(department.isUpdated)
        context.processPendingChanges()
        try context.undoManager?.undo()
        #expect(department.name == nil)
        #expect(names == ["Engineering", nil])
        token.invalidate()
    }

    @Test func listing2CopyingSetterKeepsItsOwnCopy() throws {
        let context = try makeContext()
        let department = ListingDepartment(context: context)
        let mutable = NSMutableString(string: "Sales")
        department.setName(copying: mutable)
        mutable.append(" and Marketing")
        #expect(department.name == "Sales")
    }

    @Test func listing3ScalarInItsOwnStoredPropertyIsTrackedAndSaved() throws {
        let context = try makeContext()
        let circle = Circle(context: context)
        circle.radius = 2.5
        #expect(try circle.value(forKey: "radius") as? Double == 2.5)
        try context.save()
        circle.radius = 3
        #expect(circle.isUpdated)
        #expect(circle.changedValues()["radius"] as? Double == 3)
        try context.save()
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator, notificationCenter: NotificationCenter())
        let reread = try #require(try other.existingObject(with: circle.objectID) as? Circle)
        #expect(reread.radius == 3)
        context.processPendingChanges()
        circle.radius = 4
        context.processPendingChanges()
        try context.undoManager?.undo()
        #expect(circle.radius == 3)
    }

    @Test func listing4FrameworkCallsTheToManyMutatorsAndKeepsInverses() throws {
        let context = try makeContext()
        let team = ListingTeam(context: context)
        let alice = try context.insertNewObject(forEntityName: "Member")
        let bob = try context.insertNewObject(forEntityName: "Member")
        var kinds: [String] = []
        let token = try team.observe("members", options: [.new, .old]) { _, change in kinds.append("\(change.kind)") }
        try alice.setValue(team, forKey: "team")  // the inverse edit goes through the team's mutators
        #expect(team.calls == ["addMembers"])
        #expect(try team.mutableSetValue(forKey: "members").count() == 1)
        try team.mutableSetValue(forKey: "members").insert(bob)  // the proxy calls them too
        #expect(try bob.value(forKey: "team") as? ManagedObject === team)
        try team.mutableSetValue(forKey: "members").remove(alice)
        #expect(try alice.value(forKey: "team") == nil)
        // One object through the proxy: the single-object accessors, as Core Data calls them.
        #expect(team.calls == ["addMembers", "addMembersObject", "removeMembersObject"])
        #expect(kinds == ["insertion", "insertion", "removal"])
        try context.save()
        token.invalidate()
    }
}
