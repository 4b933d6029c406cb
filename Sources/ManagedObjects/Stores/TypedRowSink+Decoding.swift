import Foundation

extension TypedRowSink {
    /// Decodes one row of `entity` into a new storage of the entity's layout and hands it to
    /// the sink: `decode` writes the row's values through the slot writer it is given and
    /// returns the row's ID and version; the values the slots do not take as they are then go
    /// through ``storeConverted(_:for:kind:into:of:)``, in the order of their indexes.
    ///
    /// - Throws: What `decode` and the sink throw.
    @inline(__always)
    mutating func receiveDecodedRow(
        of entity: EntityDescription, _ decode: (inout SlotRowValues<Self>) throws -> (id: ManagedObjectID, version: Int64)
    ) throws {
        // A new buffer, written through its words' address while `buffer` holds it: no
        // uniqueness check, and no reference taken per row for the buffer or the layout's
        // slots (each an atomic increment and decrement, which cost more than their
        // instruction counts say).
        let layout = entity.layout
        let buffer = PropertyValueBuffer.make(layout: layout, rowRead: readOfReceivedRows)
        // The writer reaches the sink through a pointer, never a copy: a copy of a sink that
        // gathers objects would make each row's append copy them all.
        let (row, deferred) = try withUnsafeMutablePointer(to: &self) { sink in
            try layout.slots.withUnsafeBufferPointer { slots in
                try buffer.withUnsafeMutablePointerToElements { words in
                    var writer = SlotRowValues(slots: slots, base: UnsafeMutableRawPointer(words), sink: sink)
                    let row = try decode(&writer)
                    return (row, writer.deferred)
                }
            }
        }
        var values = PropertyValues(buffer: consume buffer)
        if !deferred.isEmpty {
            let slots = entity.layout.slots
            for (index, value) in deferred.sorted(by: { $0.index < $1.index }) {
                try storeConverted(value, for: entity.properties[index], kind: slots[index].kind, into: &values, of: row.id)
            }
        }
        let (id, version) = row
        try receiveRow(consume id, version: version, values: consume values)
    }
}
