import Foundation

/// What attributes and relationships have in common: a name, optionality, transience and the
/// information that goes with them.
///
/// Properties are made by a ``ManagedObjectModel`` and never change afterwards. Cast to
/// ``AttributeDescription`` or ``RelationshipDescription`` for the rest, or use an entity's
/// ``EntityDescription/attributesByName`` and ``EntityDescription/relationshipsByName``.
///
/// Corresponds to Core Data's `NSPropertyDescription`; differences: immutable and made only by a
/// model, no `isIndexed`, `isReadOnly` or validation predicates (attributes have typed
/// constraints instead), and not subclassable outside this module.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible, CustomReflectable {
    // SAFETY: the back-references (`entity`, a relationship's destination and inverse), `index`
    // and `lifetime` are the only mutable state. They are written once, inside
    // `ManagedObjectModel.init`, before the model or any of its descriptions can be reached from
    // another thread, and never written again; every other stored property is a `let` of a
    // `Sendable` type. `ModelLifetime` is atomic.

    /// The property's name, the key its values are read and written under.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.name`.
    public let name: String
    /// Whether the property may be empty (nil, or no objects) when its object is saved.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.isOptional`.
    public let isOptional: Bool
    /// Whether the property is kept in memory only and never saved to a store.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.isTransient`.
    public let isTransient: Bool
    /// The property's name in the previous version of the model, for migration; nil when the name
    /// has not changed. Xcode calls it the renaming ID.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.renamingIdentifier`.
    public let renamingIdentifier: String?
    /// A string that is part of the version hash, to mark a change the schema does not show.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.versionHashModifier`.
    public let versionHashModifier: String?
    /// Your own information about the property; not part of the version hash.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.userInfo`; differences: string values
    /// only, as Xcode writes them.
    public let userInfo: [String: String]
    /// A 32-byte SHA-256 digest of what affects how the property is stored: its name,
    /// optionality, transience and ``versionHashModifier``, and for attributes the type, for
    /// relationships the destination, inverse, to-many and ordered flags.
    ///
    /// It is the same on every run and machine, and does not change with user info, default
    /// values, validation constraints or the renaming identifier.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.versionHash`; differences: this library's
    /// own digest, not byte-equal to Core Data's.
    public let versionHash: Data

    /// The entity that declares the property; subentities share the property with it.
    ///
    /// Nil only after the model is gone: descriptions point back at their model weakly, so keep
    /// the model.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.entity`; differences: weak rather than unretained.
    public internal(set) var entity: EntityDescription? {
        get { lifetime?.isAlive == true ? unretainedEntity : nil }
        set { unretainedEntity = newValue }
    }
    /// The entity, without reference counting: the model keeps it alive as long as `lifetime`
    /// says the model is alive. (A weak reference would give every description a side table and
    /// make each retain of it several times slower.)
    private unowned(unsafe) var unretainedEntity: EntityDescription?
    /// Whether the model that owns this description still exists; set with the back-references.
    var lifetime: ModelLifetime?

    /// The property's position in its entity's ``EntityDescription/properties``, the same in
    /// every subentity (inherited properties come first); where managed objects keep its value.
    /// Written once by the declaring entity, under the same rule as ``entity``. Read for every
    /// value an object reads or writes: dynamic exclusivity checks are off for it (SAFETY:
    /// written only while the model is built, before any other code can reach the description).
    @exclusivity(unchecked) package internal(set) var index = -1

    init(common: Property.Common, versionHash: Data) {
        name = common.name
        isOptional = common.isOptional
        isTransient = common.isTransient
        renamingIdentifier = common.renamingIdentifier
        versionHashModifier = common.versionHashModifier
        userInfo = common.userInfo
        self.versionHash = versionHash
    }

    /// The entity and property name, `"Employee.salary"`, with the property's kind.
    ///
    /// Corresponds to `-[NSPropertyDescription description]`; differences: one short line.
    public var description: String {
        "\(type(of: self))(\(entity?.name ?? "?").\(name))"
    }

    /// The property's fields for `dump` and debuggers, with the entity named rather than held.
    ///
    /// The back-references (the entity, a relationship's destination and inverse) are left out:
    /// they do not keep their model alive, and a property kept after its model is gone must
    /// still be safe to print.
    public var customMirror: Mirror {
        Mirror(self, children: reflectedFields, displayStyle: .class)
    }

    /// The fields `customMirror` shows; subclasses add theirs.
    var reflectedFields: [Mirror.Child] {
        [
            ("name", name), ("entityName", entity?.name as Any), ("isOptional", isOptional),
            ("isTransient", isTransient), ("renamingIdentifier", renamingIdentifier as Any), ("userInfo", userInfo),
            ("versionHash", versionHash),
        ]
    }

    /// Starts the version-hash encoding with the fields every property hashes.
    static func hashEncoder(kind: String, common: Property.Common) -> VersionHashEncoder {
        var encoder = VersionHashEncoder(kind: kind)
        encoder.append(string: common.name)
        encoder.append(bool: common.isOptional)
        encoder.append(bool: common.isTransient)
        encoder.append(optionalString: common.versionHashModifier)
        return encoder
    }
}

extension PropertyDescription: Hashable {
    /// Whether two properties are the same description (identity, not equal contents).
    ///
    /// Corresponds to `-[NSPropertyDescription isEqual:]`; differences: identity; compare
    /// ``versionHash`` for equal schemas.
    public static func == (lhs: PropertyDescription, rhs: PropertyDescription) -> Bool {
        lhs === rhs
    }

    /// Hashes the description's identity, so properties can key dictionaries and fill sets.
    ///
    /// Corresponds to `-[NSPropertyDescription hash]`; differences: identity-based.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
