import Foundation
import ModelObjects

/// A change announced with `willChange…` on a modeled key, waiting for its `didChange…`.
package struct PendingManagedChange {
    let key: String
    let property: PropertyDescription
    /// The value before the change, for attributes, to-one relationships and whole replacements
    /// of to-many relationships.
    var oldValue: Any?
    /// For to-many edits announced as a mutation: the objects it removes (known before it).
    var removed: [ManagedObject]
    /// For to-many edits announced as a mutation: the objects a union adds.
    var added: [ManagedObject]
    /// For ordered insertions and replacements: where the new objects will be.
    var insertedIndexes: IndexSet?
    /// Whether the change replaces the whole value (`oldValue` holds it).
    var isWhole: Bool
}

/// What reverses one recorded change.
enum ManagedChangeReversal {
    /// Put the value back.
    case value(Any?)
    /// Take `added` out of a to-many relationship and put `removed` back.
    case toMany(added: [ManagedObject], removed: [ManagedObject])
    /// Take one object out of a to-many relationship: `toMany(added: [object], removed: [])`
    /// without an array, for inverse maintenance, which adds one object at a time.
    case addedOne(ManagedObject)
}

extension ManagedObject {
    /// Calls `body` with the object's values, borrowed in place: their buffer is not retained
    /// and released for the call, an atomic write each to a header that is usually out of the
    /// cache when a save walks thousands of objects. `body` must not write the object's values
    /// (nor run code that could), and takes a copy of anything it keeps.
    @inline(__always)
    final func withValuesUnretained<R>(_ body: (borrowing PropertyValues) throws -> R) rethrows -> R {
        if valueStorage.isCompact && !flags.contains(.fault) { expandCompactRow() }
        guard let storage = valueStorage.buffer else { return try body(PropertyValues()) }
        // SAFETY: `values` holds the buffer for the call: nothing writes it meanwhile (the
        // caller's promise), and `self` is alive. The values made here are a temporary the
        // optimizer sees the whole life of, so their reference to the guaranteed buffer is
        // neither retained nor released.
        return try storage._withUnsafeGuaranteedRef { buffer in try body(PropertyValues(buffer: buffer)) }
    }

    // MARK: - Tracking will/did-change

    /// Records the state before a change of a modeled key.
    package func trackWillChange(forKey key: String, change: TrackedChange) {
        // A fault that cannot fire has nothing to change: the write that follows throws (key-value
        // coding) or is never saved (see `setManagedValue`), so nothing is recorded.
        guard let property = entity.propertiesByName[key], loadsValues() else { return }
        var pending = PendingManagedChange(
            key: key, property: property, oldValue: nil, removed: [], added: [], insertedIndexes: nil, isWhole: false)
        if let relationship = property as? RelationshipDescription, relationship.isToMany {
            resolveRelationshipFault(at: relationship.index)
            switch change {
            case .setting, .setMutation(.set, _):
                pending.oldValue = values[relationship.index]
                pending.isWhole = true
            case .setMutation(.union, let objects):
                pending.added = Self.managedObjects(in: objects).filter { !toManyContains($0, at: relationship.index) }
            case .setMutation(.minus, let objects):
                pending.removed = Self.managedObjects(in: objects).filter { toManyContains($0, at: relationship.index) }
            case .setMutation(.intersect, let objects):
                let kept = Set(Self.managedObjects(in: objects).map(ObjectIdentifier.init))
                pending.removed = toManyObjects(at: relationship.index).filter { !kept.contains(ObjectIdentifier($0)) }
            case .setMutation:
                pending.oldValue = values[relationship.index]
                pending.isWhole = true
            case .ordered(let kind, let indexes):
                switch kind {
                case .insertion:
                    pending.insertedIndexes = indexes
                case .removal:
                    let current = toManyObjects(at: relationship.index)
                    pending.removed = indexes.filter { current.indices.contains($0) }.map { current[$0] }
                case .replacement:
                    let current = toManyObjects(at: relationship.index)
                    pending.removed = indexes.filter { current.indices.contains($0) }.map { current[$0] }
                    pending.insertedIndexes = indexes
                default:
                    pending.oldValue = values[relationship.index]
                    pending.isWhole = true
                }
            }
        } else if property is RelationshipDescription {
            pending.oldValue = values[property.index]
            pending.isWhole = true
        } else {
            pending.oldValue = (try? primitiveValue(forKey: key)) ?? nil
            pending.isWhole = true
        }
        pendingChanges.append(pending)
    }

    /// Completes the change announced for `key`: keeps inverse relationships, records the change
    /// in the context and registers its reversal with the undo manager.
    package func trackDidChange(forKey key: String) {
        guard let position = pendingChanges.lastIndex(where: { $0.key == key }) else { return }
        let pending = position == pendingChanges.count - 1 ? pendingChanges.removeLast() : pendingChanges.remove(at: position)
        guard let relationship = pending.property as? RelationshipDescription else {
            completeChange(of: pending.property, reversal: .value(pending.oldValue))
            return
        }
        let (added, removed) = relationshipDelta(of: relationship, pending: pending)
        if added.isEmpty && removed.isEmpty && !pending.isWhole { return }
        completeRelationshipChange(
            relationship, added: added, removed: removed,
            reversal: pending.isWhole ? .value(pending.oldValue) : .toMany(added: added, removed: removed))
    }

    /// Keeps the inverses of a changed relationship, then records the change.
    final func completeRelationshipChange(
        _ relationship: RelationshipDescription, added: [ManagedObject], removed: [ManagedObject],
        reversal: @autoclosure () -> ManagedChangeReversal
    ) {
        if inverseMaintenanceDepth == 0, let inverse = relationship.inverseRelationship {
            for target in removed { Self.unlink(target, through: inverse, from: self) }
            for target in added { Self.link(target, through: inverse, to: self) }
        }
        completeChange(of: relationship, reversal: reversal())
    }

    /// Records a completed change in the context, which registers its reversal for undo. The
    /// reversal is made only when there is an undo manager, its one user.
    @inline(__always)
    final func completeChange(of property: PropertyDescription, reversal: @autoclosure () -> ManagedChangeReversal) {
        guard changeRecordingDepth == 0, let context else { return }
        context.recordChange(of: self, property: property, reversal: context.undoManager == nil ? .value(nil) : reversal())
    }

    /// The objects a completed relationship change added and removed.
    private func relationshipDelta(
        of relationship: RelationshipDescription, pending: PendingManagedChange
    ) -> (added: [ManagedObject], removed: [ManagedObject]) {
        if !relationship.isToMany {
            let old = pending.oldValue as? ManagedObject
            let new = holdsValue(at: relationship.index) ? values[relationship.index] as? ManagedObject : nil
            if old === new { return ([], []) }
            return (new.map { [$0] } ?? [], old.map { [$0] } ?? [])
        }
        if pending.isWhole {
            let old = Self.objects(inCollection: pending.oldValue)
            let new = toManyObjects(at: relationship.index)
            let oldIDs = Set(old.map(ObjectIdentifier.init)), newIDs = Set(new.map(ObjectIdentifier.init))
            return (new.filter { !oldIDs.contains(ObjectIdentifier($0)) }, old.filter { !newIDs.contains(ObjectIdentifier($0)) })
        }
        var added = pending.added
        if let indexes = pending.insertedIndexes {
            let current = toManyObjects(at: relationship.index)
            added += indexes.filter { current.indices.contains($0) }.map { current[$0] }
        }
        return (added, pending.removed)
    }

    /// The objects of a to-many slot, in order for ordered relationships.
    final func toManyObjects(at index: Int) -> [ManagedObject] {
        resolveRelationshipFault(at: index)
        return index < valueCount ? Self.objects(inCollection: values[index]) : []
    }

    /// Whether a to-many slot holds `object`: O(1) for sets, O(n) for ordered relationships.
    final func toManyContains(_ object: ManagedObject, at index: Int) -> Bool {
        resolveRelationshipFault(at: index)
        guard index < valueCount else { return false }
        switch values[index] {
        case let set as Set<ManagedObject>: return set.contains(object)
        case let array as [ManagedObject]: return array.contains { $0 === object }
        default: return false
        }
    }

    /// The number of objects in a to-many relationship's stored collection; 0 for anything else.
    static func count(inCollection value: Any?) -> Int {
        if let array = value as? [ManagedObject] { return array.count }
        if let set = value as? Set<ManagedObject> { return set.count }
        return 0
    }

    /// The objects of a to-many relationship's stored collection; empty for anything else.
    static func objects(inCollection value: Any?) -> [ManagedObject] {
        if let array = value as? [ManagedObject] { return array }
        if let set = value as? Set<ManagedObject> { return Array(set) }
        return []
    }

    private static func managedObjects(in objects: Set<AnyHashable>) -> [ManagedObject] {
        objects.compactMap { asModelObject($0.base) as? ManagedObject }
    }

    // MARK: - Inverse relationships

    /// Makes `target`'s `inverse` relationship include `owner`. When `inverse` is to-one and
    /// already names another object, that object first loses `target`. A target whose fault
    /// cannot fire is left alone (see ``loadsInverse(of:through:)``).
    static func link(_ target: ManagedObject, through inverse: RelationshipDescription, to owner: ManagedObject) {
        guard target.loadsInverse(of: owner, through: inverse) else { return }
        if inverse.isToMany {
            if target.insertUnobserved(owner, into: inverse) { return }
            if target.toManyContains(owner, at: inverse.index) { return }
            target.editToMany(inverse, adding: [owner], removing: [])
            return
        }
        let current = target.values[inverse.index] as? ManagedObject
        if current === owner { return }
        if let current, let forward = inverse.inverseRelationship {
            unlink(current, through: forward, from: target)
        }
        target.editToOne(inverse, to: owner)
    }

    /// Adds `object` to the unordered to-many `relationship` of an object nobody observes and
    /// whose class has no collection accessors of its own, when its objects are loaded: what
    /// `toManyContains` and `editToMany` do together, with one lookup in the set and one cast
    /// out of its slot. False when it did nothing because another path must do it.
    private final func insertUnobserved(_ object: ManagedObject, into relationship: RelationshipDescription) -> Bool {
        let index = relationship.index
        guard !relationship.isOrdered, !hasObservationState,
              !ManagedObjectCollectionAccessors.classHasOwnAccessors(type(of: self), for: relationship)
        else { return false }
        // The slot's value edited in place, without boxing through the subscript.
        let outcome = values.withUniqueToMany(at: index) { value -> Bool? in
            // Exactly a set (the usual case): inserted into in place, without casting it out.
            if let inserted = ExactExistential.withValue(in: &value, as: Set<ManagedObject>.self, { $0.insert(object).inserted }) {
                return inserted
            }
            guard var set = value as? Set<ManagedObject> else { return nil }
            // The slot lets go of the set while it changes, so that it is not copied.
            value = nil
            let inserted = set.insert(object).inserted
            value = set
            return inserted
        }
        guard let inserted = outcome ?? nil else { return false }
        guard inserted else { return true }
        // What `completeRelationshipChange` does with the inverse maintained: records the change
        // (the arrays of the reversal are made only for an undo manager).
        completeChange(of: relationship, reversal: .addedOne(object))
        return true
    }

    /// Takes `owner` out of `target`'s `inverse` relationship, if it is there. A target whose
    /// fault cannot fire is left alone (see ``loadsInverse(of:through:)``).
    static func unlink(_ target: ManagedObject, through inverse: RelationshipDescription, from owner: ManagedObject) {
        guard target.loadsInverse(of: owner, through: inverse) else { return }
        if inverse.isToMany {
            guard target.toManyContains(owner, at: inverse.index) else { return }
            target.editToMany(inverse, adding: [], removing: [owner])
            return
        }
        guard target.values[inverse.index] as? ManagedObject === owner else { return }
        target.editToOne(inverse, to: nil)
    }

    /// Fires the faults of the objects `stored` newly relates through `relationship`, whose
    /// inverses the change will edit: an object whose record is gone (or cannot be read) is
    /// found before anything changes, instead of when the change is saved.
    ///
    /// - Throws: What firing a fault throws (``PersistenceError/Code/objectNotFound``).
    final func loadNewlyRelated(_ stored: Any?, through relationship: RelationshipDescription) throws {
        guard relationship.inverseRelationship != nil, let stored else { return }
        if !relationship.isToMany {
            guard let object = stored as? ManagedObject, object.isFault else { return }
            if relationship.index < valueCount, values[relationship.index] as? ManagedObject === object { return }
            try object.fireFaultIfNeeded()
            return
        }
        let faults = Self.objects(inCollection: stored).filter(\.isFault)
        guard !faults.isEmpty else { return }
        let current = Set(toManyObjects(at: relationship.index).map(ObjectIdentifier.init))
        for object in faults where !current.contains(ObjectIdentifier(object)) { try object.fireFaultIfNeeded() }
    }

    /// Loads the object, whose `inverse` relationship an edit of `owner` keeps; whether it can
    /// be edited. A fault whose record is gone (deleted by another context, or a dangling
    /// reference in the store) is left alone: there is nothing of it to save, and the owner's
    /// own change still goes through. A fault that cannot be read for another reason (the
    /// store failed, its row is damaged) is left alone too, and the failure is recorded for the
    /// owner: the context's next save throws it, so that no half-made edit is saved.
    final func loadsInverse(of owner: ManagedObject, through inverse: RelationshipDescription) -> Bool {
        loadsValues { error in
            guard !(PersistenceError.Code.objectNotFound ~= error), let context = owner.context else { return }
            let forward = inverse.inverseRelationship?.name ?? inverse.name
            context.relationshipReadFailures[ObjectIdentifier(owner)] = (owner, forward, error)
        }
    }

    /// Sets a to-one relationship with notifications, without maintaining its inverse.
    final func editToOne(_ relationship: RelationshipDescription, to object: ManagedObject?) {
        inverseMaintenanceDepth += 1
        defer { inverseMaintenanceDepth -= 1 }
        willChangeValue(forKey: relationship.name)
        values[relationship.index] = object
        didChangeValue(forKey: relationship.name)
    }

    /// Edits a to-many relationship with notifications, without maintaining its inverse:
    /// through the class's own collection accessors when it has them, else in the storage.
    final func editToMany(_ relationship: RelationshipDescription, adding added: [ManagedObject], removing removed: [ManagedObject]) {
        inverseMaintenanceDepth += 1
        defer { inverseMaintenanceDepth -= 1 }
        let key = relationship.name
        if ManagedObjectCollectionAccessors.classHasOwnAccessors(type(of: self), for: relationship) {
            if relationship.isOrdered, let proxy = try? mutableArrayValue(forKey: key) {
                for object in removed {
                    if let index = toManyObjects(at: relationship.index).firstIndex(where: { $0 === object }) {
                        try? proxy.remove(at: index)
                    }
                }
                if !added.isEmpty { try? proxy.append(contentsOf: added) }
            } else if let proxy = try? mutableSetValue(forKey: key) {
                if !removed.isEmpty { try? proxy.subtract(removed) }
                if !added.isEmpty { try? proxy.formUnion(added) }
            }
            return
        }
        if !removed.isEmpty { removeFromToMany(relationship, removed) }
        if !added.isEmpty { addToToMany(relationship, added, at: nil) }
    }

    /// Removes objects from a to-many relationship with the precise notification.
    final func removeFromToMany(_ relationship: RelationshipDescription, _ objects: [ManagedObject]) {
        let key = relationship.name, index = relationship.index
        resolveRelationshipFault(at: index)
        // Its IDs could not be read: editing an unknown collection would lose its members (the
        // context's next save reports the failure). No storage: a fault that cannot fire.
        guard index < valueCount, !(values[index] is RelationshipFault) else { return }
        if relationship.isOrdered {
            let current = toManyObjects(at: index)
            let removedIDs = Set(objects.map(ObjectIdentifier.init))
            let indexes = IndexSet(current.indices.filter { removedIDs.contains(ObjectIdentifier(current[$0])) })
            guard !indexes.isEmpty else { return }
            willChange(.removal, valuesAt: indexes, forKey: key)
            var array = current
            values[index] = nil
            for position in indexes.reversed() { array.remove(at: position) }
            values[index] = array
            didChange(.removal, valuesAt: indexes, forKey: key)
        } else if !hasObservationState && !ManagedObjectCollectionAccessors.classHasOwnAccessors(type(of: self), for: relationship) {
            // Nobody observes: edit and record directly, without building the notification's set.
            var set = (values[index] as? Set<ManagedObject>) ?? []
            values[index] = nil
            let removed = objects.filter { set.remove($0) != nil }
            values[index] = set
            guard !removed.isEmpty else { return }
            completeRelationshipChange(relationship, added: [], removed: removed, reversal: .toMany(added: [], removed: removed))
        } else {
            let objectSet = Set<AnyHashable>(objects.map { AnyHashable($0) })
            willChangeValue(forKey: key, withSetMutation: .minus, using: objectSet)
            var set = (values[index] as? Set<ManagedObject>) ?? []
            values[index] = nil
            for object in objects { set.remove(object) }
            values[index] = set
            didChangeValue(forKey: key, withSetMutation: .minus, using: objectSet)
        }
    }

    /// Adds objects to a to-many relationship (at `position` for ordered ones, else at the end)
    /// with the precise notification.
    final func addToToMany(_ relationship: RelationshipDescription, _ objects: [ManagedObject], at position: Int?) {
        let key = relationship.name, index = relationship.index
        resolveRelationshipFault(at: index)
        guard index < valueCount, !(values[index] is RelationshipFault) else { return }  // as in removeFromToMany
        if relationship.isOrdered {
            var array = toManyObjects(at: index)
            let present = Set(array.map(ObjectIdentifier.init))
            let new = objects.filter { !present.contains(ObjectIdentifier($0)) }
            guard !new.isEmpty else { return }
            let start = min(max(position ?? array.count, 0), array.count)
            let indexes = IndexSet(integersIn: start..<(start + new.count))
            willChange(.insertion, valuesAt: indexes, forKey: key)
            values[index] = nil
            array.insert(contentsOf: new, at: start)
            values[index] = array
            didChange(.insertion, valuesAt: indexes, forKey: key)
        } else if !hasObservationState && !ManagedObjectCollectionAccessors.classHasOwnAccessors(type(of: self), for: relationship) {
            var set = (values[index] as? Set<ManagedObject>) ?? []
            values[index] = nil
            let added = objects.filter { set.insert($0).inserted }
            values[index] = set
            guard !added.isEmpty else { return }
            completeRelationshipChange(relationship, added: added, removed: [], reversal: .toMany(added: added, removed: []))
        } else {
            let objectSet = Set<AnyHashable>(objects.map { AnyHashable($0) })
            willChangeValue(forKey: key, withSetMutation: .union, using: objectSet)
            var set = (values[index] as? Set<ManagedObject>) ?? []
            values[index] = nil
            for object in objects { set.insert(object) }
            values[index] = set
            didChangeValue(forKey: key, withSetMutation: .union, using: objectSet)
        }
    }

    // MARK: - Reversing changes (undo, redo)

    /// Applies a recorded reversal, with notifications; inverses are not maintained, since the
    /// other side's change was recorded and is reversed on its own.
    final func reverse(_ reversal: ManagedChangeReversal, of property: PropertyDescription) {
        inverseMaintenanceDepth += 1
        defer { inverseMaintenanceDepth -= 1 }
        switch reversal {
        case .value(let old):
            willChangeValue(forKey: property.name)
            if property is AttributeDescription {
                try? setPrimitiveValue(old, forKey: property.name)
            } else if property.index < valueCount {
                values[property.index] = old
            }
            didChangeValue(forKey: property.name)
        case .toMany(let added, let removed):
            guard let relationship = property as? RelationshipDescription else { return }
            if !added.isEmpty { removeFromToMany(relationship, added) }
            if !removed.isEmpty { addToToMany(relationship, removed, at: nil) }
        case .addedOne(let object):
            guard let relationship = property as? RelationshipDescription else { return }
            removeFromToMany(relationship, [object])
        }
    }

    // MARK: - Changed and committed values

    /// The persistent properties whose values differ from those last read from or saved to the
    /// store, with their current values (`NSNull` for nil). For an object never saved, every
    /// persistent property that is not nil or empty. Never fires a fault.
    ///
    /// Corresponds to `-[NSManagedObject changedValues]`.
    public final func changedValues() -> [String: Any] {
        guard !isFault else { return [:] }
        var changes: [String: Any] = [:]
        let overrides = attributesWithCustomPrimitiveAccessors()
        // Not written since the snapshot was taken: they still share one buffer.
        if let snapshot, values.isIdentical(to: snapshot), !overrides.contains(true) { return [:] }
        for property in entity.properties where !property.isTransient {
            let current = attributeValue(property, overrides: overrides)
            if current is RelationshipFault { continue }
            if let snapshot {
                if !Self.storedValuesEqual(current, snapshot[property.index]) {
                    changes[property.name] = current ?? NSNull()
                }
            } else if let current, !Self.isEmptyCollection(current) {
                changes[property.name] = current
            }
        }
        return changes
    }

    /// The values of persistent properties as last read from or saved to the store (`NSNull`
    /// for nil); `keys` nil means every persistent property. Transient keys are left out, and so
    /// is everything for an object never saved. Never fires a fault.
    ///
    /// Corresponds to `-[NSManagedObject committedValuesForKeys:]`.
    public final func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard let snapshot else { return [:] }
        let properties = keys.map { $0.compactMap { entity.propertiesByName[$0] } } ?? entity.properties
        var committed: [String: Any] = [:]
        for property in properties where !property.isTransient {
            let value = snapshot[property.index]
            if let fault = value as? RelationshipFault {
                // Not read yet: its objects (registered ones, or new faults), without loading them.
                guard let context, let ids = try? relationshipFaultIDs(fault, at: property.index) else { continue }
                let objects = ids.map { context.object(with: $0) }
                committed[property.name] = fault.isOrdered ? objects as Any : Set(objects) as Any
                continue
            }
            committed[property.name] = value ?? NSNull()
        }
        return committed
    }

    /// The values to remember as committed: the storage, with attributes read through
    /// ``primitiveValue(forKey:)`` so that classes keeping one in their own property are seen.
    /// `overrides` is ``attributesWithCustomPrimitiveAccessors()``, looked up when nil.
    final func currentSnapshot(overrides: [Bool]? = nil) -> PropertyValues {
        var snapshot = values
        let overrides = overrides ?? attributesWithCustomPrimitiveAccessors()
        for attribute in entity.attributes where overrides[attribute.index] {
            snapshot[attribute.index] = attributeValue(attribute, overrides: overrides)
        }
        return snapshot
    }

    /// Whether two stored values are equal: objects by identity, collections by their objects,
    /// other values by `Hashable` equality.
    static func storedValuesEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (let lhs?, let rhs?):
            if lhs is RelationshipFault || rhs is RelationshipFault { return sameRelatedObjects(lhs, rhs) }
            if let a = asModelObject(lhs) { return a === asModelObject(rhs) }
            if let a = lhs as? [ManagedObject], let b = rhs as? [ManagedObject] {
                return a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
            }
            if let a = lhs as? Set<ManagedObject>, let b = rhs as? Set<ManagedObject> { return a == b }
            if let a = lhs as? AnyHashable, let b = rhs as? AnyHashable { return a == b }
            return false
        }
    }

    /// Whether two to-many values, one of them at least a relationship fault, relate the same
    /// records: in the same order for an ordered relationship.
    private static func sameRelatedObjects(_ lhs: Any, _ rhs: Any) -> Bool {
        let lhsFault = lhs as? RelationshipFault, rhsFault = rhs as? RelationshipFault
        if let lhsFault, let rhsFault, lhsFault == rhsFault { return true }
        // A fault whose IDs are not read equals its copies only: what it relates is not known.
        if lhsFault.map({ $0.ids == nil }) == true || rhsFault.map({ $0.ids == nil }) == true { return false }
        func ids(_ value: Any) -> [ManagedObjectID] {
            (value as? RelationshipFault)?.ids ?? objects(inCollection: value).map(\.objectID)
        }
        let ordered = (lhs as? RelationshipFault)?.isOrdered ?? (rhs as? RelationshipFault)?.isOrdered ?? false
        return ordered ? ids(lhs) == ids(rhs) : Set(ids(lhs)) == Set(ids(rhs))
    }

    static func isEmptyCollection(_ value: Any) -> Bool {
        if let array = value as? [ManagedObject] { return array.isEmpty }
        if let set = value as? Set<ManagedObject> { return set.isEmpty }
        return false
    }
}
