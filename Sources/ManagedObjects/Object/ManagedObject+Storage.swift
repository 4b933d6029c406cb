import Foundation
import ModelObjects

// The object's internal storage: initial values, conversion of values to the model's types,
// faults, and the state a context keeps on the object.

extension ManagedObject {
    /// The modeled property named `key`.
    ///
    /// - Throws: `KeyValueCodingError/Code/undefinedKey`.
    final func modeledProperty(forKey key: String) throws -> PropertyDescription {
        guard let property = entity.property(named: key) else {
            throw KeyValueCodingError(
                .undefinedKey, key: key, className: String(reflecting: type(of: self)),
                message: "the entity \(entity.name) has no property '\(key)'")
        }
        return property
    }

    /// `value` as the property stores it: attributes converted to their type without loss,
    /// to-one relationships as objects of the destination entity, to-many relationships as a set
    /// (or an array, for ordered ones) of such objects.
    ///
    /// - Throws: `KeyValueCodingError/Code/typeMismatch`.
    final func storedValue(_ value: Any?, for property: PropertyDescription) throws -> Any? {
        guard let value else { return nil }
        // Already the attribute's own type (the common case): nothing to convert or check.
        if let stored = entity.storedValueTypes[property.index], ObjectIdentifier(type(of: value)) == stored { return value }
        if isNull(value) { return nil }
        if let attribute = property as? AttributeDescription {
            if let converted = Self.convert(value, to: attribute) { return converted }
            throw mismatch(property, expected: attribute.valueType ?? Any.self, value: value)
        }
        guard let relationship = property as? RelationshipDescription else { return value }
        if !relationship.isToMany {
            return try relatedObject(value, for: relationship)
        }
        let elements: [Any]
        if let objects = value as? [ManagedObject] {
            elements = objects
        } else if let objects = value as? Set<ManagedObject> {
            elements = Array(objects)
        } else if let objects = value as? [Any] {
            elements = objects
        } else if let objects = value as? Set<AnyHashable> {
            elements = objects.map(\.base)
        } else {
            throw mismatch(property, expected: relationship.isOrdered ? [ManagedObject].self : Set<ManagedObject>.self, value: value)
        }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(elements.count)
        var seen = Set<ObjectIdentifier>()
        for element in elements {
            let object = try relatedObject(element, for: relationship)
            if seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
        }
        return relationship.isOrdered ? objects as Any : Set(objects) as Any
    }

    /// `value` as an object the relationship may hold.
    ///
    /// - Throws: `KeyValueCodingError/Code/typeMismatch` for a value that is not a managed
    ///   object of the destination entity; ``PersistenceError/Code/objectInWrongContext`` for an
    ///   object of another context.
    final func relatedObject(_ value: Any, for relationship: RelationshipDescription) throws -> ManagedObject {
        guard let object = asModelObject(value) as? ManagedObject,
              let destination = relationship.destinationEntity, object.entity.isKindOf(entity: destination)
        else {
            throw mismatch(relationship, expected: relationship.destinationEntity?.managedObjectClass ?? ManagedObject.self, value: value)
        }
        if let context = managedObjectContext, let other = object.managedObjectContext, context !== other {
            throw PersistenceError(
                .objectInWrongContext,
                message: "cannot relate \(entity.name).\(relationship.name) to an object of another context",
                objectID: object.objectID)
        }
        return object
    }

    private func mismatch(_ property: PropertyDescription, expected: Any.Type, value: Any) -> KeyValueCodingError {
        KeyValueCodingError(
            .typeMismatch, key: property.name, className: String(reflecting: type(of: self)),
            message: "\(entity.name).\(property.name) expects \(expected), not \(type(of: value)) (\(value))")
    }

    /// Converts `value` to the attribute's value type without loss; nil when it cannot.
    static func convert(_ value: Any, to attribute: AttributeDescription) -> Any? {
        switch attribute.attributeType {
        case .integer16: return convertKeyValue(value, to: Int16.self)
        case .integer32: return convertKeyValue(value, to: Int32.self)
        case .integer64: return convertKeyValue(value, to: Int64.self)
        case .double: return convertKeyValue(value, to: Double.self)
        case .float: return convertKeyValue(value, to: Float.self)
        case .decimal:
            if let decimal = convertKeyValue(value, to: Decimal.self) { return decimal }
            if let integer = convertKeyValue(value, to: Int64.self) { return Decimal(integer) }
            return convertKeyValue(value, to: Double.self).flatMap(exactDecimal)
        case .string: return convertKeyValue(value, to: String.self)
        case .boolean: return convertKeyValue(value, to: Bool.self)
        case .date: return convertKeyValue(value, to: Date.self)
        case .binaryData: return convertKeyValue(value, to: Data.self) ?? (value as? [UInt8]).map { Data($0) }
        case .uuid: return convertKeyValue(value, to: UUID.self)
        case .uri: return convertKeyValue(value, to: URL.self)
        default: return value
        }
    }

    /// A short description of a stored value for ``description``.
    static func describe(_ value: Any?, property: PropertyDescription) -> String {
        guard let value else { return "nil" }
        if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                if let fault = value as? RelationshipFault {
                    return fault.ids.map { "<relationship fault: \($0.count) objects>" } ?? "<relationship fault>"
                }
                let objects = (value as? [ManagedObject]) ?? (value as? Set<ManagedObject>).map(Array.init) ?? []
                return "<\(objects.count) object\(objects.count == 1 ? "" : "s")>"
            }
            return (value as? ManagedObject).map { "\($0.objectID)" } ?? "nil"
        }
        if let string = value as? String { return "\"\(string)\"" }
        return describeKeyValue(value)
    }

    // MARK: - State

    /// Whether the object was inserted into its context and not yet saved.
    ///
    /// Corresponds to `NSManagedObject.isInserted`.
    public final var isInserted: Bool { flags.contains(.inserted) }

    /// Whether the object has unsaved changes (and was neither inserted nor deleted since the
    /// last save).
    ///
    /// Corresponds to `NSManagedObject.isUpdated`.
    public final var isUpdated: Bool { flags.contains(.updated) }

    /// Whether the object will be deleted by the next save.
    ///
    /// Corresponds to `NSManagedObject.isDeleted`.
    public final var isDeleted: Bool { flags.contains(.deleted) }

    /// Whether the object is a fault: its values are not loaded; reading one loads them.
    ///
    /// Corresponds to `NSManagedObject.isFault`.
    public final var isFault: Bool { flags.contains(.fault) }

    /// Whether the object has changes not yet saved: inserted, deleted, or updated.
    ///
    /// Corresponds to `NSManagedObject.hasChanges`.
    public final var hasChanges: Bool { !flags.isDisjoint(with: [.inserted, .updated, .deleted]) }

    /// Whether the persistent values differ from those last read or saved.
    ///
    /// Corresponds to `NSManagedObject.hasPersistentChangedValues`.
    public final var hasPersistentChangedValues: Bool { !changedValues().isEmpty }

    /// Whether the relationship named `key` is not loaded yet; never fires a fault.
    ///
    /// An object that is itself a fault has faults for all its relationships. Of a loaded
    /// object, a to-many relationship is a fault until it is first read; a to-one relationship
    /// is a fault while the object it names is one (false when it names none). Unknown keys
    /// answer false.
    ///
    /// Corresponds to `-[NSManagedObject hasFaultForRelationshipNamed:]`.
    public final func hasFault(forRelationshipNamed key: String) -> Bool {
        guard let relationship = entity.relationshipsByName[key] else { return false }
        if isFault { return true }
        guard relationship.index < valueCount else { return false }
        let value = values[relationship.index]
        if relationship.isToMany { return value is RelationshipFault }
        return (value.flatMap { asModelObject($0) } as? ManagedObject)?.isFault ?? false
    }

    // MARK: - Access notifications and faults

    /// Announces a read of `key`; fires the object's fault if it is one. `nil` fires the fault
    /// without naming a key.
    ///
    /// A fault whose record is gone cannot fire here (the method does not throw): the object
    /// then reads as empty; the throwing accessors (``fireFault()``, key-value coding) report it.
    ///
    /// Corresponds to `-[NSManagedObject willAccessValueForKey:]`.
    public final func willAccessValue(forKey key: String?) {
        if isFault { try? fireFaultIfNeeded() }
    }

    /// Ends a read announced by ``willAccessValue(forKey:)``.
    ///
    /// Corresponds to `-[NSManagedObject didAccessValueForKey:]`.
    public final func didAccessValue(forKey key: String?) {}

    /// Loads the object's values if it is a fault.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` when its record was deleted (by
    ///   another context, or another process).
    public final func fireFault() throws {
        try fireFaultIfNeeded()
    }

    /// Writes `value` into the attribute slot at `index` when the object is loaded (not a fault)
    /// and `value` is exactly of the slot's type, as `storedValue(_:for:)` would leave it; whether
    /// it did (false: nothing written, the caller takes the general path).
    final func storeExactValue(_ value: Any, at index: Int) -> Bool {
        guard !flags.contains(.fault), index < valueCount, let kind = valueKind(at: index) else { return false }
        @inline(__always)
        func store<T>(_: T.Type) -> Bool {
            guard let exact = ExactExistential.load(value, as: T.self) else { return false }
            values.withUniqueSlots { slots, base in slots[index].store(exact, in: base) }
            return true
        }
        switch kind {
        case .int16: return store(Int16.self)
        case .int32: return store(Int32.self)
        case .int64: return store(Int64.self)
        case .double: return store(Double.self)
        case .float: return store(Float.self)
        case .boolean: return store(Bool.self)
        case .date: return store(Date.self)
        case .decimal: return store(Decimal.self)
        case .uuid: return store(UUID.self)
        case .string: return store(String.self)
        case .data: return store(Data.self)
        case .url: return store(URL.self)
        case .object, .any, .toMany, .orderedToMany: return false
        }
    }

    @inline(__always)
    final func fireFaultIfNeeded() throws {
        guard flags.contains(.fault) else { return }
        try fulfillFault()
    }

    /// Fires the object's fault if it is one; whether its storage then holds a value for every
    /// property. False for a fault that cannot fire (its record is gone or unreadable, or it has
    /// no context): its storage is empty, and code that is not asked for the object itself
    /// (inverse maintenance, delete rules, change tracking) leaves it alone instead of indexing it.
    /// `failure` receives the error the fault fired with.
    @inline(__always)
    final func loadsValues(failure: (any Error) -> Void = { _ in }) -> Bool {
        if flags.contains(.fault) {
            do { try fulfillFault() } catch { failure(error) }
        }
        return valueCount == entity.properties.count
    }

    private func fulfillFault() throws {
        guard let context = managedObjectContext else {
            throw PersistenceError(
                .objectNotFound, message: "the fault for \(objectID) has no context to load it from",
                objectID: objectID)
        }
        try context.fulfillFault(of: self)
    }
}

/// The state of a probe for overridden primitive accessors.
package enum PrimitiveProbe {
    case idle, probing, reachedStorage
}

extension ManagedObject {
    private static let primitiveOverrides = ClassEntityCache<[Bool]>()

    /// For each property index, whether the class answers ``primitiveValue(forKey:)`` for the
    /// attribute itself (the guide's custom primitive accessors) instead of from the storage.
    /// Found once per class and entity by calling it on this object, which must not be a fault.
    final func attributesWithCustomPrimitiveAccessors() -> [Bool] {
        Self.primitiveOverrides.value(for: type(of: self), entity: entity) {
            var overridden = [Bool](repeating: false, count: entity.properties.count)
            for attribute in entity.attributes {
                primitiveProbe = .probing
                _ = try? primitiveValue(forKey: attribute.name)
                overridden[attribute.index] = primitiveProbe != .reachedStorage
                primitiveProbe = .idle
            }
            return overridden
        }
    }

    /// A persistent attribute's value: from the storage, or through the class's own primitive
    /// accessor when it has one. `overrides` comes from ``attributesWithCustomPrimitiveAccessors()``.
    @inline(__always)
    final func attributeValue(_ attribute: PropertyDescription, overrides: [Bool]) -> Any? {
        if overrides[attribute.index] { return (try? primitiveValue(forKey: attribute.name)) ?? nil }
        return storedValue(at: attribute.index) ?? nil
    }
}

/// Stands in a to-many relationship's storage slot while its objects are not loaded: the IDs
/// of the related records, as the store gave them, or (for an object whose fault fired alone
/// from a store that leaves to-many relationships out) not even those yet. The first read of
/// the relationship replaces it with the objects (registered ones, or new faults); saving an
/// untouched relationship writes the IDs back as they are.
struct RelationshipFault: Hashable {
    /// The related records' IDs; nil until read (see ``ManagedObject/relationshipFaultIDs(_:at:)``).
    let ids: [ManagedObjectID]?
    /// Whether the relationship is ordered (`ids` in its order).
    let isOrdered: Bool

    init(ids: [ManagedObjectID], isOrdered: Bool) {
        self.ids = ids
        self.isOrdered = isOrdered
    }

    /// A fault for `owner`'s relationship whose IDs the store has not given yet. A storage
    /// slot holds it as nil (one word, no box; see `ToManyBox`) and does not keep the owner:
    /// two unread faults compare equal. They are only ever compared within one object (its
    /// values against its snapshot or its fetched row), where equal means "still unread".
    init(unreadFor owner: ManagedObject, isOrdered: Bool) {
        self.init(unreadOrdered: isOrdered)
    }

    /// An unread fault, as a nil to-many slot reads.
    init(unreadOrdered isOrdered: Bool) {
        ids = nil
        self.isOrdered = isOrdered
    }
}

extension ManagedObject {
    /// Loads the to-many relationship at `index` if it is still a relationship fault: its slot
    /// (and the snapshot's, when it holds the same fault) gets the related objects. Registers a
    /// fault for each related record not registered yet; reads nothing from the store.
    @inline(__always)
    final func resolveRelationshipFault(at index: Int) {
        // The to-many test first: reading any other slot leaves a compact row compact.
        guard index >= 0, index < entity.isToManyByIndex.count, entity.isToManyByIndex[index], index < valueCount,
              values[index] is RelationshipFault
        else { return }
        loadRelationshipFault(at: index)
    }

    /// Reads nothing from the store when the fault has its IDs; else reads them (one query).
    /// When that fails, the fault stays, the context records the failure (its next save throws
    /// it), and callers that would edit the relationship leave it alone.
    private func loadRelationshipFault(at index: Int) {
        guard let fault = values[index] as? RelationshipFault, let context,
              let relationship = entity.properties[index] as? RelationshipDescription
        else { return }
        let ids: [ManagedObjectID]
        do {
            ids = try relationshipFaultIDs(fault, at: index)
        } catch {
            context.relationshipReadFailures[ObjectIdentifier(self)] = (self, relationship.name, error)
            return
        }
        context.registered.reserveCapacity(context.registered.count + ids.count)
        let objects = ids.map { context.object(with: $0) }
        let loaded: Any = relationship.isOrdered ? objects : Set(objects)
        values[index] = loaded
        let read = RelationshipFault(ids: ids, isOrdered: fault.isOrdered)
        if let held = snapshot?[index] as? RelationshipFault, held == read { snapshot?[index] = loaded }
    }

    /// The IDs of `fault`, the relationship fault of the to-many relationship at `index`; when
    /// it has none yet, reads them from the store, and every slot holding that fault (the
    /// storage's, the snapshot's) then holds one with the IDs.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` when the object has no context;
    ///   what the store throws.
    final func relationshipFaultIDs(_ fault: RelationshipFault, at index: Int) throws -> [ManagedObjectID] {
        if let ids = fault.ids { return ids }
        guard let context, let relationship = entity.properties[index] as? RelationshipDescription else {
            throw PersistenceError(
                .objectNotFound,
                message: "the relationship \(entity.name).\(entity.properties[index].name) of \(objectID) has no context to load it from",
                objectID: objectID)
        }
        let ids = try context.relatedObjectIDs(of: self, through: relationship)
        adoptRelationshipFaultIDs(ids, of: fault, at: index)
        return ids
    }

    /// Gives `fault`, an unread relationship fault at `index`, the IDs read for it: every slot
    /// holding it (the storage's, the snapshot's) then holds one with the IDs.
    final func adoptRelationshipFaultIDs(_ ids: [ManagedObjectID], of fault: RelationshipFault, at index: Int) {
        let read = RelationshipFault(ids: ids, isOrdered: fault.isOrdered)
        if index < valueCount, let held = values[index] as? RelationshipFault, held == fault { values[index] = read }
        if let held = snapshot?[index] as? RelationshipFault, held == fault { snapshot?[index] = read }
    }
}
