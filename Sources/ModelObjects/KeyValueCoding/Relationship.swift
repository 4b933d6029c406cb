/// Declares a relationship of a ``ModelObject`` subclass: to one object, or to an ordered or
/// unordered collection of objects. The Swift name is the key.
///
/// ```swift
/// final class Employee: ModelObject {
///     @Relationship var department: Department?          // to-one
///     @Relationship var directReports: [Employee] = []    // ordered to-many
///     @Relationship var projects: Set<Project> = []       // unordered to-many
/// }
/// ```
///
/// To-many relationships answer ``ModelObject/mutableArrayValue(forKey:)`` and
/// ``ModelObject/mutableSetValue(forKey:)`` with live proxies, and key paths through them
/// yield the collection of the values at the rest of the path, as in Cocoa.
///
/// Corresponds to a Cocoa relationship property (`retain`, never `copy`). Differences: the
/// declaration fixes the kind of relationship, so a value of the wrong kind fails to compile
/// or, through key-value coding, throws ``KeyValueCodingError/Code/typeMismatch``.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: StoredPropertyStorage {
    @usableFromInline package var storedValue: Value

    /// Creates the relationship with its initial value.
    public init(wrappedValue: Value) {
        storedValue = wrappedValue
    }

    /// Unavailable: `@Relationship` works only on properties of a ``ModelObject`` subclass.
    @available(*, unavailable, message: "@Relationship is only available on properties of ModelObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the relationship of its enclosing object; writes notify observers.
    @inlinable @inline(__always)
    public static subscript<Object: ModelObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship>
    ) -> Value {
        get {
            if ObservationTrackingScope.mayBeActive {
                object.trackObservationAccess(
                    atOffset: ModelObject.storageOffset(of: storageKeyPath, in: object), keyPath: wrappedKeyPath)
            }
            return object[keyPath: storageKeyPath].storedValue
        }
        set {
            if !object.hasObservationState {
                object[keyPath: storageKeyPath].storedValue = newValue
            } else {
                setObservedValue(
                    newValue, in: object, at: ModelObject.storageOffset(of: storageKeyPath, in: object),
                    wrappedKeyPath: wrappedKeyPath)
            }
        }
    }

    /// The slow path of a typed set, taken while the object has observers.
    @usableFromInline
    static func setObservedValue(
        _ value: Value, in object: ModelObject, at offset: Int, wrappedKeyPath: @autoclosure () -> AnyKeyPath
    ) {
        // Generic code stays here, in a store the non-generic path calls: the wrapper's only
        // stored property is the value, so the wrapper's address is the value's.
        object.setObservedStorage(at: offset, wrappedKeyPath: wrappedKeyPath) { address in
            address.assumingMemoryBound(to: Value.self).pointee = value
        }
    }

    package typealias StoredValue = Value
    package static var propertyKind: PropertyKind {
        if Value.self is any KeyValueArrayStorage.Type { return .orderedToMany }
        if Value.self is any KeyValueSetStorage.Type { return .unorderedToMany }
        return .toOne
    }
}

/// The types a ``Relationship`` can hold: a model object (optional or not), an array of model
/// objects (ordered to-many) or a set of model objects (unordered to-many).
public protocol RelationshipValue {
    /// The class of the related objects.
    static var destinationType: ModelObject.Type { get }
}

extension Optional: RelationshipValue where Wrapped: ModelObject {
    public static var destinationType: ModelObject.Type { Wrapped.self }
}

extension Array: RelationshipValue where Element: ModelObject {
    public static var destinationType: ModelObject.Type { Element.self }
}

extension Set: RelationshipValue where Element: ModelObject {
    public static var destinationType: ModelObject.Type { Element.self }
}
