import Foundation

/// One property of an ``Entity`` being written: an attribute or a relationship.
///
/// Write attributes with a type and relationships with a destination; the model checks them
/// all when it is made, and turns them into ``AttributeDescription`` and
/// ``RelationshipDescription`` objects.
///
/// ```swift
/// Entity("Employee") {
///     Property("firstName", .string, optional: false)
///     Property("salary", .double, defaultValue: 0, minimum: 0)
///     Property("email", .string, pattern: #"^[^@]+@[^@]+$"#)
///     Property("department", to: "Department", inverse: "employees")
///     Property("reports", to: "Employee", inverse: "manager", toMany: true, deleteRule: .deny)
/// }
/// ```
///
/// Corresponds to Core Data's `NSPropertyDescription` as you fill one in before adding it to an
/// entity; differences: a value that only describes, checked and turned into immutable
/// descriptions by ``ManagedObjectModel/init(entities:fetchRequestTemplates:configurations:)``.
public struct Property: Sendable {
    struct Common: Sendable {
        var name: String
        var isOptional: Bool
        var isTransient: Bool
        var renamingIdentifier: String?
        var versionHashModifier: String?
        var userInfo: [String: String]
    }

    struct AttributeFields: Sendable {
        var type: AttributeType
        var defaultValue: (any Sendable)?
        var minimumValue: (any Sendable)?
        var maximumValue: (any Sendable)?
        var minimumLength: Int?
        var maximumLength: Int?
        var regularExpression: String?
        var valueTransformerName: String?
        var preservesValueInHistoryOnDeletion = false
    }

    struct RelationshipFields: Sendable {
        var destination: String
        var inverse: String?
        var isToMany: Bool
        var isOrdered: Bool
        var deleteRule: DeleteRule
        var minCount: Int
        var maxCount: Int?
    }

    enum Kind: Sendable {
        case attribute(AttributeFields)
        case relationship(RelationshipFields)
    }

    var common: Common
    var kind: Kind

    /// The property's name, the key its values are read and written under.
    ///
    /// Corresponds to Core Data's `NSPropertyDescription.name`.
    public var name: String { common.name }

    /// Describes an attribute.
    ///
    /// Values (`defaultValue`, `minimum`, `maximum`) are converted to the type's Swift value type
    /// when the model is made, so `defaultValue: 0` suits a `.double` attribute and becomes
    /// `0.0`; a value that cannot be converted makes the model throw
    /// ``ModelError/Code/invalidDefaultValue`` or ``ModelError/Code/invalidConstraint``.
    ///
    /// - Parameters:
    ///   - name: The key of the attribute.
    ///   - type: The kind of value it holds.
    ///   - optional: Whether it may be nil when the object is saved.
    ///   - transient: Whether it is kept in memory only, never in a store.
    ///   - defaultValue: The value a new object starts with.
    ///   - minimum: The smallest value allowed, for numbers and dates.
    ///   - maximum: The largest value allowed, for numbers and dates.
    ///   - minimumLength: The fewest characters (strings) or bytes (binary data) allowed.
    ///   - maximumLength: The most characters (strings) or bytes (binary data) allowed.
    ///   - pattern: A regular expression strings must match.
    ///   - transformer: The name of the ``ValueTransforming`` transformer of a transformable
    ///     attribute, registered with ``ValueTransformerRegistry``.
    ///   - preservesValueInHistoryOnDeletion: Whether a deleted record's value is kept in its
    ///     persistent history tombstone.
    ///   - renamingIdentifier: The attribute's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the attribute.
    ///
    /// Corresponds to creating an `NSAttributeDescription`; differences: named arguments instead
    /// of setters, and constraints as values instead of validation predicates.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = true, transient: Bool = false,
        defaultValue: (any Sendable)? = nil, minimum: (any Sendable)? = nil, maximum: (any Sendable)? = nil,
        minimumLength: Int? = nil, maximumLength: Int? = nil, pattern: String? = nil,
        transformer: String? = nil, preservesValueInHistoryOnDeletion: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        common = Common(
            name: name, isOptional: optional, isTransient: transient, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier, userInfo: userInfo)
        kind = .attribute(
            AttributeFields(
                type: type, defaultValue: defaultValue, minimumValue: minimum, maximumValue: maximum,
                minimumLength: minimumLength, maximumLength: maximumLength, regularExpression: pattern,
                valueTransformerName: transformer, preservesValueInHistoryOnDeletion: preservesValueInHistoryOnDeletion))
    }

    /// Describes a relationship.
    ///
    /// Name the inverse on both sides: the model checks that each inverse points back.
    ///
    /// - Parameters:
    ///   - name: The key of the relationship.
    ///   - destination: The name of the entity at the other end.
    ///   - inverse: The name of the relationship of the destination entity that points back.
    ///   - toMany: Whether it holds a collection of objects rather than one object.
    ///   - ordered: Whether a to-many relationship keeps its objects in order.
    ///   - deleteRule: What happens to the destination objects when the object is deleted.
    ///   - minCount: The fewest objects a to-many relationship may hold when saved.
    ///   - maxCount: The most objects a to-many relationship may hold when saved; nil or 0 for no
    ///     limit. A to-one relationship's is 1.
    ///   - optional: Whether it may be empty when the object is saved.
    ///   - transient: Whether it is kept in memory only, never in a store.
    ///   - renamingIdentifier: The relationship's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the relationship.
    ///
    /// Corresponds to creating an `NSRelationshipDescription`; differences: the destination and
    /// inverse are named, and resolved when the model is made.
    public init(
        _ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false,
        ordered: Bool = false, deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int? = nil,
        optional: Bool = true, transient: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        common = Common(
            name: name, isOptional: optional, isTransient: transient, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier, userInfo: userInfo)
        kind = .relationship(
            RelationshipFields(
                destination: destination, inverse: inverse, isToMany: toMany, isOrdered: ordered,
                deleteRule: deleteRule, minCount: minCount, maxCount: maxCount))
    }
}
