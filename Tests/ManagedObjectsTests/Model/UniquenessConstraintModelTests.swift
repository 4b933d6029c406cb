import Foundation
import Testing

@testable import ManagedObjects

/// Uniqueness constraints are part of a model built in Swift or read from Xcode's format, and
/// a constraint that cannot hold is refused when the model is made.
@Suite struct UniquenessConstraintModelTests {
    @Test func builtConstraintsAreKeptAndInherited() throws {
        let model = try ManagedObjectModel {
            Entity("Customer", uniquenessConstraints: [["email"], ["firstName", "lastName"]]) {
                Property("email", .string)
                Property("firstName", .string)
                Property("lastName", .string)
            }
            Entity("VIP", parent: "Customer", uniquenessConstraints: [["level"]]) {
                Property("level", .integer16)
            }
        }
        let customer = try #require(model.entity(named: "Customer"))
        let vip = try #require(model.entity(named: "VIP"))
        #expect(customer.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
        #expect(vip.uniquenessConstraints == [["level"]], "the entity's own constraints")
        #expect(vip.allUniquenessConstraints.map(\.label) == ["Customer (email)", "Customer (firstName, lastName)", "VIP (level)"])
    }

    @Test func constraintsAreReadFromAnXcodeModel() throws {
        let model = try ManagedObjectModel(contentsOf: try ModelFixtures.url("Constrained", "xcdatamodel"))
        #expect(model.entity(named: "Customer")?.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
        #expect(model.entity(named: "Order")?.uniquenessConstraints == [])
    }

    @Test func constraintsAreNotPartOfTheVersionHash() throws {
        func model(_ constraints: [[String]]) throws -> ManagedObjectModel {
            try ManagedObjectModel { Entity("Customer", uniquenessConstraints: constraints) { Property("email", .string) } }
        }
        #expect(try model([]).entity(named: "Customer")?.versionHash == model([["email"]]).entity(named: "Customer")?.versionHash)
    }

    @Test(arguments: [
        ([["nickname"]], "not a property"),
        ([["orders"]], "to-many"),
        ([["scratch"]], "transient"),
        ([[]], "names no property"),
        ([["email", "email"]], "twice"),
    ])
    func aConstraintThatCannotHoldIsRefused(constraints: [[String]], reason: String) throws {
        let error = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel {
                Entity("Customer", uniquenessConstraints: constraints) {
                    Property("email", .string)
                    Property("scratch", .string, transient: true)
                    Property("orders", to: "Order", inverse: "customer", toMany: true)
                }
                Entity("Order") { Property("customer", to: "Customer", inverse: "orders") }
            }
        }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.entityName == "Customer")
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func aConstraintElementWithoutValueIsAMalformedModelFile() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.url.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Customer" representedClassName="Customer" syncable="YES">
                    <attribute name="email" optional="YES" attributeType="String"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
            </model>
            """
        try Data(xml.utf8).write(to: bundle.appendingPathComponent("contents"))
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(contentsOf: bundle) }
        #expect(error?.code == .malformedModelFile)
        #expect(error?.line == 7)
    }

    @Test func aConstraintNamingAnUnknownPropertyInAFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.url.appendingPathComponent("Unknown.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Customer" representedClassName="Customer" syncable="YES">
                    <attribute name="email" optional="YES" attributeType="String"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint><constraint value="mail"/></uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
            </model>
            """
        try Data(xml.utf8).write(to: bundle.appendingPathComponent("contents"))
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(contentsOf: bundle) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.propertyName == "mail")
    }
}
