/// Declares a read-only key whose value is computed from other keys, together with the keys it
/// depends on.
///
/// ```swift
/// final class Employee: ModelObject {
///     @Attribute var firstName = ""
///     @Attribute var lastName = ""
///     @Derived("firstName", "lastName", compute: { (employee: Employee) in
///         "\(employee.firstName) \(employee.lastName)"
///     })
///     var fullName: String
/// }
/// ```
///
/// Key-value coding reads the key like any other; setting it throws
/// ``KeyValueCodingError/Code/readOnlyKey`` (through ``ModelObject/setValue(_:forUndefinedKey:)``).
/// The dependencies may be key paths through to-one relationships (`"department.name"`);
/// observers of the derived key are told when any of them changes.
///
/// Corresponds to a Cocoa read-only property plus `keyPathsForValuesAffecting<Key>`.
@propertyWrapper
public struct Derived<Object: ModelObject, Value>: PropertyStorage {
    @usableFromInline let compute: (Object) -> Value
    let dependencies: [String]

    /// Declares the key, the key paths it depends on, and how to compute it.
    public init(_ dependencies: String..., compute: @escaping (Object) -> Value) {
        self.dependencies = dependencies
        self.compute = compute
    }

    /// Unavailable: `@Derived` works only on properties of a ``ModelObject`` subclass.
    @available(*, unavailable, message: "@Derived is only available on properties of ModelObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
    }

    /// Computes the value for its enclosing object.
    @inlinable
    public static subscript(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: KeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Derived>
    ) -> Value {
        get {
            if object.hasObservationState {
                object.recordDerivedProbe(
                    at: ModelObject.storageOffset(of: storageKeyPath, in: object), wrappedKeyPath: wrappedKeyPath)
            }
            if ObservationTrackingScope.mayBeActive {
                object.trackObservationAccess(
                    atOffset: ModelObject.storageOffset(of: storageKeyPath, in: object), keyPath: wrappedKeyPath)
            }
            return object[keyPath: storageKeyPath].compute(object)
        }
    }

    package typealias StoredValue = Value
    package static var propertyKind: PropertyKind { .derived }

    package static func dependencies(in object: ModelObject, at offset: Int) -> [String] {
        pointer(in: object, at: offset).pointee.dependencies
    }

    package static func keyValue(in object: ModelObject, at offset: Int) -> Any? {
        flattenOptional(pointer(in: object, at: offset).pointee.compute(unsafeDowncast(object, to: Object.self)))
    }

    package static func setKeyValue(
        _ value: Any?, in object: ModelObject, descriptor: PropertyDescriptor
    ) throws {
        try object.setValue(value, forUndefinedKey: descriptor.key)
    }
}

extension Derived: OptionalKeyValueReading where Value: OptionalValue {
    static func optionalKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        pointer(in: object, at: offset).pointee.compute(unsafeDowncast(object, to: Object.self)).flattened
    }
}

extension Derived: PlainComputedValueReading {
    static func plainKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        pointer(in: object, at: offset).pointee.compute(unsafeDowncast(object, to: Object.self))
    }
}

/// Reads a computed value boxed as is. The key table uses it only for value types that cannot
/// hold an `Optional` (see ``cannotHoldOptional(_:)``), where ``flattenOptional(_:)``'s dynamic
/// cast would always fail.
protocol PlainComputedValueReading: SendableMetatype {
    static func plainKeyValue(in object: ModelObject, at offset: Int) -> Any?
}
