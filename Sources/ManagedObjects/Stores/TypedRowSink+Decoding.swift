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
        var values = PropertyValues(layout: entity.layout, rowRead: readOfReceivedRows)
        // The writer reaches the sink through a pointer, never a copy: a copy of a sink that
        // gathers objects would make each row's append copy them all.
        let (row, deferred) = try withUnsafeMutablePointer(to: &self) { sink in
            try values.withUniqueSlots { slots, base in
                // The buffer holds its layout, and with it the slots, while the row is decoded.
                try slots.withUnsafeBufferPointer { slots in
                    var writer = SlotRowValues(slots: slots, base: base, sink: sink)
                    let row = try decode(&writer)
                    return (row, writer.deferred)
                }
            }
        }
        if !deferred.isEmpty {
            let slots = entity.layout.slots
            for (index, value) in deferred.sorted(by: { $0.index < $1.index }) {
                try storeConverted(value, for: entity.properties[index], kind: slots[index].kind, into: &values, of: row.id)
            }
        }
        try receiveRow(row.id, version: row.version, values: consume values)
    }
}
