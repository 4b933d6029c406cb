import Foundation
import Testing

@testable import ManagedObjects

final class CNShopper: ManagedObject {
    @Managed var name: String?
    @Managed(.noInverse) var favorite: CNProduct?
    @Managed(.noInverse, deleteRule: .cascade) var wishlist: Set<CNProduct>
    @Managed(.noInverse) var history: [CNProduct]
}

final class CNProduct: ManagedObject {
    @Managed var name: String?
}

final class CNBothWays: ManagedObject {
    @Managed(.noInverse, inverse: \CNBothWaysTarget.source) var target: CNBothWaysTarget?
}

final class CNBothWaysTarget: ManagedObject {
    @Managed var source: CNBothWays?
}

final class CNAttribute: ManagedObject {
    @Managed(.noInverse) var name: String?
}

final class CNNamedBack: ManagedObject {
    @Managed(.noInverse) var target: CNNamedBackTarget?
}

final class CNNamedBackTarget: ManagedObject {
    @Managed(inverse: \CNNamedBack.target) var sources: Set<CNNamedBack>
}

/// Relationships declared without an inverse: the model of the builder's `Property(_:to:)`
/// without `inverse:`, and nothing kept in step on the destination's side.
@Suite struct ClassModelNoInverseTests {
    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(classes: [CNShopper.self, CNProduct.self])
    }

    @Test func relationshipsWithoutInverseHaveTheBuilderModelsHashes() throws {
        let built = try ManagedObjectModel {
            Entity("CNShopper", class: CNShopper.self) {
                Property("name", .string)
                Property("favorite", to: "CNProduct")
                Property("wishlist", to: "CNProduct", toMany: true, deleteRule: .cascade)
                Property("history", to: "CNProduct", toMany: true, ordered: true)
            }
            Entity("CNProduct", class: CNProduct.self) { Property("name", .string) }
        }
        let fromClasses = try model()
        #expect(fromClasses.entityVersionHashesByName == built.entityVersionHashesByName)
        #expect(fromClasses.versionHash == built.versionHash)
        let shopper = try #require(fromClasses.entity(named: "CNShopper"))
        for name in ["favorite", "wishlist", "history"] {
            #expect(shopper.relationshipsByName[name]?.inverseRelationship == nil)
        }
        #expect(shopper.relationshipsByName["wishlist"]?.deleteRule == .cascade)
        #expect(shopper.relationshipsByName["history"]?.isOrdered == true)
    }

    private func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    @Test func deletingTheDestinationLeavesADanglingReferenceAsCoreDataDoes() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = context(coordinator)
        let shopper = CNShopper(context: context)
        let tea = CNProduct(context: context)
        shopper.favorite = tea
        shopper.history = [tea]
        try context.save()
        context.delete(tea)
        try context.save()
        // Nothing nullified the reference: it still names the deleted object.
        #expect(shopper.favorite === tea && shopper.history == [tea])
        #expect(tea.managedObjectContext == nil)
        // Another context reads the saved reference as a fault whose record is gone.
        let other = self.context(coordinator)
        let again = try #require(try other.existingObject(with: shopper.objectID) as? CNShopper)
        let favorite = try #require(again.favorite)
        #expect(favorite.objectID == tea.objectID && favorite.isFault)
        let error = #expect(throws: PersistenceError.self) { _ = try favorite.value(forKey: "name") }
        #expect(error?.code == .objectNotFound)
        // The dangling reference does not stop the source from being saved.
        again.name = "Ada"
        try other.save()
    }

    @Test func theSourcesDeleteRuleStillApplies() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(type: .inMemory)
        let context = context(coordinator)
        let shopper = CNShopper(context: context)
        let tea = CNProduct(context: context), cake = CNProduct(context: context)
        shopper.wishlist = [tea, cake]
        shopper.favorite = cake
        try context.save()
        context.delete(shopper)
        try context.save()
        #expect(tea.managedObjectContext == nil && cake.managedObjectContext == nil)
        let request = FetchRequest<CNProduct>(entityName: "CNProduct")
        #expect(try context.fetch(request).isEmpty)
    }

    @Test func aRelationshipCannotHaveAnInverseAndNone() {
        let error = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(classes: [CNBothWays.self, CNBothWaysTarget.self])
        }
        #expect(error?.code == .inverseMismatch)
    }

    @Test func noInverseOnAnAttributeIsRefused() {
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [CNAttribute.self]) }
        #expect(error?.code == .unsupportedPropertyType)
    }

    @Test func aRelationshipNamingOneWithoutInverseAsItsInverseIsRefused() {
        let error = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(classes: [CNNamedBack.self, CNNamedBackTarget.self])
        }
        #expect(error?.code == .inverseMismatch)
    }
}
