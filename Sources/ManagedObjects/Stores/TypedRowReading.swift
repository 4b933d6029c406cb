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
    func relatedObject(for id: ManagedObjectID) -> ManagedObject

    /// Stores `value` for `property` in `values` when its slot (of `kind`) does not take it as
    /// it is: a conversion, a value transformer, an `Any` slot.
    ///
    /// - Throws: What converting the value throws (``PersistenceError/Code/operationFailed``).
    mutating func storeConverted(
        _ value: StoreValue, for property: PropertyDescription, kind: PropertySlotKind, into values: inout PropertyValues,
        of id: ManagedObjectID
    ) throws

    /// Receives one decoded row: the record's ID, its version and its values (to-many
    /// relationships and transient properties nil).
    ///
    /// - Throws: What the sink throws.
    mutating func receiveRow(_ id: ManagedObjectID, version: Int64, values: consuming PropertyValues) throws
}
