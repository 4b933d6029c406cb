import Foundation
import Testing

@testable import ManagedObjects

/// Version hashes: stable across runs and machines, changed by schema changes, unchanged by
/// everything Core Data leaves out.
@Suite struct VersionHashTests {
    /// One change to the reference schema.
    struct SchemaChange: Sendable, CustomTestStringConvertible {
        let label: String
        let entities: @Sendable () -> [Entity]
        var testDescription: String { label }
    }

    /// The reference schema, with knobs for each change the tables below make.
    static func schema(
        employeeName: String = "Employee", salaryName: String = "salary", salaryType: AttributeType = .double,
        salaryOptional: Bool = true, salaryTransient: Bool = false, salaryDefault: (any Sendable)? = 0.0,
        salaryMinimum: (any Sendable)? = 0, salaryHashModifier: String? = nil, extraAttribute: Bool = false,
        dropFirstName: Bool = false, employeeParent: String? = "Person", personAbstract: Bool = true,
        employeeClass: ManagedObject.Type? = nil, employeeHashModifier: String? = nil,
        departmentInverse: String? = "employees", archiveDestination: String? = nil,
        employeesToMany: Bool = true, employeesOrdered: Bool = true, deleteRule: DeleteRule = .cascade,
        maxCount: Int? = nil, userInfo: [String: String] = [:], renamingIdentifier: String? = nil,
        pattern: String? = nil, reversed: Bool = false
    ) -> [Entity] {
        var employeeProperties = [
            Property("firstName", .string, maximumLength: 40, pattern: pattern),
            Property(
                salaryName, salaryType, optional: salaryOptional, transient: salaryTransient,
                defaultValue: salaryDefault, minimum: salaryMinimum, renamingIdentifier: renamingIdentifier,
                versionHashModifier: salaryHashModifier, userInfo: userInfo),
            Property("department", to: "Department", inverse: departmentInverse),
        ]
        if dropFirstName { employeeProperties.removeFirst() }
        if extraAttribute { employeeProperties.append(Property("nickname", .string)) }
        if reversed { employeeProperties.reverse() }
        let employeeEntity = employeeName
        return [
            Entity("Person", abstract: personAbstract, userInfo: userInfo) {
                Property("name", .string, optional: false)
            },
            Entity(
                employeeEntity, class: employeeClass, parent: employeeParent,
                versionHashModifier: employeeHashModifier, properties: employeeProperties),
            Entity("Department") {
                Property("title", .string)
                Property(
                    "employees", to: employeeEntity, inverse: departmentInverse.map { _ in "department" },
                    toMany: employeesToMany,
                    ordered: employeesOrdered, deleteRule: deleteRule, maxCount: maxCount)
            },
            Entity("Archive") {
                Property("employees", to: archiveDestination ?? employeeEntity, toMany: true)
            },
        ]
    }

    private static func hashes(_ entities: [Entity]) throws -> (model: Data, entities: [String: Data]) {
        let model = try ManagedObjectModel(entities: entities)
        return (model.versionHash, model.entityVersionHashesByName)
    }

    /// The hashes of the reference schema, computed once and pinned: a change here means every
    /// store written by an earlier build would look incompatible. The salary attribute's hash was
    /// checked independently with Python's `hashlib` over the encoding `VersionHashEncoder`
    /// documents (tagged fields: format "ModelObjects.versionHash.1", "attribute", "salary",
    /// optional, not transient, no modifier, type 500).
    static let goldenModelHash = "9f682ef934f402a18d52fbc7ad7046b58c7adb46211d3d44c90de93a1bb603b0"
    static let goldenEmployeeHash = "502ab0f070371ebb725f47e3038c427ada6a008c65b599e0b89b9c4fe9fb6bc2"
    static let goldenSalaryHash = "9f605a16c55f5882ce75c1b657ed05b4010b93be9b294c4056b3257215fabea3"

    @Test func referenceSchemaHasThePinnedHash() throws {
        let model = try ManagedObjectModel(entities: Self.schema())
        #expect(SHA256.hex(model.versionHash) == Self.goldenModelHash)
        let employee = try #require(model.entity(named: "Employee"))
        #expect(SHA256.hex(employee.versionHash) == Self.goldenEmployeeHash)
        #expect(employee.propertiesByName["salary"].map { SHA256.hex($0.versionHash) } == Self.goldenSalaryHash)
        #expect(model.versionHash.count == 32)
        #expect(model.entities.allSatisfy { $0.versionHash.count == 32 })
    }

    @Test func hashesAreEqualForEqualSchemasBuiltTwice() throws {
        let first = try Self.hashes(Self.schema())
        let second = try Self.hashes(Self.schema())
        #expect(first.model == second.model)
        #expect(first.entities == second.entities)
        let model = try ManagedObjectModel(entities: Self.schema())
        #expect(model.isCompatible(withEntityVersionHashes: second.entities))
    }

    static let changes: [SchemaChange] = [
        SchemaChange(label: "a property added") { schema(extraAttribute: true) },
        SchemaChange(label: "a property removed") { schema(dropFirstName: true) },
        SchemaChange(label: "a property renamed") { schema(salaryName: "pay") },
        SchemaChange(label: "an attribute type changed") { schema(salaryType: .decimal, salaryDefault: nil) },
        SchemaChange(label: "optionality changed") { schema(salaryOptional: false) },
        SchemaChange(label: "transience changed") { schema(salaryTransient: true) },
        SchemaChange(label: "a relationship's destination changed") { schema(archiveDestination: "Person") },
        SchemaChange(label: "a relationship's inverses removed") { schema(departmentInverse: nil) },
        SchemaChange(label: "to-many changed") { schema(employeesToMany: false, employeesOrdered: false) },
        SchemaChange(label: "ordered changed") { schema(employeesOrdered: false) },
        SchemaChange(label: "the superentity changed") { schema(employeeParent: nil) },
        SchemaChange(label: "abstractness changed") { schema(personAbstract: false) },
        SchemaChange(label: "an entity renamed") { schema(employeeName: "Worker") },
        SchemaChange(label: "a property's hash modifier set") { schema(salaryHashModifier: "v2") },
        SchemaChange(label: "an entity's hash modifier set") { schema(employeeHashModifier: "v2") },
    ]

    @Test(arguments: changes)
    func schemaChangesChangeTheModelHash(change: SchemaChange) throws {
        let reference = try Self.hashes(Self.schema())
        let changed = try Self.hashes(change.entities())
        #expect(changed.model != reference.model)
        #expect(changed.entities != reference.entities)
    }

    static let nonChanges: [SchemaChange] = [
        SchemaChange(label: "user info") { schema(userInfo: ["note": "hello"]) },
        SchemaChange(label: "a default value") { schema(salaryDefault: 1000.0) },
        SchemaChange(label: "no default value") { schema(salaryDefault: nil) },
        SchemaChange(label: "a minimum value") { schema(salaryMinimum: 10) },
        SchemaChange(label: "a regular expression") { schema(pattern: "^[A-Z]") },
        SchemaChange(label: "the class") { schema(employeeClass: ModelTestEmployee.self) },
        SchemaChange(label: "a renaming identifier") { schema(renamingIdentifier: "pay") },
        SchemaChange(label: "the delete rule") { schema(deleteRule: .deny) },
        SchemaChange(label: "a maximum count") { schema(maxCount: 10) },
        SchemaChange(label: "the order of properties") { schema(reversed: true) },
    ]

    @Test(arguments: nonChanges)
    func changesCoreDataLeavesOutKeepTheModelHash(change: SchemaChange) throws {
        let reference = try Self.hashes(Self.schema())
        let changed = try Self.hashes(change.entities())
        #expect(changed.model == reference.model)
        #expect(changed.entities == reference.entities)
    }

    @Test func onlyTheChangedEntityAndItsSubentitiesChangeHash() throws {
        let reference = try Self.hashes(Self.schema())
        // `Person` changes; `Employee` inherits from it; the others do not.
        let changed = try Self.hashes(Self.schema(personAbstract: false))
        #expect(changed.entities["Person"] != reference.entities["Person"])
        #expect(changed.entities["Employee"] != reference.entities["Employee"])
        #expect(changed.entities["Department"] == reference.entities["Department"])
        #expect(changed.entities["Archive"] == reference.entities["Archive"])
    }

    @Test func propertyHashesDependOnlyOnTheProperty() throws {
        let a = try ManagedObjectModel {
            Entity("A") { Property("x", .string) }
        }
        let b = try ManagedObjectModel {
            Entity("B", userInfo: ["k": "v"]) {
                Property("x", .string, defaultValue: "d", minimumLength: 1)
                Property("y", .integer32)
            }
        }
        let x1 = try #require(a.entity(named: "A")?.propertiesByName["x"])
        let x2 = try #require(b.entity(named: "B")?.propertiesByName["x"])
        #expect(x1.versionHash == x2.versionHash)
        #expect(x1.versionHash != b.entity(named: "B")?.propertiesByName["y"]?.versionHash)
        #expect(a.entity(named: "A")?.versionHash != b.entity(named: "B")?.versionHash)
    }

    @Test func attributeAndRelationshipOfOneNameHashDifferently() throws {
        let attribute = try ManagedObjectModel { Entity("A") { Property("x", .string) } }
        let relationship = try ManagedObjectModel { Entity("A") { Property("x", to: "A") } }
        #expect(attribute.versionHash != relationship.versionHash)
    }
}

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        ("The quick brown fox jumps over the lazy dog", "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ])
    func digestsMatchTheStandardVectors(message: String, digest: String) {
        #expect(SHA256.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func digestOfAMillionAsMatchesTheStandardVector() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(SHA256.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func digestDoesNotDependOnHowTheMessageIsSplit() {
        let message = Array((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let whole = SHA256.hash(message)
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 199] {
            var hasher = SHA256()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
    }
}
