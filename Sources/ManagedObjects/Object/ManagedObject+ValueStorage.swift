import Foundation

// How an object holds its values in one word (see `ObjectValueStorage`): a buffer it shares
// copy-on-write with its snapshot and others, or a fetched object's compact row, which reads
// in place and moves into a buffer the first time anything needs the values as a whole.

extension ManagedObject {
    /// The values of the entity's properties, by property index, typed per the entity's
    /// layout; empty while a fault.
    ///
    /// A fetched object holding its row compact (see `ObjectValueStorage`) moves it into a
    /// buffer here, before its values are handed out or written; the typed reads
    /// (`storedValue(as:at:)`, `storedValue(at:)`) read the row in place instead.
    package final var values: PropertyValues {
        @inline(__always) get {
            if let buffer = valueStorage.buffer { return PropertyValues(buffer: buffer.takeUnretainedValue()) }
            guard valueStorage.isCompact, !flags.contains(.fault) else { return PropertyValues() }
            expandCompactRow()
            return valueStorage.buffer.map { PropertyValues(buffer: $0.takeUnretainedValue()) } ?? PropertyValues()
        }
        @inline(__always) set {
            if valueStorage.isCompact { expandCompactRow() }
            let old = valueStorage.buffer
            valueStorage = ObjectValueStorage(newValue)
            old?.release()
        }
        // Edited in place: the buffer's reference moves out of the word while the values change
        // (the word holds none meanwhile), so that a write finds it unique and copies nothing.
        @inline(__always) _modify {
            if valueStorage.isCompact { expandCompactRow() }
            var values = valueStorage.buffer.map { PropertyValues(buffer: $0.takeRetainedValue()) } ?? PropertyValues()
            valueStorage = ObjectValueStorage()
            defer { valueStorage = ObjectValueStorage(handingOver: &values) }
            yield &values
        }
    }

    /// The number of values the object holds (0 for a fault's empty storage): `values.count`,
    /// read without taking a reference to the buffer.
    @inline(__always)
    final var valueCount: Int {
        if valueStorage.isCompact { return flags.contains(.fault) ? 0 : home.entity.layout.count }
        return withValuesUnretained { $0.count }
    }

    /// Whether the object holds a value at `index` (false for a fault's empty storage).
    @inline(__always)
    final func holdsValue(at index: Int) -> Bool { index >= 0 && index < valueCount }

    /// Whether the object holds values (false for a fault's empty storage): `values.hasBuffer`,
    /// read without taking a reference to the buffer.
    @inline(__always)
    final var hasValues: Bool {
        if valueStorage.isCompact { return !flags.contains(.fault) }
        return valueStorage.buffer != nil
    }

    /// The kind of the slot at `index`: `values.kind(at:)`, read without taking a reference to
    /// the buffer.
    @inline(__always)
    final func valueKind(at index: Int) -> PropertySlotKind? {
        guard holdsValue(at: index) else { return nil }
        return home.entity.layout.slots[index].kind
    }

    /// Moves the compact row the object holds, if any, into a buffer: a fault's into its
    /// fetched row (`ManagedObjectRowState.fetchedRow`, with the read), a fired object's into
    /// its values, shared with its snapshot. Everything but the typed reads and firing sees
    /// the object's rows as buffers: the row state's accessors call this first.
    @inline(never)
    final func expandCompactRow() {
        guard let row = valueStorage.compactRow else { return }
        let layout = home.entity.layout
        if case .compactRow(let read) = rowState {
            rowState = .fetchedRow(row.moveIntoBuffer(layout: layout, rowRead: read))
            valueStorage = ObjectValueStorage()
        } else {
            assert({ if case .snapshotInValues = rowState { true } else { false } }(), "a compact row with \(rowState)")
            let buffer = row.moveIntoBuffer(layout: layout, rowRead: nil)
            valueStorage = ObjectValueStorage(retainedBuffer: Unmanaged.passRetained(buffer))
            rowState = .snapshot(buffer)
        }
    }

    /// Whether the object can hold a compact row as its fault's row: a fault holding nothing
    /// else (a new fault of a fetch), for a whole row (`read` not partial).
    private final func takesCompactRow(read: RowRead) -> Bool {
        guard read.partial == nil, valueStorage.word == 0, flags.contains(.fault), case .none = rowState else { return false }
        return true
    }

    /// Makes the fault hold `row`, a whole row read at `read` (see `ObjectValueStorage`), and
    /// takes it; false, taking nothing, when the object cannot (see `takesCompactRow(read:)`).
    final func holdCompactRow(_ row: CompactRow, read: RowRead) -> Bool {
        guard takesCompactRow(read: read) else { return false }
        valueStorage = ObjectValueStorage(compactRow: row)
        rowState = .compactRow(read)
        return true
    }

    /// Makes the fault hold the row `values`, read at `read`, compact, moved out of its buffer
    /// (leaving `values` empty); false, changing nothing, when the object cannot (see
    /// `takesCompactRow(read:)`) or something else holds the buffer.
    final func holdCompactRow(movingFrom values: inout PropertyValues, read: RowRead) -> Bool {
        guard takesCompactRow(read: read), values.isUniquelyHeld, let buffer = values.storage else { return false }
        valueStorage = ObjectValueStorage(compactRow: CompactRow.moving(from: buffer))
        rowState = .compactRow(read)
        values = PropertyValues()
        return true
    }

    /// Makes the compact row the fault holds its values and its snapshot, where it is: the
    /// row state part of firing it (the context checks the row's read and clears the flags).
    final func fireCompactRow() {
        rowState = .snapshotInValues
    }

    /// The value of the property at `index` as `Value` when `Value` is its slot's own type or
    /// that type's optional, read in place from a buffer or a compact row; nil otherwise (and for
    /// a fault, whose values are empty).
    @inline(__always)
    final func storedValue<Value>(as _: Value.Type, at index: Int) -> Value? {
        if let buffer = valueStorage.buffer {
            return buffer._withUnsafeGuaranteedRef { buffer in
                buffer.withSlotIfPresent(at: index) { slot, base in PropertyValues.value(as: Value.self, in: slot, base: base) }
            }
        }
        guard let row = valueStorage.compactRow, !flags.contains(.fault) else { return nil }
        return home.entity.layout.slots.withUnsafeBufferPointer { slots in
            guard slots.indices.contains(index) else { return nil }
            return PropertyValues.value(as: Value.self, in: slots[index], base: row.base)
        }
    }

    /// The value of the property at `index`, boxed, read in place when the object holds a
    /// compact row (an attribute or a to-one relationship; a to-many relationship's slot moves
    /// the row into a buffer first, as resolving the relationship fault writes it). Nil for an
    /// index outside the values (a fault's empty storage).
    final func storedValue(at index: Int) -> Any?? {
        if let row = valueStorage.compactRow, !flags.contains(.fault), entity.isToManyByIndex.indices.contains(index),
           !entity.isToManyByIndex[index] {
            return row.boxedValue(at: index, layout: home.entity.layout)
        }
        return withValuesUnretained { values in values.indices.contains(index) ? .some(values[index]) : nil }
    }

    /// Lets go of what the value word holds, in `deinit`.
    final func releaseValueStorage() {
        if let buffer = valueStorage.buffer {
            buffer.release()
        } else if let row = valueStorage.compactRow {
            row.destroy(layout: home.entity.layout)
        }
        valueStorage = ObjectValueStorage()
    }
}
