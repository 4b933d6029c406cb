/// What one word of every model object holds: its class's keys while nothing observes it, its
/// observation state (which holds the keys) while something does.
///
/// The word is the address of either, the state's marked by its low bit (objects are aligned to
/// 16 bytes): an object pays one word where it would pay two, and reading its keys costs a test
/// of one bit and no reference counting. The keys are unretained (`PropertyTable` keeps every
/// table for the life of the process); the state is retained by the object, which releases it
/// when it replaces it and in its `deinit` (see `ModelObject.observationState`).
@usableFromInline
package struct KeysAndObservers {
    /// The address, with the low bit set for a state.
    @usableFromInline let word: UInt

    /// The word of an object nothing observes.
    @inlinable @inline(__always)
    init(keys: Unmanaged<PropertyTable>) {
        word = UInt(bitPattern: keys.toOpaque())
    }

    /// The word of an observed object, taking over a retained reference to `state`.
    @inlinable @inline(__always)
    init(retainedState state: Unmanaged<ObservationState>) {
        word = UInt(bitPattern: state.toOpaque()) | 1
    }

    /// Whether the word holds an observation state.
    @inlinable @inline(__always)
    var isObserved: Bool { word & 1 != 0 }

    /// The keys, when nothing observes the object.
    @inlinable @inline(__always)
    var keys: Unmanaged<PropertyTable>? {
        isObserved ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)
    }

    /// The observation state, when something observes the object (retained by the object).
    @inlinable @inline(__always)
    var state: Unmanaged<ObservationState>? {
        isObserved ? Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word & ~1).unsafelyUnwrapped) : nil
    }

    /// The keys, whichever the word holds.
    @inlinable @inline(__always)
    var table: Unmanaged<PropertyTable> {
        if let keys { return keys }
        return state.unsafelyUnwrapped._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.propertyTable) }
    }
}
