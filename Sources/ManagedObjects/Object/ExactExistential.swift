/// Reads, and edits in place, a value held in an `Any` (or an `Any?`) whose type is exactly a
/// known one, without the runtime's dynamic cast: the slots of to-many relationships hold their
/// sets and arrays as `Any?`, and a cast out of one (a copy of the container, a call into the
/// runtime and a copy back in) costs a few hundred instructions where this compares one word.
///
/// An `Any` is an existential container, laid out by Swift's stable ABI: three words of inline
/// buffer, then the address of the held value's type metadata (zero for the nil of an `Any?`).
/// A value is held in the buffer itself when it fits there (at most three words, aligned to at
/// most a word) and can be moved by copying its bytes, which is true of every type read here;
/// larger ones are boxed and never read here. The layout is checked once, on probes, before
/// anything is read through it; where it does not hold, every read answers nil and the callers
/// take their dynamic casts.
enum ExactExistential {
    /// The offset of the metadata word in an existential container.
    private static let metadataOffset = 3 * MemoryLayout<Int>.size

    /// Whether `Any` and `Any?` are laid out as described above, checked on an integer, a string
    /// and nil.
    static let layoutHolds: Bool = {
        let word = MemoryLayout<Int>.size
        guard MemoryLayout<Any>.size == 4 * word, MemoryLayout<Any?>.size == 4 * word else { return false }
        // Each pointer's type is spelled out: passed to a generic parameter as it is, an `Any`
        // is opened, and the pointer would be the held value's.
        let number = 0x5A5A_1234
        var boxedNumber: Any = number
        let numberHolds = withUnsafeMutablePointer(to: &boxedNumber) { (pointer: UnsafeMutablePointer<Any>) in
            let container = UnsafeRawPointer(pointer)
            return container.load(as: Int.self) == number
                && container.load(fromByteOffset: metadataOffset, as: UInt.self) == address(of: Int.self)
        }
        let text = "not a small string, held out of line"
        var boxedText: Any = text
        let textHolds = withUnsafeMutablePointer(to: &boxedText) { (pointer: UnsafeMutablePointer<Any>) in
            let container = UnsafeRawPointer(pointer)
            return withUnsafeBytes(of: text) { expected in
                UnsafeRawBufferPointer(start: container, count: expected.count).elementsEqual(expected)
            } && container.load(fromByteOffset: metadataOffset, as: UInt.self) == address(of: String.self)
        }
        var none: Any? = nil
        let noneHolds = withUnsafeMutablePointer(to: &none) { (pointer: UnsafeMutablePointer<Any?>) in
            UnsafeRawPointer(pointer).load(fromByteOffset: metadataOffset, as: UInt.self) == 0
        }
        return numberHolds && textHolds && noneHolds
    }()

    /// The address of a type's metadata, as an existential container records it.
    @inline(__always)
    private static func address(of type: Any.Type) -> UInt { UInt(bitPattern: ObjectIdentifier(type)) }

    /// Whether a `T` is held in a container's inline buffer.
    @inline(__always)
    private static func isInline<T>(_: T.Type) -> Bool {
        MemoryLayout<T>.size <= metadataOffset && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// Whether the container at `container` holds exactly a `T`, inline.
    @inline(__always)
    private static func holds<T>(_ container: UnsafeRawPointer, _: T.Type) -> Bool {
        isInline(T.self) && layoutHolds && container.load(fromByteOffset: metadataOffset, as: UInt.self) == address(of: T.self)
    }

    /// A copy of the `T` that `value` holds when its type is exactly `T` (not a subclass, not an
    /// optional of it); nil otherwise, or when `T` is not held inline.
    @inline(__always)
    static func load<T>(_ value: borrowing Any, as _: T.Type) -> T? {
        // The pointer's type spelled out: the container's address, not the held value's.
        withUnsafePointer(to: value) { (pointer: UnsafePointer<Any>) in
            let container = UnsafeRawPointer(pointer)
            // SAFETY: the metadata word says the inline buffer, at the container's start, holds a `T`.
            return holds(container, T.self) ? container.load(as: T.self) : nil
        }
    }

    /// A copy of the `T` that the `Any?` at `container` holds, as `load(_:as:)`.
    @inline(__always)
    static func load<T>(_ container: UnsafeMutablePointer<Any?>, as _: T.Type) -> T? {
        let raw = UnsafeRawPointer(container)
        // SAFETY: as in `load(_:as:)`; a nil `Any?` has a zero metadata word, which no type has.
        return holds(raw, T.self) ? raw.load(as: T.self) : nil
    }

    /// Calls `body` with the `T` that `value` holds, to edit it in place (a collection held
    /// nowhere else is not copied); nil, calling nothing, when `value` does not hold exactly a
    /// `T` inline.
    @inline(__always)
    static func withValue<T, R>(in value: inout Any?, as _: T.Type, _ body: (inout T) -> R) -> R? {
        withUnsafeMutablePointer(to: &value) { (pointer: UnsafeMutablePointer<Any?>) in
            let container = UnsafeMutableRawPointer(pointer)
            guard holds(container, T.self) else { return nil }
            // SAFETY: the inline buffer holds a `T` (its metadata word says so), edited in place
            // while the container is reached only through `body`'s argument; `body` gets the
            // memory bound to `T`, and it is bound back to `Any?` after.
            return container.withMemoryRebound(to: T.self, capacity: 1) { body(&$0.pointee) }
        }
    }
}
