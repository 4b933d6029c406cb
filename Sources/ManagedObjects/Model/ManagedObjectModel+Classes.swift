import Foundation

extension ManagedObjectModel {
    /// Makes a model from `ManagedObject` subclasses alone: one entity per class, its properties
    /// read from the class's ``Managed`` declarations.
    ///
    /// ```swift
    /// final class Department: ManagedObject {
    ///     @Managed(.required, minimumLength: 1, defaultValue: "") var name: String
    ///     @Managed(inverse: \Employee.department, deleteRule: .cascade) var employees: Set<Employee>
    /// }
    /// final class Employee: ManagedObject {
    ///     @Managed(.required, minimum: 0, defaultValue: 0) var salary: Double
    ///     @Managed var department: Department?
    /// }
    /// let model = try ManagedObjectModel(classes: [Department.self, Employee.self])
    /// ```
    ///
    /// Each property's name and Swift type come from the class by reflection: the key is the
    /// Swift name, the attribute type follows the Swift type (`Int` and `Int64` are `.integer64`,
    /// `Int16` `.integer16`, `Double`, `Float`, `Decimal`, `String`, `Bool`, `Date`, `Data`,
    /// `UUID`, `URL`), a `Destination?` is a to-one relationship, a `Set<Destination>` a to-many
    /// one and a `[Destination]` an ordered to-many one. The rest comes from the declaration's
    /// arguments (``Managed/init(_:minimum:maximum:minimumLength:maximumLength:pattern:defaultValue:type:transformer:renamingIdentifier:versionHashModifier:userInfo:)``,
    /// ``Managed/init(_:inverse:deleteRule:minCount:maxCount:renamingIdentifier:versionHashModifier:userInfo:)``):
    /// a property is optional unless declared ``ManagedOptions/required`` (a non-optional to-one
    /// relationship is required), and each relationship's inverse is named on at least one side
    /// unless it is declared ``ManagedOptions/noInverse``. Uniqueness constraints come from
    /// ``ManagedOptions/unique`` and ``EntityDeclaration/uniquenessConstraints``.
    ///
    /// A relationship without an inverse is what the builder's ``Property`` without `inverse:`
    /// makes: nothing keeps the destination's side in step, as in Core Data (whose model editor
    /// warns about it). Its own delete rule applies when its object is deleted, but deleting a
    /// destination object leaves the reference in place: it names a deleted object, and once
    /// saved, another context reads it as a fault whose firing throws
    /// ``PersistenceError/Code/objectNotFound``. Clear such references yourself.
    /// The entity is named by the class's ``ManagedObject/entityDeclaration`` (its class name by
    /// default) and inherits from the entity of its nearest superclass in `classes`; the `@Managed`
    /// properties of superclasses not in `classes` are its own.
    ///
    /// Each class is instantiated once, outside any context and with an entity that models
    /// nothing, to read its declarations: `@Managed` properties its initializer sets keep nothing
    /// and read their empty values (set initial values in ``ManagedObject/awakeFromInsert()``).
    /// The result is cached per class. A model made from
    /// classes has the same version hashes as the same model written with ``Entity`` and
    /// ``Property`` or loaded from a model file, so stores and migrations do not notice which was
    /// used.
    ///
    /// - Parameters:
    ///   - classes: The classes, one per entity.
    ///   - fetchRequestTemplates: Named fetch requests, as for ``init(entities:fetchRequestTemplates:configurations:)``.
    ///   - configurations: Named subsets of the entities (by entity name).
    /// - Throws: ``ModelError``: ``ModelError/Code/unsupportedPropertyType`` for a Swift type no
    ///   attribute or relationship holds, ``ModelError/Code/unknownDestination`` and
    ///   ``ModelError/Code/ambiguousDestination`` for a destination class not among `classes`,
    ///   ``ModelError/Code/missingInverse``, ``ModelError/Code/unknownInverse`` and
    ///   ``ModelError/Code/inverseMismatch`` for inverses, ``ModelError/Code/invalidConstraint``
    ///   for a uniqueness constraint's key path that reads no single `@Managed` property, and every error of
    ///   ``init(entities:fetchRequestTemplates:configurations:)``.
    ///
    /// Corresponds to SwiftData's `Schema([Employee.self])`, for Core Data's managed objects;
    /// differences: no macros, the declarations are read by reflection.
    public convenience init(
        classes: [ManagedObject.Type], fetchRequestTemplates: [String: FetchRequestTemplate] = [:],
        configurations: [String: [String]] = [:]
    ) throws {
        try self.init(
            entities: ClassModelReader.entities(for: classes), fetchRequestTemplates: fetchRequestTemplates,
            configurations: configurations)
    }
}
