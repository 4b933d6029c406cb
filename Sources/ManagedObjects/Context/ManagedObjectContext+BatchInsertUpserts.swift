import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// What a batch insert writes once the records that share a uniqueness constraint's values
    /// (with a saved record, or with each other) are made one, by the merge policy.
    ///
    /// Under ``MergePolicy/objectTrump`` and ``MergePolicy/overwrite`` the batch's values win:
    /// a saved record with the same constrained values takes the attributes and to-one
    /// relationships of the batch's record (the values it gives, the model's defaults for the
    /// others, as the batch would have inserted it), keeping its to-many relationships; records
    /// of the batch that share values become one, with the last one's values. Under
    /// ``MergePolicy/storeTrump`` and ``MergePolicy/rollback`` the saved record stays as it is
    /// and the batch's record is dropped; among the batch's records the first one is kept.
    struct BatchInsertUpserts {
        /// Where a record of the batch ends up.
        enum Target {
            /// Inserted as the record of the batch at this position (its own, or the one it was
            /// made one with).
            case inserted(Int)
            /// Written as (or dropped for) the saved record with this ID.
            case saved(ManagedObjectID)
        }

        /// For each record of the batch, where it ends up.
        var targets: [Target]
        /// The values each inserted record is written with, by position (the last of the
        /// records made one with it, when the batch's values win).
        var values: [Int: [StoreValue]]
        /// Saved records the batch updates: the record as read, and its new values.
        var updates: [(record: StoreRecord, values: [StoreValue])]

        /// The positions of the records inserted, in the batch's order.
        var insertedPositions: [Int] {
            targets.indices.filter { if case .inserted(let position) = targets[$0] { position == $0 } else { false } }
        }
    }

    /// Works out which records of a batch insert into `entity` share a uniqueness constraint's
    /// values with a saved record of `store` or with each other, and what is written for
    /// them under the context's merge policy; nil when the entity has no constraint or the
    /// policy is ``MergePolicy/error`` (the store's unique indexes then refuse duplicates).
    /// Runs under the coordinator's save lock, so that what it reads is what the write meets.
    ///
    /// - Throws: what the store throws.
    func batchInsertUpserts(
        of records: [[StoreValue]], into entity: EntityDescription, store: any PersistentStore
    ) throws -> BatchInsertUpserts? {
        let constraints = entity.allUniquenessConstraints
        guard mergePolicy.kind != .error, !constraints.isEmpty else { return nil }
        let batchWins = mergePolicy.kind == .objectTrump || mergePolicy.kind == .overwrite
        // Each record's representative among the batch's records, or the saved record it meets.
        var representative = Array(records.indices)
        var saved: [Int: StoreRecord] = [:]
        func root(_ position: Int) -> Int {
            var position = position
            while representative[position] != position { position = representative[position] }
            return position
        }
        for constraint in constraints {
            var order: [[StoreValue]] = []
            var groups: [[StoreValue]: [Int]] = [:]
            for position in records.indices where representative[position] == position {
                guard let key = Self.constraintKey(of: records[position], constraint) else { continue }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(position)
            }
            let found = try savedRecords(matching: order, of: constraint, in: store)
            for key in order {
                guard let members = groups[key], let first = members.first else { continue }
                for member in members.dropFirst() where saved[member] == nil || saved[first] == nil {
                    if saved[first] == nil, let record = saved[member] { saved[first] = record }
                    representative[member] = first
                }
                if saved[first] == nil, let record = found[key] { saved[first] = record }
            }
        }
        guard representative.indices.contains(where: { representative[$0] != $0 }) || !saved.isEmpty else { return nil }
        var upserts = BatchInsertUpserts(targets: [], values: [:], updates: [])
        var lastMember: [Int: Int] = [:]
        for position in records.indices {
            let first = root(position)
            if lastMember[first] == nil || batchWins { lastMember[first] = position }
            if let record = saved[first] {
                upserts.targets.append(.saved(record.objectID))
            } else {
                upserts.targets.append(.inserted(first))
            }
        }
        for (first, last) in lastMember.sorted(by: { $0.key < $1.key }) {
            if let record = saved[first] {
                guard batchWins else { continue }
                guard record.objectID.entity === entity else {
                    throw PersistenceError(
                        .constraintConflict,
                        message: "object \(last) of the batch insert into \(entity.name) has the constrained values of \(record.objectID), "
                            + "a record of \(record.objectID.entity.name): a batch insert updates records of its own entity only",
                        objectID: record.objectID)
                }
                var values = record.values
                for property in entity.properties where !property.isTransient && property.index < values.count {
                    if let relationship = property as? RelationshipDescription, relationship.isToMany { continue }
                    values[property.index] = records[last][property.index]
                }
                upserts.updates.append((record, values))
            } else {
                upserts.values[first] = records[last]
            }
        }
        return upserts
    }

    /// The constrained values of a batch record; nil when one of them has no value.
    private static func constraintKey(of values: [StoreValue], _ constraint: UniquenessConstraint) -> [StoreValue]? {
        var key: [StoreValue] = []
        for property in constraint.properties {
            guard property.index < values.count else { return nil }
            switch values[property.index] {
            case .null, .toOne(nil), .toMany: return nil
            case let value: key.append(value)
            }
        }
        return key
    }

    /// The saved records of `store` with each of `keys` as `constraint`'s values: one fetch per
    /// key for a few keys, else one read of the constraint's entity grouped by values.
    private func savedRecords(
        matching keys: [[StoreValue]], of constraint: UniquenessConstraint, in store: any PersistentStore
    ) throws -> [[StoreValue]: StoreRecord] {
        guard !keys.isEmpty else { return [:] }
        var found: [[StoreValue]: StoreRecord] = [:]
        func take(_ records: [StoreRecord]) {
            for record in records {
                guard let key = constraint.key(of: record), found[key] == nil else { continue }
                found[key] = record
            }
        }
        if keys.count <= 16 {
            for key in keys {
                let predicate = try predicate(matching: key, of: constraint)
                let result = try store.fetch(StoreFetchRequest(entity: constraint.entity, includesSubentities: true, predicate: predicate))
                take(result.records.filter { constraint.key(of: $0) == key })
            }
        } else {
            take(try store.fetch(StoreFetchRequest(entity: constraint.entity, includesSubentities: true, predicate: nil)).records)
        }
        return found
    }
}
