import Foundation

// Rows a store decodes straight into objects' storage (see `TypedRowReading`): the sinks the
// context hands the store for a fault, a batch of faults and a fetch, and what they share.

extension ManagedObjectContext {
    /// The store that decodes `id`'s rows into objects' storage, when this context reads
    /// from it directly (not through a parent context) and it can; nil otherwise.
    func typedRowStore(for id: ManagedObjectID) -> TypedRowStore? {
        guard chain.parentStore == nil else { return nil }
        let identity = id.key.store
        if let last = lastTypedRowStore, last.identity == identity { return last.store }
        guard let store = TypedRowStore(persistentStoreCoordinator.store(for: id)) else { return nil }
        lastTypedRowStore = (identity, store)
        return store
    }

    /// A new fault of this context for `objectID`, not registered yet: the caller registers
    /// it (see `makeFault(for:)`, and a fetch's sink, which registers its new objects together).
    func makeUnregisteredFault(for objectID: ManagedObjectID) -> ManagedObject {
        let entity = objectID.entity
        let bindings = ManagedFieldTable.bindingBuffer(for: entity.managedObjectClass, entity: entity)
        return FaultConstruction.withRequest { request in makeUnregisteredFault(for: objectID, bindings: bindings, through: request) }
    }

    /// A new fault of this context for `objectID`, not registered yet, whose class's `@Managed`
    /// fields are at `bindings` (`ManagedFieldTable.bindingBuffer(for:entity:)` of the
    /// entity's class and entity, which a fetch looks up once), made through `request`, the
    /// current thread's (`FaultConstruction.withRequest(_:)`, which a fetch sets once).
    ///
    /// The class's designated initializer runs (a subclass's override with it), with no
    /// context; it takes the record's ID and slots from the request instead of making a
    /// temporary ID and looking its fields up (see `FaultConstruction`).
    func makeUnregisteredFault(
        for objectID: consuming ManagedObjectID, bindings: UnsafeBufferPointer<ManagedFieldTable.Binding>,
        through request: UnsafeMutablePointer<FaultConstruction>?
    ) -> ManagedObject {
        let key = objectID.key
        // Borrowed: the model holds its entities for as long as the context is.
        let entity = Unmanaged.passUnretained(objectID.entity)
        let homes = entity._withUnsafeGuaranteedRef { self.homes(for: $0) }
        let (object, claimed) = FaultConstruction.make(objectID, bindings: bindings, home: homes.withoutContext, through: request)
        // What the initializer wrote (the entity's initial values, and any value it set) gives
        // way to the record's.
        if object.values.hasBuffer { object.values = PropertyValues() }
        object.flags = [.fault]
        if !claimed { object.objectID = entity._withUnsafeGuaranteedRef { ManagedObjectID(entity: $0, key: key) } }
        object.home = homes.own.takeUnretainedValue()
        return object
    }

    /// Gives the fault `object` the row `values` of version `version`, read at `read`, for
    /// firing to adopt.
    /// `values` must be fresh from the store (no other object holds its buffer): the read is
    /// kept with the row.
    func setFetchedRow(_ values: consuming PropertyValues, version: Int64, read: RowRead, of object: ManagedObject) {
        // A new fault takes the row compact (see `ObjectValueStorage`): no buffer header.
        if !object.holdCompactRow(movingFrom: &values, read: read) {
            values.storage?.rowRead = read
            object.fetchedRow = values
        }
        object.snapshotVersion = version
    }

    /// Leaves the fault `object` without a fetched row: firing then reads the store.
    func dropFetchedRow(of object: ManagedObject) {
        object.fetchedRow = PropertyValues()
    }
}

/// A store that decodes rows into objects' storage, held as its own type when it is the
/// SQLite or the PostgreSQL store: called on that type, its decoding is specialized for each
/// sink (through the protocol, it runs generic, each value through a witness table).
enum TypedRowStore {
    case sqlite(SQLiteStore)
    case postgreSQL(PostgreSQLStore)
    case other(any TypedRowReading)

    /// `store` when it decodes rows into objects' storage; nil otherwise.
    init?(_ store: (any PersistentStore)?) {
        if let sqlite = store as? SQLiteStore {
            self = .sqlite(sqlite)
        } else if let postgreSQL = store as? PostgreSQLStore {
            self = .postgreSQL(postgreSQL)
        } else if let other = store as? any TypedRowReading {
            self = .other(other)
        } else {
            return nil
        }
    }

    /// See ``TypedRowReading/readFaultRow(for:into:)``.
    func readFaultRow(for objectID: ManagedObjectID, into sink: inout some TypedRowSink) throws -> Bool {
        switch self {
        case .sqlite(let store): try store.readFaultRow(for: objectID, into: &sink)
        case .postgreSQL(let store): try store.readFaultRow(for: objectID, into: &sink)
        case .other(let store): try store.readFaultRow(for: objectID, into: &sink)
        }
    }

    /// See ``TypedRowReading/readFaultRows(for:into:)``.
    func readFaultRows(for objectIDs: [ManagedObjectID], into sink: inout some TypedRowSink) throws {
        switch self {
        case .sqlite(let store): try store.readFaultRows(for: objectIDs, into: &sink)
        case .postgreSQL(let store): try store.readFaultRows(for: objectIDs, into: &sink)
        case .other(let store): try store.readFaultRows(for: objectIDs, into: &sink)
        }
    }

    /// See ``TypedRowReading/readFetchRows(_:into:)``.
    func readFetchRows(
        _ request: StoreFetchRequest, into sink: inout some TypedRowSink
    ) throws -> (appliedPredicate: Bool, appliedSortAndLimit: Bool) {
        switch self {
        case .sqlite(let store): try store.readFetchRows(request, into: &sink)
        case .postgreSQL(let store): try store.readFetchRows(request, into: &sink)
        case .other(let store): try store.readFetchRows(request, into: &sink)
        }
    }
}

/// What a store's decoded row lacks before an object can hold it: its to-many relationships
/// as relationship faults (read when first used), its transient properties' initial values.
/// The indexes to fill are worked out once per entity met.
struct FetchedRowCompletion {
    private var entity: EntityDescription?
    private var indexes: [Int] = []

    /// Fills the to-many and transient slots of `values`, a row of `entity`, for `object`.
    mutating func complete(_ values: inout PropertyValues, of entity: EntityDescription, for object: ManagedObject) {
        if self.entity !== entity {
            self.entity = entity
            indexes = Self.indexes(of: entity)
        }
        for index in indexes { Self.fill(&values, at: index, of: entity, for: object) }
    }

    /// Fills the transient slots of `row`, a compact row of `entity` as a store decoded it
    /// (its to-many slots nil: unread relationship faults already).
    mutating func complete(_ row: CompactRow, of entity: EntityDescription) {
        if self.entity !== entity {
            self.entity = entity
            indexes = Self.indexes(of: entity)
        }
        guard !indexes.isEmpty else { return }
        let slots = entity.layout.slots
        for index in indexes where entity.properties[index].isTransient {
            PropertyValues.unbox(entity.initialValues[index], into: slots[index], in: row.base)
        }
    }

    /// Fills the to-many and transient slots of `values`, a row of `entity`, for `object`,
    /// for one row: the indexes are those kept for the entity (see `indexesByEntity`).
    static func completeOne(_ values: inout PropertyValues, of entity: EntityDescription, for object: ManagedObject) {
        for index in indexesByEntity.value(for: ManagedObject.self, entity: entity, compute: { indexes(of: entity) }) {
            fill(&values, at: index, of: entity, for: object)
        }
    }

    /// The indexes of each entity's to-many and transient properties, worked out once: faults
    /// fired one by one find them with one atomic load (the class is always `ManagedObject`).
    private static let indexesByEntity = ClassEntityCache<[Int]>()

    /// The indexes of `entity`'s to-many and transient properties.
    private static func indexes(of entity: EntityDescription) -> [Int] {
        let isToMany = entity.isToManyByIndex
        return entity.properties.indices.filter { isToMany[$0] || entity.properties[$0].isTransient }
    }

    private static func fill(_ values: inout PropertyValues, at index: Int, of entity: EntityDescription, for object: ManagedObject) {
        let property = entity.properties[index]
        if property.isTransient {
            values[index] = entity.initialValues[index]
        } else {
            // A to-many slot's unread relationship fault is its nil word: no value to box or cast.
            values.markUnreadRelationshipFault(at: index)
        }
    }
}

/// A sink that resolves to-one IDs and converts values through its context, as reading a
/// record does (a value that does not convert throws).
protocol ContextRowSink: TypedRowSink {
    /// The context whose objects the rows' relationships hold.
    var context: ManagedObjectContext { get }
}

extension ContextRowSink {
    func relatedObject(for id: ManagedObjectID) -> ManagedObject { context.object(with: id) }

    func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) throws {
        try context.storeObjectValue(value, for: property, kind: kind, into: &values, of: id)
    }
}

/// The sink of one fault fired on its own: it keeps the fault's row, completed; a value that
/// does not convert throws, as reading the record does.
struct FaultRowSink: ContextRowSink {
    let context: ManagedObjectContext
    /// The fault.
    let object: ManagedObject
    /// The row received, with its version.
    var row: (values: PropertyValues, version: Int64)?

    init(context: ManagedObjectContext, object: ManagedObject) {
        self.context = context
        self.object = object
    }

    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, values: consuming PropertyValues) {
        FetchedRowCompletion.completeOne(&values, of: id.entity, for: object)
        row = (values, version)
    }
}

/// What the sinks of batches and fetches share: a row with a value that does not convert
/// leaves its fault without one (firing then reads the store and reports it), any other is
/// completed and held by the fault until it fires.
struct FetchedRowAdoption {
    /// The context, held without reference counting: a sink lives within one call of its
    /// context, which every row reaches several times. Reached through `withContext(_:)`,
    /// which borrows it (a strong local copy of an `unowned(unsafe)` reference is retained
    /// and released again: two atomic operations per use, per row).
    private let unmanagedContext: Unmanaged<ManagedObjectContext>
    let read: RowRead
    private var completion = FetchedRowCompletion()
    private var conversionFailed = false
    /// The related objects to-one values resolved to lately, by the low bits of their keys (see
    /// `recentRelatedObject(for:)`); empty until the first one.
    private var recentRelated: [ManagedObject?] = []
    /// How many related objects `recentRelated` keeps: a power of two.
    private static let recentRelatedCount = 16

    init(context: ManagedObjectContext, read: RowRead) {
        unmanagedContext = Unmanaged.passUnretained(context)
        self.read = read
    }

    /// Calls `body` with the context, borrowed: no reference counted.
    @inline(__always)
    func withContext<Result>(_ body: (ManagedObjectContext) throws -> Result) rethrows -> Result {
        try unmanagedContext._withUnsafeGuaranteedRef(body)
    }

    /// The object a recent to-one value resolved to, when it is `id`'s: rows of a fetch or a
    /// batch mostly relate to a few objects (employees to their departments), and comparing one
    /// key and one entity costs less than looking the ID up in the registry. An object keeps
    /// its ID while the rows are read, and the registry holds it under that ID.
    @inline(__always)
    func recentRelatedObject(for id: ManagedObjectID) -> ManagedObject? {
        recentRelatedObject(of: id.entity, key: id.key)
    }

    /// The recent object of `entity` whose key is `key` (see `recentRelatedObject(for:)`).
    @inline(__always)
    func recentRelatedObject(of entity: EntityDescription, key: ManagedObjectID.Key) -> ManagedObject? {
        guard !recentRelated.isEmpty,
              let object = recentRelated[Int(truncatingIfNeeded: key.word) & (Self.recentRelatedCount - 1)],
              object.objectID.key == key, object.objectID.entity === entity
        else { return nil }
        return object
    }

    /// Remembers `object` as one a to-one value resolved to, in place of the one whose key
    /// shares its low bits.
    @inline(__always)
    mutating func noteRelated(_ object: ManagedObject) {
        if recentRelated.isEmpty { recentRelated = [ManagedObject?](repeating: nil, count: Self.recentRelatedCount) }
        let position = Int(truncatingIfNeeded: object.objectID.key.word) & (Self.recentRelatedCount - 1)
        if recentRelated[position] !== object { recentRelated[position] = object }
    }

    /// The object a to-one relationship holds for `id`: a recent one when it is `id`'s, else
    /// the context's (`ManagedObjectContext.object(with:)`).
    mutating func relatedObject(for id: ManagedObjectID) -> ManagedObject {
        if let object = recentRelatedObject(for: id) { return object }
        let object = withContext { $0.object(with: id) }
        noteRelated(object)
        return object
    }

    mutating func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) {
        guard !conversionFailed else { return }
        do {
            try withContext { try $0.storeObjectValue(value, for: property, kind: kind, into: &values, of: id) }
        } catch {
            conversionFailed = true
        }
    }

    /// Gives the fault `object` the row of its record of `entity` (or no row, when a value did
    /// not convert), as `ManagedObjectContext.setFetchedRow(_:version:read:of:)` does: the
    /// row's buffer moves into the object, no reference counted for it.
    mutating func adopt(_ values: consuming PropertyValues, of entity: EntityDescription, version: Int64, by object: ManagedObject) {
        defer { conversionFailed = false }
        guard !conversionFailed else { return withContext { $0.dropFetchedRow(of: object) } }
        // Completed in place: the store handed over its only reference to the buffer, made
        // with the row's read (`AdoptingRowSink.readOfReceivedRows`), which a firing fault
        // checks for staleness: never left without one.
        completion.complete(&values, of: entity, for: object)
        // A new fault takes the row compact (see `ObjectValueStorage`): no buffer header.
        if !object.holdCompactRow(movingFrom: &values, read: read) {
            values.setRowReadIfNone(read)
            object.fetchedRow = consume values
        }
        object.snapshotVersion = version
    }

    /// Gives the new fault `object` the compact row `row` of its record of `entity`, as
    /// `adopt(_:of:version:by:)` does with a buffer: its transient slots take their initial
    /// values (its to-many slots, nil as decoded, are unread relationship faults).
    mutating func adopt(compactRow row: consuming CompactRow, of entity: EntityDescription, version: Int64, by object: ManagedObject) {
        completion.complete(row, of: entity)
        if !object.holdCompactRow(row, read: read) {
            object.fetchedRow = PropertyValues(buffer: row.moveIntoBuffer(layout: entity.layout, rowRead: read))
        }
        object.snapshotVersion = version
    }

    /// Forgets the row received (no object takes it).
    mutating func skip() { conversionFailed = false }
}

/// A sink whose rows faults adopt (see `FetchedRowAdoption`).
protocol AdoptingRowSink: TypedRowSink {
    var adoption: FetchedRowAdoption { get set }
}

extension AdoptingRowSink {
    mutating func relatedObject(for id: ManagedObjectID) -> ManagedObject { adoption.relatedObject(for: id) }

    func recentRelatedObject(of entity: EntityDescription, key: ManagedObjectID.Key) -> ManagedObject? {
        adoption.recentRelatedObject(of: entity, key: key)
    }

    var readOfReceivedRows: RowRead? { adoption.read }

    mutating func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) {
        adoption.storeConverted(value, for: property, kind: kind, into: &values, of: id)
    }
}

/// The sink of a batch of faults: each fault asked for takes its row (see
/// `FetchedRowAdoption`); rows of other IDs are ignored.
///
/// A store reads a batch's rows by key (`WHERE Z_PK IN (…)`), which SQLite returns in key
/// order: the faults are kept in key order and each row is matched by walking them forward,
/// with no dictionary. A row out of that order (another table's, or a store that orders
/// otherwise) is looked up in a dictionary of the faults, made the first time it is needed.
struct FaultBatchRowSink: AdoptingRowSink {
    /// The faults, by increasing key.
    private let faults: [ManagedObject]
    /// The next fault a row in key order can be.
    private var cursor = 0
    /// The faults by ID, for rows out of key order.
    private var faultsByID: [ManagedObjectID: ManagedObject]?
    var adoption: FetchedRowAdoption

    init(context: ManagedObjectContext, faults: [ManagedObject], read: RowRead) {
        var isSorted = true
        for position in faults.indices.dropFirst() where faults[position - 1].objectID.key.number > faults[position].objectID.key.number {
            isSorted = false
            break
        }
        self.faults = isSorted ? faults : faults.sorted { $0.objectID.key.number < $1.objectID.key.number }
        adoption = FetchedRowAdoption(context: context, read: read)
    }

    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, values: consuming PropertyValues) {
        guard let object = fault(for: id) else { return adoption.skip() }
        adoption.adopt(values, of: id.entity, version: version, by: object)
    }

    /// The fault of `id`, if it is one of the batch's.
    private mutating func fault(for id: ManagedObjectID) -> ManagedObject? {
        let number = id.key.number
        var position = cursor
        while position < faults.count && faults[position].objectID.key.number < number { position += 1 }
        if position < faults.count, faults[position].objectID == id {
            cursor = position + 1
            return faults[position]
        }
        // Not asked for, or out of key order: the faults walked past are still found by ID.
        cursor = position
        if faultsByID == nil {
            faultsByID = Dictionary(faults.lazy.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return faultsByID?[id]
    }
}

/// The sink of a fetch: each row's object, in the order of the rows. A registered fault takes
/// the fresher row, a loaded object keeps its values (and any changes); a new object is a
/// fault holding its row (see `FetchedRowAdoption`), to be fired (`toFire`) when the request
/// wants loaded objects.
///
/// New objects are registered together (`registerNewObjects()`), once the rows are read: the
/// registry grows once, to the room they need, instead of doubling as they come. A fetch
/// reads each record once, so no row needs an object made earlier in the same fetch, but a
/// to-one relationship may: the new objects are registered before a related object is
/// looked up that the registry does not hold.
struct FetchRowSink: AdoptingRowSink {
    /// Whether the request wants loaded objects.
    let loaded: Bool
    /// The objects of the rows, in order.
    var objects: [ManagedObject] = []
    /// The new objects to fire once the store is done.
    var toFire: [ManagedObject] = []
    /// The new objects not registered yet (`objects` holds them).
    private var unregistered: [Unmanaged<ManagedObject>] = []
    /// The `@Managed` fields of the class of the entity of the last new object, looked up
    /// once per entity met (a fetch's rows are mostly of one entity).
    private var lastBindings: (entity: ObjectIdentifier, bindings: UnsafeBufferPointer<ManagedFieldTable.Binding>)?
    /// The current thread's request to make objects for records, set for the whole fetch
    /// (see `FaultConstruction.withRequest(_:)`); nil makes them as new objects.
    var construction: UnsafeMutablePointer<FaultConstruction>?
    var adoption: FetchedRowAdoption
    /// The fetched entity: rows are of it or of its subentities.
    private let entity: EntityDescription
    /// Whether the registry may hold the object of a row: false while it held nothing when
    /// the fetch began and nothing registered since can be one (a fetch reads each record
    /// once, and its own new objects wait in `unregistered`; a related object of another
    /// entity, such as an employee's department, is not a row). Each row then skips the
    /// registry lookup.
    private var registryMayHoldRows: Bool

    init(context: ManagedObjectContext, entity: EntityDescription, read: RowRead, loaded: Bool) {
        adoption = FetchedRowAdoption(context: context, read: read)
        self.entity = entity
        self.loaded = loaded
        registryMayHoldRows = context.registered.count > 0
    }

    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, values: consuming PropertyValues) {
        if registryMayHoldRows {
            let registeredID = copy id
            if let object = adoption.withContext({ $0.registered[registeredID] }) {
                objects.append(object)
                guard object.isFault else { return adoption.skip() }
                // A partial row does not take the place of a whole one.
                if adoption.read.partial != nil && object.fetchedRow.hasBuffer && !object.holdsPartialRow { return adoption.skip() }
                adoption.adopt(values, of: registeredID.entity, version: version, by: object)
                return
            }
        }
        let bindings = bindings(for: id.entity), construction = construction
        // Borrowed: the new object holds it, through the ID moved into it.
        let entity = Unmanaged.passUnretained(id.entity)
        var movingID = Optional(consume id), movingValues = Optional(consume values)
        let object = adoption.withContext {
            $0.makeUnregisteredFault(for: movingID.take().unsafelyUnwrapped, bindings: bindings, through: construction)
        }
        unregistered.append(Unmanaged.passUnretained(object))
        if loaded { toFire.append(object) }
        entity._withUnsafeGuaranteedRef { adoption.adopt(movingValues.take().unsafelyUnwrapped, of: $0, version: version, by: object) }
        // Moved: the array takes the reference the object was made with.
        objects.append(consume object)
    }

    /// Compact rows for a fetch of whole rows: its new faults hold them as they are.
    var takesCompactRows: Bool { adoption.read.partial == nil }

    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, compactRow row: consuming CompactRow) {
        // A row whose object may be registered takes the general path, in a buffer.
        if registryMayHoldRows {
            let values = PropertyValues(buffer: row.moveIntoBuffer(layout: id.entity.layout, rowRead: adoption.read))
            return receiveRow(id, version: version, values: values)
        }
        let bindings = bindings(for: id.entity), construction = construction
        // Borrowed: the new object holds it, through the ID moved into it.
        let entity = Unmanaged.passUnretained(id.entity)
        var movingID = Optional(consume id)
        let object = adoption.withContext {
            $0.makeUnregisteredFault(for: movingID.take().unsafelyUnwrapped, bindings: bindings, through: construction)
        }
        unregistered.append(Unmanaged.passUnretained(object))
        if loaded { toFire.append(object) }
        entity._withUnsafeGuaranteedRef { adoption.adopt(compactRow: row, of: $0, version: version, by: object) }
        // Moved: the array takes the reference the object was made with.
        objects.append(consume object)
    }

    /// `ManagedFieldTable.bindingBuffer(for:entity:)` of `entity`'s class and `entity`.
    @inline(__always)
    private mutating func bindings(for entity: EntityDescription) -> UnsafeBufferPointer<ManagedFieldTable.Binding> {
        if let last = lastBindings, last.entity == ObjectIdentifier(entity) { return last.bindings }
        let bindings = ManagedFieldTable.bindingBuffer(for: entity.managedObjectClass, entity: entity)
        lastBindings = (ObjectIdentifier(entity), bindings)
        return bindings
    }

    mutating func relatedObject(for id: ManagedObjectID) -> ManagedObject {
        if let object = adoption.recentRelatedObject(for: id) { return object }
        if let object = adoption.withContext({ $0.registered[id] }) {
            adoption.noteRelated(object)
            return object
        }
        // It may be one of the new objects: registered first, so that it is found.
        registerNewObjects()
        // A new fault of the fetched entity (a manager of the employees fetched) may be a
        // later row's object.
        if id.entity.isKindOf(entity: entity) { registryMayHoldRows = true }
        return adoption.relatedObject(for: id)
    }

    mutating func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) {
        // A to-one's object is looked up in the registry, and may be registered there; a
        // value transformer may run any code.
        if case .toOne = value { registerNewObjects() }
        registryMayHoldRows = true
        adoption.storeConverted(value, for: property, kind: kind, into: &values, of: id)
    }

    /// Registers the new objects made so far, growing the registry once for all of them.
    /// Call it once the rows are read, before the objects are used.
    mutating func registerNewObjects() {
        guard !unregistered.isEmpty else { return }
        // `objects` holds every one of them: none goes away before it is registered.
        adoption.withContext { $0.registered.insertNew(unregistered) }
        unregistered.removeAll(keepingCapacity: true)
    }
}
