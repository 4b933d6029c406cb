import Foundation

/// One uniqueness constraint as it applies to records: the entity that declares it (records of
/// it and of its subentities share the constraint) and the constrained properties, in the
/// order declared.
///
/// Records whose constrained values are all set and equal conflict. A record with no value in
/// one of the properties conflicts with none, as in a SQL unique index.
///
/// Corresponds to one element of Core Data's `NSEntityDescription.uniquenessConstraints`.
struct UniquenessConstraint {
    /// The entity that declares the constraint.
    let entity: EntityDescription
    /// The constrained properties (attributes and to-one relationships).
    let properties: [PropertyDescription]

    /// The property names, as declared.
    var names: [String] { properties.map(\.name) }

    /// The constrained values of `record` as the store keeps them; nil when one of them has
    /// no value (such a record conflicts with none).
    func key(of record: StoreRecord) -> [StoreValue]? {
        var key: [StoreValue] = []
        key.reserveCapacity(properties.count)
        for property in properties {
            guard property.index < record.values.count else { return nil }
            let value = record.values[property.index]
            switch value {
            case .null, .toOne(nil), .toMany: return nil
            default: key.append(value)
            }
        }
        return key
    }

    /// Whether `other` is the same constraint (same declaring entity and properties).
    func isSame(as other: UniquenessConstraint) -> Bool {
        entity.name == other.entity.name && names == other.names
    }

    /// `Employee (email, company)`.
    var label: String { "\(entity.name) (\(names.joined(separator: ", ")))" }

    /// Checks the constraints an entity declares: each names at least one property, and only
    /// attributes and to-one relationships that are stored.
    ///
    /// - Throws: ``ModelError/Code/invalidConstraint``.
    static func check(_ entity: EntityDescription) throws {
        for names in entity.uniquenessConstraints {
            guard !names.isEmpty else {
                throw ModelError(.invalidConstraint, entity: entity.name, message: "a uniqueness constraint of '\(entity.name)' names no property")
            }
            for name in names {
                guard let property = entity.propertiesByName[name] else {
                    throw ModelError(
                        .invalidConstraint, entity: entity.name, property: name,
                        message: "a uniqueness constraint of '\(entity.name)' names '\(name)', which is not a property of the entity")
                }
                if property.isTransient || (property as? RelationshipDescription)?.isToMany == true {
                    throw ModelError(
                        .invalidConstraint, entity: entity.name, property: name,
                        message: "a uniqueness constraint of '\(entity.name)' names '\(name)', which is "
                            + (property.isTransient ? "transient" : "a to-many relationship")
                            + "; constraints take stored attributes and to-one relationships")
                }
            }
            if Set(names).count != names.count {
                throw ModelError(
                    .invalidConstraint, entity: entity.name,
                    message: "a uniqueness constraint of '\(entity.name)' names a property twice: \(names.joined(separator: ", "))")
            }
        }
    }

    /// Whether a write touches records of an entity with uniqueness constraints.
    static func applies(to changes: SaveChanges) -> Bool {
        var seen = Set<ObjectIdentifier>()
        for record in changes.inserted + changes.updated where seen.insert(ObjectIdentifier(record.objectID.entity)).inserted {
            if !record.objectID.entity.allUniquenessConstraints.isEmpty { return true }
        }
        return false
    }

    /// Finds, among `records` (every record of the store, by ID), the records that share
    /// constrained values with one of `touched` (the records a write inserts or updates): what
    /// a store without unique indexes checks before it writes.
    static func conflicts(
        in records: [ManagedObjectID: StoreRecord], touched: [StoreRecord]
    ) -> [PersistenceError.ConstraintConflict] {
        var constraints: [UniquenessConstraint] = []
        var seenEntities = Set<ObjectIdentifier>()
        for record in touched where seenEntities.insert(ObjectIdentifier(record.objectID.entity)).inserted {
            for constraint in record.objectID.entity.allUniquenessConstraints where !constraints.contains(where: { $0.isSame(as: constraint) }) {
                constraints.append(constraint)
            }
        }
        guard !constraints.isEmpty else { return [] }
        let touchedIDs = Set(touched.map(\.objectID))
        var found: [PersistenceError.ConstraintConflict] = []
        for constraint in constraints {
            var groups: [[StoreValue]: [ManagedObjectID]] = [:]
            for record in records.values where record.objectID.entity.isKindOf(entity: constraint.entity) {
                guard let key = constraint.key(of: record) else { continue }
                groups[key, default: []].append(record.objectID)
            }
            for (key, ids) in groups where ids.count > 1 && ids.contains(where: touchedIDs.contains) {
                let existing = ids.filter { !touchedIDs.contains($0) }.first
                found.append(PersistenceError.ConstraintConflict(
                    entityName: constraint.entity.name, constraint: constraint.names,
                    constraintValues: Dictionary(zip(constraint.names, key), uniquingKeysWith: { first, _ in first }),
                    databaseObjectID: existing, databaseSnapshot: existing.flatMap { records[$0] }.map(snapshot),
                    conflictingObjectIDs: ids.filter { $0 != existing }.sorted { $0.description < $1.description }))
            }
        }
        return found.sorted { $0.description < $1.description }
    }

    /// A record's attributes and to-one relationships by name, as the store keeps them.
    static func snapshot(of record: StoreRecord) -> [String: StoreValue] {
        var snapshot: [String: StoreValue] = [:]
        for property in record.objectID.entity.properties where !property.isTransient && property.index < record.values.count {
            if (property as? RelationshipDescription)?.isToMany == true { continue }
            snapshot[property.name] = record.values[property.index]
        }
        return snapshot
    }
}

extension EntityDescription {
    /// The uniqueness constraints records of this entity must meet: its superentities' first,
    /// then its own.
    var allUniquenessConstraints: [UniquenessConstraint] {
        var chain: [EntityDescription] = []
        var current: EntityDescription? = self
        while let entity = current {
            chain.append(entity)
            current = entity.superentity
        }
        return chain.reversed().flatMap { entity in
            entity.uniquenessConstraints.map { names in
                UniquenessConstraint(entity: entity, properties: names.compactMap { entity.propertiesByName[$0] })
            }
        }
    }
}
