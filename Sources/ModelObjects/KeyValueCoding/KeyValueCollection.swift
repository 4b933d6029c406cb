import Foundation

/// A collection that key paths traverse and collection operators apply to: `Array`, `Set`,
/// `NSArray`, `NSSet` and `NSOrderedSet`.
protocol KeyValueCollection {
    /// Whether the collection keeps an order (arrays) or not (sets).
    var isOrderedKeyValueCollection: Bool { get }
    /// The number of elements.
    var keyValueCount: Int { get }
    /// Calls `body` with each element, in order for ordered collections.
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows
}

extension Array: KeyValueCollection {
    var isOrderedKeyValueCollection: Bool { true }
    var keyValueCount: Int { count }
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
}

extension Set: KeyValueCollection {
    var isOrderedKeyValueCollection: Bool { false }
    var keyValueCount: Int { count }
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
}

extension NSArray: KeyValueCollection {
    var isOrderedKeyValueCollection: Bool { true }
    var keyValueCount: Int { count }
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
}

extension NSOrderedSet: KeyValueCollection {
    var isOrderedKeyValueCollection: Bool { true }
    var keyValueCount: Int { count }
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
}

extension NSSet: KeyValueCollection {
    var isOrderedKeyValueCollection: Bool { false }
    var keyValueCount: Int { count }
    func forEachKeyValue(_ body: (Any) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
}

/// A collection of model objects, iterated without boxing each element in `Any`.
protocol ModelObjectCollection: SendableMetatype {
    func forEachModelObject(_ body: (ModelObject) throws -> Void) rethrows
    /// True for arrays (`NSArray` in archives), false for sets (`NSSet`).
    static var isOrderedCollection: Bool { get }
    /// The collection with no elements.
    static var emptyCollection: Self { get }
}

extension ModelObjectCollection {
    /// Empties the collection stored at `address`, releasing its elements.
    static func removeAllObjects(at address: UnsafeMutableRawPointer) {
        address.assumingMemoryBound(to: Self.self).pointee = emptyCollection
    }

    /// Calls `body` with each element of the collection stored at `address` (a to-many
    /// relationship's storage), in its order.
    static func forEachObject(at address: UnsafeRawPointer, _ body: (ModelObject) throws -> Void) rethrows {
        try address.assumingMemoryBound(to: Self.self).pointee.forEachModelObject(body)
    }
}

extension Array: ModelObjectCollection where Element: ModelObject {
    func forEachModelObject(_ body: (ModelObject) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
    static var isOrderedCollection: Bool { true }
    static var emptyCollection: Self { [] }
}

extension Set: ModelObjectCollection where Element: ModelObject {
    func forEachModelObject(_ body: (ModelObject) throws -> Void) rethrows {
        for element in self { try body(element) }
    }
    static var isOrderedCollection: Bool { false }
    static var emptyCollection: Self { [] }
}

/// An array held by a property, edited in place by mutable array proxies.
///
/// The functions take the address of the property's stored array, so edits do not copy it.
protocol KeyValueArrayStorage {
    static func count(at address: UnsafeMutableRawPointer) -> Int
    static func element(at index: Int, at address: UnsafeMutableRawPointer) -> Any
    static func elements(at address: UnsafeMutableRawPointer) -> [Any]
    /// Converts every value to the element type; nil (and nothing changed) if one does not fit.
    static func converted(_ values: [Any]) -> [Any]?
    static func insert(_ values: [Any], at indexes: IndexSet, at address: UnsafeMutableRawPointer)
    static func remove(at indexes: IndexSet, at address: UnsafeMutableRawPointer)
    static func replace(at indexes: IndexSet, with values: [Any], at address: UnsafeMutableRawPointer)
    static var elementType: Any.Type { get }
}

extension Array: KeyValueArrayStorage {
    private static func array(_ address: UnsafeMutableRawPointer) -> UnsafeMutablePointer<[Element]> {
        address.assumingMemoryBound(to: [Element].self)
    }
    static var elementType: Any.Type { Element.self }
    static func count(at address: UnsafeMutableRawPointer) -> Int { array(address).pointee.count }
    static func element(at index: Int, at address: UnsafeMutableRawPointer) -> Any {
        array(address).pointee[index]
    }
    static func elements(at address: UnsafeMutableRawPointer) -> [Any] {
        array(address).pointee.map { $0 }
    }
    static func converted(_ values: [Any]) -> [Any]? {
        var result: [Any] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let element = convertKeyValue(value, to: Element.self) else { return nil }
            result.append(element)
        }
        return result
    }
    static func insert(_ values: [Any], at indexes: IndexSet, at address: UnsafeMutableRawPointer) {
        let storage = array(address)
        for (value, index) in zip(values, indexes) {
            if let element = value as? Element { storage.pointee.insert(element, at: index) }
        }
    }
    static func remove(at indexes: IndexSet, at address: UnsafeMutableRawPointer) {
        let storage = array(address)
        for index in indexes.reversed() { storage.pointee.remove(at: index) }
    }
    static func replace(at indexes: IndexSet, with values: [Any], at address: UnsafeMutableRawPointer) {
        let storage = array(address)
        for (value, index) in zip(values, indexes) {
            if let element = value as? Element { storage.pointee[index] = element }
        }
    }
}

/// A set held by a property, edited in place by mutable set proxies.
protocol KeyValueSetStorage {
    static func count(at address: UnsafeMutableRawPointer) -> Int
    static func elements(at address: UnsafeMutableRawPointer) -> [AnyHashable]
    static func contains(_ value: AnyHashable, at address: UnsafeMutableRawPointer) -> Bool
    /// Converts every value to the element type; nil (and nothing changed) if one does not fit.
    static func converted(_ values: [Any]) -> [AnyHashable]?
    static func insert(_ values: [AnyHashable], at address: UnsafeMutableRawPointer)
    static func remove(_ values: [AnyHashable], at address: UnsafeMutableRawPointer)
    static var elementType: Any.Type { get }
}

extension Set: KeyValueSetStorage {
    private static func set(_ address: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Set<Element>> {
        address.assumingMemoryBound(to: Set<Element>.self)
    }
    static var elementType: Any.Type { Element.self }
    static func count(at address: UnsafeMutableRawPointer) -> Int { set(address).pointee.count }
    static func elements(at address: UnsafeMutableRawPointer) -> [AnyHashable] {
        set(address).pointee.map { AnyHashable($0) }
    }
    static func contains(_ value: AnyHashable, at address: UnsafeMutableRawPointer) -> Bool {
        guard let element = value.base as? Element else { return false }
        return set(address).pointee.contains(element)
    }
    static func converted(_ values: [Any]) -> [AnyHashable]? {
        var result: [AnyHashable] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let element = convertKeyValue(value, to: Element.self) else { return nil }
            result.append(AnyHashable(element))
        }
        return result
    }
    static func insert(_ values: [AnyHashable], at address: UnsafeMutableRawPointer) {
        let storage = set(address)
        for value in values { if let element = value.base as? Element { storage.pointee.insert(element) } }
    }
    static func remove(_ values: [AnyHashable], at address: UnsafeMutableRawPointer) {
        let storage = set(address)
        for value in values { if let element = value.base as? Element { storage.pointee.remove(element) } }
    }
}

extension StoredPropertyStorage {
    package static func withStoredValue<Result>(
        in object: ModelObject, at offset: Int,
        _ body: (UnsafeMutableRawPointer, Any.Type) throws -> Result
    ) rethrows -> Result? {
        try withUnsafeMutablePointer(to: &pointer(in: object, at: offset).pointee.storedValue) {
            try body(UnsafeMutableRawPointer($0), StoredValue.self)
        }
    }
}

