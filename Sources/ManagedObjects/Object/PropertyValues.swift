import Foundation
import ModelObjects

/// The values of one object's properties, by property index, each in its own representation in
/// a buffer laid out by the entity's ``PropertyLayout``: an `Int64` attribute takes 8 bytes and
/// a presence bit's byte, a `String` one 16, with no `Any` box and no conversion on the typed
/// paths.
///
/// A value type with copy-on-write over one buffer: an object's values and its snapshot share
/// the buffer until either is written, so a fetched, fired, unchanged object holds one buffer;
/// a new object shares its entity's ``EntityDescription/initialValues`` until its first write.
/// An empty value (no buffer, ``count`` 0) is a fault's storage.
///
/// The `Any?` subscript boxes and unboxes by slot kind, so code that works on any property
/// reads and writes it as it did an array of `Any?`; the typed accessors (``load(_:at:)``,
/// ``store(_:at:)``, ``value(as:at:)``) read and write a slot in place for hot paths that know
/// the slot's type.
package struct PropertyValues: RandomAccessCollection, MutableCollection {
    /// The buffer; nil for a fault's empty storage.
    private var buffer: PropertyValueBuffer?

    /// Empty storage: a fault's.
    package init() { buffer = nil }

    /// The storage of `buffer`.
    init(buffer: PropertyValueBuffer) { self.buffer = buffer }

    /// The buffer; nil for empty storage.
    var storage: PropertyValueBuffer? { buffer }

    /// Storage for `layout` with every value nil.
    package init(layout: PropertyLayout) {
        buffer = PropertyValueBuffer.make(layout: layout)
    }

    /// Storage for `layout` with every value nil, for a row a fetch read at `read` (see
    /// `PropertyValueBufferHeader.rowRead`).
    init(layout: PropertyLayout, rowRead read: RowRead?) {
        buffer = PropertyValueBuffer.make(layout: layout, rowRead: read)
    }

    /// Gives the buffer `read` as its row's read when it has none (a buffer copied after the
    /// store made it does not carry its read).
    mutating func setRowReadIfNone(_ read: RowRead) {
        buffer?.withUnsafeMutablePointerToHeader { header in
            if header.pointee.rowRead == nil { header.pointee.rowRead = read }
        }
    }

    /// Storage for `layout` holding `values`, by property index (missing ones nil).
    package init(layout: PropertyLayout, values: some Sequence<Any?>) {
        self.init(layout: layout)
        for (index, value) in zip(0..<layout.count, values) { self[index] = value }
    }

    /// The layout the values follow; nil for empty storage.
    package var layout: PropertyLayout? { buffer?.withUnsafeMutablePointerToHeader { $0.pointee.layout } }

    // MARK: - Collection

    package var startIndex: Int { 0 }
    package var endIndex: Int { buffer?.withUnsafeMutablePointerToHeader { $0.pointee.layout.slots.count } ?? 0 }

    /// The value at `index`, boxed as `Any?`. Setting a value of another type than the slot's
    /// converts it without loss (`convertKeyValue`), as stored values always are before they
    /// get here.
    package subscript(index: Int) -> Any? {
        get {
            // `Any??`: the outer nil is a missing slot, the inner one a nil value.
            guard let value = buffer?.withSlotIfPresent(at: index, { slot, base -> Any?? in .some(Self.box(slot, in: base)) }) else {
                preconditionFailure("property index \(index) out of range")
            }
            return value
        }
        set {
            guard index >= 0, index < count else { preconditionFailure("property index \(index) out of range") }
            makeUnique().withSlot(at: index) { slot, base in Self.unbox(newValue, into: slot, in: base) }
        }
    }

    /// Hands the buffer's reference over as a retained unmanaged one, leaving the storage empty.
    @inline(__always)
    mutating func handOverBuffer() -> Unmanaged<PropertyValueBuffer>? {
        guard let buffer = buffer.take() else { return nil }
        return Unmanaged.passRetained(buffer)
    }

    /// Whether the storage has a buffer that nothing else holds.
    var isUniquelyHeld: Bool {
        mutating get { isKnownUniquelyReferenced(&buffer) }
    }

    /// Whether the storage has a buffer: false only for a fault's empty storage (an entity
    /// without properties still has one).
    package var hasBuffer: Bool { buffer != nil }

    /// The identity of the buffer; nil for empty storage. Equal before and after a write
    /// exactly when the write needed no copy.
    package var bufferIdentity: ObjectIdentifier? { buffer.map(ObjectIdentifier.init) }

    /// The buffer, not retained; nil for empty storage (see `ManagedObject.withValuesUnretained(_:)`).
    var unmanagedStorage: Unmanaged<PropertyValueBuffer>? { buffer.map { Unmanaged.passUnretained($0) } }

    /// Whether the two values share one buffer (or are both empty): a snapshot not written since
    /// it was taken.
    package func isIdentical(to other: PropertyValues) -> Bool { buffer === other.buffer }

    // MARK: - Typed access

    /// The kind of the slot at `index`.
    package func kind(at index: Int) -> PropertySlotKind? {
        buffer?.withSlotIfPresent(at: index) { slot, _ in slot.kind }
    }

    /// The value at `index`, which must be a slot of type `T` (the kind's own Swift type,
    /// `ManagedObject` for an object slot, `Any` for an `Any?` slot): no box, no cast. A to-many
    /// slot is read through ``toManyContents(at:)`` (or the `Any?` subscript), never here: its one
    /// word is not the `Any?` it stands for.
    @inline(__always)
    package func load<T>(_: T.Type, at index: Int) -> T? {
        guard let buffer else { return nil }
        return buffer.withSlot(at: index) { slot, base in
            assert(!slot.kind.isToMany, "a to-many slot read as \(T.self)")
            return slot.load(T.self, in: base)
        }
    }

    /// Stores `value` at `index`, which must be a slot of type `T` (`Any` for an `Any?` slot; a
    /// to-many slot is written through the `Any?` subscript); copies the buffer first when it
    /// is shared.
    @inline(__always)
    package mutating func store<T>(_ value: T?, at index: Int) {
        makeUnique().withSlot(at: index) { slot, base in
            assert(!slot.kind.isToMany, "a to-many slot written as \(T.self)")
            slot.store(value, in: base)
        }
    }

    /// What the to-many slot at `index` holds, read in place: the set or array of its objects
    /// taken out of the box's `Any?` without a dynamic cast when it is exactly a
    /// `Set<ManagedObject>` or an `[ManagedObject]` (else cast). Nil for a slot that is not a
    /// to-many one.
    package func toManyContents(at index: Int) -> ToManyContents? {
        guard let buffer else { return nil }
        return buffer.withSlotIfPresent(at: index) { slot, base -> ToManyContents? in
            guard slot.kind.isToMany else { return nil }
            guard let box = (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self).pointee else { return .unread }
            // Read in place when exactly a set or an array (see `ExactExistential`); each read
            // answers an optional collection, not an optional `ToManyContents`, whose copy costs
            // about as much as the cast.
            if let set = withUnsafeMutablePointer(to: &box.value, { ExactExistential.load($0, as: Set<ManagedObject>.self) }) {
                return .set(set)
            }
            if let array = withUnsafeMutablePointer(to: &box.value, { ExactExistential.load($0, as: [ManagedObject].self) }) {
                return .array(array)
            }
            guard let value = box.value else { return .other(nil) }
            // An ordered relationship holds an array, an unordered one a set: that one first.
            if slot.kind == .orderedToMany {
                if let array = Self.cast(value, to: [ManagedObject].self) { return .array(array) }
                if let set = Self.cast(value, to: Set<ManagedObject>.self) { return .set(set) }
            } else {
                if let set = Self.cast(value, to: Set<ManagedObject>.self) { return .set(set) }
                if let array = Self.cast(value, to: [ManagedObject].self) { return .array(array) }
            }
            return .other(value)
        }
    }

    /// `value as? T`, without the runtime's dynamic cast when `value` is exactly a `T`: read out
    /// of the container in place (a dynamic cast costs a few hundred instructions, this a
    /// comparison of one word; see `ExactExistential`).
    @inline(__always)
    package static func cast<T>(_ value: Any, to _: T.Type) -> T? {
        ExactExistential.load(value, as: T.self) ?? value as? T
    }

    /// Calls `body` with the value of the to-many relationship at `index`, to edit it in place:
    /// the slot's box is made the slot's own first (the buffer copied when shared, the box when
    /// a copy of the buffer holds it too), so that a collection taken out of the value while it
    /// changes is not copied. Nil, calling nothing, when the slot is not a to-many one or is an
    /// unread relationship fault.
    @inline(__always)
    package mutating func withUniqueToMany<R>(at index: Int, _ body: (inout Any?) -> R) -> R? {
        guard let kind = kind(at: index), kind.isToMany else { return nil }
        return makeUnique().withSlot(at: index) { slot, base -> R? in
            let reference = (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self)
            guard reference.pointee != nil else { return nil }
            if !isKnownUniquelyReferenced(&reference.pointee) { reference.pointee = ToManyBox(reference.pointee?.value) }
            guard let box = reference.pointee else { return nil }
            return body(&box.value)
        }
    }

    /// The value at `index` as `Value` when `Value` is the slot's own type or its optional
    /// (`Int` counts as `Int64` on 64-bit platforms), read in place. `nil` when it is not, when
    /// `index` is out of range, or when the slot is nil and `Value` is not optional: callers
    /// then take the general path.
    @inline(__always)
    package func value<Value>(as _: Value.Type, at index: Int) -> Value? {
        guard let buffer else { return nil }
        return buffer.withSlotIfPresent(at: index) { slot, base in Self.value(as: Value.self, in: slot, base: base) }
    }

    /// The value of `slot`, in the slots at `base`, as `Value` when `Value` is the slot's own
    /// type or its optional; nil otherwise (see ``value(as:at:)``).
    @inline(__always)
    static func value<Value>(as _: Value.Type, in slot: PropertyLayout.Slot, base: UnsafeMutableRawPointer) -> Value? {
        switch slot.kind.match(Value.self) {
        case .exact: slot.load(Value.self, in: base)
        case .optional: loadOptional(Value.self, slot, base)
        case .mismatch: nil
        }
    }

    /// Stores `value` at `index` in place when `Value` is the slot's own type or its optional;
    /// whether it did (false: `index` is out of range or the types differ, nothing changed).
    @inline(__always)
    package mutating func setValue<Value>(_ value: Value, at index: Int) -> Bool {
        guard let kind = kind(at: index) else { return false }
        switch kind.match(Value.self) {
        case .exact: makeUnique().withSlot(at: index) { slot, base in slot.store(value, in: base) }
        case .optional: makeUnique().withSlot(at: index) { slot, base in Self.storeOptional(value, slot, base) }
        case .mismatch: return false
        }
        return true
    }

    /// Calls `body` with the layout's slots and the address of the buffer's bytes (copied
    /// first when shared), to write many slots in one pass: each slot is read and written
    /// through its `PropertyLayout.Slot/load(_:in:)` and `PropertyLayout.Slot/store(_:in:)`
    /// with its kind's Swift type. `body` must not reach these values through another path.
    @inline(__always)
    package mutating func withUniqueSlots<R>(
        _ body: (ContiguousArray<PropertyLayout.Slot>, UnsafeMutableRawPointer) throws -> R
    ) rethrows -> R {
        try makeUnique().withUnsafeMutablePointers { header, words in try body(header.pointee.layout.slots, UnsafeMutableRawPointer(words)) }
    }

    /// Calls `body` with the slot at `index` and the address of the buffer's bytes (copied
    /// first when shared), as `withUniqueSlots(_:)` does for one slot, taking no reference to
    /// the buffer, its layout or the layout's slots for the call: each would be an atomic
    /// increment and decrement, which cost more than the write. Nil, with `body` not called,
    /// for empty storage or an index outside the layout. `body` must not reach these values
    /// through another path.
    @inline(__always)
    package mutating func withUniqueSlotUnretained<R>(
        at index: Int, _ body: (PropertyLayout.Slot, UnsafeMutableRawPointer) throws -> R
    ) rethrows -> R? {
        if !isKnownUniquelyReferenced(&buffer) {
            guard buffer != nil else { return nil }
            _ = makeUnique()
        }
        // SAFETY: `self` holds the buffer, unique now, for the call, and the buffer its layout.
        return try Unmanaged.passUnretained(buffer.unsafelyUnwrapped)._withUnsafeGuaranteedRef { buffer in
            try buffer.withUnsafeMutablePointers { header, words in
                try Unmanaged.passUnretained(header.pointee.layout)._withUnsafeGuaranteedRef { layout in
                    try layout.slots.withUnsafeBufferPointer { slots in
                        guard slots.indices.contains(index) else { return nil }
                        return try body(slots[index], UnsafeMutableRawPointer(words))
                    }
                }
            }
        }
    }

    /// Makes the to-many slot at `index` an unread relationship fault, its nil word; writes
    /// nothing (and copies no buffer) when it is one already, as in a freshly decoded row.
    package mutating func markUnreadRelationshipFault(at index: Int) {
        guard let kind = kind(at: index), kind.isToMany, let buffer else { return }
        let isUnread = buffer.withSlot(at: index) { slot, base in
            (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self).pointee == nil
        }
        if isUnread { return }
        makeUnique().withSlot(at: index) { slot, base in (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self).pointee = nil }
    }

    /// The box of the to-many slot at `index`; nil for an unread relationship fault, and for
    /// any other slot.
    func toManyBox(at index: Int) -> ToManyBox? {
        guard let kind = kind(at: index), kind.isToMany, let buffer else { return nil }
        return buffer.withSlot(at: index) { slot, base in (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self).pointee }
    }

    // MARK: - Copy on write

    private mutating func makeUnique() -> PropertyValueBuffer {
        // Checked before anything else holds the buffer: a local reference taken first would
        // make every buffer look shared, and every write copy it.
        if !isKnownUniquelyReferenced(&buffer) {
            guard let shared = buffer else { preconditionFailure("writing to the empty storage of a fault") }
            buffer = shared.copy()
        }
        guard let buffer else { preconditionFailure("writing to the empty storage of a fault") }
        return buffer
    }

    // MARK: - Optionals of a slot's type

    /// The value of `slot` as `Value`, the optional of the slot's type: a bare slot's value and
    /// presence byte made into the optional.
    @inline(__always)
    private static func loadOptional<Value>(_: Value.Type, _ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) -> Value? {
        if slot.presence < 0 { return (base + slot.offset).assumingMemoryBound(to: Value.self).pointee }
        @inline(__always)
        func optional<T>(_: T.Type) -> Value {
            // `Value` is `T?` (the caller matched it): the same bytes.
            withUnsafePointer(to: slot.load(T.self, in: base)) { UnsafeRawPointer($0).load(as: Value.self) }
        }
        switch slot.kind {
        case .int16: return optional(Int16.self)
        case .int32: return optional(Int32.self)
        case .int64: return optional(Int64.self)
        case .double: return optional(Double.self)
        case .float: return optional(Float.self)
        case .boolean: return optional(Bool.self)
        case .date: return optional(Date.self)
        case .decimal: return optional(Decimal.self)
        case .uuid: return optional(UUID.self)
        case .string, .data, .url, .object, .any, .toMany, .orderedToMany: return nil
        }
    }

    /// Stores `value`, the optional of the slot's type, in `slot`.
    @inline(__always)
    private static func storeOptional<Value>(_ value: Value, _ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) {
        if slot.presence < 0 {
            (base + slot.offset).assumingMemoryBound(to: Value.self).pointee = value
            return
        }
        @inline(__always)
        func store<T>(_: T.Type) {
            // `Value` is `T?` (the caller matched it): the same bytes.
            slot.store(withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: T?.self) }, in: base)
        }
        switch slot.kind {
        case .int16: store(Int16.self)
        case .int32: store(Int32.self)
        case .int64: store(Int64.self)
        case .double: store(Double.self)
        case .float: store(Float.self)
        case .boolean: store(Bool.self)
        case .date: store(Date.self)
        case .decimal: store(Decimal.self)
        case .uuid: store(UUID.self)
        case .string, .data, .url, .object, .any, .toMany, .orderedToMany: break
        }
    }

    // MARK: - Boxing by kind

    @inline(__always)
    private static func boxed<T>(_: T.Type, _ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) -> Any? {
        slot.load(T.self, in: base)
    }

    @inline(__always)
    private static func unboxed<T>(_ value: Any?, _: T.Type, _ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) {
        slot.store(value.flatMap { cast($0, to: T.self) ?? convertKeyValue($0, to: T.self) }, in: base)
    }

    /// The value of `slot`, in the slots at `base`, boxed as `Any?`.
    static func box(_ slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer) -> Any? {
        switch slot.kind {
        case .int16: return boxed(Int16.self, slot, base)
        case .int32: return boxed(Int32.self, slot, base)
        case .int64: return boxed(Int64.self, slot, base)
        case .double: return boxed(Double.self, slot, base)
        case .float: return boxed(Float.self, slot, base)
        case .boolean: return boxed(Bool.self, slot, base)
        case .date: return boxed(Date.self, slot, base)
        case .decimal: return boxed(Decimal.self, slot, base)
        case .uuid: return boxed(UUID.self, slot, base)
        case .string: return boxed(String.self, slot, base)
        case .data: return boxed(Data.self, slot, base)
        case .url: return boxed(URL.self, slot, base)
        case .object: return boxed(ManagedObject.self, slot, base)
        case .any: return (base + slot.offset).assumingMemoryBound(to: Any?.self).pointee
        case .toMany, .orderedToMany: return boxedToMany(slot, base)
        }
    }

    /// A to-many slot's value: the box's, or an unread relationship fault for a nil slot.
    @inline(__always)
    private static func boxedToMany(_ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) -> Any? {
        guard let box = (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self).pointee else {
            return RelationshipFault(unreadOrdered: slot.kind == .orderedToMany)
        }
        return box.value
    }

    /// Stores `value` in a to-many slot: nil for an unread relationship fault, else in the
    /// slot's box, written in place when the slot alone holds it (a box shared with a copy of
    /// the buffer is replaced, never written).
    private static func unboxToMany(_ value: Any?, _ slot: PropertyLayout.Slot, _ base: UnsafeMutableRawPointer) {
        let reference = (base + slot.offset).assumingMemoryBound(to: ToManyBox?.self)
        if let value, type(of: value) == RelationshipFault.self, (value as? RelationshipFault)?.ids == nil {
            reference.pointee = nil
        } else if isKnownUniquelyReferenced(&reference.pointee) {
            reference.pointee?.value = value
        } else {
            reference.pointee = ToManyBox(value)
        }
    }

    /// Stores `value`, converted to the slot's type, in `slot` of the slots at `base`.
    static func unbox(_ value: Any?, into slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer) {
        switch slot.kind {
        case .int16: unboxed(value, Int16.self, slot, base)
        case .int32: unboxed(value, Int32.self, slot, base)
        case .int64: unboxed(value, Int64.self, slot, base)
        case .double: unboxed(value, Double.self, slot, base)
        case .float: unboxed(value, Float.self, slot, base)
        case .boolean: unboxed(value, Bool.self, slot, base)
        case .date: unboxed(value, Date.self, slot, base)
        case .decimal: unboxed(value, Decimal.self, slot, base)
        case .uuid: unboxed(value, UUID.self, slot, base)
        case .string: unboxed(value, String.self, slot, base)
        case .data: unboxed(value, Data.self, slot, base)
        case .url: unboxed(value, URL.self, slot, base)
        case .object: slot.store(value.flatMap { asModelObject($0) as? ManagedObject }, in: base)
        case .any: (base + slot.offset).assumingMemoryBound(to: Any?.self).pointee = value
        case .toMany, .orderedToMany: unboxToMany(value, slot, base)
        }
    }

    /// Whether `value` fits the slot `kind` as it is or converted without loss.
    package static func fits(_ value: Any, _ kind: PropertySlotKind) -> Bool {
        func fits<T>(_: T.Type) -> Bool { value is T || convertKeyValue(value, to: T.self) != nil }
        switch kind {
        case .int16: return fits(Int16.self)
        case .int32: return fits(Int32.self)
        case .int64: return fits(Int64.self)
        case .double: return fits(Double.self)
        case .float: return fits(Float.self)
        case .boolean: return fits(Bool.self)
        case .date: return fits(Date.self)
        case .decimal: return fits(Decimal.self)
        case .uuid: return fits(UUID.self)
        case .string: return fits(String.self)
        case .data: return fits(Data.self)
        case .url: return fits(URL.self)
        case .object: return asModelObject(value) is ManagedObject
        case .any, .toMany, .orderedToMany: return true
        }
    }
}

/// What a to-many relationship's slot holds (see `PropertyValues.toManyContents(at:)`).
package enum ToManyContents {
    /// An unread relationship fault: the slot's nil word.
    case unread
    /// The objects of the relationship, in a set (an unordered relationship's value).
    case set(Set<ManagedObject>)
    /// The objects of the relationship, in order (an ordered relationship's value).
    case array([ManagedObject])
    /// Anything else the box holds: nil, a relationship fault with the related records' IDs.
    case other(Any?)
}

/// How a Swift type relates to a slot's type.
package enum SlotMatch {
    /// The slot's own type.
    case exact
    /// The optional of the slot's type.
    case optional
    /// Neither: the value goes through `Any?`.
    case mismatch
}

extension PropertySlotKind {
    /// How `Value` relates to the slot's type. Object and `Any?` slots match nothing: their
    /// typed readers cast.
    @inline(__always)
    package func match<Value>(_: Value.Type) -> SlotMatch {
        switch self {
        case .int16: return Self.compare(Value.self, Int16.self)
        case .int32: return Self.compare(Value.self, Int32.self)
        case .int64:
            let match = Self.compare(Value.self, Int64.self)
            // `Int` and `Int64` (and their optionals) share one representation on 64-bit platforms.
            if case .mismatch = match, MemoryLayout<Int>.size == MemoryLayout<Int64>.size { return Self.compare(Value.self, Int.self) }
            return match
        case .double: return Self.compare(Value.self, Double.self)
        case .float: return Self.compare(Value.self, Float.self)
        case .boolean: return Self.compare(Value.self, Bool.self)
        case .date: return Self.compare(Value.self, Date.self)
        case .decimal: return Self.compare(Value.self, Decimal.self)
        case .uuid: return Self.compare(Value.self, UUID.self)
        case .string: return Self.compare(Value.self, String.self)
        case .data: return Self.compare(Value.self, Data.self)
        case .url: return Self.compare(Value.self, URL.self)
        case .object, .any, .toMany, .orderedToMany: return .mismatch
        }
    }

    @inline(__always)
    private static func compare<Value, T>(_: Value.Type, _: T.Type) -> SlotMatch {
        if Value.self == T.self { return .exact }
        if Value.self == T?.self { return .optional }
        return .mismatch
    }
}

/// The value of a to-many relationship's slot once the relationship is more than an unread
/// relationship fault: its objects (a `Set<ManagedObject>`, or an `[ManagedObject]` when
/// ordered), a fault with the related records' IDs, or nil. A slot holds one word, the box's
/// reference, where an `Any?` takes four: a fetched object's to-many relationships stay unread
/// faults, nil slots, and cost no box.
///
/// Copies of a buffer share its boxes; a box is written in place only while one slot holds it
/// (see `PropertyValues.withUniqueToMany(at:_:)`), so a shared box is never written and each
/// copy keeps its value.
final class ToManyBox {
    /// The relationship's value. SAFETY (unchecked exclusivity): a box is reached only through
    /// its slot, and an edit in place (`withUniqueToMany`) calls nothing that reaches the slot
    /// again; the box belongs to its object's isolation domain.
    @exclusivity(unchecked) var value: Any?

    init(_ value: Any?) { self.value = value }
}

/// The header of a ``PropertyValueBuffer``: the layout its slots follow, and when the row a
/// fault holds was read.
struct PropertyValueBufferHeader {
    /// The layout of the buffer's slots.
    let layout: PropertyLayout
    /// When a fetch read the row, for a buffer that is a fault's fetched row (see
    /// `ManagedObject.fetchedRow`): firing checks it for staleness. Set by the context when the
    /// buffer, fresh from the store, becomes the row; meaningless once the fault fired (a copy
    /// does not carry it). Held here rather than in every object: a fault's row and its read
    /// go together, as in Core Data's row cache, and an object then needs no word for it.
    var rowRead: RowRead?

    init(layout: PropertyLayout, rowRead: RowRead? = nil) {
        self.layout = layout
        self.rowRead = rowRead
    }
}

/// The tail-allocated buffer of ``PropertyValues``: the layout (and a fetched row's read) as
/// header, the slots after it. Its deinit destroys the slots that need it (per
/// ``PropertyLayout/nontrivialIndexes``).
///
/// The header is reached through `withUnsafeMutablePointers`, never `header`: the property is
/// a class's stored property, and each access to it would be checked for exclusivity.
final class PropertyValueBuffer: ManagedBuffer<PropertyValueBufferHeader, UInt64> {
    /// When the row was read, for a buffer that is a fault's fetched row; see
    /// `PropertyValueBufferHeader.rowRead`.
    var rowRead: RowRead? {
        get { withUnsafeMutablePointerToHeader { $0.pointee.rowRead } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.rowRead = newValue } }
    }

    /// A buffer for `layout` with every slot nil; with `rowRead`, a fetched row read then.
    static func make(layout: PropertyLayout, rowRead: RowRead? = nil) -> PropertyValueBuffer {
        let buffer = unsafeDowncast(
            create(minimumCapacity: layout.wordCount) { _ in PropertyValueBufferHeader(layout: layout, rowRead: rowRead) },
            to: PropertyValueBuffer.self)
        buffer.withUnsafeMutablePointerToElements { words in
            // The layout's words with every slot nil, copied: a nil holds no reference, so its
            // bytes copy as they are (a fetch makes a buffer per row).
            layout.nilWords.withUnsafeBufferPointer { nilWords in
                guard let source = nilWords.baseAddress else { return }
                words.initialize(from: source, count: layout.wordCount)
            }
        }
        return buffer
    }

    /// The words of a buffer of `slots`, `wordCount` words, with every slot nil: every byte
    /// zero (the bare slots' values and their presence bytes), then the other slots' nil.
    static func nilWords(of slots: ContiguousArray<PropertyLayout.Slot>, wordCount: Int) -> ContiguousArray<UInt64> {
        let base = UnsafeMutableRawPointer.allocate(byteCount: wordCount * 8, alignment: 16)
        defer { base.deallocate() }
        base.initializeMemory(as: UInt64.self, repeating: 0, count: wordCount)
        for slot in slots where slot.presence < 0 { initializeNil(slot.kind, at: base + slot.offset) }
        // Raw loads: the bytes are read as words whatever the slots bound them to.
        return ContiguousArray((0..<wordCount).map { base.load(fromByteOffset: $0 * 8, as: UInt64.self) })
    }

    /// A copy of the buffer: its bytes, with the values that need it retained.
    func copy() -> PropertyValueBuffer {
        withUnsafeMutablePointers { header, source in
            let layout = header.pointee.layout
            let copy = unsafeDowncast(
                Self.create(minimumCapacity: layout.wordCount) { _ in PropertyValueBufferHeader(layout: layout) }, to: PropertyValueBuffer.self)
            copy.withUnsafeMutablePointerToElements { target in
                target.initialize(from: source, count: layout.wordCount)
                let from = UnsafeMutableRawPointer(source), to = UnsafeMutableRawPointer(target)
                for index in layout.nontrivialIndexes {
                    let slot = layout.slots[index]
                    Self.initializeCopy(slot.kind, at: to + slot.offset, from: from + slot.offset)
                }
            }
            return copy
        }
    }

    deinit {
        withUnsafeMutablePointers { header, words in Self.deinitializeSlots(at: UnsafeMutableRawPointer(words), layout: header.pointee.layout) }
    }

    /// Releases the values of `layout`'s slots at `base` that hold references.
    static func deinitializeSlots(at base: UnsafeMutableRawPointer, layout: PropertyLayout) {
        for index in layout.nontrivialIndexes {
            let slot = layout.slots[index]
            deinitialize(slot.kind, at: base + slot.offset)
        }
    }

    /// Calls `body` with the slot at `index` and the address of the buffer's bytes.
    @inline(__always)
    func withSlot<R>(at index: Int, _ body: (PropertyLayout.Slot, UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { header, words in
            try body(header.pointee.layout.slots[index], UnsafeMutableRawPointer(words))
        }
    }

    /// Calls `body` with the slot at `index` and the address of the buffer's bytes; nil when
    /// there is no such slot.
    @inline(__always)
    func withSlotIfPresent<R>(at index: Int, _ body: (PropertyLayout.Slot, UnsafeMutableRawPointer) -> R?) -> R? {
        withUnsafeMutablePointers { header, words in
            guard index >= 0, index < header.pointee.layout.slots.count else { return nil }
            return body(header.pointee.layout.slots[index], UnsafeMutableRawPointer(words))
        }
    }

    // Each kind's operation calls one generic function with the kind's concrete type; they
    // are inlined there, so each is specialized (no value witness calls).

    @inline(__always)
    private static func initializeNil<T>(_: T.Type, _ slot: UnsafeMutableRawPointer) {
        slot.initializeMemory(as: T?.self, repeating: nil, count: 1)
    }

    @inline(__always)
    private static func initializeCopy<T>(_: T.Type, _ slot: UnsafeMutableRawPointer, _ source: UnsafeMutableRawPointer) {
        // The slot's bytes are a copy of the source's: initialize over them without reading.
        slot.initializeMemory(as: T?.self, repeating: source.assumingMemoryBound(to: T?.self).pointee, count: 1)
    }

    @inline(__always)
    private static func deinitialize<T>(_: T.Type, _ slot: UnsafeMutableRawPointer) {
        slot.assumingMemoryBound(to: T?.self).deinitialize(count: 1)
    }

    private static func initializeNil(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer) {
        switch kind {
        case .int16: initializeNil(Int16.self, slot)
        case .int32: initializeNil(Int32.self, slot)
        case .int64: initializeNil(Int64.self, slot)
        case .double: initializeNil(Double.self, slot)
        case .float: initializeNil(Float.self, slot)
        case .boolean: initializeNil(Bool.self, slot)
        case .date: initializeNil(Date.self, slot)
        case .decimal: initializeNil(Decimal.self, slot)
        case .uuid: initializeNil(UUID.self, slot)
        case .string: initializeNil(String.self, slot)
        case .data: initializeNil(Data.self, slot)
        case .url: initializeNil(URL.self, slot)
        case .object: initializeNil(ManagedObject.self, slot)
        case .any: initializeNil(Any.self, slot)
        case .toMany, .orderedToMany: initializeNil(ToManyBox.self, slot)
        }
    }

    private static func initializeCopy(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer, from source: UnsafeMutableRawPointer) {
        switch kind {
        case .int16: initializeCopy(Int16.self, slot, source)
        case .int32: initializeCopy(Int32.self, slot, source)
        case .int64: initializeCopy(Int64.self, slot, source)
        case .double: initializeCopy(Double.self, slot, source)
        case .float: initializeCopy(Float.self, slot, source)
        case .boolean: initializeCopy(Bool.self, slot, source)
        case .date: initializeCopy(Date.self, slot, source)
        case .decimal: initializeCopy(Decimal.self, slot, source)
        case .uuid: initializeCopy(UUID.self, slot, source)
        case .string: initializeCopy(String.self, slot, source)
        case .data: initializeCopy(Data.self, slot, source)
        case .url: initializeCopy(URL.self, slot, source)
        case .object: initializeCopy(ManagedObject.self, slot, source)
        case .any: initializeCopy(Any.self, slot, source)
        case .toMany, .orderedToMany: initializeCopy(ToManyBox.self, slot, source)
        }
    }

    private static func deinitialize(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer) {
        switch kind {
        case .int16: deinitialize(Int16.self, slot)
        case .int32: deinitialize(Int32.self, slot)
        case .int64: deinitialize(Int64.self, slot)
        case .double: deinitialize(Double.self, slot)
        case .float: deinitialize(Float.self, slot)
        case .boolean: deinitialize(Bool.self, slot)
        case .date: deinitialize(Date.self, slot)
        case .decimal: deinitialize(Decimal.self, slot)
        case .uuid: deinitialize(UUID.self, slot)
        case .string: deinitialize(String.self, slot)
        case .data: deinitialize(Data.self, slot)
        case .url: deinitialize(URL.self, slot)
        case .object: deinitialize(ManagedObject.self, slot)
        case .any: deinitialize(Any.self, slot)
        case .toMany, .orderedToMany: deinitialize(ToManyBox.self, slot)
        }
    }
}
