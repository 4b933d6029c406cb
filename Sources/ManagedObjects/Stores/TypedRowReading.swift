import Foundation

/// A store that decodes its rows straight into objects' typed storage (``PropertyValues`` in
/// the entity's layout), with no ``StoreRecord`` or array of ``StoreValue``s per row: what a
/// context of a coordinator uses to fire a fault, fill a batch of faults and fetch objects
/// when the store adopts it. Every other read goes through records.
///
/// A store decodes a row's attributes into their slots (a value the slot cannot take as it is,
/// such as a transformable attribute's data, goes through ``TypedRowSink/storeConverted(_:for:kind:into:of:)``),
/// its to-one relationships as the objects ``TypedRowSink/relatedObject(for:)`` gives, and leaves
/// to-many relationships and transient properties nil for the context to fill. It applies the
/// same checks as its record reads, with the same errors.
///
/// The sink is called while the store reads (its lock held): it must not reach the store.
package protocol TypedRowReading: PersistentStore {
    /// Decodes the row of `objectID` (the row only, as ``PersistentStore/faultRecord(for:)``
    /// reads it) into `sink`: false when there is none.
    ///
    /// - Throws: What ``PersistentStore/faultRecord(for:)`` throws, and what the sink throws.
    func readFaultRow(for objectID: ManagedObjectID, into sink: inout some TypedRowSink) throws -> Bool

    /// Decodes the rows of the records of `objectIDs` that exist into `sink`, as
    /// ``PersistentStore/faultRecords(for:)`` reads them (the same statements); rows of IDs
    /// not asked for may reach the sink, which ignores them.
    ///
    /// - Throws: What ``PersistentStore/faultRecords(for:)`` throws, and what the sink throws.
    func readFaultRows(for objectIDs: [ManagedObjectID], into sink: inout some TypedRowSink) throws

    /// Decodes the rows a fetch asks for into `sink`, in the order of its results, as
    /// ``PersistentStore/fetch(_:)`` reads them; returns what it applied of the request.
    ///
    /// - Throws: What ``PersistentStore/fetch(_:)`` throws, and what the sink throws.
    func readFetchRows(
        _ request: StoreFetchRequest, into sink: inout some TypedRowSink
    ) throws -> (appliedPredicate: Bool, appliedSortAndLimit: Bool)
}

/// Where a ``TypedRowReading`` store delivers decoded rows: the context that registers them.
package protocol TypedRowSink {
    /// The object a to-one relationship holds for `id`: the registered one, or a new fault.
    mutating func relatedObject(for id: ManagedObjectID) -> ManagedObject

    /// The object a to-one relationship holds for the record of `entity` whose key is `key`
    /// when the sink has it at hand (one a recent row's to-one resolved to); nil otherwise,
    /// and the store then makes the ID and asks ``relatedObject(for:)``. Asked first so that a
    /// row related to an object met before makes no ID (a reference to its entity, counted
    /// atomically, taken and dropped per row).
    mutating func recentRelatedObject(of entity: EntityDescription, key: ManagedObjectID.Key) -> ManagedObject?

    /// Stores `value` for `property` in `values` when its slot (of `kind`) does not take it as
    /// it is: a conversion, a value transformer, an `Any` slot.
    ///
    /// - Throws: What converting the value throws (``PersistenceError/Code/operationFailed``).
    mutating func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) throws

    /// Receives one decoded row: the record's ID, its version and its values (to-many
    /// relationships and transient properties nil). The ID is handed over, so that a new
    /// object can take it as it is.
    ///
    /// - Throws: What the sink throws.
    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, values: consuming PropertyValues) throws

    /// When the rows the sink receives were read, for a sink whose faults keep their rows: each
    /// row's buffer is made with it (`PropertyValueBufferHeader.rowRead`); nil for others.
    var readOfReceivedRows: RowRead? { get }

    /// Whether the sink takes rows decoded into compact rows (``receiveRow(_:version:compactRow:)``),
    /// whose slots need no buffer: a fetch's new faults hold them as they are. False by default.
    var takesCompactRows: Bool { get }

    /// Receives one decoded row as a compact row (see ``takesCompactRows``), which the sink
    /// then owns: its ID, version and values, as ``receiveRow(_:version:values:)`` does. By
    /// default the row moves into a buffer for that method.
    ///
    /// - Throws: What the sink throws.
    mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, compactRow: consuming CompactRow) throws
}

extension TypedRowSink {
    package var readOfReceivedRows: RowRead? { nil }

    package var takesCompactRows: Bool { false }

    package mutating func receiveRow(_ id: consuming ManagedObjectID, version: Int64, compactRow: consuming CompactRow) throws {
        let values = PropertyValues(buffer: compactRow.moveIntoBuffer(layout: id.entity.layout, rowRead: readOfReceivedRows))
        try receiveRow(id, version: version, values: values)
    }

    package mutating func recentRelatedObject(of entity: EntityDescription, key: ManagedObjectID.Key) -> ManagedObject? { nil }
}

/// Where a store's row decoder (`SQLiteStore.decodeRow(_:entity:reads:table:into:)`) hands
/// the values of a row it checked: a record's array, or an object's typed storage.
protocol DecodedRowValues {
    /// The value of the attribute at `index` (never `.null`: NULL columns are skipped).
    mutating func attribute(_ value: StoreValue, at index: Int)
    /// The record the to-one relationship at `index` relates the row to: the one of `entity`
    /// whose key is `key` (NULL is skipped).
    mutating func toOne(_ entity: EntityDescription, key: ManagedObjectID.Key, at index: Int)
    /// The to-many relationship at `index`, whose IDs the row does not hold.
    mutating func toMany(at index: Int)
    /// The typed storage the values go to, when they go straight into an object's slots: a
    /// store's decoder then writes the values each slot takes as they are in place, with no
    /// ``StoreValue`` made for them (nil for values gathered otherwise).
    var slotTarget: SlotTarget? { get }
}

/// The slots of a buffer being filled (see ``PropertyValues/withUniqueSlots(_:)``).
///
/// The slots are the layout's, borrowed: valid while the buffer being filled (which holds its
/// layout) is. An array here would be retained and released around each column's slot read.
struct SlotTarget {
    let slots: UnsafeBufferPointer<PropertyLayout.Slot>
    let base: UnsafeMutableRawPointer
}

/// A row's values written into the slots of an object's storage (see
/// ``PropertyValues/withUniqueSlots(_:)``): each slot written in place through
/// `PropertyLayout.Slot/store(_:in:)` with its kind's type. Values a slot does not take as they are wait in `deferred` for the
/// sink's conversion, in the order of their indexes.
struct SlotRowValues<Sink: TypedRowSink>: DecodedRowValues {
    /// The layout's slots, borrowed (see ``SlotTarget``).
    let slots: UnsafeBufferPointer<PropertyLayout.Slot>
    let base: UnsafeMutableRawPointer
    /// The sink, for to-one relationships' objects (valid while the row is decoded).
    let sink: UnsafeMutablePointer<Sink>
    var deferred: [(index: Int, value: StoreValue)] = []

    var slotTarget: SlotTarget? { SlotTarget(slots: slots, base: base) }

    @inline(__always)
    private func write<T>(_ value: T, _ slot: PropertyLayout.Slot) {
        slot.store(value, in: base)
    }

    mutating func attribute(_ value: StoreValue, at index: Int) {
        let slot = slots[index]
        // The conversions `ManagedObjectContext.objectValue(_:for:of:)` makes without loss are
        // made here in place; anything else (a number the narrower type cannot hold, data for a
        // value transformer, an `Any` slot) takes the context's path.
        switch (value, slots[index].kind) {
        case (.integer(let integer), .int64): write(integer, slot)
        case (.integer(let integer), .int32):
            if let narrow = Int32(exactly: integer) { write(narrow, slot) } else { deferred.append((index, value)) }
        case (.integer(let integer), .int16):
            if let narrow = Int16(exactly: integer) { write(narrow, slot) } else { deferred.append((index, value)) }
        case (.double(let double), .double): write(double, slot)
        case (.double(let double), .float):
            let float = Float(double)
            if float.isInfinite && double.isFinite { deferred.append((index, value)) } else { write(float, slot) }
        case (.string(let string), .string): write(string, slot)
        case (.boolean(let bool), .boolean): write(bool, slot)
        case (.date(let date), .date): write(date, slot)
        case (.decimal(let decimal), .decimal): write(decimal, slot)
        case (.data(let data), .data): write(data, slot)
        case (.uuid(let uuid), .uuid): write(uuid, slot)
        case (.uri(let url), .url): write(url, slot)
        default: deferred.append((index, value))
        }
    }

    @inline(__always)
    mutating func toOne(_ entity: EntityDescription, key: ManagedObjectID.Key, at index: Int) {
        if let object = sink.pointee.recentRelatedObject(of: entity, key: key) {
            slots[index].store(object, in: base)
            return
        }
        // Registers a fault for the related record when none is registered; that touches no
        // other buffer's slots than the new object's.
        slots[index].store(sink.pointee.relatedObject(for: ManagedObjectID(entity: entity, key: key)), in: base)
    }

    mutating func toMany(at index: Int) {
        // Left nil: the context gives the object a relationship fault.
    }
}
