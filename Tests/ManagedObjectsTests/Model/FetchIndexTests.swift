import Foundation
import Testing

@testable import ManagedObjects

/// A class-declared entity with an index by declaration and one by `.indexed`.
final class FIContact: ManagedObject {
    override class var entityDeclaration: EntityDeclaration {
        EntityDeclaration(
            name: "Contact",
            indexes: [FetchIndexDescription(name: "byName", elements: [
                FetchIndexElementDescription(propertyName: "lastName"), FetchIndexElementDescription(propertyName: "firstName"),
            ])])
    }
    @Managed(.indexed) var email: String?
    @Managed var firstName: String?
    @Managed var lastName: String?
}

/// `.indexed` on a to-many relationship, which cannot be indexed.
final class FIGroup: ManagedObject {
    @Managed(.indexed, inverse: \FIMember.group) var members: Set<FIMember>
}

final class FIMember: ManagedObject {
    @Managed var group: FIGroup?
}

/// Fetch indexes (Core Data's `NSFetchIndexDescription`): checked when the model is made, read
/// from model files (with Xcode's older `indexed` attributes), and created by the SQL stores in
/// the entity's table, following the model each time the store opens.
@Suite struct FetchIndexTests {
    private static func byName(ascending: Bool = true) -> FetchIndexDescription {
        FetchIndexDescription(name: "byName", elements: [
            FetchIndexElementDescription(propertyName: "lastName", isAscending: ascending),
            FetchIndexElementDescription(propertyName: "firstName"),
        ])
    }

    private func model(_ indexes: [FetchIndexDescription], managerIndexes: [FetchIndexDescription] = []) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person", indexes: indexes) {
                Property("firstName", .string)
                Property("lastName", .string)
                Property("boss", to: "Person", inverse: "reports")
                Property("reports", to: "Person", inverse: "boss", toMany: true)
                Property("mood", .string, transient: true)
            }
            Entity("Manager", parent: "Person", indexes: managerIndexes) {
                Property("level", .integer16)
            }
        }
    }

    @Test func theModelKeepsEachEntitysIndexes() throws {
        let made = try model([Self.byName()], managerIndexes: [
            FetchIndexDescription(name: "byLevel", elements: [FetchIndexElementDescription(propertyName: "level", isAscending: false)]),
        ])
        #expect(made.entity(named: "Person")?.indexes == [Self.byName()])
        #expect(made.entity(named: "Manager")?.indexes.map(\.name) == ["byLevel"])
        #expect(made.entity(named: "Manager")?.indexes.first?.elements.first?.isAscending == false)
        #expect(try model([]).versionHash == made.versionHash, "indexes are not part of the version hash")
    }

    @Test func indexesNamingWhatCannotBeIndexedAreRefused() throws {
        func element(_ name: String) -> FetchIndexElementDescription { FetchIndexElementDescription(propertyName: name) }
        let bad: [(FetchIndexDescription, String)] = [
            (FetchIndexDescription(name: "none", elements: []), "names no property"),
            (FetchIndexDescription(name: "", elements: [element("lastName")]), "has no name"),
            (FetchIndexDescription(name: "shoe", elements: [element("shoeSize")]), "not a property"),
            (FetchIndexDescription(name: "many", elements: [element("reports")]), "to-many"),
            (FetchIndexDescription(name: "mood", elements: [element("mood")]), "transient"),
            (FetchIndexDescription(name: "twice", elements: [element("lastName"), element("lastName")]), "twice"),
        ]
        for (index, words) in bad {
            let error = #expect(throws: ModelError.self) { _ = try model([index]) }
            #expect(error?.code == .invalidConstraint)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
        let twoOfOneName = #expect(throws: ModelError.self) { _ = try model([Self.byName(), Self.byName()]) }
        #expect(twoOfOneName?.message.contains("two fetch indexes named 'byName'") == true)
        // A to-one relationship can be indexed.
        _ = try model([FetchIndexDescription(name: "byBoss", elements: [element("boss")])])
    }

    @Test func classesDeclareIndexesByDeclarationAndByIndexedProperties() throws {
        let model = try ManagedObjectModel(classes: [FIContact.self])
        let indexes = try #require(model.entity(named: "Contact")?.indexes)
        #expect(indexes.map(\.name) == ["byName", "emailIndex"])
        #expect(indexes.last?.elements == [FetchIndexElementDescription(propertyName: "email")])
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(classes: [FIGroup.self, FIMember.self]) }
        #expect(error?.code == .invalidConstraint)
        #expect(error?.message.contains("to-many") == true)
    }

    @Test func modelFilesDeclareIndexesAsXcodeWritesThem() throws {
        let directory = try ModelTestDirectory()
        let file = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Person" representedClassName="Person" syncable="YES">
                    <attribute name="email" attributeType="String" indexed="YES"/>
                    <attribute name="firstName" optional="YES" attributeType="String"/>
                    <attribute name="lastName" optional="YES" attributeType="String"/>
                    <fetchIndex name="byName">
                        <fetchIndexElement property="lastName" type="Binary" order="descending"/>
                        <fetchIndexElement property="firstName" type="RTree" order="ascending"/>
                    </fetchIndex>
                    <fetchIndex name="byExpression">
                        <fetchIndexElement expression="lastName.length" expressionType="Integer 64" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
            </model>
            """, to: "Indexed.xcdatamodel/contents")
        let loaded = try ManagedObjectModel(contentsOf: file)
        let indexes = try #require(loaded.entity(named: "Person")?.indexes)
        #expect(indexes.map(\.name) == ["emailIndex", "byName"], "the expression-only index is left out")
        #expect(indexes.last?.elements == [
            FetchIndexElementDescription(propertyName: "lastName", collationType: .binary, isAscending: false),
            FetchIndexElementDescription(propertyName: "firstName", collationType: .rTree, isAscending: true),
        ])

        let wrongOrder = try directory.write(
            """
            <model><entity name="Person"><attribute name="email" attributeType="String"/>
            <fetchIndex name="byEmail"><fetchIndexElement property="email" order="sideways"/></fetchIndex></entity></model>
            """, to: "Wrong.xcdatamodel/contents")
        let error = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(contentsOf: wrongOrder) }
        #expect(error?.code == .malformedModelFile)
        #expect(error?.message.contains("sideways") == true)
        let unknown = try directory.write(
            """
            <model><entity name="Person"><attribute name="email" attributeType="String"/>
            <fetchIndex name="byEmail"><fetchIndexElement property="mail"/></fetchIndex></entity></model>
            """, to: "Unknown.xcdatamodel/contents")
        #expect((#expect(throws: ModelError.self) { _ = try ManagedObjectModel(contentsOf: unknown) })?.code == .invalidConstraint)
    }

    private func open(_ model: ManagedObjectModel, _ directory: TemporaryDirectory) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        return coordinator
    }

    private func indexes(_ directory: TemporaryDirectory) throws -> [String] {
        try SQLiteProbe.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'ZINDEX%' ORDER BY name", at: directory.file())
    }

    @Test func theSQLiteStoreCreatesTheIndexesAndItsQueriesUseThem() throws {
        let directory = try TemporaryDirectory()
        let byLevel = FetchIndexDescription(name: "byLevel", elements: [FetchIndexElementDescription(propertyName: "level")])
        _ = try open(try model([Self.byName(ascending: false)], managerIndexes: [byLevel]), directory)
        let found = try indexes(directory)
        #expect(found.count == 2)
        #expect(found.contains { $0.hasSuffix("ON \"ZPERSON\" (\"ZLASTNAME\" DESC, \"ZFIRSTNAME\" ASC)") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("ON \"ZPERSON\" (\"ZLEVEL\" ASC)") }, "the subentity's, in its hierarchy's table")
        let plan = try SQLiteProbe.query(
            "EXPLAIN QUERY PLAN SELECT Z_PK FROM ZPERSON WHERE ZLASTNAME = 'Doe'", at: directory.file())
        #expect(plan.contains { $0.contains("SEARCH ZPERSON USING") && $0.contains("INDEX ZINDEX_Person_byName_") }, "\(plan)")
    }

    @Test func theSQLiteStoresIndexesFollowTheModelWhenItOpens() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try open(try model([Self.byName()]), directory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let person = try context.insertNewObject(forEntityName: "Person")
        try person.setValue("Doe", forKey: "lastName")
        try context.save()
        let ascending = try indexes(directory)
        // The same model again: nothing changes.
        _ = try open(try model([Self.byName()]), directory)
        #expect(try indexes(directory) == ascending)
        // A changed index replaces the old one.
        _ = try open(try model([Self.byName(ascending: false)]), directory)
        let descending = try indexes(directory)
        #expect(descending.count == 1 && descending != ascending)
        #expect(descending.first?.contains("\"ZLASTNAME\" DESC") == true)
        // No index in the model: none in the file; the records are still there.
        let reopened = try open(try model([]), directory)
        #expect(try indexes(directory).isEmpty)
        let reader = ManagedObjectContext(coordinator: reopened, notificationCenter: NotificationCenter())
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 1)
    }
}

extension PostgreSQLTests {
    /// Fetch indexes on the PostgreSQL store.
    @Suite struct FetchIndexOnPostgreSQLTests {
        @Test func theStoreCreatesTheIndexesAndFollowsTheModel() throws {
            let database = try TemporaryPostgreSQLDatabase()
            func open(_ indexes: [FetchIndexDescription]) throws {
                let model = try ManagedObjectModel {
                    Entity("Person", indexes: indexes) {
                        Property("firstName", .string)
                        Property("lastName", .string)
                    }
                }
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(type: .postgreSQL, at: database.url)
            }
            func definitions() throws -> [String] {
                let connection = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: database.url))
                let result = try connection.run(
                    "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'ZINDEX%' ORDER BY indexname")
                return (0..<result.rowCount).compactMap { result.text($0, 0) }
            }
            let byName = FetchIndexDescription(name: "byName", elements: [
                FetchIndexElementDescription(propertyName: "lastName", isAscending: false),
                FetchIndexElementDescription(propertyName: "firstName"),
            ])
            try open([byName])
            let created = try definitions()
            #expect(created.count == 1)
            #expect(created.first?.contains("(\"ZLASTNAME\" DESC, \"ZFIRSTNAME\")") == true, "\(created)")
            try open([])
            #expect(try definitions().isEmpty)
        }
    }
}
