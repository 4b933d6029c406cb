import Foundation

/// A token for an observation made with ``KeyValueCodingKeyPaths/observe(_:options:changeHandler:)``
/// or ``ModelObject/observe(_:options:changeHandler:)``: invalidating it, or releasing it, ends
/// the observation.
///
/// The token holds neither the observed object nor, beyond the handler, anything else: no
/// retain cycle forms among the observed object, the token and the handler (as long as the
/// handler does not capture the observed object; it receives it as an argument).
///
/// Corresponds to Foundation's `NSKeyValueObservation`.
public final class KeyValueObservation {
    private var observation: Observation?

    init(_ observation: Observation) {
        self.observation = observation
    }

    /// Ends the observation; the handler is not called again. Calling it twice is harmless.
    public func invalidate() {
        observation?.invalidate()
        observation = nil
    }

    /// Whether the observation is still in effect.
    public var isValid: Bool { observation?.isActive ?? false }

    deinit {
        observation?.invalidate()
    }
}

/// A change delivered to a typed observation, with old and new values of the observed
/// property's type.
///
/// For an insertion, removal or replacement in a to-many relationship, the values are the
/// objects inserted, removed or replaced, as a collection of the relationship's type.
///
/// Sendable when its values are, so that ``ModelObject/changes(forKeyPath:as:options:bufferingPolicy:)``
/// can hand it to another task.
///
/// Corresponds to Foundation's `NSKeyValueObservedChange`.
public struct ObservedChange<Value> {
    /// The kind of change.
    public var kind: KeyValueChange.Kind
    /// The old value, when ``KeyValueObservingOptions/old`` was asked for.
    public var oldValue: Value?
    /// The new value, when ``KeyValueObservingOptions/new`` was asked for (never in a prior
    /// notification).
    public var newValue: Value?
    /// The indexes of an ordered to-many change.
    public var indexes: IndexSet?
    /// True for the notification sent before the change.
    public var isPrior: Bool

    // Inlinable down to the exact-type read, with the typed `observe` that calls it: specialized
    // in the caller's module for the property's type, a notification converts its values with a
    // type check and a load (the typed-versus-string benchmark measures the gain).
    @inlinable @inline(__always)
    init(_ change: borrowing KeyValueChange) {
        kind = change.kind
        oldValue = change.includesOldValue ? Self.typed(change.oldValue) : nil
        newValue = change.includesNewValue ? Self.typed(change.newValue) : nil
        indexes = change.indexes
        isPrior = change.isPrior
    }

    /// The value as `Value`. A value whose dynamic type is exactly `Value` (every setting of a
    /// non-optional property) is read out of the existential without the runtime's general
    /// cast, which costs more than the rest of a notification.
    @inlinable @inline(__always)
    static func typed(_ value: Any?) -> Value? {
        if let exact = exactly(value) { return exact }
        return converted(value)
    }

    @inlinable @inline(__always)
    static func exactly(_ value: borrowing Any?) -> Value? {
        if _isPOD(Value.self), MemoryLayout<Value>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size,
           MemoryLayout<Value>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment {
            return unboxTrivial(optional: value, as: Value.self)
        }
        guard let value = copy value else { return nil }
        func open<Opened>(_ opened: Opened) -> Value? {
            guard Opened.self == Value.self else { return nil }
            return unsafeBitCast(opened, to: Value.self)
        }
        return _openExistential(value, do: open)
    }

    /// The general conversion, for values of another type (a nil, an `Int` for a `Double?`).
    @usableFromInline
    static func converted(_ value: Any?) -> Value? {
        guard let value else {
            // A nil value of an optional property is `.some(nil)`, as in Foundation.
            return noneValue(of: Value.self)
        }
        return convertKeyValue(value, to: Value.self)
    }
}

extension ObservedChange: Sendable where Value: Sendable {}
