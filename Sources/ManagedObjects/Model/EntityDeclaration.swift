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

    /// Describes the entity.
    ///
    /// Corresponds to setting the fields of a new `NSEntityDescription`.
    public init(
        name: String? = nil, abstract: Bool = false, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.isAbstract = abstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}
