import Foundation
import ModelObjects

extension ManagedObjectContext {
    // MARK: - Making a child context

    /// Creates a child context: a context whose store is `parent`.
    ///
    /// The child sees the parent's objects as they are now, unsaved changes included: its
    /// fetches (objects, counts, IDs, dictionaries) and its faults read the parent's inserted,
    /// updated and deleted objects over the store's records. Its ``save()`` pushes its changes
    /// into the parent (one undoable change in the parent's undo manager, delete rules and
    /// inverse relationships applied there, validation run first) and writes nothing to the
    /// store; the parent's save does. Dropping the child, or calling ``rollback()`` or
    /// ``reset()`` on it, leaves the parent untouched: the editing scratch pad.
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(parent: context)
    /// let draft = try #require(try editor.existingObject(with: employee.objectID) as? Employee)
    /// draft.salary = 60_000
    /// try editor.save()        // the parent's employee has the new salary, the store not yet
    /// try context.save()       // now the store has it
    /// ```
    ///
    /// Objects inserted in a child keep their temporary IDs, which name the parent's objects
    /// after the child's save; when the root context saves, its live children see the objects
    /// under their permanent IDs. Chains may be several levels deep.
    ///
    /// A child belongs to its parent's isolation domain: neither is `Sendable`, so the
    /// compiler keeps both in one task (or on one actor). To edit in another task, make a
    /// context on the coordinator there and merge its ``didSaveNotification``.
    ///
    /// Corresponds to `NSManagedObjectContext(concurrencyType:)` followed by setting
    /// `parent`; differences: the parent is given once, at creation; confinement is the
    /// compiler's (no `perform(_:)`); the child's ``persistentStoreCoordinator`` is the
    /// root's; a conflict with the parent's changes is found by comparing values, not versions.
    ///
    /// - Parameters:
    ///   - parent: The context the child saves into.
    ///   - notificationCenter: Where the child posts its notifications; the parent's when nil.
    public convenience init(parent: ManagedObjectContext, notificationCenter: NotificationCenter? = nil) {
        self.init(coordinator: parent.persistentStoreCoordinator, notificationCenter: notificationCenter ?? parent.notificationCenter)
        chain.parentStore = ParentContextStore(context: parent)
        parent.chain.children.removeAll { $0.context == nil }
        parent.chain.children.append(WeakContext(context: self))
    }

    /// The context this one saves into; nil for a context of a coordinator.
    ///
    /// Corresponds to `NSManagedObjectContext.parent`.
    public var parent: ManagedObjectContext? { chain.parentStore?.context }

    // MARK: - Reading from the parent or the store

    /// The record a fault of `id` fires with: the parent's, or the store's.
    func sourceFaultRecord(for id: ManagedObjectID) throws -> StoreRecord? {
        if let parentStore = chain.parentStore { return try parentStore.record(for: id) }
        return try persistentStoreCoordinator.store(for: id)?.faultRecord(for: id)
    }

    /// The whole record of `id`: the parent's, or the store's.
    func sourceRecord(for id: ManagedObjectID) throws -> StoreRecord? {
        if let parentStore = chain.parentStore { return try parentStore.record(for: id) }
        return try persistentStoreCoordinator.store(for: id)?.record(for: id)
    }

    /// The IDs a to-many relationship of the record of `id` holds: the parent's, or the store's.
    func sourceRelatedObjectIDs(of id: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        if let parentStore = chain.parentStore { return try parentStore.relatedObjectIDs(of: id, through: relationship) }
        guard let store = persistentStoreCoordinator.store(for: id) else { return [] }
        return try store.relatedObjectIDs(of: id, through: relationship) ?? []
    }

    /// What a fetch reads: the parent's merged records, or each store's.
    func sourceFetchResults(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        if let parentStore = chain.parentStore { return [try parentStore.fetch(request)] }
        return try persistentStoreCoordinator.persistentStores.map { try $0.fetch(request) }
    }

    /// What a fetch reads, as one result.
    func sourceFetchResult(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let results = try sourceFetchResults(request)
        if results.count == 1, let only = results.first { return only }
        return StoreFetchResult(
            records: results.flatMap(\.records), appliedPredicate: results.allSatisfy(\.appliedPredicate), appliedSortAndLimit: false)
    }

    /// Whether the store answers a request alone for this context: always for a context of a
    /// coordinator, for a child only while no context up its chain has unsaved changes.
    var storeAnswersForChain: Bool {
        !(chain.parentStore?.chainHasChanges ?? false)
    }

    // MARK: - Objects as records

    /// A registered, loaded object as a record its child contexts read: its current values,
    /// relationships to objects it deleted left out, to-many relationships never read left out
    /// (``StoreRecord/omittedRelationships``).
    ///
    /// - Throws: What a value transformer throws.
    func chainRecord(of object: ManagedObject) throws -> StoreRecord {
        let overrides = object.attributesWithCustomPrimitiveAccessors()
        let (values, omitted) = try chainValues(of: object, skippingDeleted: true) { property in
            object.attributeValue(property, overrides: overrides)
        }
        return StoreRecord(objectID: object.objectID, version: object.snapshotVersion, values: values, omittedRelationships: omitted)
    }

    /// An object's values (from `value`) as records hold them; relationships by ID, temporary
    /// ones included. Unread to-many relationships are left out (their indexes in `omitted`).
    private func chainValues(
        of object: ManagedObject, skippingDeleted: Bool, value: (PropertyDescription) -> Any?
    ) throws -> (values: [StoreValue], omitted: Set<Int>) {
        var values: [StoreValue] = []
        var omitted: Set<Int> = []
        values.reserveCapacity(object.entity.properties.count)
        for property in object.entity.properties {
            guard !property.isTransient else {
                values.append(.null)
                continue
            }
            let current = value(property)
            guard let relationship = property as? RelationshipDescription else {
                values.append(try storeValue(current, for: property, of: object, ids: \.objectID))
                continue
            }
            if relationship.isToMany {
                if let fault = current as? RelationshipFault {
                    if let ids = fault.ids {
                        values.append(.toMany(ids))
                    } else {
                        values.append(.null)
                        omitted.insert(property.index)
                    }
                } else {
                    let related = ManagedObject.objects(inCollection: current)
                    values.append(.toMany((skippingDeleted ? related.filter { !$0.isDeleted } : related).map(\.objectID)))
                }
            } else if let related = current.flatMap({ asModelObject($0) as? ManagedObject }), !(skippingDeleted && related.isDeleted) {
                values.append(.toOne(related.objectID))
            } else {
                values.append(.null)
            }
        }
        return (values, omitted)
    }

    /// The indexes of the persistent properties whose values differ between `base` and
    /// `current`; properties either leaves out are not compared, unordered to-many
    /// relationships are compared as sets.
    private static func differingProperties(
        of entity: EntityDescription, base: (values: [StoreValue], omitted: Set<Int>), current: StoreRecord
    ) -> Set<Int> {
        var differing: Set<Int> = []
        for property in entity.properties where !property.isTransient {
            let index = property.index
            guard index < base.values.count, index < current.values.count,
                  !base.omitted.contains(index), !current.omittedRelationships.contains(index)
            else { continue }
            let old = base.values[index], new = current.values[index]
            if case .toMany(let oldIDs) = old, case .toMany(let newIDs) = new, (property as? RelationshipDescription)?.isOrdered != true {
                if Set(oldIDs) != Set(newIDs) { differing.insert(index) }
            } else if old != new {
                differing.insert(index)
            }
        }
        return differing
    }

    // MARK: - Permanent IDs through the chain

    /// The first context of the chain: the one that saves to the store.
    var chainRoot: ManagedObjectContext {
        var root = self
        while let parent = root.parent { root = parent }
        return root
    }

    /// Gives the objects registered under the temporary IDs of `renames`, in this context and
    /// every live context below it, their permanent IDs; remembers each change there for what
    /// still holds the temporary IDs (relationship faults, fetched rows).
    func adoptPermanentIDs(_ renames: [(old: ManagedObjectID, new: ManagedObjectID)]) {
        var contexts = [self]
        var next = 0
        while next < contexts.count {
            let current = contexts[next]
            current.chain.children.removeAll { $0.context == nil }
            contexts += current.chain.children.compactMap(\.context)
            next += 1
        }
        for context in contexts {
            // Only a context in a chain can meet the temporary IDs again.
            let remembers = context.chain.parentStore != nil || !context.chain.children.isEmpty
            if !remembers { context.chain.permanentIDs = [:] }
            for (old, new) in renames where old != new {
                if remembers { context.chain.permanentIDs[old] = new }
                guard let object = context.registered[old] else { continue }
                context.registered[old] = nil
                object.objectID = new
                context.registered[new] = object
            }
        }
    }

    // MARK: - Saving into the parent

    /// Pushes the changes of this child into its parent, all or nothing: conflicts with the
    /// parent's changes since this context read its objects are resolved by ``mergePolicy``
    /// first, and every object the push relates is loaded in the parent before anything
    /// changes there. The parent records the push as one undoable change.
    ///
    /// - Throws: ``PersistenceError/Code/mergeConflict`` under the error policy;
    ///   ``PersistenceError/Code/objectNotFound`` when an object is newly related to one the
    ///   parent deleted or whose record is gone; what the root store throws.
    func pushChanges(into parentStore: ParentContextStore) throws -> SaveOutcome {
        let parent = parentStore.context
        // The parent's own edits close their undo group first: the push is a group of its own.
        parent.processPendingChanges()
        let policy = mergePolicy.kind
        var outcome = SaveOutcome()

        /// An object's changes as the push applies them to the parent.
        struct Push {
            let object: ManagedObject
            /// The properties pushed, by index.
            var properties: [PropertyDescription]
            /// Whether to-many relationships replace the parent's whole collection (overwrite,
            /// insertion) rather than add and remove what this context added and removed.
            var whole: Bool
            /// Whether the object takes the parent's values after the push (updated objects).
            var takesParentValues: Bool
        }
        var pushes: [Push] = []
        var conflicts: [PersistenceError.Conflict] = []
        var rolledBack: [(ManagedObject, StoreRecord)] = []

        func changedProperties(of object: ManagedObject) -> [PropertyDescription] {
            let snapshot = object.snapshot
            let overrides = object.attributesWithCustomPrimitiveAccessors()
            return object.entity.properties.filter { property in
                guard !property.isTransient else { return false }
                let current = object.attributeValue(property, overrides: overrides)
                // Never saved: every value goes, nil too (the parent's object starts at the defaults).
                guard let snapshot, property.index < snapshot.count else { return true }
                return !ManagedObject.storedValuesEqual(current, snapshot[property.index])
            }
        }

        let insertedObjects = Array(inserted)
        for object in insertedObjects {
            pushes.append(Push(object: object, properties: changedProperties(of: object), whole: true, takesParentValues: false))
        }
        // Updated and deleted objects are checked against the parent's current values.
        var deletions: [ManagedObject] = []
        for object in Array(updated) + Array(deleted) {
            let isDeletion = object.isDeleted
            let current = try parentStore.record(for: object.objectID)
            var parentChanged: Set<Int> = []
            if let current, let snapshot = object.snapshot {
                let base = try chainValues(of: object, skippingDeleted: false) { property in
                    property.index < snapshot.count ? snapshot[property.index] : nil
                }
                parentChanged = Self.differingProperties(of: object.entity, base: base, current: current)
            }
            let inConflict = current == nil || !parentChanged.isEmpty
            if inConflict {
                conflicts.append(PersistenceError.Conflict(
                    objectID: object.objectID, oldVersion: object.snapshotVersion, newVersion: current?.version))
                if policy == .error { continue }
                guard let current else {
                    // The parent deleted it: that deletion stands under every policy.
                    outcome.vanished.append(object)
                    continue
                }
                if policy == .rollback {
                    rolledBack.append((object, current))
                    continue
                }
            }
            if isDeletion {
                if current != nil { deletions.append(object) }
                outcome.savedDeleted.append(object)
                continue
            }
            var properties = changedProperties(of: object)
            var whole = false
            switch policy {
            case .storeTrump where inConflict:
                properties.removeAll { parentChanged.contains($0.index) }
            case .overwrite where inConflict:
                properties = object.entity.properties.filter { property in
                    !property.isTransient && !(property.index < object.values.count
                        && (object.values[property.index] as? RelationshipFault).map { $0.ids == nil } == true)
                }
                whole = true
            default:
                break
            }
            // Afterwards it takes the parent's values: merged ones, and what the parent added meanwhile.
            pushes.append(Push(object: object, properties: properties, whole: whole, takesParentValues: true))
            outcome.savedUpdated.append(object)
        }
        if policy == .error && !conflicts.isEmpty {
            let count = conflicts.count
            throw PersistenceError(
                .mergeConflict,
                message: "\(count) object\(count == 1 ? " was" : "s were") changed or deleted in the parent context since this child "
                    + "context read " + (count == 1 ? "it" : "them") + ": " + conflicts.map(\.objectID.description).joined(separator: ", "),
                conflicts: conflicts.sorted { $0.objectID.description < $1.objectID.description })
        }

        // Everything the push touches in the parent is loaded now, so that nothing can fail
        // once the parent starts changing.
        let newIDs = Set(insertedObjects.map(\.objectID))
        func parentObject(for id: ManagedObjectID) throws -> ManagedObject {
            let object = parent.object(with: parent.chain.currentID(for: id))
            try object.fireFault()
            return object
        }
        var targets: [ObjectIdentifier: ManagedObject] = [:]
        for push in pushes where !newIDs.contains(push.object.objectID) {
            targets[ObjectIdentifier(push.object)] = try parentObject(for: push.object.objectID)
        }
        for object in deletions { targets[ObjectIdentifier(object)] = try parentObject(for: object.objectID) }
        for push in pushes {
            for property in push.properties {
                guard let relationship = property as? RelationshipDescription else { continue }
                for id in try newlyRelatedIDs(of: push.object, through: relationship, whole: push.whole) where !newIDs.contains(id) {
                    let related = try parentObject(for: id)
                    if related.isDeleted {
                        throw PersistenceError(
                            .objectNotFound,
                            message: "\(push.object.entity.name).\(relationship.name) of \(push.object.objectID) refers to "
                                + "\(related.entity.name) \(id), which the parent context deleted",
                            objectID: id)
                    }
                }
            }
        }

        // The parent changes from here on; nothing below throws for the reasons checked above.
        for object in insertedObjects {
            // Inserted here again after an earlier save (an undone insertion, redone): the
            // parent's object takes the values.
            if let existing = parent.registered[parent.chain.currentID(for: object.objectID)], !existing.isDeleted {
                targets[ObjectIdentifier(object)] = existing
                continue
            }
            let twin = object.entity.managedObjectClass.init(entity: object.entity, insertInto: nil)
            twin.objectID = object.objectID
            // It woke up once, in this context.
            twin.flags.insert(.awokeFromInsert)
            parent.insert(twin)
            targets[ObjectIdentifier(object)] = twin
        }
        func parentValue(_ value: Any?, for relationship: RelationshipDescription) -> Any? {
            func twin(_ object: ManagedObject) -> ManagedObject { parent.object(with: parent.chain.currentID(for: object.objectID)) }
            if relationship.isToMany {
                let ids = (value as? RelationshipFault)?.ids ?? ManagedObject.objects(inCollection: value).map(\.objectID)
                let objects = ids.map { parent.object(with: parent.chain.currentID(for: $0)) }.filter { !$0.isDeleted }
                return relationship.isOrdered ? objects as Any : Set(objects) as Any
            }
            return value.flatMap { asModelObject($0) as? ManagedObject }.map(twin)
        }
        for push in pushes {
            guard let target = targets[ObjectIdentifier(push.object)] else { continue }
            let overrides = push.object.attributesWithCustomPrimitiveAccessors()
            for property in push.properties {
                let value = push.object.attributeValue(property, overrides: overrides)
                guard let relationship = property as? RelationshipDescription else {
                    try target.setValue(value, forKey: property.name)
                    continue
                }
                if relationship.isToMany && !relationship.isOrdered && !push.whole {
                    let (added, removed) = try toManyDelta(of: push.object, through: relationship)
                    let proxy = try target.mutableSetValue(forKey: relationship.name)
                    let present = Set(target.toManyObjects(at: relationship.index).map(\.objectID))
                    let removing = removed.map { parent.chain.currentID(for: $0) }.filter(present.contains)
                    if !removing.isEmpty { try proxy.subtract(removing.map { parent.object(with: $0) }) }
                    let adding = added.map { parent.chain.currentID(for: $0) }.filter { !present.contains($0) }
                    if !adding.isEmpty { try proxy.formUnion(adding.map { parent.object(with: $0) }) }
                } else {
                    try target.setValue(parentValue(value, for: relationship), forKey: relationship.name)
                }
            }
        }
        for object in deletions {
            if let target = targets[ObjectIdentifier(object)] { parent.delete(target) }
        }
        parent.processPendingChanges()

        // This context's objects now match the parent's.
        for (object, record) in rolledBack {
            object.flags.remove([.updated, .deleted])
            try? take(record, into: object, keepingChanges: false)
            outcome.rolledBack.append(object)
        }
        for push in pushes where push.takesParentValues {
            if let record = try? parentStore.record(for: push.object.objectID) {
                try? take(record, into: push.object, keepingChanges: false)
            }
        }
        outcome.savedInserted = insertedObjects
        outcome.permanentIDs = insertedObjects.map(\.objectID)
        return outcome
    }

    /// The IDs a to-many relationship of `object` holds now and did not when last saved or
    /// read, and those it held then and does not now.
    private func toManyDelta(
        of object: ManagedObject, through relationship: RelationshipDescription
    ) throws -> (added: [ManagedObjectID], removed: [ManagedObjectID]) {
        func ids(_ value: Any?) throws -> [ManagedObjectID] {
            if let fault = value as? RelationshipFault { return try object.relationshipFaultIDs(fault, at: relationship.index) }
            return ManagedObject.objects(inCollection: value).map(\.objectID)
        }
        let current = try ids(relationship.index < object.values.count ? object.values[relationship.index] : nil)
        let old = try ids(object.snapshot.flatMap { relationship.index < $0.count ? $0[relationship.index] : nil })
        let oldSet = Set(old), currentSet = Set(current)
        return (current.filter { !oldSet.contains($0) }, old.filter { !currentSet.contains($0) })
    }

    /// The IDs a push relates `object` to through `relationship` that the parent's object may
    /// not be related to yet.
    private func newlyRelatedIDs(
        of object: ManagedObject, through relationship: RelationshipDescription, whole: Bool
    ) throws -> [ManagedObjectID] {
        let value = relationship.index < object.values.count ? object.values[relationship.index] : nil
        if relationship.isToMany {
            if !whole && !relationship.isOrdered { return try toManyDelta(of: object, through: relationship).added }
            if let fault = value as? RelationshipFault { return fault.ids ?? [] }
            return ManagedObject.objects(inCollection: value).map(\.objectID)
        }
        return value.flatMap { asModelObject($0) as? ManagedObject }.map { [$0.objectID] } ?? []
    }
}
