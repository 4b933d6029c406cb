import Foundation

/// A live, mutable view of an unordered to-many key (or any set attribute): every edit changes
/// the object's property in place and posts the set mutation to observers (an insertion of the
/// objects actually added, a removal of those actually removed).
///
/// Get one from ``ModelObject/mutableSetValue(forKey:)``. The proxy finds how to reach the key
/// in this order:
/// 1. the class's ``CollectionAccessors`` with add and remove accessors: the proxy calls them
///    (the single-object ones for one object, the bulk ones for several, when the class has them);
/// 2. a declared set it can edit in place (``Relationship``, ``Attribute``);
/// 3. anything else that key-value coding reads (a ``CustomAttribute`` or ``Derived`` set,
///    read-only collection accessors, a key served by ``ModelObject/value(forUndefinedKey:)``):
///    the proxy reads the set with ``ModelObject/value(forKey:)`` and writes each edit as a
///    whole new set with ``ModelObject/setValue(_:forKey:)`` (for an undeclared key, the
///    class's ``ModelObject/setValue(_:forUndefinedKey:)``), so observers see a setting.
///
/// Corresponds to the `NSMutableSet` proxy of `-[NSObject mutableSetValueForKey:]`.
/// Differences: elements are type-checked against the property (a wrong type throws
/// ``KeyValueCodingError/Code/typeMismatch`` and changes nothing), and a key nothing serves
/// throws ``KeyValueCodingError/Code/undefinedKey`` when the proxy is made rather than at first
/// use. Cocoa's search tries a `set<Key>:` method before the instance variable, so a synthesized
/// property is edited by replacing the whole set; here a declared set is edited in place and
/// observers see the precise set mutation.
public final class MutableSetProxy {
    /// The object whose property the proxy edits.
    public let object: ModelObject
    /// The key of the property.
    public let key: String
    private let descriptor: PropertyDescriptor?
    /// Accessors that can edit the key.
    private let accessors: CollectionAccessors.Unordered?
    /// Accessors that only read it, when the key is reached through key-value coding.
    private let readAccessors: CollectionAccessors.Unordered?
    private let setStorage: (any KeyValueSetStorage.Type)?
    /// Whether edits go through ``ModelObject/setValue(_:forKey:)`` with a whole new set.
    private let editsByValue: Bool

    init(object: ModelObject, key: String) throws {
        self.object = object
        self.key = key
        let classAccessors = try CollectionAccessors.forProxy(of: object, forKey: key)?.accessors.unordered
        let descriptor = object.propertyTable.descriptor(forKey: key)
        self.descriptor = descriptor
        let stored: Any.Type?? = descriptor.map { descriptor in
            descriptor.storage.withStoredValue(in: object, at: descriptor.offset) { _, type in type }
        }
        setStorage = (stored ?? nil).flatMap { $0 as? any KeyValueSetStorage.Type }
        if let classAccessors, classAccessors.mutators != nil {
            accessors = classAccessors
            readAccessors = nil
            editsByValue = false
            if descriptor == nil, classAccessors.members == nil { throw KeyValueCodingError.undefined(key, in: object) }
            // Storage known not to be a set is refused; a computed key (a `CustomAttribute`
            // over storage the class keeps) is the accessors' to edit.
            if case .some(.some) = stored, setStorage == nil { throw Self.notASet(key, object) }
            return
        }
        accessors = nil
        readAccessors = classAccessors
        if case .some(.some) = stored {
            guard setStorage != nil else { throw Self.notASet(key, object) }
            editsByValue = false
            return
        }
        editsByValue = true
        if classAccessors?.members != nil { return }
        // Served by key-value coding alone: an unknown key fails now, as does a value that is
        // not a set.
        let value = try object.value(forKey: key)
        if let value, !Self.isSet(value) { throw Self.notASet(key, object) }
    }

    private static func isSet(_ value: Any) -> Bool {
        guard let collection = value as? any KeyValueCollection else { return false }
        return !collection.isOrderedKeyValueCollection
    }

    private static func notASet(_ key: String, _ object: ModelObject) -> KeyValueCodingError {
        KeyValueCodingError(
            .notACollection, key: key, className: String(reflecting: Swift.type(of: object)),
            message: "the key '\(key)' does not hold a set")
    }

    private func withSet<Result>(
        _ body: (UnsafeMutableRawPointer, any KeyValueSetStorage.Type) throws -> Result
    ) throws -> Result? {
        guard let descriptor else { return nil }
        return try descriptor.storage.withStoredValue(in: object, at: descriptor.offset) {
            address, type -> Result? in
            guard let set = type as? any KeyValueSetStorage.Type else { return nil }
            return try body(address, set)
        } ?? nil
    }

    /// The elements read through key-value coding, for a key edited by value.
    private func valueElements() throws -> Set<AnyHashable> {
        if let members = readAccessors?.members { return Set(try members(object)) }
        guard let value = try object.value(forKey: key) else { return [] }
        guard let collection = value as? any KeyValueCollection, !collection.isOrderedKeyValueCollection else {
            throw Self.notASet(key, object)
        }
        var elements: Set<AnyHashable> = []
        try collection.forEachKeyValue { element in
            guard let hashable = element as? AnyHashable else {
                throw KeyValueCodingError.mismatch(key, in: object, expected: AnyHashable.self, given: element)
            }
            elements.insert(hashable)
        }
        return elements
    }

    /// Sets `elements` as the key's new value.
    private func setByValue(_ elements: Set<AnyHashable>) throws {
        try object.setValue(elements, forKey: key)
    }

    /// The elements.
    public func elements() throws -> Set<AnyHashable> {
        if editsByValue { return try valueElements() }
        if let stored = try withSet({ address, set in set.elements(at: address) }) { return Set(stored) }
        if let members = accessors?.members { return Set(try members(object)) }
        // A declared key computed by its own accessors (a `CustomAttribute`) reads through them.
        return try valueElements()
    }

    /// The number of elements.
    ///
    /// Calls the class's `countOf<Key>` accessor when it gave one.
    public func count() throws -> Int {
        if let count = (accessors ?? readAccessors)?.count { return try count(object) }
        if !editsByValue, let count = try withSet({ address, set in set.count(at: address) }) { return count }
        return try elements().count
    }

    /// Whether the set holds `element`.
    ///
    /// Calls the class's `memberOf<Key>:` accessor when it gave one.
    public func contains(_ element: AnyHashable) throws -> Bool {
        if let member = (accessors ?? readAccessors)?.member { return try member(object, element.base) != nil }
        return try elements().contains(element)
    }

    /// Adds `element`; observers see an insertion if it was not already present.
    ///
    /// Calls the class's `add<Key>Object:` accessor when it has one, its `add<Key>:` accessor
    /// with a one-element set otherwise.
    public func insert(_ element: Any) throws {
        try formUnion([element], single: true)
    }

    /// Adds `elements`; observers see one insertion of those not already present
    /// (``KeyValueSetMutation/union``).
    ///
    /// Calls the class's `add<Key>:` accessor when it has one, its `add<Key>Object:` accessor
    /// for each element otherwise.
    ///
    /// - Throws: ``KeyValueCodingError/Code/typeMismatch``; nothing changes then.
    public func formUnion(_ elements: [Any]) throws {
        try formUnion(elements, single: false)
    }

    private func formUnion(_ elements: [Any], single: Bool) throws {
        let converted = try convert(elements)
        if editsByValue {
            try setByValue(try valueElements().union(converted))
            return
        }
        try object.changeSet(forKey: key, mutation: .union, objects: Set(converted)) {
            if let accessors {
                if single, let addObject = accessors.addObject, let element = converted.first {
                    try addObject(object, element.base)
                } else {
                    try accessors.add?(object, converted.map(\.base))
                }
                return
            }
            _ = try withSet { address, set in set.insert(converted, at: address) }
        }
    }

    /// Removes `element`; observers see a removal if it was present.
    ///
    /// Calls the class's `remove<Key>Object:` accessor when it has one, its `remove<Key>:`
    /// accessor with a one-element set otherwise.
    public func remove(_ element: Any) throws {
        try subtract([element], single: true)
    }

    /// Removes `elements`; observers see one removal of those that were present
    /// (``KeyValueSetMutation/minus``).
    ///
    /// Calls the class's `remove<Key>:` accessor when it has one, its `remove<Key>Object:`
    /// accessor for each element otherwise.
    public func subtract(_ elements: [Any]) throws {
        try subtract(elements, single: false)
    }

    private func subtract(_ elements: [Any], single: Bool) throws {
        let converted = try convert(elements)
        if editsByValue {
            try setByValue(try valueElements().subtracting(converted))
            return
        }
        try object.changeSet(forKey: key, mutation: .minus, objects: Set(converted)) {
            if let accessors {
                if single, let removeObject = accessors.removeObject, let element = converted.first {
                    try removeObject(object, element.base)
                } else {
                    try accessors.remove?(object, converted.map(\.base))
                }
                return
            }
            _ = try withSet { address, set in set.remove(converted, at: address) }
        }
    }

    /// Keeps only the elements also in `elements`; observers see one removal of the others
    /// (``KeyValueSetMutation/intersect``).
    public func formIntersection(_ elements: [Any]) throws {
        let kept = Set(try convert(elements))
        if editsByValue {
            try setByValue(try valueElements().intersection(kept))
            return
        }
        let removed = try self.elements().subtracting(kept)
        try object.changeSet(forKey: key, mutation: .intersect, objects: kept) {
            if let accessors {
                if let intersect = accessors.intersect {
                    try intersect(object, kept.map(\.base))
                } else {
                    try accessors.remove?(object, removed.map(\.base))
                }
                return
            }
            _ = try withSet { address, set in set.remove(Array(removed), at: address) }
        }
    }

    /// Replaces the whole set with `elements`; observers see one replacement
    /// (``KeyValueSetMutation/set``).
    public func setElements(_ elements: [Any]) throws {
        let new = Set(try convert(elements))
        if editsByValue {
            try setByValue(new)
            return
        }
        let old = try self.elements()
        try object.changeSet(forKey: key, mutation: .set, objects: new) {
            if let accessors {
                try accessors.remove?(object, old.subtracting(new).map(\.base))
                try accessors.add?(object, new.subtracting(old).map(\.base))
                return
            }
            _ = try withSet { address, set in
                set.remove(Array(old.subtracting(new)), at: address)
                set.insert(Array(new.subtracting(old)), at: address)
            }
        }
    }

    /// Removes every element; observers see one removal of all of them.
    public func removeAll() throws {
        try subtract(Array(try elements()))
    }

    private func convert(_ elements: [Any]) throws -> [AnyHashable] {
        if let setStorage {
            guard let converted = setStorage.converted(elements) else {
                let wrong = elements.first { setStorage.converted([$0]) == nil } ?? elements
                throw KeyValueCodingError.mismatch(key, in: object, expected: setStorage.elementType, given: wrong)
            }
            return converted
        }
        return try elements.map { element in
            guard let hashable = element as? AnyHashable else {
                throw KeyValueCodingError.mismatch(key, in: object, expected: AnyHashable.self, given: element)
            }
            return hashable
        }
    }
}
