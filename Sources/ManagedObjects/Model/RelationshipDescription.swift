import Foundation

/// A relationship of an entity: a reference to one object (to-one) or a collection of objects
/// (to-many) of a destination entity, usually with an inverse relationship that points back.
///
/// The destination and inverse are resolved when the model is made, and the model has checked
/// that the inverse points back: `relationship.inverseRelationship?.inverseRelationship` is
/// `relationship`.
///
/// ```swift
/// let employees = model.entity(named: "Department")?.relationshipsByName["employees"]
/// employees?.destinationEntity?.name          // "Employee"
/// employees?.inverseRelationship?.name        // "department"
/// employees?.isToMany                         // true
/// ```
///
/// Corresponds to Core Data's `NSRelationshipDescription`; differences: immutable and made only
/// by a model; the destination and inverse are weak references (nil once the model is gone) and
/// their names are kept in ``destinationEntityName`` and ``inverseRelationshipName``; the version
/// hash leaves out `minCount` and `maxCount`, which are validation constraints, but hashes
/// ``isToMany`` and ``isOrdered``.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    // SAFETY: `destinationEntity` and `inverseRelationship` are written once, inside
    // `ManagedObjectModel.init`, before the model or any of its descriptions can be reached from
    // another thread, and never written again; the rest are `let`s of `Sendable` types (see
    // PropertyDescription's SAFETY note).

    /// The name of the entity at the other end.
    ///
    /// Corresponds to `destinationEntity.name` in Core Data, and Xcode's `destinationEntity` attribute.
    public let destinationEntityName: String
    /// The entity at the other end; nil only after the model is gone.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.destinationEntity`; differences: nil once
    /// the model is gone.
    public internal(set) var destinationEntity: EntityDescription? {
        get { lifetime?.isAlive == true ? unretainedDestination : nil }
        set { unretainedDestination = newValue }
    }
    private unowned(unsafe) var unretainedDestination: EntityDescription?
    /// The name of the destination entity's relationship that points back; nil for none.
    ///
    /// Corresponds to `inverseRelationship.name` in Core Data, and Xcode's `inverseName` attribute.
    public let inverseRelationshipName: String?
    /// The destination entity's relationship that points back; nil when there is none, or after
    /// the model is gone.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.inverseRelationship`; differences:
    /// weak rather than unowned(unsafe).
    public internal(set) var inverseRelationship: RelationshipDescription? {
        get { lifetime?.isAlive == true ? unretainedInverse : nil }
        set { unretainedInverse = newValue }
    }
    private unowned(unsafe) var unretainedInverse: RelationshipDescription?
    /// What the object layer worked out for this relationship and a class, freed with the
    /// relationship.
    let classCaches = DescriptionClassCaches()
    /// Whether the relationship holds a collection of objects rather than one object.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.isToMany`.
    public let isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order (an ordered set); false for
    /// to-one relationships.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.isOrdered`.
    public let isOrdered: Bool
    /// What happens to the destination objects when the source object is deleted.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.deleteRule`.
    public let deleteRule: DeleteRule
    /// The fewest objects the relationship may hold when its object is saved.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.minCount`.
    public let minCount: Int
    /// The most objects the relationship may hold when its object is saved: 1 for to-one
    /// relationships, 0 for a to-many relationship without limit.
    ///
    /// Corresponds to Core Data's `NSRelationshipDescription.maxCount`.
    public let maxCount: Int

    /// Whether validation checks how many objects the relationship holds: it is mandatory, or
    /// has a minimum or a maximum count.
    var constrainsCount: Bool { !isOptional || minCount > 0 || (isToMany && maxCount > 0) }

    /// Makes the description, checking the counts.
    init(entityName: String, common: Property.Common, fields: Property.RelationshipFields) throws {
        func failure(_ message: String) -> ModelError {
            ModelError(.invalidConstraint, entity: entityName, property: common.name, message: message)
        }
        if fields.isOrdered && !fields.isToMany {
            throw failure("only to-many relationships can be ordered")
        }
        if fields.minCount < 0 {
            throw failure("minimum count cannot be negative (\(fields.minCount))")
        }
        let maxCount: Int
        if fields.isToMany {
            maxCount = fields.maxCount ?? 0
            if maxCount < 0 { throw failure("maximum count cannot be negative (\(maxCount))") }
            if maxCount > 0 && fields.minCount > maxCount {
                throw failure("minimum count \(fields.minCount) is above maximum count \(maxCount)")
            }
        } else {
            maxCount = 1
            if let given = fields.maxCount, given != 1 {
                throw failure("a to-one relationship's maximum count is 1, not \(given); make it to-many")
            }
            if fields.minCount > 1 {
                throw failure("a to-one relationship's minimum count is 0 or 1, not \(fields.minCount)")
            }
        }
        if fields.destination.isEmpty {
            throw ModelError(
                .unknownDestination, entity: entityName, property: common.name,
                message: "the relationship names no destination entity")
        }
        destinationEntityName = fields.destination
        inverseRelationshipName = fields.inverse
        isToMany = fields.isToMany
        isOrdered = fields.isOrdered
        deleteRule = fields.deleteRule
        minCount = fields.minCount
        self.maxCount = maxCount

        var encoder = Self.hashEncoder(kind: "relationship", common: common)
        encoder.append(string: fields.destination)
        encoder.append(optionalString: fields.inverse)
        encoder.append(bool: fields.isToMany)
        encoder.append(bool: fields.isOrdered)
        super.init(common: common, versionHash: encoder.finalize())
    }

    /// The entity and relationship names with the destination:
    /// `"RelationshipDescription(Department.employees -> Employee, to-many)"`.
    ///
    /// Corresponds to `-[NSRelationshipDescription description]`; differences: one short line.
    public override var description: String {
        "RelationshipDescription(\(entity?.name ?? "?").\(name) -> \(destinationEntityName)"
            + (isToMany ? (isOrdered ? ", ordered to-many)" : ", to-many)") : ")")
    }

    override var reflectedFields: [Mirror.Child] {
        super.reflectedFields + [
            ("destinationEntityName", destinationEntityName), ("inverseRelationshipName", inverseRelationshipName as Any),
            ("isToMany", isToMany), ("isOrdered", isOrdered), ("deleteRule", deleteRule), ("minCount", minCount),
            ("maxCount", maxCount),
        ]
    }
}
