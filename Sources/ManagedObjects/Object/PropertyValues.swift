import Foundation
import ModelObjects

/// The values of one object's properties, by property index, each in its own representation in
/// a buffer laid out by the entity's ``PropertyLayout``: an `Int64` attribute takes 9 bytes, a
/// `String` one 16, with no `Any` box and no conversion on the typed paths.
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

    /// Storage for `layout` with every value nil.
    package init(layout: PropertyLayout) {
        buffer = PropertyValueBuffer.make(layout: layout)
    }

    /// Storage for `layout` holding `values`, by property index (missing ones nil).
    package init(layout: PropertyLayout, values: some Sequence<Any?>) {
        self.init(layout: layout)
        for (index, value) in zip(0..<layout.count, values) { self[index] = value }
    }

    /// The layout the values follow; nil for empty storage.
    package var layout: PropertyLayout? { buffer?.header }

    // MARK: - Collection

    package var startIndex: Int { 0 }
    package var endIndex: Int { buffer?.header.count ?? 0 }

    /// The value at `index`, boxed as `Any?`. Setting a value of another type than the slot's
    /// converts it without loss (`convertKeyValue`), as stored values always are before they
    /// get here.
    package subscript(index: Int) -> Any? {
        get {
            guard let buffer, index >= 0, index < buffer.header.count else { preconditionFailure("property index \(index) out of range") }
            return buffer.withSlot(at: index) { kind, slot in Self.box(kind, at: slot) }
        }
        set {
            guard index >= 0, index < count else { preconditionFailure("property index \(index) out of range") }
            makeUnique().withSlot(at: index) { kind, slot in Self.unbox(newValue, kind, into: slot) }
        }
    }

    /// Whether the two values share one buffer (or are both empty): a snapshot not written since
    /// it was taken.
    package func isIdentical(to other: PropertyValues) -> Bool { buffer === other.buffer }

    // MARK: - Typed access

    /// The kind of the slot at `index`.
    package func kind(at index: Int) -> PropertySlotKind? {
        buffer?.withSlotIfPresent(at: index) { kind, _ in kind }
    }

    /// The value at `index`, which must be a slot of type `T` (the kind's own Swift type,
    /// `ManagedObject` for an object slot): no box, no cast.
    @inline(__always)
    package func load<T>(_: T.Type, at index: Int) -> T? {
        guard let buffer else { return nil }
        return buffer.withSlot(at: index) { _, slot in slot.assumingMemoryBound(to: T?.self).pointee }
    }

    /// Stores `value` at `index`, which must be a slot of type `T`; copies the buffer first when
    /// it is shared.
    @inline(__always)
    package mutating func store<T>(_ value: T?, at index: Int) {
        makeUnique().withSlot(at: index) { _, slot in slot.assumingMemoryBound(to: T?.self).pointee = value }
    }

    /// The value at `index` as `Value` when `Value` is the slot's own type or its optional
    /// (`Int` counts as `Int64` on 64-bit platforms), read in place. `nil` when it is not, when
    /// `index` is out of range, or when the slot is nil and `Value` is not optional: callers
    /// then take the general path.
    @inline(__always)
    package func value<Value>(as _: Value.Type, at index: Int) -> Value? {
        guard let buffer else { return nil }
        return buffer.withSlotIfPresent(at: index) { kind, slot in
            switch kind.match(Value.self) {
            case .exact: slot.assumingMemoryBound(to: Value?.self).pointee
            case .optional: slot.assumingMemoryBound(to: Value.self).pointee
            case .mismatch: nil
            }
        }
    }

    /// Stores `value` at `index` in place when `Value` is the slot's own type or its optional;
    /// whether it did (false: `index` is out of range or the types differ, nothing changed).
    @inline(__always)
    package mutating func setValue<Value>(_ value: Value, at index: Int) -> Bool {
        guard let kind = kind(at: index) else { return false }
        switch kind.match(Value.self) {
        case .exact: makeUnique().withSlot(at: index) { _, slot in slot.assumingMemoryBound(to: Value?.self).pointee = value }
        case .optional: makeUnique().withSlot(at: index) { _, slot in slot.assumingMemoryBound(to: Value.self).pointee = value }
        case .mismatch: return false
        }
        return true
    }

    // MARK: - Copy on write

    private mutating func makeUnique() -> PropertyValueBuffer {
        guard let buffer else { preconditionFailure("writing to the empty storage of a fault") }
        if isKnownUniquelyReferenced(&self.buffer) { return buffer }
        let copy = buffer.copy()
        self.buffer = copy
        return copy
    }

    // MARK: - Boxing by kind

    private static func box(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer) -> Any? {
        func load<T>(_: T.Type) -> Any? { slot.assumingMemoryBound(to: T?.self).pointee }
        switch kind {
        case .int16: return load(Int16.self)
        case .int32: return load(Int32.self)
        case .int64: return load(Int64.self)
        case .double: return load(Double.self)
        case .float: return load(Float.self)
        case .boolean: return load(Bool.self)
        case .date: return load(Date.self)
        case .decimal: return load(Decimal.self)
        case .uuid: return load(UUID.self)
        case .string: return load(String.self)
        case .data: return load(Data.self)
        case .url: return load(URL.self)
        case .object: return load(ManagedObject.self)
        case .any: return slot.assumingMemoryBound(to: Any?.self).pointee
        }
    }

    private static func unbox(_ value: Any?, _ kind: PropertySlotKind, into slot: UnsafeMutableRawPointer) {
        func store<T>(_: T.Type) {
            slot.assumingMemoryBound(to: T?.self).pointee = value.flatMap { $0 as? T ?? convertKeyValue($0, to: T.self) }
        }
        switch kind {
        case .int16: store(Int16.self)
        case .int32: store(Int32.self)
        case .int64: store(Int64.self)
        case .double: store(Double.self)
        case .float: store(Float.self)
        case .boolean: store(Bool.self)
        case .date: store(Date.self)
        case .decimal: store(Decimal.self)
        case .uuid: store(UUID.self)
        case .string: store(String.self)
        case .data: store(Data.self)
        case .url: store(URL.self)
        case .object:
            slot.assumingMemoryBound(to: ManagedObject?.self).pointee = value.flatMap { asModelObject($0) as? ManagedObject }
        case .any: slot.assumingMemoryBound(to: Any?.self).pointee = value
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
        case .any: return true
        }
    }
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
        case .object, .any: return .mismatch
        }
    }

    @inline(__always)
    private static func compare<Value, T>(_: Value.Type, _: T.Type) -> SlotMatch {
        if Value.self == T.self { return .exact }
        if Value.self == T?.self { return .optional }
        return .mismatch
    }
}

/// The tail-allocated buffer of ``PropertyValues``: the layout as header, the slots after it.
/// Its deinit destroys the slots that need it (per ``PropertyLayout/nontrivialIndexes``).
final class PropertyValueBuffer: ManagedBuffer<PropertyLayout, UInt64> {
    /// A buffer for `layout` with every slot nil.
    static func make(layout: PropertyLayout) -> PropertyValueBuffer {
        let buffer = unsafeDowncast(create(minimumCapacity: layout.wordCount) { _ in layout }, to: PropertyValueBuffer.self)
        buffer.withUnsafeMutablePointers { header, words in
            let base = UnsafeMutableRawPointer(words)
            for slot in header.pointee.slots { Self.initializeNil(slot.kind, at: base + slot.offset) }
        }
        return buffer
    }

    /// A copy of the buffer: its bytes, with the values that need it retained.
    func copy() -> PropertyValueBuffer {
        let layout = header
        let copy = unsafeDowncast(Self.create(minimumCapacity: layout.wordCount) { _ in layout }, to: PropertyValueBuffer.self)
        withUnsafeMutablePointerToElements { source in
            copy.withUnsafeMutablePointerToElements { target in
                target.initialize(from: source, count: layout.wordCount)
                let from = UnsafeMutableRawPointer(source), to = UnsafeMutableRawPointer(target)
                for index in layout.nontrivialIndexes {
                    let slot = layout.slots[index]
                    Self.initializeCopy(slot.kind, at: to + slot.offset, from: from + slot.offset)
                }
            }
        }
        return copy
    }

    deinit {
        withUnsafeMutablePointers { header, words in
            let base = UnsafeMutableRawPointer(words)
            let layout = header.pointee
            for index in layout.nontrivialIndexes {
                let slot = layout.slots[index]
                Self.deinitialize(slot.kind, at: base + slot.offset)
            }
        }
    }

    /// Calls `body` with the kind and address of the slot at `index`.
    @inline(__always)
    func withSlot<R>(at index: Int, _ body: (PropertySlotKind, UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { header, words in
            let slot = header.pointee.slots[index]
            return try body(slot.kind, UnsafeMutableRawPointer(words) + slot.offset)
        }
    }

    /// Calls `body` with the kind and address of the slot at `index`; nil when there is none.
    @inline(__always)
    func withSlotIfPresent<R>(at index: Int, _ body: (PropertySlotKind, UnsafeMutableRawPointer) -> R?) -> R? {
        withUnsafeMutablePointers { header, words in
            guard index >= 0, index < header.pointee.slots.count else { return nil }
            let slot = header.pointee.slots[index]
            return body(slot.kind, UnsafeMutableRawPointer(words) + slot.offset)
        }
    }

    private static func initializeNil(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer) {
        func initialize<T>(_: T.Type) { slot.initializeMemory(as: T?.self, repeating: nil, count: 1) }
        switch kind {
        case .int16: initialize(Int16.self)
        case .int32: initialize(Int32.self)
        case .int64: initialize(Int64.self)
        case .double: initialize(Double.self)
        case .float: initialize(Float.self)
        case .boolean: initialize(Bool.self)
        case .date: initialize(Date.self)
        case .decimal: initialize(Decimal.self)
        case .uuid: initialize(UUID.self)
        case .string: initialize(String.self)
        case .data: initialize(Data.self)
        case .url: initialize(URL.self)
        case .object: initialize(ManagedObject.self)
        case .any: initialize(Any.self)
        }
    }

    /// Initializes `slot`, whose bytes are a copy of `source`'s, as a copy of `source`'s value.
    private static func initializeCopy(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer, from source: UnsafeMutableRawPointer) {
        func copy<T>(_: T.Type) {
            slot.initializeMemory(as: T?.self, repeating: source.assumingMemoryBound(to: T?.self).pointee, count: 1)
        }
        switch kind {
        case .int16: copy(Int16.self)
        case .int32: copy(Int32.self)
        case .int64: copy(Int64.self)
        case .double: copy(Double.self)
        case .float: copy(Float.self)
        case .boolean: copy(Bool.self)
        case .date: copy(Date.self)
        case .decimal: copy(Decimal.self)
        case .uuid: copy(UUID.self)
        case .string: copy(String.self)
        case .data: copy(Data.self)
        case .url: copy(URL.self)
        case .object: copy(ManagedObject.self)
        case .any: copy(Any.self)
        }
    }

    private static func deinitialize(_ kind: PropertySlotKind, at slot: UnsafeMutableRawPointer) {
        func deinitialize<T>(_: T.Type) { slot.assumingMemoryBound(to: T?.self).deinitialize(count: 1) }
        switch kind {
        case .int16: deinitialize(Int16.self)
        case .int32: deinitialize(Int32.self)
        case .int64: deinitialize(Int64.self)
        case .double: deinitialize(Double.self)
        case .float: deinitialize(Float.self)
        case .boolean: deinitialize(Bool.self)
        case .date: deinitialize(Date.self)
        case .decimal: deinitialize(Decimal.self)
        case .uuid: deinitialize(UUID.self)
        case .string: deinitialize(String.self)
        case .data: deinitialize(Data.self)
        case .url: deinitialize(URL.self)
        case .object: deinitialize(ManagedObject.self)
        case .any: deinitialize(Any.self)
        }
    }
}
