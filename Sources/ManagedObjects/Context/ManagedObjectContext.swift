import Foundation
import ModelObjects

/// A scratch pad of managed objects: it registers the objects it loads or inserts, tracks every
/// change to them, applies delete rules, and saves the changes to its coordinator's store in one
/// step.
///
/// ```swift
/// let context = ManagedObjectContext(coordinator: coordinator)
/// context.undoManager = ModelUndoManager()
/// let engineering = try context.insertNewObject(forEntityName: "Department")
/// try engineering.setValue("Engineering", forKey: "name")
/// try context.save()                       // validates, then writes all or nothing
/// ```
///
/// One object per record per context (uniquing): ``object(with:)`` returns the registered
/// object when there is one. A context and its objects belong to one isolation domain: the type
/// is not `Sendable`, so the compiler rejects sharing them; share the coordinator and
/// ``ManagedObjectID``s and make one context per task.
///
/// ## Notifications
/// Posted to ``notificationCenter`` with the context as object: ``objectsDidChangeNotification``
/// at the end of each ``processPendingChanges()`` that found changes (keys
/// ``insertedObjectsKey``, ``updatedObjectsKey``, ``deletedObjectsKey``, ``refreshedObjectsKey``);
/// ``willSaveNotification`` when a save starts; ``didSaveNotification`` after it succeeded (the
/// objects under the same keys, and their IDs under ``insertedObjectIDsKey``,
/// ``updatedObjectIDsKey``, ``deletedObjectIDsKey`` for ``mergeChanges(fromContextDidSave:)``).
///
/// A child context (``init(parent:notificationCenter:)``) has another context as its store:
/// an editing scratch pad whose save goes into the parent, not the store.
///
/// Corresponds to Core Data's `NSManagedObjectContext`; differences: confined by Swift's type
/// system instead of `perform(_:)` queues (a child shares its parent's isolation domain);
/// `undoManager` is nil unless set (as on iOS); errors are thrown.
public final class ManagedObjectContext {
    /// The coordinator the context saves to and loads from.
    ///
    /// Corresponds to `NSManagedObjectContext.persistentStoreCoordinator`.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// Where the context posts its notifications.
    public let notificationCenter: NotificationCenter
    /// The undo manager that records the context's changes; nil (the default) records nothing.
    ///
    /// Corresponds to `NSManagedObjectContext.undoManager`.
    @exclusivity(unchecked) public var undoManager: ModelUndoManager?
    /// How a save resolves conflicts with changes saved by others; ``MergePolicy/error`` by
    /// default.
    ///
    /// Corresponds to `NSManagedObjectContext.mergePolicy`.
    public var mergePolicy: MergePolicy = .error
    /// How old (in seconds) a row read by a fetch, a batch or a prefetch may be when its fault
    /// fires: an older one is read again from the store. Negative (the default) means no limit,
    /// zero means rows are never used. Whatever the interval, a row whose record another
    /// context of the same coordinator changed or deleted and saved since it was read is read
    /// again (firing then gives the saved values, or throws
    /// ``PersistenceError/Code/objectNotFound``). Objects already loaded are not affected.
    ///
    /// Corresponds to `NSManagedObjectContext.stalenessInterval`; differences: saves of other
    /// coordinators or processes on the same store are not seen before the interval runs out.
    @exclusivity(unchecked) public var stalenessInterval: TimeInterval = -1
    /// A name for debugging.
    ///
    /// Corresponds to `NSManagedObjectContext.name`.
    public var name: String?
    /// Who makes the context's saves, recorded with each of them in persistent history
    /// (``PersistentHistoryTransaction/author``); nil by default.
    ///
    /// Corresponds to `NSManagedObjectContext.transactionAuthor`.
    public var transactionAuthor: String?

    // The bookkeeping below is touched on every insert, change and fault: dynamic exclusivity
    // checks are off for it (see ManagedObject's state). SAFETY: a context belongs to one
    // isolation domain (it is not `Sendable`), and no access to these properties spans a call
    // that could reach them again.

    /// Every registered object by ID, unretained.
    @exclusivity(unchecked) var registered = ObjectRegistry()
    /// Objects inserted since the last save: `insertedSet`, with the insertions staged since it
    /// was last read joined to it first (see `stageInsertion(of:)`).
    var inserted: Set<ManagedObject> {
        get {
            if !stagedInsertions.isEmpty { joinStagedInsertions() }
            return insertedSet
        }
        _modify {
            if !stagedInsertions.isEmpty { joinStagedInsertions() }
            yield &insertedSet
        }
        set {
            releaseStagedInsertions()
            insertedSet = newValue
        }
    }
    /// The number of objects of `inserted`, without joining the staged insertions.
    var insertedCount: Int { insertedSet.count + stagedInsertions.count }
    /// The inserted objects as of the last read of `inserted`.
    @exclusivity(unchecked) private var insertedSet: Set<ManagedObject> = []
    /// Objects inserted since the last read of `inserted`, each once and none in `insertedSet`
    /// (every removal reads `inserted` first): an insertion appends here, and the next read
    /// joins them all to the set at once, sized once, instead of a hash insertion each that
    /// grows the set again and again. Each entry holds a reference to its object, taken by
    /// `stageInsertion(of:)` and handed to the set by `joinStagedInsertions()` (or released by
    /// `releaseStagedInsertions()`): moved, where an array of objects would retain each object
    /// for the set and release it with the array, two atomic writes to its header, out of the
    /// cache by the time of a save.
    @exclusivity(unchecked) private var stagedInsertions: [Unmanaged<ManagedObject>] = []
    /// Objects changed since the last save, neither inserted nor deleted.
    @exclusivity(unchecked) var updated: Set<ManagedObject> = []
    /// Saved objects deleted since the last save.
    @exclusivity(unchecked) var deleted: Set<ManagedObject> = []
    /// Deleted objects whose delete rules have not been applied.
    @exclusivity(unchecked) var pendingDeletions: [ManagedObject] = []
    /// Changes since the last objects-did-change notification.
    /// Objects inserted since then, in order: an object is one of them while it has the
    /// `insertionUnannounced` flag (one taken out keeps its entry without the flag, and has a
    /// second entry if inserted again), so an insertion costs an append, not a set insertion.
    @exclusivity(unchecked) var unannouncedInsertions: [ManagedObject] = []
    /// Whether an object may have two entries in `unannouncedInsertions`: one was taken out
    /// (`forgetUnannouncedInsertion(of:)`) since it was last emptied, and may have come back.
    @exclusivity(unchecked) var unannouncedInsertionsMayRepeat = false
    /// Set by `save()` around its `processPendingChanges()`: insertions announced then that are
    /// every inserted object, each once, are kept in `keptAnnouncedInsertions` for the save,
    /// which walks that array instead of making one from the set (see `InsertedObjectsOfSave`).
    @exclusivity(unchecked) var keepsAnnouncedInsertions = false
    /// The insertions the save's `processPendingChanges()` announced, with the set of inserted
    /// objects they were (see `keepsAnnouncedInsertions`); taken by the save at once.
    @exclusivity(unchecked) var keptAnnouncedInsertions: (set: Set<ManagedObject>, array: [ManagedObject])?
    @exclusivity(unchecked) var unannouncedUpdated = UnannouncedUpdates()
    @exclusivity(unchecked) var unannouncedDeleted: Set<ManagedObject> = []
    @exclusivity(unchecked) var unannouncedRefreshed: Set<ManagedObject> = []
    @exclusivity(unchecked) var isProcessingPendingChanges = false
    /// Relationships whose IDs the store could not give when they were needed, by object: the
    /// edits that needed them were not made, so the next save fails until the object is
    /// refreshed without merging, or leaves the context, or the context is rolled back or reset.
    @exclusivity(unchecked) var relationshipReadFailures: [ObjectIdentifier: (object: ManagedObject, relationship: String, error: any Error)] = [:]
    /// Whether a fault of this context found its record gone: only then can a save relate an
    /// object to one (see `checkSavable`).
    @exclusivity(unchecked) var metUnfulfillableFault = false
    /// The last store whose rows a fault fired alone decoded, with the store identity of its
    /// IDs: the next fault of that store finds it without the coordinator's lock and casts
    /// (a coordinator only ever adds stores, so an identity keeps its store).
    @exclusivity(unchecked) var lastTypedRowStore: (identity: UInt, store: TypedRowStore)?
    /// The homes of this context's objects, by entity (see `homes(for:)`).
    @exclusivity(unchecked) var homes: [ObjectIdentifier: ObjectHome] = [:]
    /// The homes without a context of the entities in `homes`, which the objects this context
    /// makes take while they are made, and those it lets go of after.
    @exclusivity(unchecked) var homesWithoutContext: [ObjectIdentifier: ObjectHome] = [:]
    /// The homes `homes(for:)` answered last.
    @exclusivity(unchecked) var lastHomes: EntityHomes?
    /// The fetched-results controllers over this context, told of each change set as it is announced.
    var changeObservers: [WeakContextChangeObserver] = []
    /// The parent, children and renamed IDs of a chain of contexts (see
    /// `init(parent:notificationCenter:)`).
    var chain = ContextChain()
    /// The open streams of `objectChanges()` and `saves()`, finished when the context goes.
    let notificationStreams = ContextNotificationStreams()
    /// Where remote changes wait while ``automaticallyMergesChangesFromParent`` is on.
    var remoteChangeMailbox: RemoteChangeMailbox?
    /// How the undo actions of insertions and deletions reach the context (see `ContextUndoHandle`).
    let undoHandle = ContextUndoHandle()

    /// Creates a context that saves to `coordinator`'s stores.
    ///
    /// Corresponds to `NSManagedObjectContext(concurrencyType:)` followed by setting
    /// `persistentStoreCoordinator`.
    public init(coordinator: PersistentStoreCoordinator, notificationCenter: NotificationCenter = .default) {
        persistentStoreCoordinator = coordinator
        self.notificationCenter = notificationCenter
        undoHandle.context = self
    }

    deinit {
        undoHandle.context = nil
        // The objects outlive the context and may join another: none keeps the flag of a set
        // that is gone.
        unannouncedUpdated.removeAll()
        for object in registered.values { letGo(object) }
        for object in inserted { letGo(object) }
    }

    // MARK: - Registered objects

    /// Inserts a new object of the entity named `entityName` and returns it.
    ///
    /// - Throws: ``ModelError`` with ``ModelError/Code/unknownEntity`` when the model has no such
    ///   entity or it is abstract.
    ///
    /// Corresponds to `NSEntityDescription.insertNewObject(forEntityName:into:)`.
    @discardableResult
    public func insertNewObject(forEntityName entityName: String) throws -> ManagedObject {
        guard let entity = persistentStoreCoordinator.managedObjectModel.entity(named: entityName) else {
            throw ModelError(.unknownEntity, entity: entityName, message: "the model has no entity named '\(entityName)'")
        }
        guard !entity.isAbstract else {
            throw ModelError(.unknownEntity, entity: entityName, message: "the entity '\(entityName)' is abstract")
        }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Registers a new object with the context: it joins ``insertedObjects`` and is saved by the
    /// next save. The first insertion of an object calls its
    /// ``ManagedObject/awakeFromInsert()``. Inserting a registered object does nothing.
    ///
    /// An object belongs to one context: inserting one registered with another context stops
    /// the program, as Core Data raises.
    ///
    /// Corresponds to `-[NSManagedObjectContext insertObject:]`.
    public func insert(_ object: ManagedObject) {
        if let owner = object.managedObjectContext, owner !== self {
            preconditionFailure("cannot insert \(object.entity.name) \(object.objectID) into a second context")
        }
        if object.managedObjectContext === self, registered[object.objectID] === object, !object.isDeleted { return }
        register(object)
        object.flags.insert(.inserted)
        object.flags.remove(.deleted)
        stageInsertion(of: object)
        noteUnannouncedInsertion(of: object)
        if !object.flags.contains(.awokeFromInsert) {
            object.flags.insert(.awokeFromInsert)
            object.awakeFromInsert()
        }
        undoManager?.registerUndo(ManagedUndoAction(object: object, operation: .undoInsertion, context: self))
    }

    /// Marks an object for deletion: it joins ``deletedObjects`` (unless it was inserted and
    /// never saved, in which case it is simply forgotten), and the next
    /// ``processPendingChanges()`` calls ``ManagedObject/prepareForDeletion()`` and applies the
    /// delete rules of its relationships.
    ///
    /// Corresponds to `-[NSManagedObjectContext deleteObject:]`.
    public func delete(_ object: ManagedObject) {
        guard object.managedObjectContext === self, !object.isDeleted else { return }
        let wasInserted = object.isInserted, wasUpdated = object.isUpdated
        object.flags.insert(.deleted)
        object.flags.remove([.inserted, .updated])
        inserted.remove(object)
        updated.remove(object)
        if !wasInserted { deleted.insert(object) }
        unannouncedDeleted.insert(object)
        pendingDeletions.append(object)
        undoManager?.registerUndo(
            ManagedUndoAction(object: object, operation: .undoDeletion(wasInserted: wasInserted, wasUpdated: wasUpdated), context: self))
    }

    /// Adds `object`, which is not in `inserted`, to `inserted` when it is next read.
    private func stageInsertion(of object: ManagedObject) {
        stagedInsertions.append(.passRetained(object))
    }

    /// Joins the staged insertions to `insertedSet`.
    private func joinStagedInsertions() {
        let staged = stagedInsertions
        stagedInsertions = []
        // Filled as a local: the set's storage is then not retained and checked for each object.
        var set = insertedSet
        insertedSet = []
        set.reserveCapacity(set.count + staged.count)
        // Each object's reference moves from its entry into the set, which does not hold the
        // object yet: `update(with:)` hands back no member (`insert` returns one, retained, to be
        // released).
        staged.withUnsafeBufferPointer { staged in
            for entry in staged { set.update(with: entry.takeRetainedValue()) }
        }
        insertedSet = set
    }

    /// Empties the staged insertions, releasing their references.
    private func releaseStagedInsertions() {
        let staged = stagedInsertions
        stagedInsertions = []
        for entry in staged { entry.release() }
    }

    /// The objects inserted since the last save.
    ///
    /// Corresponds to `NSManagedObjectContext.insertedObjects`.
    public var insertedObjects: Set<ManagedObject> { inserted }
    /// The objects changed since the last save (not inserted, not deleted).
    ///
    /// Corresponds to `NSManagedObjectContext.updatedObjects`.
    public var updatedObjects: Set<ManagedObject> { updated }
    /// The saved objects that the next save deletes.
    ///
    /// Corresponds to `NSManagedObjectContext.deletedObjects`.
    public var deletedObjects: Set<ManagedObject> { deleted }
    /// Every object registered with the context.
    ///
    /// Corresponds to `NSManagedObjectContext.registeredObjects`.
    public var registeredObjects: Set<ManagedObject> { Set(registered.values) }

    /// Whether the context has changes to save.
    ///
    /// Corresponds to `NSManagedObjectContext.hasChanges`.
    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty || !pendingDeletions.isEmpty }

    /// The registered object with `objectID`, or nil; never loads anything.
    ///
    /// Corresponds to `-[NSManagedObjectContext registeredObjectForID:]`.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        registered[objectID]
    }

    /// The object with `objectID`: the registered one, or a new fault for it that loads its
    /// values when first read. Does not check that the record exists; firing a fault whose
    /// record is gone throws ``PersistenceError/Code/objectNotFound``.
    ///
    /// Corresponds to `-[NSManagedObjectContext objectWithID:]`.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        if let object = registered[objectID] { return object }
        if objectID.isTemporaryID, let permanent = chain.permanentIDs[objectID] { return object(with: permanent) }
        return makeFault(for: objectID)
    }

    /// Registers a new fault for `objectID`, which no registered object has.
    func makeFault(for objectID: ManagedObjectID) -> ManagedObject {
        let object = makeUnregisteredFault(for: objectID)
        registered.insertNew(object, id: objectID)
        return object
    }

    /// The object with `objectID`, its values loaded.
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` when no record has the ID (a
    ///   temporary ID of another context, unless a child context's parent chain has the object;
    ///   a deleted record).
    ///
    /// Corresponds to `-[NSManagedObjectContext existingObjectWithID:error:]`.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        if let object = registered[objectID], !object.isFault { return object }
        guard !objectID.isTemporaryID || (chain.parentStore?.hasRecord(for: objectID) ?? false) else {
            throw PersistenceError(.objectNotFound, message: "no object with the temporary ID \(objectID) in this context", objectID: objectID)
        }
        let object = self.object(with: objectID)
        try object.fireFault()
        return object
    }

    func register(_ object: ManagedObject) {
        object.context = self
        // Not the subscript's setter, which takes a reference to `object` for the call.
        registered.insert(object, id: object.objectID)
    }

    /// Called by an object's `deinit`: it must leave the registry without being retained.
    func objectWillDeinitialize(_ object: ManagedObject) {
        registered.remove(object, id: object.objectID)
    }

    func unregister(_ object: ManagedObject) {
        if registered[object.objectID] === object { registered[object.objectID] = nil }
        relationshipReadFailures[ObjectIdentifier(object)] = nil
        letGo(object)
    }

    // MARK: - Faults

    /// Loads a fault's values: the row it holds, when still fresh, else its store's record;
    /// runs `awakeFromFetch` with change recording off.
    func fulfillFault(of object: ManagedObject) throws {
        // A fault of a fetch holding its row compact, read at a time that is still fresh: the
        // row becomes its values and its snapshot where it is.
        if case .compactRow(let read) = object.rowState {
            if isFresh(read, of: object.objectID) {
                object.fireCompactRow()
                object.flags.remove([.fault, .unfulfillable, .mayHoldPartialRow])
                object.changeRecordingDepth += 1
                object.awakeFromFetch()
                object.changeRecordingDepth -= 1
                return
            }
            object.expandCompactRow()
        }
        // The usual fault of a fetch: its row, read at a time that is still fresh, and no other
        // state (no batch): the row's buffer becomes its values and its snapshot, with no
        // copy of the object's state taken and put back.
        if case .fetchedRow(let buffer) = object.rowState, let read = buffer.rowRead, read.partial == nil, isFresh(read, of: object.objectID) {
            object.values = PropertyValues(buffer: buffer)
            object.rowState = .snapshot(buffer)
            object.flags.remove([.fault, .unfulfillable, .mayHoldPartialRow])
            object.changeRecordingDepth += 1
            object.awakeFromFetch()
            object.changeRecordingDepth -= 1
            return
        }
        let id = object.objectID
        if let batch = object.faultBatch { loadBatch(batch) }
        // Moved out, not copied: the object's values and snapshot then share the row's buffer.
        var row = object.fetchedRow
        object.fetchedRow = PropertyValues()
        // A partial row (see `FetchRequest.propertiesToFetch`) lacks values: the record is read.
        if let read = row.storage?.rowRead, read.partial != nil || !isFresh(read, of: id) { row = PropertyValues() }
        if row.hasBuffer {
            // Its version is already in `snapshotVersion` (see `setFetchedRow`).
            object.values = row
        } else if let store = typedRowStore(for: id) {
            // Decoded by the store straight into the object's storage.
            var sink = FaultRowSink(context: self, object: object)
            guard try store.readFaultRow(for: id, into: &sink), let row = sink.row.take() else { throw recordGone(of: object) }
            object.values = row.values
            object.snapshotVersion = row.version
        } else {
            guard let record = try sourceFaultRecord(for: id) else { throw recordGone(of: object) }
            object.values = try objectValues(from: record, of: object)
            object.snapshotVersion = record.version
        }
        object.snapshot = object.values
        object.flags.remove([.fault, .unfulfillable, .mayHoldPartialRow])
        object.changeRecordingDepth += 1
        object.awakeFromFetch()
        object.changeRecordingDepth -= 1
    }

    /// Marks the fault `object`, whose record is gone, as unfulfillable, and returns the error
    /// firing it throws.
    private func recordGone(of object: ManagedObject) -> PersistenceError {
        let id = object.objectID
        object.flags.insert(.unfulfillable)
        metUnfulfillableFault = true
        return PersistenceError(
            .objectNotFound, message: "the record of \(id.entity.name) \(id) no longer exists (deleted by another context?)", objectID: id)
    }

    /// Gives the fault `object` the row `record`, read at `read`, decoded into its entity's
    /// layout (to-one relationships as registered objects or new faults, to-many ones the
    /// record leaves out as relationship faults), for firing to adopt. A row that does not
    /// decode leaves the fault without one: firing then reads the store and reports the error.
    func setFetchedRow(_ record: StoreRecord, read: RowRead, of object: ManagedObject) {
        guard let row = try? objectValues(from: record, of: object) else { return dropFetchedRow(of: object) }
        setFetchedRow(row, version: record.version, read: read, of: object)
    }

    /// Whether a row of `id` read at `read` may still be used: no save through the
    /// coordinator changed the record since, and it is younger than ``stalenessInterval``.
    func isFresh(_ read: RowRead, of id: ManagedObjectID) -> Bool {
        if stalenessInterval >= 0 && ProcessInfo.processInfo.systemUptime - read.uptime >= stalenessInterval { return false }
        return !persistentStoreCoordinator.savedRecords.isStale(id, since: read)
    }

    /// A record's values as objects store them: relationships as registered objects or faults.
    /// A record that leaves to-many relationships out gives `object` relationship faults whose
    /// IDs are read when first needed.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when a value transformer cannot read
    ///   a stored value, or a value does not fit its property's type (the object then stays a
    ///   fault, so no save can overwrite that value), or when the record leaves a relationship
    ///   out and there is no object to read it for.
    func objectValues(from record: StoreRecord, of object: ManagedObject?) throws -> PropertyValues {
        let entity = record.objectID.entity
        // A fresh buffer (not a copy of the initial values, whose to-many sets would be copied
        // to be replaced), every slot nil: transient properties and those the record lacks
        // take their initial values, the others are written in place, each in its slot's own type.
        var values = PropertyValues(layout: entity.layout)
        let properties = entity.properties
        let isToMany = entity.isToManyByIndex
        let stored = record.values
        let count = min(stored.count, properties.count)
        // First one pass over the buffer for the common case, a stored value of the slot's own
        // type (or nil); the indexes it leaves (conversions, value transformers, to-many
        // relationships, transient properties) are marked in `rest` and stored one by one.
        var rest: UInt64 = 0
        let marksRest = properties.count <= UInt64.bitWidth
        if marksRest {
            values.withUniqueSlots { slots, base in
                for index in 0..<count {
                    if properties[index].isTransient || isToMany[index] {
                        rest |= 1 << UInt64(index)
                        continue
                    }
                    let slot = slots[index]
                    switch (stored[index], slots[index].kind) {
                    case (.null, _): break
                    case (.integer(let integer), .int64): slot.store(integer, in: base)
                    case (.double(let double), .double): slot.store(double, in: base)
                    case (.string(let string), .string): slot.store(string, in: base)
                    case (.boolean(let bool), .boolean): slot.store(bool, in: base)
                    case (.date(let date), .date): slot.store(date, in: base)
                    case (.decimal(let decimal), .decimal): slot.store(decimal, in: base)
                    case (.data(let data), .data): slot.store(data, in: base)
                    case (.uuid(let uuid), .uuid): slot.store(uuid, in: base)
                    case (.uri(let url), .url): slot.store(url, in: base)
                    case (.toOne(let id), .object):
                        // Registers a fault for the related record when none is registered;
                        // that touches no other buffer's slots than the new object's.
                        slot.store(id.map { self.object(with: $0) }, in: base)
                    default: rest |= 1 << UInt64(index)
                    }
                }
            }
        }
        let slots = entity.layout.slots
        func storeRest(at index: Int) throws {
            let property = properties[index]
            if property.isTransient || index >= count {
                values[index] = entity.initialValues[index]
                return
            }
            if isToMany[index] && record.omittedRelationships.contains(index) {
                guard let object else {
                    throw PersistenceError(
                        .operationFailed,
                        message: "the record of \(record.objectID) leaves out \(entity.name).\(property.name) where no object can read it later",
                        objectID: record.objectID)
                }
                let isOrdered = (property as? RelationshipDescription)?.isOrdered ?? false
                values[index] = RelationshipFault(unreadFor: object, isOrdered: isOrdered)
                return
            }
            try storeObjectValue(stored[index], for: property, kind: slots[index].kind, into: &values, of: record.objectID)
        }
        if marksRest {
            while rest != 0 {
                let index = rest.trailingZeroBitCount
                rest &= rest - 1
                try storeRest(at: index)
            }
            for index in count..<properties.count { try storeRest(at: index) }
        } else {
            for index in properties.indices { try storeRest(at: index) }
        }
        return values
    }

    /// Stores one stored value in `values` at `property`'s index, in place when the store value
    /// is of the slot's own type (the common case), else through ``objectValue(_:for:of:)``.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` as ``objectValue(_:for:of:)`` does,
    ///   and for a value the property's type cannot hold (a string where an integer belongs).
    func storeObjectValue(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of recordID: ManagedObjectID?
    ) throws {
        let index = property.index
        switch (value, kind) {
        case (.integer(let integer), .int64): values.store(integer, at: index)
        case (.double(let double), .double): values.store(double, at: index)
        case (.string(let string), .string): values.store(string, at: index)
        case (.boolean(let bool), .boolean): values.store(bool, at: index)
        case (.date(let date), .date): values.store(date, at: index)
        case (.decimal(let decimal), .decimal): values.store(decimal, at: index)
        case (.data(let data), .data): values.store(data, at: index)
        case (.uuid(let uuid), .uuid): values.store(uuid, at: index)
        case (.uri(let url), .url): values.store(url, at: index)
        case (.toOne(let id), .object): values.store(id.map { object(with: $0) }, at: index)
        default:
            let converted = try objectValue(value, for: property, of: recordID)
            if let converted, !PropertyValues.fits(converted, kind) {
                throw PersistenceError(
                    .operationFailed,
                    message: "the store gave \(value.kindName) \(value) for \(property.entity?.name ?? "?").\(property.name)"
                        + (recordID.map { " of \($0)" } ?? "") + ", which its type cannot hold",
                    objectID: recordID, key: property.name)
            }
            values[index] = converted
        }
    }

    /// One stored value as an object stores it.
    ///
    /// Numbers are converted to the attribute's width without loss or not at all: a store that
    /// hands over an integer outside an `Int16` attribute, or a finite number beyond `Float`'s
    /// range, gets an error rather than a wrapped value that the next save would write back.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when a value transformer cannot read
    ///   the stored data, or a number does not fit the attribute (with the record's ID when
    ///   `recordID` is given, and the attribute's name).
    func objectValue(_ value: StoreValue, for property: PropertyDescription, of recordID: ManagedObjectID? = nil) throws -> Any? {
        func outOfRange(_ number: Any) -> PersistenceError {
            PersistenceError(
                .operationFailed,
                message: "the store gave \(number) for \(property.entity?.name ?? "?").\(property.name)"
                    + (recordID.map { " of \($0)" } ?? "") + ", which its type cannot hold",
                objectID: recordID, key: property.name)
        }
        switch value {
        case .null: return nil
        case .integer(let integer):
            guard let attribute = property as? AttributeDescription else { return integer }
            switch attribute.attributeType {
            case .integer16:
                guard let narrow = Int16(exactly: integer) else { throw outOfRange(integer) }
                return narrow
            case .integer32:
                guard let narrow = Int32(exactly: integer) else { throw outOfRange(integer) }
                return narrow
            default: return integer
            }
        case .double(let double):
            if let attribute = property as? AttributeDescription, attribute.attributeType == .float {
                let float = Float(double)
                if float.isInfinite && double.isFinite { throw outOfRange(double) }
                return float
            }
            return double
        case .decimal(let decimal): return decimal
        case .string(let string): return string
        case .boolean(let bool): return bool
        case .date(let date): return date
        case .data(let data):
            if let attribute = property as? AttributeDescription, attribute.attributeType == .transformable,
               let transformer = attribute.valueTransformer {
                do {
                    return try transformer.reverseTransformedValue(data)
                } catch {
                    throw PersistenceError(
                        .operationFailed,
                        message: "the value transformer of \(attribute.entity?.name ?? "?").\(attribute.name) cannot read the "
                            + "stored value (\(data.count) bytes): \(error)",
                        objectID: recordID, key: attribute.name)
                }
            }
            return data
        case .uuid(let uuid): return uuid
        case .uri(let url): return url
        case .toOne(let id): return id.map { object(with: $0) }
        case .toMany(let ids):
            // Loaded when first read (see `ManagedObject.resolveRelationshipFault(at:)`).
            return RelationshipFault(ids: ids, isOrdered: (property as? RelationshipDescription)?.isOrdered ?? false)
        }
    }

    /// The IDs of the records `relationship` relates `object` to, as its store has them (none
    /// when the record is gone).
    ///
    /// - Throws: What the store throws.
    func relatedObjectIDs(of object: ManagedObject, through relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try sourceRelatedObjectIDs(of: object.objectID, through: relationship)
    }

    // MARK: - Recording changes

    /// Records a change of a registered object: it becomes updated (unless inserted or
    /// deleted), and the undo manager learns how to reverse it.
    func recordChange(of object: ManagedObject, property: PropertyDescription, reversal: consuming ManagedChangeReversal) {
        if object.flags.isDisjoint(with: [.inserted, .deleted]) {
            if !object.flags.contains(.updated) {
                object.flags.insert(.updated)
                updated.insert(object)
            }
        }
        // An inserted object changed after its insertion was announced is announced as updated
        // (within the same batch, only as inserted: see `postObjectsDidChange`). While its
        // insertion is unannounced a flag stands for the entry, which the announcement would
        // drop: one set insertion fewer per change of a new object.
        if !object.flags.contains(.deleted) {
            if object.flags.contains(.insertionUnannounced) {
                object.flags.insert(.changedWhileInsertionUnannounced)
            } else {
                unannouncedUpdated.insert(object)
            }
        }
        // The reversal is moved into the action and the action into its group: no copies.
        if let undoManager, undoManager.isUndoRegistrationEnabled {
            undoManager.registerManagedUndo(ManagedUndoAction(object: object, operation: .reverse(property, reversal), context: nil))
        }
    }

    // MARK: - Unannounced insertions

    /// Puts `object` in `unannouncedInsertions`, flagged so that its changes need no entry in
    /// `unannouncedUpdated` until the insertion is announced.
    func noteUnannouncedInsertion(of object: ManagedObject) {
        guard !object.flags.contains(.insertionUnannounced) else { return }
        unannouncedInsertions.append(object)
        object.flags.insert(.insertionUnannounced)
    }

    /// The objects inserted since the last objects-did-change notification (see
    /// `unannouncedInsertions`), made once for the notification; `isEveryEntry` tells whether
    /// they are `unannouncedInsertions` itself, entry for entry (each once).
    ///
    /// Usually they are every object of `inserted` (inserted since the last save, with no
    /// `processPendingChanges()` between): the set is then `inserted` itself, shared, and no
    /// object is retained or hashed for it. Telling takes one walk reading each entry's flags:
    /// entries flagged unannounced are distinct objects (unless one was forgotten and inserted
    /// again), each flagged `.inserted` is in `inserted`, so as many as `inserted` has are all of it.
    func unannouncedInserted() -> (objects: Set<ManagedObject>, isEveryEntry: Bool) {
        let insertedCount = self.insertedCount
        if insertedCount > 0 && !unannouncedInsertionsMayRepeat && unannouncedInsertions.count >= insertedCount {
            var flagged = 0, allInserted = true
            unannouncedInsertions.forEachUnretained { _, object in
                let flags = object.flags
                guard flags.contains(.insertionUnannounced) else { return }
                flagged += 1
                if !flags.contains(.inserted) { allInserted = false }
            }
            if allInserted && flagged == insertedCount { return (inserted, flagged == unannouncedInsertions.count) }
        }
        var objects = Set<ManagedObject>(minimumCapacity: unannouncedInsertions.count)
        // `update(with:)` adds an object without handing back a member to release, as `insert`
        // does; an object noted twice (forgotten, then inserted again) replaces itself.
        for object in unannouncedInsertions where object.flags.contains(.insertionUnannounced) { objects.update(with: object) }
        return (objects, false)
    }

    /// Takes `object` out of the unannounced insertions without announcing it: a change made while
    /// it was there joins `unannouncedUpdated`, as it would have without the flag.
    func forgetUnannouncedInsertion(of object: ManagedObject) {
        guard object.flags.contains(.insertionUnannounced) else { return }
        // Inserted again, it would have a second entry.
        unannouncedInsertionsMayRepeat = true
        if object.flags.contains(.changedWhileInsertionUnannounced) { unannouncedUpdated.insert(object) }
        object.flags.remove([.insertionUnannounced, .changedWhileInsertionUnannounced])
    }

    /// Empties `unannouncedInsertions` (announced or discarded), clearing its objects' flags.
    ///
    /// - Returns: The entries it held.
    @discardableResult
    func clearUnannouncedInsertions() -> [ManagedObject] {
        let entries = unannouncedInsertions
        unannouncedInsertions = []
        unannouncedInsertionsMayRepeat = false
        // The array holds every object for the walk.
        entries.forEachUnretained { _, object in
            object.flags.remove([.insertionUnannounced, .changedWhileInsertionUnannounced])
        }
        return entries
    }

    func undoInsertion(of object: ManagedObject) {
        guard object.managedObjectContext === self else { return }
        inserted.remove(object)
        forgetUnannouncedInsertion(of: object)
        object.flags.remove(.inserted)
        unannouncedDeleted.insert(object)
        unregister(object)
        undoManager?.registerUndo(ManagedUndoAction(object: object, operation: .insert, context: self))
    }

    func undoDeletion(of object: ManagedObject, wasInserted: Bool, wasUpdated: Bool) {
        object.flags.remove(.deleted)
        deleted.remove(object)
        pendingDeletions.removeAll { $0 === object }
        if object.managedObjectContext !== self { register(object) }
        if wasInserted {
            object.flags.insert(.inserted)
            inserted.insert(object)
            noteUnannouncedInsertion(of: object)
        } else if wasUpdated {
            object.flags.insert(.updated)
            updated.insert(object)
            unannouncedUpdated.insert(object)
        }
        undoManager?.registerUndo(ManagedUndoAction(object: object, operation: .delete, context: self))
    }
}

@available(*, unavailable, message: "a context belongs to one isolation domain; share its coordinator and object IDs instead")
extension ManagedObjectContext: Sendable {}
