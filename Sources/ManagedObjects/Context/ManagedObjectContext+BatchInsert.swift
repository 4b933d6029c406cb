import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Inserts the request's records into the store that takes new objects, in one write, and
    /// returns their permanent IDs in the order of the request's dictionaries.
    ///
    /// Into an entity with uniqueness constraints, under a merge policy other than
    /// ``MergePolicy/error``, records that share constrained values with a saved record or with
    /// each other become one record (an upsert, in the same write: see ``BatchInsertRequest``);
    /// the ID returned for such a dictionary is the record's it became.
    ///
    /// Nothing is written unless every record is valid and every related record exists. Records
    /// related through a to-one relationship with a to-many inverse get the new records in that
    /// inverse; registered objects of this context for them turn back into faults (those with
    /// unsaved changes are left alone, and their next save settles the difference under the
    /// merge policy). No managed object is made for the new records, no notification is posted
    /// and the undo manager does not record the insert: fetch the IDs to work with them.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity`` for an unknown or abstract entity;
    ///   `KeyValueCodingError/Code/undefinedKey` for a key that is not a stored property,
    ///   `KeyValueCodingError/Code/typeMismatch` for a value the property cannot hold;
    ///   `ValidationError` for values the model's constraints reject (every failure, in one
    ///   `ValidationError/Code/multipleErrors` when there are several);
    ///   ``PersistenceError/Code/objectNotFound`` for a related record that is not saved or no
    ///   longer exists; ``PersistenceError/Code/saveFailed`` for a to-many relationship or a
    ///   one-to-one relationship with an inverse (set those through managed objects);
    ///   ``PersistenceError/Code/constraintConflict`` under ``MergePolicy/error`` for a record
    ///   that would break a uniqueness constraint, or under the others for one whose constrained
    ///   values a saved record of another entity of the hierarchy has;
    ///   ``PersistenceError/Code/noPersistentStore``; what the store throws.
    ///
    /// Corresponds to `-[NSManagedObjectContext executeRequest:error:]` with an
    /// `NSBatchInsertRequest`.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> [ManagedObjectID] {
        let model = persistentStoreCoordinator.managedObjectModel
        guard let entity = model.entity(named: request.entityName) else {
            throw ModelError(.unknownEntity, entity: request.entityName, message: "the model has no entity named '\(request.entityName)'")
        }
        guard !entity.isAbstract else {
            throw ModelError(.unknownEntity, entity: entity.name, message: "the entity '\(entity.name)' is abstract")
        }
        let store = try persistentStoreCoordinator.storeForNewObjects()
        guard !request.objects.isEmpty else { return [] }
        let plan = try BatchInsertPlan(entity: entity)
        var records: [[StoreValue]] = []
        records.reserveCapacity(request.objects.count)
        var failures: [any Error] = []
        var checkedValues = plan.defaultCheckedValues
        for (position, dictionary) in request.objects.enumerated() {
            var record = plan.defaultRecord
            for slot in checkedValues.indices { checkedValues[slot] = plan.defaultCheckedValues[slot] }
            let label = { "object \(position) of the batch insert into \(entity.name)" }
            for (key, raw) in dictionary {
                guard let property = entity.propertiesByName[key], !property.isTransient else {
                    throw KeyValueCodingError(.undefinedKey, key: key, className: entity.name, message: "\(label()): no stored property '\(key)'")
                }
                let index = property.index
                var objectValue: Any? = nil
                if isNull(raw) {
                    record[index] = .null
                } else if let attribute = property as? AttributeDescription {
                    let (converted, stored) = try batchValue(raw, of: attribute, label: label)
                    objectValue = converted
                    record[index] = stored
                } else if let relationship = property as? RelationshipDescription {
                    let id = try relatedID(raw, for: relationship, label: label(), storeIdentifier: store.identifier)
                    objectValue = id
                    record[index] = .toOne(id)
                }
                if let slot = plan.checkedSlot[index] { checkedValues[slot] = objectValue }
            }
            for (slot, index) in plan.checkedIndexes.enumerated() {
                do {
                    try ManagedObject.checkModelConstraints(
                        of: entity.properties[index], value: checkedValues[slot], entityName: entity.name, object: nil)
                } catch var error as ValidationError {
                    error.message = "\(label()): " + error.message
                    failures.append(error)
                }
            }
            records.append(record)
        }
        if let error = ValidationError.combining(failures) { throw error }

        let (ids, refreshed) = try persistentStoreCoordinator.performSave { () throws -> ([ManagedObjectID], [ManagedObjectID]) in
            // Records sharing a uniqueness constraint's values with a saved record or with each
            // other, made one by the merge policy (none under `.error`: the write refuses them).
            let upserts = try batchInsertUpserts(of: records, into: entity, store: store)
            let insertedPositions = upserts?.insertedPositions ?? Array(records.indices)
            // Keys claimed by the write's own transaction where the store can (one commit).
            let keyProvider = store as? any SaveKeyProviding
            defer { keyProvider?.discardSaveKeys() }
            let keys = try keyProvider?.saveKeys(for: entity, count: insertedPositions.count)
                ?? store.newPrimaryKeys(for: entity, count: insertedPositions.count)
            var newIDs = [ManagedObjectID?](repeating: nil, count: records.count)
            for (position, key) in zip(insertedPositions, keys) {
                newIDs[position] = ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: key)
            }
            var ids: [ManagedObjectID] = try records.indices.map { position in
                switch upserts?.targets[position] ?? .inserted(position) {
                case .saved(let id): return id
                case .inserted(let first):
                    guard let id = newIDs[first] else {
                        throw PersistenceError(.saveFailed, message: "the store gave fewer keys than the batch insert asked for")
                    }
                    return id
                }
            }
            var changes = SaveChanges()
            changes.inserted = insertedPositions.compactMap { position in
                newIDs[position].map { StoreRecord(objectID: $0, version: 1, values: upserts?.values[position] ?? records[position]) }
            }
            // What each related record's to-many inverse gains and loses, by relationship and key.
            var inverseChanges: [BatchInsertPlan.RelatedKey: BatchInsertPlan.InverseChange] = [:]
            func note(_ value: StoreValue, of relationship: RelationshipDescription, _ id: ManagedObjectID, gains: Bool, saved: Bool = false) {
                guard case .toOne(let target?) = value, let key = target.primaryKey else { return }
                let related = BatchInsertPlan.RelatedKey(relationship: relationship.index, primaryKey: key)
                if gains {
                    inverseChanges[related, default: .init(target: target, inverse: relationship.inverseRelationship)].gained.append(id)
                    if saved { inverseChanges[related]?.gainsSavedRecords = true }
                } else {
                    inverseChanges[related, default: .init(target: target, inverse: relationship.inverseRelationship)].lost.insert(id)
                }
            }
            let toOnes = entity.relationships.filter { !$0.isToMany }
            for record in changes.inserted {
                for relationship in toOnes { note(record.values[relationship.index], of: relationship, record.objectID, gains: true) }
            }
            var updated: [ManagedObjectID: StoreRecord] = [:]
            for update in upserts?.updates ?? [] {
                for relationship in toOnes where update.record.values[relationship.index] != update.values[relationship.index] {
                    note(update.record.values[relationship.index], of: relationship, update.record.objectID, gains: false)
                    note(update.values[relationship.index], of: relationship, update.record.objectID, gains: true, saved: true)
                }
                var record = update.record
                record.values = update.values
                updated[record.objectID] = record
            }
            // Every record the batch relates to must exist (those it unrelates from need not);
            // those whose inverse changes are read whole.
            let gainedTargets = inverseChanges.values.filter { !$0.gained.isEmpty }.map(\.target)
            let existing = try store.versions(of: gainedTargets)  // the versions the write checks again
            if let missing = gainedTargets.first(where: { existing[$0] == nil }) {
                throw PersistenceError(
                    .objectNotFound, message: "the batch relates records to \(missing), which does not exist", objectID: missing)
            }
            let current = try store.records(for: inverseChanges.values.filter { $0.inverse != nil }.map(\.target).filter { updated[$0] == nil })
            // One updated record per target, with every inverse that gains or loses members.
            for change in inverseChanges.values {
                guard let inverse = change.inverse else { continue }
                let target = change.target
                guard var record = updated[target] ?? current[target] else {
                    if change.gained.isEmpty { continue }  // unrelated from a record deleted meanwhile
                    throw PersistenceError(
                        .objectNotFound, message: "the batch relates records to \(target), which no longer exists", objectID: target)
                }
                var members: [ManagedObjectID] = []
                if inverse.index < record.values.count, case .toMany(let existing) = record.values[inverse.index] {
                    members = existing
                }
                if !change.lost.isEmpty { members.removeAll { change.lost.contains($0) } }
                if change.gainsSavedRecords {
                    // An upserted record may be a member already.
                    let present = Set(members)
                    members += change.gained.filter { !present.contains($0) }
                } else {
                    members += change.gained
                }
                record.values[inverse.index] = .toMany(members)
                updated[target] = record
            }
            let originalVersions = Dictionary(
                (upserts?.updates ?? []).map { ($0.record.objectID, $0.record.version) } + current.map { ($0.key, $0.value.version) },
                uniquingKeysWith: { first, _ in first })
            for (target, record) in updated {
                let version = originalVersions[target] ?? record.version
                changes.expectedVersions[target] = version
                changes.updated.append(StoreRecord(objectID: target, version: try Self.version(after: version, of: target), values: record.values))
            }
            // In history, a related record's update names the inverses that gained or lost
            // records, an upserted record's its attributes and to-one relationships.
            changes.history = SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)
            for change in inverseChanges.values {
                if let inverse = change.inverse { changes.history.updatedProperties[change.target, default: []].insert(inverse.name) }
            }
            for update in upserts?.updates ?? [] {
                for property in entity.properties where !property.isTransient && update.record.values[property.index] != update.values[property.index] {
                    changes.history.updatedProperties[update.record.objectID, default: []].insert(property.name)
                }
            }
            do {
                try store.apply(changes)
            } catch is SaveKeysTaken {
                // Another writer on the same file reserved those keys first: write with others.
                let fresh = try store.newPrimaryKeys(for: entity, count: insertedPositions.count).map {
                    ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: $0)
                }
                let replacements = Dictionary(
                    zip(insertedPositions.compactMap { newIDs[$0] }, fresh), uniquingKeysWith: { first, _ in first })
                changes.inserted = changes.inserted.map { $0.replacingIDs(replacements) }
                changes.updated = changes.updated.map { $0.replacingIDs(replacements) }
                ids = ids.map { replacements[$0] ?? $0 }
                try store.apply(changes)
            }
            // Sibling contexts' faults holding rows of the updated records must read them again.
            let changed = changes.updated.map(\.objectID)
            persistentStoreCoordinator.savedRecords.recordSave(changing: changed)
            return (ids, changed)
        }
        for id in refreshed {
            guard let object = registered[id], !object.hasChanges else { continue }
            refresh(object, mergeChanges: false)
        }
        return ids
    }

    /// A to-one relationship's target in a batch: a saved object's ID in the store.
    private func relatedID(
        _ value: Any, for relationship: RelationshipDescription, label: String, storeIdentifier: String
    ) throws -> ManagedObjectID {
        guard !relationship.isToMany, relationship.inverseRelationship.map({ $0.isToMany }) ?? true else {
            throw PersistenceError(
                .saveFailed,
                message: "\(label): a batch insert cannot set \(relationship.name), a "
                    + (relationship.isToMany ? "to-many relationship" : "one-to-one relationship with an inverse")
                    + "; relate those through managed objects")
        }
        let id: ManagedObjectID
        if let given = value as? ManagedObjectID {
            id = given
        } else if let object = asModelObject(value) as? ManagedObject {
            id = object.objectID
        } else {
            throw KeyValueCodingError(
                .typeMismatch, key: relationship.name, className: relationship.entity?.name ?? "",
                message: "\(label): \(relationship.name) expects a managed object or its ID, not \(type(of: value))")
        }
        guard let destination = relationship.destinationEntity, id.entity.isKindOf(entity: destination) else {
            throw KeyValueCodingError(
                .typeMismatch, key: relationship.name, className: relationship.entity?.name ?? "",
                message: "\(label): \(relationship.name) relates \(relationship.destinationEntity?.name ?? "?") objects, not \(id.entity.name)")
        }
        guard !id.isTemporaryID, id.storeIdentifier == storeIdentifier else {
            throw PersistenceError(
                .objectNotFound, message: "\(label): \(relationship.name) refers to \(id), which is not saved in the store", objectID: id)
        }
        return id
    }

    /// An attribute value of a batch converted to the attribute's type without loss, and as the
    /// store keeps it.
    func batchValue(_ value: Any, of attribute: AttributeDescription, label: () -> String) throws -> (Any, StoreValue) {
        func mismatch() -> KeyValueCodingError {
            KeyValueCodingError(
                .typeMismatch, key: attribute.name, className: attribute.entity?.name ?? "",
                message: "\(label()): \(attribute.name) expects \(attribute.valueType ?? Any.self), not \(type(of: value)) (\(value))")
        }
        // The common exact types first: a direct cast, no generic conversion.
        switch attribute.attributeType {
        case .double: if let double = value as? Double { return (double, .double(double)) }
        case .string: if let string = value as? String { return (string, .string(string)) }
        case .integer64:
            if let integer = value as? Int64 { return (integer, .integer(integer)) }
            if let integer = value as? Int { return (Int64(integer), .integer(Int64(integer))) }
        case .boolean: if let bool = value as? Bool { return (bool, .boolean(bool)) }
        case .date: if let date = value as? Date { return (date, .date(date)) }
        default: break
        }
        switch attribute.attributeType {
        case .integer16:
            guard let integer = convertKeyValue(value, to: Int16.self) else { throw mismatch() }
            return (integer, .integer(Int64(integer)))
        case .integer32:
            guard let integer = convertKeyValue(value, to: Int32.self) else { throw mismatch() }
            return (integer, .integer(Int64(integer)))
        case .integer64:
            guard let integer = convertKeyValue(value, to: Int64.self) else { throw mismatch() }
            return (integer, .integer(integer))
        case .double:
            guard let double = convertKeyValue(value, to: Double.self) else { throw mismatch() }
            return (double, .double(double))
        case .float:
            guard let float = convertKeyValue(value, to: Float.self) else { throw mismatch() }
            return (float, .double(Double(float)))
        case .string:
            guard let string = convertKeyValue(value, to: String.self) else { throw mismatch() }
            return (string, .string(string))
        case .transformable:
            guard let transformer = attribute.valueTransformer else {
                throw PersistenceError(.saveFailed, message: "\(label()): no value transformer is registered for \(attribute.name)")
            }
            return (value, .data(try transformer.transformedValue(value)))
        default:
            guard let converted = ManagedObject.convert(value, to: attribute),
                  let stored = StoreValue(attributeValue: converted, type: attribute.attributeType)
            else { throw mismatch() }
            return (converted, stored)
        }
    }
}

/// What every record of a batch insert into one entity starts from, worked out once.
private struct BatchInsertPlan {
    /// A related record: the relationship's index and the record's key in the store.
    struct RelatedKey: Hashable {
        var relationship: Int
        var primaryKey: Int64
    }

    /// What a related record's to-many inverse (if the relationship has one) gains and loses.
    struct InverseChange {
        var target: ManagedObjectID
        var inverse: RelationshipDescription?
        /// The records it gains, in the batch's order.
        var gained: [ManagedObjectID] = []
        /// Saved records that leave it (upserted records related elsewhere now).
        var lost: Set<ManagedObjectID> = []
        /// Whether some of `gained` are saved records, which may be members already.
        var gainsSavedRecords = false
    }

    /// A record with each attribute's default value, empty to-many relationships, nil elsewhere.
    var defaultRecord: [StoreValue]
    /// The properties with a constraint of the model to check (mandatory, bounds, lengths,
    /// patterns, counts), by property index.
    var checkedIndexes: [Int]
    /// For each property index, its position in ``checkedIndexes``.
    var checkedSlot: [Int?]
    /// The value each checked property has when a dictionary does not give it.
    var defaultCheckedValues: ContiguousArray<Any?>

    /// - Throws: ``PersistenceError/Code/saveFailed`` for a transformable attribute with a
    ///   default value and no registered transformer; what the transformer throws.
    init(entity: EntityDescription) throws {
        defaultRecord = [StoreValue](repeating: .null, count: entity.properties.count)
        for attribute in entity.attributes where !attribute.isTransient {
            guard let value = attribute.defaultValue else { continue }
            if attribute.attributeType == .transformable {
                guard let transformer = attribute.valueTransformer else {
                    throw PersistenceError(
                        .saveFailed, message: "no value transformer is registered for \(entity.name).\(attribute.name)'s default value")
                }
                defaultRecord[attribute.index] = .data(try transformer.transformedValue(value))
            } else if let stored = StoreValue(attributeValue: value, type: attribute.attributeType) {
                defaultRecord[attribute.index] = stored
            }
        }
        for relationship in entity.relationships where relationship.isToMany { defaultRecord[relationship.index] = .toMany([]) }
        checkedIndexes = entity.properties.filter { property in
            guard !property.isTransient else { return false }
            if let attribute = property as? AttributeDescription {
                return !attribute.isOptional || attribute.minimumValue != nil || attribute.maximumValue != nil
                    || attribute.minimumLength != nil || attribute.maximumLength != nil || attribute.regularExpression != nil
            }
            guard let relationship = property as? RelationshipDescription else { return false }
            return !relationship.isOptional || relationship.minCount > 0 || relationship.maxCount > 0
        }.map(\.index)
        checkedSlot = [Int?](repeating: nil, count: entity.properties.count)
        defaultCheckedValues = []
        for (slot, index) in checkedIndexes.enumerated() {
            checkedSlot[index] = slot
            let property = entity.properties[index]
            if let attribute = property as? AttributeDescription {
                defaultCheckedValues.append(attribute.defaultValue)
            } else if let relationship = property as? RelationshipDescription, relationship.isToMany {
                defaultCheckedValues.append([ManagedObject]())
            } else {
                defaultCheckedValues.append(nil)
            }
        }
    }
}
