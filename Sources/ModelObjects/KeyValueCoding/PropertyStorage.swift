import Foundation

/// How a declared key is backed.
package enum PropertyKind: Sendable, Equatable {
    /// An `@Attribute` property.
    case attribute
    /// A `@Relationship` to one object (`Department?`).
    case toOne
    /// A `@Relationship` to an ordered collection (`[Employee]`).
    case orderedToMany
    /// A `@Relationship` to an unordered collection (`Set<Project>`).
    case unorderedToMany
    /// A read-only `@Derived` key.
    case derived
}

/// The storage of a property wrapper that the key table reaches through the wrapper's offset
/// inside the object. `Attribute`, `Relationship` and `Derived` adopt it.
package protocol PropertyStorage: SendableMetatype {
    associatedtype StoredValue
    /// The kind of property this storage backs.
    static var propertyKind: PropertyKind { get }
    /// The type of the stored (or computed) value.
    static var storedValueType: Any.Type { get }
    /// The dependencies of a derived key, read from an instance; empty for stored properties.
    static func dependencies(in object: ModelObject, at offset: Int) -> [String]
    /// Reads the value as key-value coding returns it (nil for a nil optional).
    static func keyValue(in object: ModelObject, at offset: Int) -> Any?
    /// Converts and writes a key-value-coding value, with change notifications.
    static func setKeyValue(_ value: Any?, in object: ModelObject, descriptor: PropertyDescriptor) throws
    /// Calls `body` with the address and type of the stored value, for in-place edits of
    /// collections; returns nil without calling it for storage that computes its value.
    static func withStoredValue<Result>(
        in object: ModelObject, at offset: Int,
        _ body: (UnsafeMutableRawPointer, Any.Type) throws -> Result
    ) rethrows -> Result?
}

/// Storage that holds its value inline: `Attribute` and `Relationship`.
package protocol StoredPropertyStorage: PropertyStorage {
    var storedValue: StoredValue { get set }
}

extension PropertyStorage {
    /// The wrapper inside `object`, `offset` bytes from its start.
    ///
    /// The offset comes from the class's key table (or from the wrapper's own key path), so it
    /// always addresses storage of type `Self` in an instance of that class.
    @inline(__always)
    static func pointer(in object: ModelObject, at offset: Int) -> UnsafeMutablePointer<Self> {
        (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Self.self)
    }

    package static func dependencies(in object: ModelObject, at offset: Int) -> [String] { [] }

    package static var storedValueType: Any.Type { StoredValue.self }

    package static func withStoredValue<Result>(
        in object: ModelObject, at offset: Int,
        _ body: (UnsafeMutableRawPointer, Any.Type) throws -> Result
    ) rethrows -> Result? {
        nil
    }
}

extension StoredPropertyStorage {
    /// The stored value boxed as is; optional values are read through
    /// ``OptionalKeyValueReading`` instead, which unwraps them without a dynamic cast.
    package static func keyValue(in object: ModelObject, at offset: Int) -> Any? {
        pointer(in: object, at: offset).pointee.storedValue
    }

    package static func setKeyValue(
        _ value: Any?, in object: ModelObject, descriptor: PropertyDescriptor
    ) throws {
        guard let converted = try object.keyValueToStore(value, as: StoredValue.self, forKey: descriptor.key)
        else { return }
        object.changeValue(forKey: descriptor.key, descriptor: descriptor) {
            pointer(in: object, at: descriptor.offset).pointee.storedValue = converted
        }
    }
}

extension ModelObject {
    /// Writes a value set through a typed property while the object has observers: `store`
    /// writes it at the address it is given, the wrapper's. Not generic, so that the wrappers'
    /// setters, which are, hand over at once.
    final func setObservedStorage(
        at offset: Int, wrappedKeyPath: () -> AnyKeyPath, _ store: (UnsafeMutableRawPointer) -> Void
    ) {
        let address = Unmanaged.passUnretained(self).toOpaque() + offset
        let handled: Void? = withPropertyTable { table in table.withDescriptor(atOffset: offset) { descriptor in
            guard let unretainedState = observationState.map(Unmanaged.passUnretained) else {
                store(address)
                return
            }
            unretainedState._withUnsafeGuaranteedRef { state in
                if state.isProbe {
                    state.recordProbe(descriptor.key, keyPath: wrappedKeyPath())
                } else if state.trackedKeys != nil {
                    // A state with tracked keys stays until the object goes (see
                    // `ObservationState.isEmpty`), so the change borrows it without reference
                    // counting, which costs as much as the rest of a set that trackings follow.
                    changeValue(forKey: descriptor.key, descriptor: descriptor, state: state) { store(address) }
                } else {
                    // Key-value observers removing themselves during the change may drop the
                    // state: the change keeps it.
                    let retainedState = unretainedState.takeUnretainedValue()
                    changeValue(forKey: descriptor.key, descriptor: descriptor, state: retainedState) { store(address) }
                }
            }
        } }
        if handled == nil { store(address) }
    }

    /// The byte offset of a wrapper's storage inside `object`.
    ///
    /// Inlined into the property's setter, the key path is a literal and the optimizer folds the
    /// whole computation into a constant; it is only evaluated when the object has observers.
    /// `ManagedObjects`' `@Managed` finds a wrapper's slot with it the first time.
    @inlinable @inline(__always)
    package static func storageOffset<Object: ModelObject, Storage>(
        of storage: ReferenceWritableKeyPath<Object, Storage>, in object: Object
    ) -> Int {
        withUnsafeMutablePointer(to: &object[keyPath: storage]) {
            UnsafeRawPointer($0) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        }
    }

}

/// Reads an optional stored value as key-value coding returns it: nil, or the wrapped value.
///
/// `Attribute` and `Relationship` adopt it when their value is an `Optional`; the key table
/// finds the conformance once per property, so reads need no dynamic cast.
protocol OptionalKeyValueReading: SendableMetatype {
    static func optionalKeyValue(in object: ModelObject, at offset: Int) -> Any?
}

extension Attribute: OptionalKeyValueReading where Value: OptionalValue {
    static func optionalKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        pointer(in: object, at: offset).pointee.storedValue.flattened
    }
}

extension Relationship: OptionalKeyValueReading where Value: OptionalValue {
    static func optionalKeyValue(in object: ModelObject, at offset: Int) -> Any? {
        pointer(in: object, at: offset).pointee.storedValue.flattened
    }
}
