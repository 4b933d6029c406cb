@_spi(Reflection) import Swift
import Foundation
import ModelObjects
import Synchronization

/// Declares a modeled property of a ``ManagedObject`` subclass whose value lives in the object's
/// managed storage: the Swift form of Objective-C's `@dynamic`. The Swift name is the key and
/// must name a property of the object's entity.
///
/// ```swift
/// final class Department: ManagedObject {
///     @Managed var name: String?
///     @Managed var budget: Decimal
///     @Managed var employees: Set<Employee>
/// }
/// department.name = "Engineering"                 // change notification, undo, tracking
/// department.employees.insert(employee)           // employee.department becomes department
/// ```
///
/// Reading fires the object's fault and converts the stored value to the declared type; writing
/// announces the change (`willChangeValue`/`didChangeValue`), so observers hear it, the context
/// records it and inverse relationships follow. Declare the Swift type of the attribute
/// (`Int16`, `Int32`, `Int64` or `Int` for integers, `Double`, `Float`, `Decimal`, `String`,
/// `Bool`, `Date`, `Data`, `UUID`, `URL`), optional or not; a to-one as `Destination?`, a
/// to-many as `Set<Destination>` (or `[Destination]` when ordered).
///
/// A non-optional property whose stored value is nil reads as zero, `false`, an empty string or
/// an empty collection. Misdeclarations stop the program with a message naming the entity and
/// key: a name the entity does not model, a type values cannot convert to (an `Int` outside an
/// `Int16` attribute's range), a nil for a non-optional type with no empty value, relating
/// objects of two contexts. Key-value coding reports the same problems as thrown errors.
///
/// Corresponds to Core Data's `@NSManaged` / `@dynamic` properties.
@propertyWrapper
public struct Managed<Value>: ManagedStorage {
    /// The property's index in the entity, found on first use.
    @usableFromInline var index = -1

    /// Declares the property; it starts at the attribute's default value.
    public init() {}

    /// Unavailable: `@Managed` works only on properties of a ``ManagedObject`` subclass.
    @available(*, unavailable, message: "@Managed is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property of its enclosing object through the managed storage.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed>
    ) -> Value {
        get {
            let index = propertyIndex(in: object, storage: storageKeyPath)
            if object.flags.contains(.fault) { object.willAccessValue(forKey: nil) }
            let stored = object.values.indices.contains(index) ? object.values[index] : nil
            return typedValue(stored, object: object, index: index)
        }
        set {
            let index = propertyIndex(in: object, storage: storageKeyPath)
            object.setManagedValue(newValue, at: index)
        }
    }

    private static func propertyIndex<Object: ManagedObject>(
        in object: Object, storage: ReferenceWritableKeyPath<Object, Managed>
    ) -> Int {
        let cached = object[keyPath: storage].index
        if cached >= 0 { return cached }
        let offset = withUnsafeMutablePointer(to: &object[keyPath: storage]) {
            UnsafeRawPointer($0) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }
        guard let key = ManagedFieldTable.key(atOffset: offset, in: Object.self) else {
            preconditionFailure("@Managed property of \(Object.self) at offset \(offset) not found in its fields")
        }
        guard let property = object.entity.propertiesByName[key] else {
            preconditionFailure(
                "@Managed var \(key) of \(Object.self): the entity \(object.entity.name) has no property '\(key)'")
        }
        object[keyPath: storage].index = property.index
        return property.index
    }

    private static func typedValue(_ stored: Any?, object: ManagedObject, index: Int) -> Value {
        if let stored {
            if let value = stored as? Value { return value }
            if let value = convertKeyValue(stored, to: Value.self) { return value }
            if let objects = stored as? Set<ManagedObject>, let value = Set(objects) as Any as? Value { return value }
        }
        if let empty = (Value.self as? any ManagedEmptyValue.Type)?.managedEmptyValue as? Value { return empty }
        let property = object.entity.properties[index]
        preconditionFailure(
            "@Managed var \(property.name): \(Value.self) of \(object.entity.name) cannot hold "
                + (stored.map { "\($0) (\(type(of: $0)))" } ?? "nil") + "; declare it optional or of the attribute's type")
    }
}

/// Marks the storage of ``Managed`` properties, so that the field table finds them.
package protocol ManagedStorage {}

extension ManagedObject {
    /// Sets a modeled property from a typed accessor: converts, announces and records.
    final func setManagedValue<Value>(_ newValue: Value, at index: Int) {
        let property = entity.properties[index]
        let stored: Any?
        do {
            let value: Any? = (newValue as? any FlattenableOptional).map { $0.flattenedValue } ?? newValue
            stored = try storedValue(value, for: property)
        } catch {
            preconditionFailure("@Managed var \(property.name) of \(entity.name): \(error)")
        }
        try? fireFaultIfNeeded()
        willChangeValue(forKey: property.name)
        values[index] = stored
        didChangeValue(forKey: property.name)
    }
}

/// Lets generic code see through `Optional`, so that a nil `Value?` is stored as nil.
protocol FlattenableOptional {
    var flattenedValue: Any? { get }
}

extension Optional: FlattenableOptional {
    var flattenedValue: Any? {
        guard case .some(let wrapped) = self else { return nil }
        return (wrapped as? any FlattenableOptional).map { $0.flattenedValue } ?? wrapped
    }
}

/// The value a non-optional ``Managed`` property reads when its storage holds nil.
protocol ManagedEmptyValue {
    static var managedEmptyValue: Self { get }
}

extension Optional: ManagedEmptyValue { static var managedEmptyValue: Self { nil } }
extension Int: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int16: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int32: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int64: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Double: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Float: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Decimal: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Bool: ManagedEmptyValue { static var managedEmptyValue: Self { false } }
extension String: ManagedEmptyValue { static var managedEmptyValue: Self { "" } }
extension Data: ManagedEmptyValue { static var managedEmptyValue: Self { Data() } }
extension Set: ManagedEmptyValue { static var managedEmptyValue: Self { [] } }
extension Array: ManagedEmptyValue { static var managedEmptyValue: Self { [] } }

/// The names of each class's ``Managed`` fields by offset, read once per class from the
/// standard library's reflection metadata.
enum ManagedFieldTable {
    private static let tables = Mutex<[ObjectIdentifier: [Int: String]]>([:])

    static func key(atOffset offset: Int, in type: ManagedObject.Type) -> String? {
        let identifier = ObjectIdentifier(type)
        if let table = tables.withLock({ $0[identifier] }) { return table[offset] }
        var table: [Int: String] = [:]
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _forEachField(of: type, options: classType) { name, fieldOffset, fieldType, _ in
            guard fieldType is any ManagedStorage.Type else { return true }
            var key = String(cString: name)
            if key.hasPrefix("_") { key.removeFirst() }
            table[fieldOffset] = key
            return true
        }
        tables.withLock { $0[identifier] = table }
        return table[offset]
    }
}
