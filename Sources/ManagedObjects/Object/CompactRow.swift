import Foundation

/// A record's values in their entity's layout (see ``PropertyLayout``), held in memory of their
/// own with no header: no reference count, no layout, no read. The one object that holds it
/// (see `ObjectValueStorage`) knows the layout from its entity and owns the row outright, so a
/// fetched object pays the slots' bytes alone (an employee's 88 bytes take a 96-byte block,
/// where a ``PropertyValueBuffer`` with its object header, layout and read takes 128).
///
/// A row is never shared and never written: the object moves it into a buffer
/// (`moveIntoBuffer(layout:rowRead:)`) before anything copies or changes its values.
package struct CompactRow {
    /// The address of the slots: word-aligned, so an object's word tags it in its low bit.
    let base: UnsafeMutableRawPointer

    /// A row of `layout` with every slot nil (a copy of the layout's nil words).
    static func make(layout: PropertyLayout) -> CompactRow {
        let byteCount = layout.wordCount * MemoryLayout<UInt64>.stride
        let base = allocate(byteCount: byteCount)
        layout.nilWords.withUnsafeBufferPointer { nilWords in
            guard let nilWords = nilWords.baseAddress else { return }
            base.copyMemory(from: nilWords, byteCount: byteCount)
        }
        return CompactRow(base: base)
    }

    /// Memory for a row: word-aligned, which `malloc` serves as it is (a wider alignment takes
    /// `posix_memalign`, slower), and at least 2-aligned, so an object's word can tag it.
    private static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: MemoryLayout<UInt64>.alignment)
    }

    /// A row holding the slots of `buffer`, moved out of it: the buffer is left with every
    /// slot nil (its deinit then releases nothing), so it must be the only holder of its
    /// values (fresh from a store).
    static func moving(from buffer: PropertyValueBuffer) -> CompactRow {
        buffer.withUnsafeMutablePointers { header, words in
            let layout = header.pointee.layout
            let byteCount = layout.wordCount * MemoryLayout<UInt64>.stride
            let base = allocate(byteCount: byteCount)
            base.copyMemory(from: words, byteCount: byteCount)
            layout.nilWords.withUnsafeBufferPointer { nilWords in
                guard let nilWords = nilWords.baseAddress else { return }
                UnsafeMutableRawPointer(words).copyMemory(from: nilWords, byteCount: byteCount)
            }
            return CompactRow(base: base)
        }
    }

    /// A buffer of `layout` (with `rowRead` in its header) holding this row's slots, moved
    /// into it; the row's memory is freed and must not be used again.
    consuming func moveIntoBuffer(layout: PropertyLayout, rowRead: RowRead?) -> PropertyValueBuffer {
        let buffer = PropertyValueBuffer.make(layout: layout, rowRead: rowRead)
        buffer.withUnsafeMutablePointerToElements { words in
            // The new buffer's slots are nil, holding no reference: overwritten as they are.
            UnsafeMutableRawPointer(words).copyMemory(from: base, byteCount: layout.wordCount * MemoryLayout<UInt64>.stride)
        }
        base.deallocate()
        return buffer
    }

    /// Releases the row's values (those of `layout`'s slots that hold references) and frees
    /// its memory; the row must not be used again.
    consuming func destroy(layout: PropertyLayout) {
        PropertyValueBuffer.deinitializeSlots(at: base, layout: layout)
        base.deallocate()
    }

    /// The value at `index`, boxed as `Any?` (see ``PropertyValues``' subscript); nil for an
    /// index outside the layout.
    func boxedValue(at index: Int, layout: PropertyLayout) -> Any?? {
        layout.slots.withUnsafeBufferPointer { slots in
            guard slots.indices.contains(index) else { return nil }
            return .some(PropertyValues.box(slots[index], in: base))
        }
    }
}
