/// What a ``ManagedObject`` subclass says about its entity in a model made from classes:
/// the entity's name and what its properties cannot say.
///
/// ```swift
/// final class ManagedEmployee: ManagedObject {
///     override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Employee") }
///     @Managed(.required, defaultValue: "") var firstName: String
/// }
/// ```
///
/// Uniqueness constraints are named here, by property name or by key path, or, for one
/// property alone, by declaring it ``ManagedOptions/unique``:
///
/// ```swift
/// final class Customer: ManagedObject {
///     override class var entityDeclaration: EntityDeclaration {
///         EntityDeclaration(uniquenessConstraints: [[\Customer.firstName, \Customer.lastName]])
///     }
///     @Managed(.unique) var email: String?
///     @Managed var firstName: String?
///     @Managed var lastName: String?
/// }
/// ```
///
/// Corresponds to the entity inspector of Xcode's model editor; differences: read by
/// ``ManagedObjectModel/init(classes:fetchRequestTemplates:configurations:)`` only.
public struct EntityDeclaration: Sendable {
    /// The entity's name; nil for the class's name (`"ManagedEmployee"`, without its module).
    ///
    /// Corresponds to `NSEntityDescription.name`.
    public var name: String?
    /// Whether the entity has no objects of its own, only objects of its subentities.
    ///
    /// Corresponds to `NSEntityDescription.isAbstract`.
    public var isAbstract: Bool
    /// The entity's name in the previous model version, for migration.
    ///
    /// Corresponds to `NSEntityDescription.renamingIdentifier`.
    public var renamingIdentifier: String?
    /// A string that changes the version hash without a schema change.
    ///
    /// Corresponds to `NSEntityDescription.versionHashModifier`.
    public var versionHashModifier: String?
    /// Your own information about the entity.
    ///
    /// Corresponds to `NSEntityDescription.userInfo`; differences: string values only.
    public var userInfo: [String: String]
    /// Sets of property names whose values together no two objects of the entity (and its
    /// subentities) may share: `[["email"], ["firstName", "lastName"]]`.
    ///
    /// The model made from classes lists these first, then those the key-path initializer
    /// names, then one per property declared ``ManagedOptions/unique``, each once.
    ///
    /// Corresponds to `NSEntityDescription.uniquenessConstraints`.
    public var uniquenessConstraints: [[String]]
    /// Constraints named by key paths, resolved to property names when the model is read.
    var uniquenessKeyPaths: [[AnyKeyPath & Sendable]] = []
    /// The entity's fetch indexes, which the SQL stores create. The model made from classes
    /// lists these first, then one per property declared ``ManagedOptions/indexed``.
    ///
    /// Corresponds to `NSEntityDescription.indexes`.
    public var indexes: [FetchIndexDescription] = []

    /// Describes the entity.
    ///
    /// - Parameters:
    ///   - name: The entity's name; nil for the class's name.
    ///   - abstract: Whether the entity has no objects of its own, only of its subentities.
    ///   - renamingIdentifier: The entity's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the entity.
    ///   - uniquenessConstraints: Sets of property names whose values together no two objects
    ///     may share.
    ///   - indexes: The entity's fetch indexes (``FetchIndexDescription``).
    ///
    /// Corresponds to setting the fields of a new `NSEntityDescription`.
    public init(
        name: String? = nil, abstract: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:], uniquenessConstraints: [[String]] = [],
        indexes: [FetchIndexDescription] = []
    ) {
        self.name = name
        self.isAbstract = abstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
    }

    /// Describes the entity, naming its uniqueness constraints by key paths of its class.
    ///
    /// Each key path must read one `@Managed` property of the class (or of a superclass); the
    /// model made from classes reads it on a prototype of the class and throws
    /// ``ModelError/Code/invalidConstraint`` for one that reads none or several. The other
    /// parameters are those of the initializer that names properties.
    ///
    /// ```swift
    /// EntityDeclaration(uniquenessConstraints: [[\Customer.email], [\Customer.firstName, \Customer.lastName]])
    /// ```
    ///
    /// Corresponds to setting `NSEntityDescription.uniquenessConstraints`; differences: typed key
    /// paths instead of names.
    public init<Root: ManagedObject>(
        name: String? = nil, abstract: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:],
        uniquenessConstraints: [[PartialKeyPath<Root> & Sendable]], indexes: [FetchIndexDescription] = []
    ) {
        self.init(
            name: name, abstract: abstract, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier, userInfo: userInfo, indexes: indexes)
        uniquenessKeyPaths = uniquenessConstraints.map { $0.map { $0 } }
    }
}
