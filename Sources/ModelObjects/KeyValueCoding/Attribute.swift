/// Declares a key-value-compliant attribute of a ``ModelObject`` subclass: the Swift name is
/// the key.
///
/// ```swift
/// final class Employee: ModelObject {
///     @Attribute var firstName = ""
///     @Attribute var salary = 0.0
///     @Attribute var age: Int? = nil
/// }
/// try employee.setValue(52_000, forKey: "salary")   // Int converts losslessly to Double
/// ```
///
/// Reading and writing the property in Swift costs about as much as a plain stored property
/// while nobody observes the object. Once the object has observers, every set notifies them
/// (see ``ModelObject/automaticallyNotifiesObservers(forKey:)``).
///
/// Corresponds to a Cocoa `@property` with synthesized, key-value-coding-compliant accessors.
/// Differences: the value is any Swift type; key-value coding boxes it as the Swift value
/// itself (a `Double`, a `CGRect`), not as `NSNumber` or `NSValue`.
@propertyWrapper
public struct Attribute<Value>: StoredPropertyStorage {
    @usableFromInline package var storedValue: Value

    /// Creates the attribute with its initial value.
    public init(wrappedValue: Value) {
        storedValue = wrappedValue
    }

    /// Unavailable: `@Attribute` works only on properties of a ``ModelObject`` subclass.
    @available(*, unavailable, message: "@Attribute is only available on properties of ModelObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property of its enclosing object; writes notify observers.
    @inlinable @inline(__always)
    public static subscript<Object: ModelObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute>
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
    package static var propertyKind: PropertyKind { .attribute }
}
