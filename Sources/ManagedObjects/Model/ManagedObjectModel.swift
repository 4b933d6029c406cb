import Foundation
import Synchronization

/// A managed object model: the entities of an object graph, checked and connected, with version
/// hashes that tell whether a store was written with the same schema.
///
/// Write a model in code with ``Entity`` and ``Property``, or load one that Xcode's model editor
/// wrote with ``init(contentsOf:version:moduleName:classes:)``:
///
/// ```swift
/// let model = try ManagedObjectModel {
///     Entity("Department", class: Department.self) {
///         Property("name", .string, optional: false)
///         Property("budget", .decimal, defaultValue: Decimal(0))
///         Property("employees", to: "Employee", inverse: "department", toMany: true, ordered: true,
///                  deleteRule: .cascade)
///     }
///     Entity("Employee") {
///         Property("firstName", .string)
///         Property("salary", .double, defaultValue: 0.0, minimum: 0)
///         Property("department", to: "Department", inverse: "employees", deleteRule: .nullify)
///     }
/// }
/// let employees = model.entity(named: "Department")?.relationshipsByName["employees"]
/// employees?.inverseRelationship?.name    // "department"
/// ```
///
/// Making a model checks it: every destination and superentity exists, every inverse points
/// back, no entity declares a property twice or redeclares one it inherits, inheritance has no
/// cycle, and default values and constraints suit their attribute types. A model that fails a
/// check throws a ``ModelError`` naming the entity and property.
///
/// A model never changes once made and can be shared between threads and tasks. Its entities
/// and properties point back at it weakly: keep the model while you use them.
///
/// Corresponds to Core Data's `NSManagedObjectModel`; differences: immutable and checked when
/// made (Core Data checks when a coordinator first uses the model and raises); built from
/// ``Entity`` values or an Xcode model source file (not a compiled `.mom`); fetch request
/// templates are kept as predicate format strings; adds a model-wide ``versionHash``.
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in the order they were given or appear in the model file.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel.entities`.
    public let entities: [EntityDescription]
    /// The entities by name.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel.entitiesByName`.
    public let entitiesByName: [String: EntityDescription]
    /// Each entity's ``EntityDescription/versionHash`` by entity name: what a store records to
    /// tell whether it was written with this schema.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel.entityVersionHashesByName`; differences:
    /// this library's digests.
    public let entityVersionHashesByName: [String: Data]
    /// A 32-byte SHA-256 digest of every entity's name and version hash: equal for two models
    /// exactly when their ``entityVersionHashesByName`` are equal.
    ///
    /// Corresponds to nothing in Core Data, which compares `entityVersionHashesByName`.
    public let versionHash: Data
    /// The fetch request templates by name, with every setting the model file gives: the entity
    /// fetched, the predicate's format string (nil for no predicate), the limit, batch size and
    /// the rest.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel.fetchRequestTemplatesByName`; differences:
    /// ``FetchRequestTemplate`` values, not `NSFetchRequest`s.
    public let fetchRequestTemplatesByName: [String: FetchRequestTemplate]
    /// The names of the model's configurations, sorted.
    ///
    /// Corresponds to Core Data's `NSManagedObjectModel.configurations`.
    public let configurations: [String]
    private let configurationMembers: [String: [String]]
    /// The entity of each class the model gives to exactly one entity: what
    /// `ManagedObject.init(context:)` looks up on every insert.
    private let soleEntitiesByClass: [ObjectIdentifier: EntityDescription]
    /// The entity ``soleEntity(for:)`` found last: making many objects of one class (each
    /// `init(context:)` asks) then compares two classes instead of hashing one. SAFETY: an
    /// entity of ``entities``, which the model holds for its whole life, so the unretained
    /// reference is valid while the model is.
    private let lastSoleEntity = Atomic<Unmanaged<EntityDescription>?>(nil)
    /// Tells the model's descriptions, which point back at each other without reference
    /// counting, that the model and so all of them are alive.
    let lifetime: ModelLifetime

    /// Makes a model from entities, checking it.
    ///
    /// - Parameters:
    ///   - entities: The entities; their names must be unique.
    ///   - fetchRequestTemplates: Named fetch requests: the entity, a predicate format string and
    ///     the request's settings.
    ///   - configurations: Named subsets of the entities (by name), for stores that hold only some.
    /// - Throws: ``ModelError`` naming the first problem found: ``ModelError/Code/invalidName``,
    ///   ``ModelError/Code/duplicateEntity``, ``ModelError/Code/duplicateProperty``,
    ///   ``ModelError/Code/unknownSuperentity``, ``ModelError/Code/inheritanceCycle``,
    ///   ``ModelError/Code/unsupportedAttributeType``, ``ModelError/Code/invalidDefaultValue``,
    ///   ``ModelError/Code/invalidConstraint``, ``ModelError/Code/unknownDestination``,
    ///   ``ModelError/Code/unknownInverse``, ``ModelError/Code/inverseMismatch`` or
    ///   ``ModelError/Code/unknownEntity``.
    ///
    /// Corresponds to `NSManagedObjectModel()` followed by setting `entities`,
    /// `setFetchRequestTemplate(_:forName:)` and `setEntities(_:forConfigurationName:)`;
    /// differences: everything at once, checked, and thrown errors instead of exceptions.
    public convenience init(
        entities: [Entity], fetchRequestTemplates: [String: FetchRequestTemplate] = [:],
        configurations: [String: [String]] = [:]
    ) throws {
        try self.init(
            entities: entities, fetchRequestTemplates: fetchRequestTemplates, configurations: configurations,
            resolver: ClassResolver())
    }

    /// Makes a model from the entities listed by a builder, checking it.
    ///
    /// - Throws: ``ModelError``, as ``init(entities:fetchRequestTemplates:configurations:)``.
    ///
    /// Corresponds to `NSManagedObjectModel()` followed by setting `entities`; differences: a
    /// result builder, checked, and thrown errors instead of exceptions.
    public convenience init(@EntityBuilder _ entities: () -> [Entity]) throws {
        try self.init(entities: entities())
    }

    init(
        entities specs: [Entity], fetchRequestTemplates: [String: FetchRequestTemplate],
        configurations: [String: [String]], resolver: ClassResolver
    ) throws {
        let assembler = ModelAssembler(resolver: resolver)
        let entities = try assembler.assemble(specs)
        lifetime = assembler.lifetime
        let entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, template) in fetchRequestTemplates.sorted(by: { $0.key < $1.key })
        where entitiesByName[template.entityName] == nil {
            throw ModelError(
                .unknownEntity, entity: template.entityName,
                message: "fetch request template '\(name)' fetches '\(template.entityName)', "
                    + "which is not an entity of the model")
        }
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
            if let unknown = members.first(where: { entitiesByName[$0] == nil }) {
                throw ModelError(
                    .unknownEntity, entity: unknown,
                    message: "configuration '\(name)' lists '\(unknown)', which is not an entity of the model")
            }
        }
        self.entities = entities
        self.entitiesByName = entitiesByName
        var entitiesByClass: [ObjectIdentifier: [EntityDescription]] = [:]
        for entity in entities { entitiesByClass[ObjectIdentifier(entity.managedObjectClass), default: []].append(entity) }
        soleEntitiesByClass = entitiesByClass.compactMapValues { $0.count == 1 ? $0[0] : nil }
        let hashes = entitiesByName.mapValues(\.versionHash)
        entityVersionHashesByName = hashes
        var encoder = VersionHashEncoder(kind: "model")
        encoder.append(hashesByName: hashes.map { (name: $0.key, hash: $0.value) })
        versionHash = encoder.finalize()
        fetchRequestTemplatesByName = fetchRequestTemplates
        self.configurations = configurations.keys.sorted()
        configurationMembers = configurations
        for entity in entities { entity.managedObjectModel = self }
        ManagedObjectClassRegistry.register(self)
    }

    deinit {
        lifetime.end()
        // Each entity's home of objects in no context holds the entity: the pair goes when the
        // last object of the entity does.
        for entity in entities { entity.dropHomeWithoutContext() }
    }

    /// The entity named `name`, or nil.
    ///
    /// Corresponds to Core Data's `entitiesByName[name]`.
    public func entity(named name: String) -> EntityDescription? {
        entitiesByName[name]
    }

    /// The entities of the configuration named `name`, in model order; all entities for nil; nil
    /// for a configuration the model does not have.
    ///
    /// Corresponds to Core Data's `entities(forConfigurationName:)`; differences: nil for an
    /// unknown name rather than an empty array.
    public func entities(forConfigurationName name: String?) -> [EntityDescription]? {
        guard let name else { return entities }
        guard let members = configurationMembers[name] else { return nil }
        let memberSet = Set(members)
        return entities.filter { memberSet.contains($0.name) }
    }

    /// Whether a store whose metadata records `hashes` (entity name to version hash) was written
    /// with this model's schema: the same entities with the same version hashes.
    ///
    /// Corresponds to Core Data's `isConfiguration(withName:compatibleWithStoreMetadata:)` for the
    /// default configuration; differences: takes the hashes rather than the whole metadata.
    public func isCompatible(withEntityVersionHashes hashes: [String: Data]) -> Bool {
        hashes == entityVersionHashesByName
    }

    /// The one entity whose class is `type`; nil when the model gives the class to no entity or
    /// to several.
    func soleEntity(for type: ManagedObject.Type) -> EntityDescription? {
        // Only sole entities are kept, so an entity of the class is the class's sole entity.
        if let last = lastSoleEntity.load(ordering: .acquiring)?.takeUnretainedValue(), last.managedObjectClass == type { return last }
        guard let entity = soleEntitiesByClass[ObjectIdentifier(type)] else { return nil }
        lastSoleEntity.store(Unmanaged.passUnretained(entity), ordering: .releasing)
        return entity
    }

    /// The model's entity names: `"ManagedObjectModel(Department, Employee)"`.
    ///
    /// Corresponds to `-[NSManagedObjectModel description]`; differences: one short line.
    public var description: String {
        "ManagedObjectModel(" + entities.map(\.name).joined(separator: ", ") + ")"
    }
}
