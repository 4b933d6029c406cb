/// Declares a key-value-compliant attribute of a ``ModelObject`` subclass with custom accessors:
/// a getter, a setter and a `didSet` hook that every route to the property goes through.
///
/// ```swift
/// final class Employee: ModelObject {
///     @Attribute var salaryChanges = 0
///     @CustomAttribute(
///         set: { (_: Employee, newValue: Double) in max(0, newValue) },       // clamps
///         didSet: { employee, oldValue in employee.salaryChanges += 1 })    // keeps a count
///     var salary = 0.0
///     @CustomAttribute(set: { (_: Employee, newValue: String) in
///         newValue.trimmingCharacters(in: .whitespaces)                     // normalises
///     })
///     var name = ""
/// }
/// employee.salary = -5                                   // stored as 0
/// try employee.setValue(-5, forKey: "salary")            // the same setter
/// try employee.setValuesForKeys(["name": "  Ada "])      // stored as "Ada"
/// ```
///
/// - `get` receives the stored value and returns the value the property presents; without it
///   the stored value is returned.
/// - `set` receives the proposed value and returns the value to store (to copy, clamp or
///   normalise it); without it the proposed value is stored.
/// - `didSet` runs after the value is stored, with the value stored before; keep caches and
///   other keys in step here.
///
/// A typed set, ``ModelObject/setValue(_:forKey:)``, ``ModelObject/setValue(_:forKeyPath:)``,
/// ``ModelObject/setValuesForKeys(_:)``, unarchiving, copying and mutable collection proxies all
/// call `set` and `didSet`; a typed read, ``ModelObject/value(forKey:)``, key paths, collection
/// operators, observers' old and new values, archiving and predicates all call `get`. Automatic
/// notification brackets the whole setter, as Cocoa's does: observers are told before `set`
/// runs and after `didSet` returns, so changes `didSet` makes to other keys reach their
/// observers in between. A mutable collection proxy for such a key replaces the whole value
/// through the setter (observers see a setting), as Cocoa's proxies do for a key with a
/// `set<Key>:` method and no collection accessors; when the class gives
/// ``CollectionAccessors`` for the key, the proxy calls those instead.
///
/// Copying and unarchiving set the value the getter presents (archiving writes it), so a getter
/// that is not the inverse of the setter changes what a copy or an unarchived object stores;
/// copying sets the properties in declaration order.
///
/// The hooks must not set the property itself (that recurses, as a Swift setter that sets its
/// own property does). Properties without hooks should use ``Attribute``, whose typed accessors
/// cost as much as a plain stored property; these add the hooks' calls (in a release build, about
/// 6 ns for a typed get through a getter and 18 ns for a typed set through a setter and `didSet`
/// while nobody observes the object, against 2 ns each for ``Attribute``). Each object also keeps
/// the three optional hooks beside the value: 48 bytes per property per object on 64-bit
/// platforms.
///
/// A Swift `didSet` or `willSet` written on an ``Attribute`` property runs only for typed sets:
/// key-value coding writes the storage. Use this wrapper's `didSet` for side effects that every
/// route must trigger.
///
/// Corresponds to a Cocoa `@property` with hand-written `-<key>` and `-set<Key>:` accessor
/// methods (for managed objects, the guide's custom accessors around primitive accessors), which
/// key-value coding, archiving and bindings find before the instance variable.
@propertyWrapper
public struct CustomAttribute<Object: ModelObject, Value>: PropertyStorage {
    /// The stored (primitive) value.
    @usableFromInline package var storedValue: Value
    @usableFromInline let getter: ((Object, Value) -> Value)?
    @usableFromInline let setter: ((Object, Value) -> Value)?
    @usableFromInline let didSetHook: ((Object, Value) -> Void)?

    /// Creates the attribute with its initial value (stored as is, without calling `set`) and
    /// its accessors; each is optional.
    ///
    /// - Parameters:
    ///   - wrappedValue: The initial value, stored as is.
    ///   - get: Returns the value the property presents, given the stored value.
    ///   - set: Returns the value to store, given the proposed value.
    ///   - didSet: Runs after a set, with the value stored before.
    public init(
        wrappedValue: Value,
        get: ((Object, Value) -> Value)? = nil,
        set: ((Object, Value) -> Value)? = nil,
        didSet: ((Object, Value) -> Void)? = nil
    ) {
        storedValue = wrappedValue
        getter = get
        setter = set
        didSetHook = didSet
    }

    /// Unavailable: `@CustomAttribute` works only on properties of a ``ModelObject`` subclass.
    @available(*, unavailable, message: "@CustomAttribute is only available on properties of ModelObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property of its enclosing object through its accessors; writes
    /// notify observers.
    // Inlinable, as `Attribute`'s is: specialized in the caller's module, the wrapper's fields
    // are reached directly (the benchmark "typed get/set through `@CustomAttribute`" measures
    // the gain over generic code that projects the key path at run time).
    @inlinable @inline(__always)
    public static subscript(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, CustomAttribute>
    ) -> Value {
        get {
            if ObservationTrackingScope.mayBeActive {
                object.trackObservationAccess(
                    atOffset: ModelObject.storageOffset(of: storageKeyPath, in: object), keyPath: wrappedKeyPath)
            }
            let stored = object[keyPath: storageKeyPath].storedValue
            // While a typed key path is mapped to its key, no accessor runs.
            guard let getter = object[keyPath: storageKeyPath].getter, !object.isProbingKeyPaths else { return stored }
            return getter(object, stored)
        }
        set {
            guard !object.hasObservationState else {
                setObservedValue(
                    newValue, in: object, at: ModelObject.storageOffset(of: storageKeyPath, in: object),
                    wrappedKeyPath: wrappedKeyPath)
                return
            }
            let old = object[keyPath: storageKeyPath].storedValue
            let value = object[keyPath: storageKeyPath].setter.map { $0(object, newValue) } ?? newValue
            object[keyPath: storageKeyPath].storedValue = value
            object[keyPath: storageKeyPath].didSetHook?(object, old)
        }
    }

    /// The slow path of a typed set, taken while the object has observers (or a key-path probe).
    @usableFromInline
    static func setObservedValue(
        _ value: Value, in object: ModelObject, at offset: Int, wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>
    ) {
        if object.isProbingKeyPaths {
            // Mapping a typed key path to its key: record, run no accessor, store nothing.
            object.setObservedStorage(at: offset, wrappedKeyPath: { wrappedKeyPath }) { _ in }
            return
        }
        store(value, in: object, at: offset, descriptor: object.withPropertyTable { $0.descriptor(atOffset: offset) })
    }

    /// The value the getter presents.
    private static func presentedValue(in object: ModelObject, at offset: Int) -> Value {
        let wrapper = pointer(in: object, at: offset)
        let stored = wrapper.pointee.storedValue
        guard let getter = wrapper.pointee.getter else { return stored }
        return getter(unsafeDowncast(object, to: Object.self), stored)
    }

    /// Runs the setter, stores its result and runs `didSet`, between automatic notifications of
    /// the key (`descriptor` is nil only for a wrapper the key table does not know, which nobody
    /// can observe).
    private static func store(_ newValue: Value, in object: ModelObject, at offset: Int, descriptor: PropertyDescriptor?) {
        let typed = unsafeDowncast(object, to: Object.self)
        let body = {
            let wrapper = pointer(in: object, at: offset)
            let old = wrapper.pointee.storedValue
            let value = wrapper.pointee.setter.map { $0(typed, newValue) } ?? newValue
            wrapper.pointee.storedValue = value
            wrapper.pointee.didSetHook?(typed, old)
        }
        guard let descriptor else { return body() }
        object.changeValue(forKey: descriptor.key, descriptor: descriptor, body)
    }

    package typealias StoredValue = Value
    package static var propertyKind: PropertyKind { .attribute }

    package static func keyValue(in object: ModelObject, at offset: Int) -> Any? {
        flattenOptional(presentedValue(in: object, at: offset))
    }

    package static func setKeyValue(_ value: Any?, in object: ModelObject, descriptor: PropertyDescriptor) throws {
        guard let converted = try object.keyValueToStore(value, as: Value.self, forKey: descriptor.key) else { return }
        store(converted, in: object, at: descriptor.offset, descriptor: descriptor)
    }
}

extension CustomAttribute: PlainComputedValueReading {
    static func plainKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        presentedValue(in: object, at: offset)
    }
}

extension CustomAttribute: OptionalKeyValueReading where Value: OptionalValue {
    static func optionalKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        presentedValue(in: object, at: offset).flattened
    }
}
