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
        if takesCompactRows { return try receiveDecodedCompactRow(of: entity, layout: layout, decode) }
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

    /// Decodes one row of `entity` as `receiveDecodedRow(of:_:)` does, into a compact row (see
    /// ``takesCompactRows``): no buffer is made for it. A row with values its slots do not take
    /// as they are goes into a buffer for their conversion, and on to ``receiveRow(_:version:values:)``.
    ///
    /// - Throws: What `decode` and the sink throw; the row is freed.
    @inline(__always)
    private mutating func receiveDecodedCompactRow(
        of entity: EntityDescription, layout: PropertyLayout,
        _ decode: (inout SlotRowValues<Self>) throws -> (id: ManagedObjectID, version: Int64)
    ) throws {
        let row = CompactRow.make(layout: layout)
        let decoded: (row: (id: ManagedObjectID, version: Int64), deferred: [(index: Int, value: StoreValue)])
        do {
            decoded = try withUnsafeMutablePointer(to: &self) { sink in
                try layout.slots.withUnsafeBufferPointer { slots in
                    var writer = SlotRowValues(slots: slots, base: row.base, sink: sink)
                    let decodedRow = try decode(&writer)
                    return (decodedRow, writer.deferred)
                }
            }
        } catch {
            row.destroy(layout: layout)
            throw error
        }
        let (id, version) = decoded.row
        if decoded.deferred.isEmpty { return try receiveRow(consume id, version: version, compactRow: row) }
        var values = PropertyValues(buffer: row.moveIntoBuffer(layout: layout, rowRead: readOfReceivedRows))
        let slots = layout.slots
        for (index, value) in decoded.deferred.sorted(by: { $0.index < $1.index }) {
            try storeConverted(value, for: entity.properties[index], kind: slots[index].kind, into: &values, of: id)
        }
        try receiveRow(consume id, version: version, values: consume values)
    }
}
