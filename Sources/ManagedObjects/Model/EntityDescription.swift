import Foundation
import Synchronization

/// An entity of a managed object model: a name, the class of its objects, its attributes and
/// relationships, and its place in the entity inheritance tree.
///
/// Entities are to managed objects what classes are to objects. A subentity inherits every
/// property of its superentity; ``properties`` lists the inherited ones first, and they are the
/// same description objects as the superentity's.
///
/// ```swift
/// let employee = model.entity(named: "Employee")!
/// employee.managedObjectClass                 // Employee.self, or ManagedObject.self
/// employee.propertiesByName.keys.sorted()     // ["department", "name", "salary"]
/// employee.isKindOf(entity: person)           // true when Employee's parent is Person
/// ```
///
/// Entities are made by a ``ManagedObjectModel`` and never change afterwards; they can be shared
/// between threads. They point back at their model weakly: keep the model while you use them.
///
/// Corresponds to Core Data's `NSEntityDescription`; differences: immutable and made only by a
/// model; ``managedObjectClass`` is resolved when the model is made (``ManagedObject`` when no
/// class is named or found); no fetched properties or compound indexes.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    // SAFETY: `managedObjectModel` is the only mutable state. It is written once, at the end of
    // `ManagedObjectModel.init`, before the model or any of its entities can be reached from
    // another thread, and never written again; every other stored property is a `let` of a
    // `Sendable` type (metatypes are `Sendable`), but for `initialValues`, a `let` buffer never
    // mutated (copied on write) whose values are the attributes' `Sendable` default values and empty
    // collections (to-many ones in `ToManyBox`es, which a buffer writes in place only while it
    // alone holds them, never while this one does). Weak loads are atomic in the Swift runtime.
    // `contextlessHome` is read and written with its mutex held only.

    /// The entity's name, unique in its model.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.name`.
    public let name: String
    /// The name of the class of the entity's objects as the model gives it (`"MyApp.Employee"`,
    /// or Xcode's `".Employee"` for the app's own module); the name of ``ManagedObject`` when the
    /// model names no class.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.managedObjectClassName`; differences: kept
    /// as the model gives it.
    public let managedObjectClassName: String
    /// The class of the entity's objects: the class the model names when it can be found, else
    /// ``ManagedObject``.
    ///
    /// Corresponds to `NSClassFromString(entity.managedObjectClassName)`; differences: resolved
    /// once, when the model is made.
    public let managedObjectClass: ManagedObject.Type
    /// Whether the entity has no objects of its own, only objects of its subentities.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.isAbstract`.
    public let isAbstract: Bool
    /// The entity this one inherits from; nil for a root entity.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.superentity`; differences: a strong
    /// reference (inheritance has no cycles).
    public let superentity: EntityDescription?
    /// The names of the entities that inherit directly from this one, in model order.
    ///
    /// Corresponds to the names of Core Data's `subentities`.
    public let subentityNames: [String]
    /// Every property, inherited ones first (the superentity's in its order), then the entity's own.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.properties`.
    public let properties: [PropertyDescription]
    /// Every property by name, inherited ones included.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.propertiesByName`.
    public let propertiesByName: [String: PropertyDescription]
    /// The property ``property(named:)`` found last, so that code setting one key by name on
    /// many objects (an `awakeFromInsert` setting a primitive value) finds it by comparing two
    /// names instead of hashing the key. SAFETY: a property of ``properties``, which the entity
    /// holds for its whole life, so the unretained reference is valid while the entity is.
    private let lastNamedProperty = Atomic<Unmanaged<PropertyDescription>?>(nil)
    /// What the object layer worked out for this entity and a class (its `@Managed` fields'
    /// slots, its validation plan, …), freed with the entity.
    let classCaches = DescriptionClassCaches()
    /// The home of the entity's objects in no context (see `homeWithoutContext`).
    let contextlessHome = Mutex<ObjectHome?>(nil)
    /// The property named `key`, inherited ones included: ``propertiesByName``'s answer, with the
    /// last property found kept, so that asking for one key again and again (one key set on
    /// many objects) compares two names instead of hashing the key.
    package func property(named key: String) -> PropertyDescription? {
        if let last = lastNamedProperty.load(ordering: .acquiring)?.takeUnretainedValue(), last.name == key { return last }
        guard let property = propertiesByName[key] else { return nil }
        lastNamedProperty.store(Unmanaged.passUnretained(property), ordering: .releasing)
        return property
    }

    /// The attributes among ``properties``, in the same order.
    ///
    /// Corresponds to nothing in Core Data, which has only `attributesByName`; differences: ordered.
    public let attributes: [AttributeDescription]
    /// The relationships among ``properties``, in the same order.
    ///
    /// Corresponds to nothing in Core Data, which has only `relationshipsByName`; differences: ordered.
    public let relationships: [RelationshipDescription]
    /// Every attribute by name, inherited ones included.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.attributesByName`.
    public let attributesByName: [String: AttributeDescription]
    /// Every relationship by name, inherited ones included.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.relationshipsByName`.
    public let relationshipsByName: [String: RelationshipDescription]
    /// The entity's name in the previous version of the model, for migration; nil when the name
    /// has not changed.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.renamingIdentifier`.
    public let renamingIdentifier: String?
    /// A string that is part of the version hash, to mark a change the schema does not show.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.versionHashModifier`.
    public let versionHashModifier: String?
    /// Your own information about the entity; not part of the version hash.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.userInfo`; differences: string values only,
    /// as Xcode writes them.
    public let userInfo: [String: String]
    /// The entity's own uniqueness constraints: each a list of property names (attributes or
    /// to-one relationships) whose values together no two objects of the entity and its
    /// subentities may share. Subentities inherit them; they are
    /// not part of the version hash.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.uniquenessConstraints`; differences:
    /// names only, as Xcode writes them.
    public let uniquenessConstraints: [[String]]
    /// The entity's own fetch indexes, which the SQL stores create in the entity's table. They
    /// are not part of the version hash.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.indexes`.
    public let indexes: [FetchIndexDescription]
    /// A 32-byte SHA-256 digest of what affects how the entity's objects are stored: its name,
    /// whether it is abstract, its superentity's version hash, its properties' version hashes and
    /// its ``versionHashModifier``.
    ///
    /// It is the same on every run and machine, and does not change with the class name, user
    /// info, default values or validation constraints, nor with the order of properties.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.versionHash`; differences: this library's
    /// own digest, not byte-equal to Core Data's.
    public let versionHash: Data

    /// The model the entity belongs to; nil only after the model is gone.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.managedObjectModel`; differences: weak
    /// rather than unretained.
    public internal(set) weak var managedObjectModel: ManagedObjectModel?

    /// Where each property's value lives in an object's ``PropertyValues``.
    package let layout: PropertyLayout
    /// What a new object's storage starts as, by property index: each attribute's default
    /// value, empty to-many collections, nil elsewhere. Shared by every new object and fault
    /// (copied on first write).
    package let initialValues: PropertyValues
    /// Whether the property at each index is a to-many relationship: the slots that may hold a
    /// relationship fault.
    package let isToManyByIndex: [Bool]
    /// The indexes of the to-many relationships: what a record read without them leaves out.
    package let toManyIndexes: Set<Int>
    /// The exact Swift type an attribute stores its values as, by property index (nil for
    /// relationships and transformable or undefined attributes): a typed setter whose value
    /// has this type stores it without converting.
    package let storedValueTypes: [ObjectIdentifier?]

    init(
        spec: Entity, managedObjectClass: ManagedObject.Type, superentity: EntityDescription?,
        subentityNames: [String], ownProperties: [PropertyDescription]
    ) {
        name = spec.name
        managedObjectClassName =
            spec.managedObjectClassName
            ?? spec.managedObjectClass.map { String(reflecting: $0) }
            ?? String(reflecting: ManagedObject.self)
        self.managedObjectClass = managedObjectClass
        isAbstract = spec.isAbstract
        self.superentity = superentity
        self.subentityNames = subentityNames
        let inheritedCount = superentity?.properties.count ?? 0
        for (offset, property) in ownProperties.enumerated() { property.index = inheritedCount + offset }
        let properties = (superentity?.properties ?? []) + ownProperties
        self.properties = properties
        propertiesByName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let attributes = properties.compactMap { $0 as? AttributeDescription }
        let relationships = properties.compactMap { $0 as? RelationshipDescription }
        self.attributes = attributes
        self.relationships = relationships
        attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        relationshipsByName = Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let layout = PropertyLayout(properties: properties)
        self.layout = layout
        var initialValues = PropertyValues(layout: layout)
        for attribute in attributes { initialValues[attribute.index] = attribute.defaultValue }
        for relationship in relationships where relationship.isToMany {
            initialValues[relationship.index] = relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any
        }
        self.initialValues = initialValues
        isToManyByIndex = properties.map { ($0 as? RelationshipDescription)?.isToMany ?? false }
        toManyIndexes = Set(relationships.filter(\.isToMany).map(\.index))
        storedValueTypes = properties.map { property in
            (property as? AttributeDescription)?.valueType.map { ObjectIdentifier($0) }
        }
        renamingIdentifier = spec.renamingIdentifier
        versionHashModifier = spec.versionHashModifier
        userInfo = spec.userInfo
        uniquenessConstraints = spec.uniquenessConstraints
        indexes = spec.indexes

        var encoder = VersionHashEncoder(kind: "entity")
        encoder.append(string: spec.name)
        encoder.append(bool: spec.isAbstract)
        if let superentity {
            encoder.append(data: superentity.versionHash)
        } else {
            encoder.append(optionalString: nil)
        }
        encoder.append(hashesByName: properties.map { (name: $0.name, hash: $0.versionHash) })
        encoder.append(optionalString: spec.versionHashModifier)
        versionHash = encoder.finalize()
    }

    /// The entities that inherit directly from this one, in model order; empty once the model is
    /// gone.
    ///
    /// Corresponds to Core Data's `NSEntityDescription.subentities`; differences: read-only, looked
    /// up through the model.
    public var subentities: [EntityDescription] {
        guard let model = managedObjectModel else { return [] }
        return subentityNames.compactMap { model.entitiesByName[$0] }
    }

    /// The properties the entity declares itself, without inherited ones.
    ///
    /// Corresponds to nothing in Core Data.
    public var ownProperties: ArraySlice<PropertyDescription> {
        properties[(superentity?.properties.count ?? 0)...]
    }

    /// Whether this entity is `entity` or inherits from it, directly or not.
    ///
    /// Entities match when they are the same description, or have the same name and version
    /// hash (the same entity of two copies of one model).
    ///
    /// - Complexity: O(*d*), where *d* is the depth of this entity in its inheritance tree.
    ///
    /// Corresponds to Core Data's `-[NSEntityDescription isKindOfEntity:]`; differences: also true
    /// for the same entity of another copy of the model.
    public func isKindOf(entity: EntityDescription) -> Bool {
        var candidate: EntityDescription? = self
        while let current = candidate {
            if current === entity || (current.name == entity.name && current.versionHash == entity.versionHash) {
                return true
            }
            candidate = current.superentity
        }
        return false
    }

    /// The relationships, inherited ones included, whose destination is `entity`.
    ///
    /// Corresponds to Core Data's `-[NSEntityDescription relationshipsWithDestinationEntity:]`.
    public func relationships(forDestination entity: EntityDescription) -> [RelationshipDescription] {
        relationships.filter { $0.destinationEntity === entity }
    }

    /// The entity's name with its superentity and property names:
    /// `"EntityDescription(Employee : Person) { name, salary, department }"`.
    ///
    /// Corresponds to `-[NSEntityDescription description]`; differences: one short line.
    public var description: String {
        var text = "EntityDescription(\(name)"
        if let superentity { text += " : \(superentity.name)" }
        if isAbstract { text += ", abstract" }
        return text + ") { " + properties.map(\.name).joined(separator: ", ") + " }"
    }
}

extension EntityDescription: Hashable {
    /// Whether two entities are the same description (identity, not equal contents).
    ///
    /// Corresponds to `-[NSEntityDescription isEqual:]`; differences: identity; compare
    /// ``versionHash`` for equal schemas.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs === rhs
    }

    /// Hashes the description's identity, so entities can key dictionaries and fill sets.
    ///
    /// Corresponds to `-[NSEntityDescription hash]`; differences: identity-based.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
