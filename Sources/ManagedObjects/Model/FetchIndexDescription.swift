import Foundation

/// An index of an entity's records in a SQL store, over one or more of its properties, so that
/// fetches that filter or sort by them do not read every record.
///
/// ```swift
/// Entity("Employee", indexes: [
///     FetchIndexDescription(name: "byName", elements: [
///         FetchIndexElementDescription(propertyName: "lastName"),
///         FetchIndexElementDescription(propertyName: "firstName"),
///     ]),
/// ]) { … }
/// ```
///
/// The SQLite and PostgreSQL stores create the index in the entity's table (which holds its
/// whole inheritance hierarchy) and follow the model when they open: indexes the model no
/// longer has are dropped, new or changed ones created. Indexes are not part of the version
/// hash. The in-memory and binary stores keep no indexes.
///
/// Corresponds to Core Data's `NSFetchIndexDescription`; differences: elements name their
/// property, and expression elements are not supported.
public struct FetchIndexDescription: Sendable, Hashable {
    /// The index's name, unique among the entity's indexes.
    public var name: String
    /// The indexed properties, most significant first.
    public var elements: [FetchIndexElementDescription]

    /// Describes an index named `name` over `elements`.
    ///
    /// Corresponds to `NSFetchIndexDescription(name:elements:)`.
    public init(name: String, elements: [FetchIndexElementDescription]) {
        self.name = name
        self.elements = elements
    }
}

/// One property of a ``FetchIndexDescription`` and its order.
///
/// Corresponds to Core Data's `NSFetchIndexElementDescription`.
public struct FetchIndexElementDescription: Sendable, Hashable {
    /// How an element's values are compared in the index.
    ///
    /// Corresponds to `NSFetchIndexElementType`.
    public enum CollationType: Sendable, Hashable {
        /// An ordinary ordered index (a B-tree).
        case binary
        /// A spatial index over ranges. The SQL stores build an ordinary index for it.
        case rTree
    }

    /// The name of an attribute or to-one relationship of the entity (or of a superentity).
    public var propertyName: String
    /// How the values are compared.
    public var collationType: CollationType
    /// Whether the index orders the values ascending.
    public var isAscending: Bool

    /// Describes the element for the property named `propertyName`.
    ///
    /// Corresponds to `NSFetchIndexElementDescription(property:collationType:)` with
    /// `isAscending`.
    public init(propertyName: String, collationType: CollationType = .binary, isAscending: Bool = true) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = isAscending
    }
}

extension FetchIndexDescription {
    /// Checks the indexes an entity declares: each has a name of its own and at least one
    /// element, and names only stored attributes and to-one relationships, each once.
    ///
    /// - Throws: ``ModelError/Code/invalidConstraint``.
    static func check(_ entity: EntityDescription) throws {
        var names = Set<String>()
        for index in entity.indexes {
            guard !index.name.isEmpty, names.insert(index.name).inserted else {
                throw ModelError(
                    .invalidConstraint, entity: entity.name,
                    message: index.name.isEmpty
                        ? "a fetch index of '\(entity.name)' has no name" : "'\(entity.name)' has two fetch indexes named '\(index.name)'")
            }
            guard !index.elements.isEmpty else {
                throw ModelError(.invalidConstraint, entity: entity.name, message: "the fetch index '\(index.name)' of '\(entity.name)' names no property")
            }
            var seen = Set<String>()
            for element in index.elements {
                let name = element.propertyName
                guard let property = entity.propertiesByName[name] else {
                    throw ModelError(
                        .invalidConstraint, entity: entity.name, property: name,
                        message: "the fetch index '\(index.name)' of '\(entity.name)' names '\(name)', which is not a property of the entity")
                }
                if property.isTransient || (property as? RelationshipDescription)?.isToMany == true {
                    throw ModelError(
                        .invalidConstraint, entity: entity.name, property: name,
                        message: "the fetch index '\(index.name)' of '\(entity.name)' names '\(name)', which is "
                            + (property.isTransient ? "transient" : "a to-many relationship")
                            + "; indexes take stored attributes and to-one relationships")
                }
                guard seen.insert(name).inserted else {
                    throw ModelError(
                        .invalidConstraint, entity: entity.name, property: name,
                        message: "the fetch index '\(index.name)' of '\(entity.name)' names '\(name)' twice")
                }
            }
        }
    }
}
