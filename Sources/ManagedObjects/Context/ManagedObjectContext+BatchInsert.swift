import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// Inserts the request's records into the store that takes new objects, in one write, and
    /// returns their permanent IDs in the order of the request's dictionaries.
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
        /// For each related record (by relationship and key: every related record is in `store`),
        /// the positions of the new records its to-many inverse gains, if it has one.
        var gains: [BatchInsertPlan.RelatedKey: (target: ManagedObjectID, inverse: RelationshipDescription?, positions: [Int])] = [:]
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
                    if let key = id.primaryKey {
                        gains[BatchInsertPlan.RelatedKey(relationship: index, primaryKey: key), default: (id, relationship.inverseRelationship, [])]
                            .positions.append(position)
                    }
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

        let ids = try persistentStoreCoordinator.performSave { () throws -> [ManagedObjectID] in
            // Keys claimed by the write's own transaction where the store can (one commit).
            let keyProvider = store as? any SaveKeyProviding
            defer { keyProvider?.discardSaveKeys() }
            let keys = try keyProvider?.saveKeys(for: entity, count: records.count) ?? store.newPrimaryKeys(for: entity, count: records.count)
            var ids = keys.map { ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: $0) }
            var changes = SaveChanges()
            changes.inserted = zip(ids, records).map { StoreRecord(objectID: $0, version: 1, values: $1) }
            // Every related record must exist; those whose inverse gains members are read whole.
            let existing = try store.versions(of: gains.values.map(\.target))  // the versions the write checks again
            if let missing = gains.values.first(where: { existing[$0.target] == nil })?.target {
                throw PersistenceError(
                    .objectNotFound, message: "the batch relates records to \(missing), which does not exist", objectID: missing)
            }
            let current = try store.records(for: gains.values.filter { $0.inverse != nil }.map(\.target))
            // One updated record per target, with every inverse that gains members.
            var updated: [ManagedObjectID: StoreRecord] = [:]
            for gain in gains.values {
                guard let inverse = gain.inverse else { continue }
                let target = gain.target
                guard var record = updated[target] ?? current[target] else {
                    throw PersistenceError(
                        .objectNotFound, message: "the batch relates records to \(target), which no longer exists", objectID: target)
                }
                var members: [ManagedObjectID] = []
                if inverse.index < record.values.count, case .toMany(let existing) = record.values[inverse.index] {
                    members = existing
                }
                members += gain.positions.map { ids[$0] }
                record.values[inverse.index] = .toMany(members)
                updated[target] = record
            }
            for (target, record) in updated {
                changes.expectedVersions[target] = record.version
                let version = try Self.version(after: record.version, of: target)
                changes.updated.append(StoreRecord(objectID: target, version: version, values: record.values))
            }
            // In history, a related record's update names the inverses that gained the new records.
            changes.history = SaveChanges.HistoryDetails(author: transactionAuthor, contextName: name)
            for gain in gains.values { if let inverse = gain.inverse { changes.history.updatedProperties[gain.target, default: []].insert(inverse.name) } }
            do {
                try store.apply(changes)
            } catch is SaveKeysTaken {
                // Another writer on the same file reserved those keys first: write with others.
                let fresh = try store.newPrimaryKeys(for: entity, count: records.count).map {
                    ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: $0)
                }
                let replacements = Dictionary(zip(ids, fresh), uniquingKeysWith: { first, _ in first })
                changes.inserted = changes.inserted.map { $0.replacingIDs(replacements) }
                changes.updated = changes.updated.map { $0.replacingIDs(replacements) }
                ids = fresh
                try store.apply(changes)
            }
            // Sibling contexts' faults holding rows of the targets must read them again.
            persistentStoreCoordinator.savedRecords.recordSave(changing: changes.updated.map(\.objectID))
            return ids
        }
        for gain in gains.values where gain.inverse != nil {
            guard let object = registered[gain.target], !object.hasChanges else { continue }
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
