import Foundation
import Testing

@testable import ManagedObjects

// The model of Fixtures/Models/Constrained.xcdatamodel, declared by classes: one constraint by
// `.unique`, one by key paths.

final class CCCustomer: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(name: "Customer", uniquenessConstraints: [[\CCCustomer.firstName, \CCCustomer.lastName]])
    }
    @Managed(.unique) var email: String?
    @Managed var firstName: String?
    @Managed var lastName: String?
    @Managed(inverse: \CCOrder.customer) var orders: Set<CCOrder>
}

final class CCOrder: ManagedObject {
    override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Order") }
    @Managed(defaultValue: 0) var number: Int64?
    @Managed var customer: CCCustomer?
}

/// Names its constraints by name, repeats one, and constrains an inherited property.
class CCAccount: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [["login"], ["login", "realm"]])
    }
    @Managed(.unique) var login: String?
    @Managed var realm: String?
}

final class CCAdmin: CCAccount {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [[\CCAdmin.realm, \CCAdmin.badge]])
    }
    @Managed(.unique) var badge: Int32?
}

final class CCComputedKey: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [[\CCComputedKey.label]])
    }
    @Managed var name: String?
    var label: String { "x" }
}

final class CCBothKeys: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [[\CCBothKeys.fullName]])
    }
    @Managed var first: String?
    @Managed var last: String?
    var fullName: String { (first ?? "") + (last ?? "") }
}

final class CCUniqueTransient: ManagedObject {
    @Managed([.unique, .transient]) var scratch: String?
}

final class CCUniqueToMany: ManagedObject {
    @Managed(.unique, inverse: \CCUniqueToManyItem.owner) var items: Set<CCUniqueToManyItem>
}

final class CCUniqueToManyItem: ManagedObject {
    @Managed var owner: CCUniqueToMany?
}

final class CCSeat: ManagedObject {
    @Managed(.unique, inverse: \CCTicket.seat) var ticket: CCTicket?
}

final class CCTicket: ManagedObject {
    @Managed var seat: CCSeat?
}

final class CCLowercasedKey: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [[\CCLowercasedKey.lowercasedEmail]])
    }
    @Managed var email: String?
    var lowercasedEmail: String? { email?.lowercased() }
}

/// A value of a type a prototype has no stand-in for.
struct CCOpaque: Sendable {
    var bits: Int
}

final class CCOpaqueHolder: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(uniquenessConstraints: [[\CCOpaqueHolder.code]])
    }
    @Managed var code: String?
    @Managed(transformer: "OpaqueTransformer") var opaque: CCOpaque
}

/// Uniqueness constraints of a model made from classes are those of the same model written
/// with the builder or read from an Xcode model file, and stores enforce them alike.
@Suite struct ClassModelConstraintTests {
    @Test func constraintsMatchTheXcodeModelFile() throws {
        let file = try ManagedObjectModel(contentsOf: ModelFixtures.url("Constrained", "xcdatamodel"))
        let fromClasses = try ManagedObjectModel(classes: [CCCustomer.self, CCOrder.self])
        #expect(fromClasses.entityVersionHashesByName == file.entityVersionHashesByName)
        #expect(fromClasses.versionHash == file.versionHash)
        #expect(fromClasses.entity(named: "Customer")?.uniquenessConstraints == [["firstName", "lastName"], ["email"]])
        #expect(
            Set(fromClasses.entity(named: "Customer")?.uniquenessConstraints ?? [])
                == Set(file.entity(named: "Customer")?.uniquenessConstraints ?? []))
        #expect(fromClasses.entity(named: "Order")?.uniquenessConstraints == [])
    }

    @Test func namesKeyPathsAndUniquePropertiesAreListedOnceInThatOrder() throws {
        let model = try ManagedObjectModel(classes: [CCAccount.self, CCAdmin.self])
        #expect(model.entity(named: "CCAccount")?.uniquenessConstraints == [["login"], ["login", "realm"]])
        let admin = try #require(model.entity(named: "CCAdmin"))
        #expect(admin.uniquenessConstraints == [["realm", "badge"], ["badge"]])
        #expect(admin.allUniquenessConstraints.map(\.label) == [
            "CCAccount (login)", "CCAccount (login, realm)", "CCAdmin (realm, badge)", "CCAdmin (badge)",
        ])
        let built = try ManagedObjectModel {
            Entity("CCAccount", class: CCAccount.self, uniquenessConstraints: [["login"], ["login", "realm"]]) {
                Property("login", .string)
                Property("realm", .string)
            }
            Entity("CCAdmin", class: CCAdmin.self, parent: "CCAccount", uniquenessConstraints: [["realm", "badge"], ["badge"]]) {
                Property("badge", .integer32)
            }
        }
        #expect(model.entityVersionHashesByName == built.entityVersionHashesByName)
        #expect(model.entities.map(\.uniquenessConstraints) == built.entities.map(\.uniquenessConstraints))
    }

    @Test func aSQLiteStoreMakesTheSameUniqueIndexesAsForTheModelFile() throws {
        func uniqueIndexes(_ model: ManagedObjectModel) throws -> [String] {
            let directory = try TemporaryDirectory()
            _ = try SQLiteStore(url: directory.file(), model: model)
            return try SQLiteProbe.query(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ZUNIQUE%' ORDER BY name",
                at: directory.file())
        }
        let file = try ManagedObjectModel(contentsOf: ModelFixtures.url("Constrained", "xcdatamodel"))
        let fromClasses = try ManagedObjectModel(classes: [CCCustomer.self, CCOrder.self])
        let indexes = try uniqueIndexes(fromClasses)
        #expect(indexes == ["ZUNIQUE_Customer_email", "ZUNIQUE_Customer_firstName_lastName"])
        #expect(indexes == (try uniqueIndexes(file)))
    }

    @Test func aContextRefusesADuplicateOfAUniqueProperty() throws {
        let model = try ManagedObjectModel(classes: [CCCustomer.self, CCOrder.self])
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        CCCustomer(context: context).email = "ada@example.com"
        try context.save()
        CCCustomer(context: context).email = "ada@example.com"
        let error = #expect(throws: PersistenceError.self) { try context.save() }
        #expect(error?.code == .constraintConflict)
    }

    @Test func aKeyPathThatReadsNoManagedPropertyIsRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CCComputedKey.self]) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.message.contains("names no @Managed property") == true)
    }

    @Test func aKeyPathThatReadsSeveralManagedPropertiesIsRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CCBothKeys.self]) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.message.contains("first, last") == true)
    }

    @Test func aComputedPropertyThatReadsOneManagedPropertyIsRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CCLowercasedKey.self]) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.message.contains("reads the @Managed property email") == true)
    }

    @Test func keyPathsOfAClassWithAPropertyNoPrototypeCanReadAreRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CCOpaqueHolder.self]) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.message.contains("opaque: CCOpaque") == true)
    }

    @Test func aUniqueTransientPropertyIsRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CCUniqueTransient.self]) }
        #expect(error?.code == .invalidConstraint)
    }

    @Test func aUniqueToManyRelationshipIsRefused() {
        let error = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(classes: [CCUniqueToMany.self, CCUniqueToManyItem.self])
        }
        #expect(error?.code == .invalidConstraint)
    }

    @Test func aUniqueToOneRelationshipIsAConstraint() throws {
        let model = try ManagedObjectModel(classes: [CCSeat.self, CCTicket.self])
        #expect(model.entity(named: "CCSeat")?.uniquenessConstraints == [["ticket"]])
    }
}
