import Foundation

/// An entity being written: its name, class, superentity and properties.
///
/// Entities are the parts of a model written in code; the model checks them when it is made and
/// turns each into an ``EntityDescription``.
///
/// ```swift
/// let model = try ManagedObjectModel {
///     Entity("Person", abstract: true) {
///         Property("name", .string, optional: false)
///     }
///     Entity("Employee", class: Employee.self, parent: "Person") {
///         Property("salary", .double, defaultValue: 0, minimum: 0)
///     }
/// }
/// ```
///
/// The class of the entity's objects is `class` when given; otherwise `className` is looked up
/// by its module-qualified name (`"MyApp.Employee"`); otherwise, or when no such class exists,
/// it is ``ManagedObject``.
///
/// Corresponds to Core Data's `NSEntityDescription` as you fill one in before adding it to a
/// model; differences: a value that only describes, checked and turned into an immutable
/// description when the model is made; the superentity is named.
public struct Entity: Sendable {
    var name: String
    var managedObjectClass: ManagedObject.Type?
    var managedObjectClassName: String?
    var superentityName: String?
    var isAbstract: Bool
    var renamingIdentifier: String?
    var versionHashModifier: String?
    var userInfo: [String: String]
    var uniquenessConstraints: [[String]]
    var indexes: [FetchIndexDescription]
    var properties: [Property]

    /// Describes an entity whose properties are listed by a builder.
    ///
    /// - Parameters:
    ///   - name: The entity's name, unique in the model.
    ///   - class: The class of the entity's objects, a subclass of ``ManagedObject``.
    ///   - className: The module-qualified name of the class, when `class` is not given.
    ///   - parent: The name of the superentity, whose properties the entity inherits.
    ///   - abstract: Whether the entity has no objects of its own, only of its subentities.
    ///   - renamingIdentifier: The entity's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the entity.
    ///   - uniquenessConstraints: Sets of property names whose values together no two objects of
    ///     the entity (and its subentities) may share: `[["email"], ["firstName", "lastName"]]`.
    ///   - indexes: Indexes of the entity's records in SQL stores (``FetchIndexDescription``).
    ///   - properties: The entity's own properties (inherited ones are not repeated).
    ///
    /// Corresponds to creating an `NSEntityDescription`; differences: named arguments instead of
    /// setters.
    public init(
        _ name: String, class: ManagedObject.Type? = nil, className: String? = nil, parent: String? = nil,
        abstract: Bool = false, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:], uniquenessConstraints: [[String]] = [], indexes: [FetchIndexDescription] = [],
        @PropertyBuilder properties: () -> [Property] = { [] }
    ) {
        self.init(
            name, class: `class`, className: className, parent: parent, abstract: abstract,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
            userInfo: userInfo, uniquenessConstraints: uniquenessConstraints, indexes: indexes, properties: properties())
    }

    /// Describes an entity whose properties are given as an array.
    ///
    /// The parameters are those of the builder form above; `properties` lists the entity's own
    /// properties.
    ///
    /// Corresponds to creating an `NSEntityDescription` and setting its `properties`; differences:
    /// named arguments instead of setters.
    public init(
        _ name: String, class: ManagedObject.Type? = nil, className: String? = nil, parent: String? = nil,
        abstract: Bool = false, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:], uniquenessConstraints: [[String]] = [], indexes: [FetchIndexDescription] = [],
        properties: [Property]
    ) {
        self.name = name
        self.managedObjectClass = `class`
        self.managedObjectClassName = className
        self.superentityName = parent
        self.isAbstract = abstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.properties = properties
    }
}
