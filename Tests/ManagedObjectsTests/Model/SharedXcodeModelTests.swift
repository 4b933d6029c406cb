import Foundation
import Testing

@testable import ManagedObjects

/// Real models saved by Xcode, shared by the project next to the package
/// (`../shared/fixtures/xcdatamodels`); skipped where that folder is absent.
@Suite(.enabled(if: ModelFixtures.sharedFolderExists, "needs ../shared/fixtures/xcdatamodels"))
struct SharedXcodeModelTests {
    private func url(_ name: String) -> URL {
        ModelFixtures.sharedFolder.appendingPathComponent(name)
    }

    @Test func loadsContacts() throws {
        let model = try ManagedObjectModel(contentsOf: url("Contacts.xcdatamodel"))
        #expect(model.entities.map(\.name) == ["Address", "Person"])
        let person = try #require(model.entity(named: "Person"))
        let address = try #require(model.entity(named: "Address"))
        #expect(person.attributesByName["lastname"]?.isOptional == false)
        #expect(person.attributesByName["firstname"]?.isOptional == true)
        let addresses = try #require(person.relationshipsByName["addresses"])
        #expect(addresses.isToMany && addresses.isOrdered && addresses.maxCount == 20)
        #expect(addresses.userInfo == ["extraInfo": "doIt"])
        #expect(addresses.inverseRelationship === address.relationshipsByName["person"])
        #expect(address.attributesByName["street"]?.userInfo == ["columnName": "street"])
        #expect(model.fetchRequestTemplatesByName["fetchTheDucks"]?.entityName == "Person")
        #expect(model.fetchRequestTemplatesByName["fetchTheDucks"]?.predicateFormat == #"lastName LIKE "Duck*""#)
        let ducks = try #require(model.fetchRequestTemplatesByName["fetchTheDucks"])
        #expect(ducks.fetchLimit == 220 && ducks.fetchBatchSize == 20)
        #expect(ducks.includesSubentities && ducks.includesPropertyValues && ducks.includesPendingChanges)
        #expect(ducks.returnsObjectsAsFaults && ducks.returnsDistinctResults)
        #expect(person.managedObjectClassName == "Person")
        #expect(person.managedObjectClass == ManagedObject.self)
    }

    @Test func loadsCoreStoreTestsWithItsOnlyVersion() throws {
        let model = try ManagedObjectModel(contentsOf: url("CoreStoreTests.xcdatamodeld"))
        #expect(model.entities.map(\.name) == ["TestEntity1AAA", "TestEntity2"])
        let first = try #require(model.entity(named: "TestEntity1AAA"))
        #expect(first.managedObjectClassName == ".TestEntity1")
        #expect(first.attributes.count == 8)
        #expect(first.attributesByName["testEntityID"]?.attributeType == .integer64)
        #expect(first.attributesByName["testDecimal"]?.attributeType == .decimal)
        #expect(first.attributesByName["testData"]?.attributeType == .binaryData)
        let toMany = try #require(first.relationshipsByName["testToManyUnordered"])
        #expect(toMany.destinationEntity === first && !toMany.isOrdered)
        #expect(toMany.inverseRelationship === first.relationshipsByName["testToOne"])
        #expect(model.entity(named: "TestEntity2")?.relationshipsByName["testToManyOrdered"]?.isOrdered == true)
        #expect(model.configurations == ["Config1", "Config2"])
        #expect(model.entities(forConfigurationName: "Config2")?.map(\.name) == ["TestEntity2"])
    }

    @Test func loadsEvolutionDemoCurrentVersionAndNamedVersion() throws {
        let bundle = url("EvolutionDemo.xcdatamodeld")
        let current = try ManagedObjectModel.currentVersionName(inBundleAt: bundle)
        #expect(current == "Advanced.EvolutionDemo.V1.xcdatamodel")
        let v1 = try ManagedObjectModel(contentsOf: bundle)
        let v2 = try ManagedObjectModel(contentsOf: bundle, version: "Advanced.EvolutionDemo.V2")
        let creature1 = try #require(v1.entity(named: "Creature"))
        let creature2 = try #require(v2.entity(named: "Creature"))
        #expect(creature1.properties.map(\.name) == ["dnaCode", "numberOfFlagella"])
        #expect(
            creature2.properties.map(\.name) == ["dnaCode", "hasHead", "hasTail", "hasVertebrae", "numberOfFlippers"])
        #expect(creature2.attributesByName["hasHead"]?.defaultValue as? Bool == true)
        #expect(creature2.attributesByName["numberOfFlippers"]?.defaultValue as? Int32 == 2)
        #expect(creature1.versionHash != creature2.versionHash)
        let dnaCode1 = try #require(creature1.propertiesByName["dnaCode"])
        let dnaCode2 = try #require(creature2.propertiesByName["dnaCode"])
        #expect(dnaCode1.versionHash == dnaCode2.versionHash)
        // The class names differ between the versions; the class is not part of the hash.
        #expect(creature1.managedObjectClassName != creature2.managedObjectClassName)
    }
}
