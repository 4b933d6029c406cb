import Foundation

/// A live, mutable view of an unordered to-many key (or any set attribute): every edit changes
/// the object's property in place and posts the set mutation to observers (an insertion of the
/// objects actually added, a removal of those actually removed).
///
/// Get one from ``ModelObject/mutableSetValue(forKey:)``. When the class provides
/// ``CollectionAccessors`` for the key, the proxy calls them instead of editing the storage.
///
/// Corresponds to the `NSMutableSet` proxy of `-[NSObject mutableSetValueForKey:]`.
/// Differences: elements are type-checked against the property (a wrong type throws
/// ``KeyValueCodingError/Code/typeMismatch`` and changes nothing).
public final class MutableSetProxy {
    /// The object whose property the proxy edits.
    public let object: ModelObject
    /// The key of the property.
    public let key: String
    private let descriptor: PropertyDescriptor?
    private let accessors: CollectionAccessors.Unordered?
    private let setStorage: (any KeyValueSetStorage.Type)?

    init(object: ModelObject, key: String) throws {
        self.object = object
        self.key = key
        let classAccessors = type(of: object).collectionAccessors(forKey: key)
        try classAccessors?.checkObject?(object)
        accessors = classAccessors?.accessors.unordered
        descriptor = object.propertyTable.descriptor(forKey: key)
        if descriptor == nil, accessors?.members == nil {
            throw KeyValueCodingError.undefined(key, in: object)
        }
        setStorage = descriptor.flatMap { descriptor in
            descriptor.storage.withStoredValue(in: object, at: descriptor.offset) { _, type in
                type as? any KeyValueSetStorage.Type
            } ?? nil
        }
        if descriptor != nil {
            guard setStorage != nil else {
                throw KeyValueCodingError(
                    .notACollection, key: key, className: String(reflecting: Swift.type(of: object)),
                    message: "the key '\(key)' does not hold a set")
            }
        }
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

    /// The elements.
    public func elements() throws -> Set<AnyHashable> {
        if let stored = try withSet({ address, set in set.elements(at: address) }) { return Set(stored) }
        return Set(try accessors?.members?(object) ?? [])
    }

    /// The number of elements.
    public func count() throws -> Int {
        if let count = try withSet({ address, set in set.count(at: address) }) { return count }
        return try elements().count
    }

    /// Whether the set holds `element`.
    public func contains(_ element: AnyHashable) throws -> Bool {
        try elements().contains(element)
    }

    /// Adds `element`; observers see an insertion if it was not already present.
    public func insert(_ element: Any) throws {
        try formUnion([element])
    }

    /// Adds `elements`; observers see one insertion of those not already present
    /// (``KeyValueSetMutation/union``).
    ///
    /// - Throws: ``KeyValueCodingError/Code/typeMismatch``; nothing changes then.
    public func formUnion(_ elements: [Any]) throws {
        let converted = try convert(elements)
        try object.changeSet(forKey: key, mutation: .union, objects: Set(converted)) {
            if let accessors { try accessors.add(object, converted.map(\.base)); return }
            _ = try withSet { address, set in set.insert(converted, at: address) }
        }
    }

    /// Removes `element`; observers see a removal if it was present.
    public func remove(_ element: Any) throws {
        try subtract([element])
    }

    /// Removes `elements`; observers see one removal of those that were present
    /// (``KeyValueSetMutation/minus``).
    public func subtract(_ elements: [Any]) throws {
        let converted = try convert(elements)
        try object.changeSet(forKey: key, mutation: .minus, objects: Set(converted)) {
            if let accessors { try accessors.remove(object, converted.map(\.base)); return }
            _ = try withSet { address, set in set.remove(converted, at: address) }
        }
    }

    /// Keeps only the elements also in `elements`; observers see one removal of the others
    /// (``KeyValueSetMutation/intersect``).
    public func formIntersection(_ elements: [Any]) throws {
        let kept = Set(try convert(elements))
        let removed = try self.elements().subtracting(kept)
        try object.changeSet(forKey: key, mutation: .intersect, objects: kept) {
            if let accessors {
                if let intersect = accessors.intersect {
                    try intersect(object, kept.map(\.base))
                } else {
                    try accessors.remove(object, removed.map(\.base))
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
        let old = try self.elements()
        try object.changeSet(forKey: key, mutation: .set, objects: new) {
            if let accessors {
                try accessors.remove(object, old.subtracting(new).map(\.base))
                try accessors.add(object, new.subtracting(old).map(\.base))
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
