/// The word in which a managed object holds its values: nothing (a fault's empty storage), a
/// ``PropertyValueBuffer`` the object retains, or a ``CompactRow`` the object owns, marked by
/// the word's low bit (both are at least word-aligned).
///
/// A compact row is what a fetched object holds until its values are first needed as
/// ``PropertyValues``: while the object is a fault, the row its fetch read (the row state then
/// holds when it was read, `ManagedObjectRowState.compactRow`); once fired, its values, which
/// are also its snapshot (`ManagedObjectRowState.snapshotInValues`). The object releases what
/// the word holds when it replaces it and in its `deinit` (see `ManagedObject.values`).
struct ObjectValueStorage {
    /// 0, a buffer's address, or a compact row's address with the low bit set.
    private(set) var word: UInt

    /// No values.
    @inline(__always)
    init() { word = 0 }

    /// The word of `buffer`, taking over a retained reference to it.
    @inline(__always)
    init(retainedBuffer buffer: Unmanaged<PropertyValueBuffer>) {
        word = UInt(bitPattern: buffer.toOpaque())
    }

    /// The word of `values`' buffer, retained (no values for empty storage).
    @inline(__always)
    init(_ values: consuming PropertyValues) {
        var values = values
        self.init(handingOver: &values)
    }

    /// The word of `values`' buffer, whose reference it takes over, leaving `values` empty.
    @inline(__always)
    init(handingOver values: inout PropertyValues) {
        word = values.handOverBuffer().map { UInt(bitPattern: $0.toOpaque()) } ?? 0
    }

    /// The word of `row`, which the object then owns.
    @inline(__always)
    init(compactRow row: CompactRow) {
        word = UInt(bitPattern: row.base) | 1
    }

    /// Whether the word holds a compact row.
    @inline(__always)
    var isCompact: Bool { word & 1 != 0 }

    /// The buffer, when the word holds one (retained by the object).
    @inline(__always)
    var buffer: Unmanaged<PropertyValueBuffer>? {
        guard word & 1 == 0, let address = UnsafeRawPointer(bitPattern: word) else { return nil }
        return Unmanaged.fromOpaque(address)
    }

    /// The compact row, when the word holds one (owned by the object).
    @inline(__always)
    var compactRow: CompactRow? {
        guard word & 1 != 0, let address = UnsafeMutableRawPointer(bitPattern: word & ~1) else { return nil }
        return CompactRow(base: address)
    }
}
