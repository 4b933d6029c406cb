import Foundation

/// A live, mutable view of an ordered to-many key (or any array attribute): every edit changes
/// the object's property in place and posts the precise change to observers (an insertion with
/// its indexes, not a replacement of the whole array).
///
/// Get one from ``ModelObject/mutableArrayValue(forKey:)``. The proxy finds how to reach the
/// key in this order:
/// 1. the class's ``CollectionAccessors`` with insert and remove accessors: the proxy calls them;
/// 2. a declared array it can edit in place (``Relationship``, ``Attribute``);
/// 3. anything else that key-value coding reads (a ``CustomAttribute`` or ``Derived`` array,
///    read-only collection accessors, a key served by ``ModelObject/value(forUndefinedKey:)``):
///    the proxy reads the array with ``ModelObject/value(forKey:)`` and writes each edit as a
///    whole new array with ``ModelObject/setValue(_:forKey:)`` (for an undeclared key, the
///    class's ``ModelObject/setValue(_:forUndefinedKey:)``), so observers see a setting.
///
/// ```swift
/// let reports = try manager.mutableArrayValue(forKey: "directReports")
/// try reports.append(newHire)            // observers see .insertion at [count]
/// try reports.remove(at: 0)               // observers see .removal at [0]
/// ```
///
/// Corresponds to the `NSMutableArray` proxy of `-[NSObject mutableArrayValueForKey:]`.
/// Differences: elements are type-checked against the property (a wrong type throws
/// ``KeyValueCodingError/Code/typeMismatch``), bad indexes throw
/// ``KeyValueCodingError/Code/indexOutOfRange`` instead of raising, and a key nothing serves
/// throws ``KeyValueCodingError/Code/undefinedKey`` when the proxy is made rather than at first
/// use. Cocoa's search tries a `set<Key>:` method before the instance variable, so a synthesized
/// property is edited by replacing the whole array; here a declared array is edited in place and
/// observers see the precise insertion, removal or replacement.
public final class MutableArrayProxy {
    /// The object whose property the proxy edits.
    public let object: ModelObject
    /// The key of the property.
    public let key: String
    private let descriptor: PropertyDescriptor?
    /// Accessors that can edit the key.
    private let accessors: CollectionAccessors.Ordered?
    /// Accessors that only read it, when the key is reached through key-value coding.
    private let readAccessors: CollectionAccessors.Ordered?
    /// Whether edits go through ``ModelObject/setValue(_:forKey:)`` with a whole new array.
    private let editsByValue: Bool

    init(object: ModelObject, key: String) throws {
        self.object = object
        self.key = key
        let classAccessors = try CollectionAccessors.forProxy(of: object, forKey: key)?.accessors.ordered
        descriptor = object.propertyTable.descriptor(forKey: key)
        if let classAccessors, classAccessors.mutators != nil {
            accessors = classAccessors
            readAccessors = nil
            editsByValue = false
            return
        }
        accessors = nil
        readAccessors = classAccessors
        if let descriptor {
            let inPlace = descriptor.storage.withStoredValue(in: object, at: descriptor.offset) { _, type in
                type is any KeyValueArrayStorage.Type
            }
            if inPlace == true {
                editsByValue = false
                return
            }
            if inPlace == false { throw Self.notAnArray(key, object) }
        }
        editsByValue = true
        if classAccessors != nil { return }
        // Served by key-value coding alone: an unknown key fails now, as does a value that is
        // not an array.
        let value = try object.value(forKey: key)
        if let value, !Self.isArray(value) { throw Self.notAnArray(key, object) }
    }

    private static func isArray(_ value: Any) -> Bool {
        guard let collection = value as? any KeyValueCollection else { return false }
        return collection.isOrderedKeyValueCollection
    }

    private static func notAnArray(_ key: String, _ object: ModelObject) -> KeyValueCodingError {
        KeyValueCodingError(
            .notACollection, key: key, className: String(reflecting: Swift.type(of: object)),
            message: "the key '\(key)' does not hold an array")
    }

    /// The elements read through key-value coding, for a key edited by value.
    private func valueElements() throws -> [Any] {
        if let readAccessors { return try readAccessors.elements(of: object) }
        guard let value = try object.value(forKey: key) else { return [] }
        guard let collection = value as? any KeyValueCollection, collection.isOrderedKeyValueCollection else {
            throw Self.notAnArray(key, object)
        }
        var elements: [Any] = []
        elements.reserveCapacity(collection.keyValueCount)
        collection.forEachKeyValue { elements.append($0) }
        return elements
    }

    /// Applies `edit` to the elements, read once, and sets the result as the key's new value.
    /// `edit` checks its indexes against the elements it is given: the value key-value coding
    /// reads comes from the class's code and may change from one read to the next.
    private func editByValue(_ edit: (inout [Any]) throws -> Void) throws {
        var elements = try valueElements()
        try edit(&elements)
        try object.setValue(elements, forKey: key)
    }

    /// Runs `body` with the address and element operations of the stored array.
    private func withArray<Result>(
        _ body: (UnsafeMutableRawPointer, any KeyValueArrayStorage.Type) throws -> Result
    ) throws -> Result {
        guard let descriptor,
              let result = try descriptor.storage.withStoredValue(in: object, at: descriptor.offset, {
                  address, type -> Result? in
                  guard let array = type as? any KeyValueArrayStorage.Type else { return nil }
                  return try body(address, array)
              }),
              let result
        else {
            throw KeyValueCodingError(
                .notACollection, key: key, className: String(reflecting: type(of: object)),
                message: "the key '\(key)' does not hold an array")
        }
        return result
    }

    /// The number of elements.
    ///
    /// - Throws: What the class's `count` accessor throws, if any; never otherwise.
    public func count() throws -> Int {
        // A count below zero (an accessor's bug) reads as empty, as `elements()` does, so that
        // index arithmetic on it never goes below zero.
        if let accessors = accessors ?? readAccessors { return max(0, try accessors.count(object)) }
        if editsByValue { return try valueElements().count }
        return try withArray { address, array in array.count(at: address) }
    }

    /// The elements, in order.
    public func elements() throws -> [Any] {
        if let accessors { return try accessors.elements(of: object) }
        if editsByValue { return try valueElements() }
        return try withArray { address, array in array.elements(at: address) }
    }

    /// The element at `index`.
    ///
    /// - Throws: ``KeyValueCodingError/Code/indexOutOfRange``.
    public func element(at index: Int) throws -> Any {
        if let accessors = accessors ?? readAccessors {
            try checkIndexes(index, count: try count())
            return try accessors.objectAt(object, index)
        }
        if editsByValue {
            let all = try valueElements()
            try checkIndexes(index, count: all.count)
            return all[index]
        }
        return try withArray { address, array in
            try checkIndexes(index, count: array.count(at: address))
            return array.element(at: index, at: address)
        }
    }

    /// Inserts `element` at `index`; observers see one insertion.
    public func insert(_ element: Any, at index: Int) throws {
        guard index >= 0 else { throw rangeError("index \(index) is below 0") }
        try insert([element], at: IndexSet(integer: index))
    }

    /// Inserts `elements` so that they end up at `indexes` (as `insertObjects:atIndexes:`);
    /// observers see one insertion for all of them.
    ///
    /// - Throws: ``KeyValueCodingError/Code/indexOutOfRange`` when the counts differ or an
    ///   index is past the end, ``KeyValueCodingError/Code/typeMismatch`` when an element has
    ///   the wrong type; nothing changes then.
    public func insert(_ elements: [Any], at indexes: IndexSet) throws {
        guard elements.count == indexes.count else {
            throw rangeError("\(elements.count) elements for \(indexes.count) indexes")
        }
        guard !elements.isEmpty else { return }
        if let insert = accessors?.insert {
            try checkInsertion(indexes, count: try count())
            let converted = try convertForStorage(elements)
            try object.changeCollection(forKey: key, kind: .insertion, indexes: indexes) {
                for (element, index) in zip(converted, indexes) { try insert(object, element, index) }
            }
            return
        }
        if editsByValue {
            try editByValue { all in
                try checkInsertion(indexes, count: all.count)
                for (element, index) in zip(elements, indexes) { all.insert(element, at: index) }
            }
            return
        }
        try withArray { address, array in
            try checkInsertion(indexes, count: array.count(at: address))
            guard let converted = array.converted(elements) else { throw mismatch(elements, array) }
            object.changeCollection(forKey: key, kind: .insertion, indexes: indexes) {
                array.insert(converted, at: indexes, at: address)
            }
        }
    }

    /// Appends `element`; observers see an insertion at the old count.
    public func append(_ element: Any) throws {
        try append(contentsOf: [element])
    }

    /// Appends `elements` with one insertion notification, as the seed's
    /// `addObjectsToEmployeesFromArray:` bulk modifier does.
    public func append(contentsOf elements: [Any]) throws {
        guard !elements.isEmpty else { return }
        if editsByValue {
            try editByValue { all in all.append(contentsOf: elements) }
            return
        }
        let count = try count()
        guard count <= Int.max - elements.count else {
            throw rangeError("\(elements.count) elements do not fit after \(count)")
        }
        try insert(elements, at: IndexSet(integersIn: count..<(count + elements.count)))
    }

    /// Removes the element at `index`; observers see one removal.
    public func remove(at index: Int) throws {
        guard index >= 0 else { throw rangeError("index \(index) is below 0") }
        try remove(at: IndexSet(integer: index))
    }

    /// Removes the elements at `indexes`; observers see one removal for all of them.
    ///
    /// - Throws: ``KeyValueCodingError/Code/indexOutOfRange``; nothing changes then.
    public func remove(at indexes: IndexSet) throws {
        guard !indexes.isEmpty else { return }
        if let remove = accessors?.remove {
            try checkIndexes(indexes, count: try count())
            try object.changeCollection(forKey: key, kind: .removal, indexes: indexes) {
                for index in indexes.reversed() { try remove(object, index) }
            }
            return
        }
        if editsByValue {
            try editByValue { all in
                try checkIndexes(indexes, count: all.count)
                for index in indexes.reversed() { all.remove(at: index) }
            }
            return
        }
        try withArray { address, array in
            try checkIndexes(indexes, count: array.count(at: address))
            object.changeCollection(forKey: key, kind: .removal, indexes: indexes) {
                array.remove(at: indexes, at: address)
            }
        }
    }

    /// Removes the last element; observers see one removal.
    ///
    /// - Throws: ``KeyValueCodingError/Code/indexOutOfRange`` when the array is empty.
    public func removeLast() throws {
        if editsByValue {
            try editByValue { all in
                guard !all.isEmpty else { throw rangeError("the array is empty") }
                all.removeLast()
            }
            return
        }
        try remove(at: try count() - 1)
    }

    /// Removes every element; observers see one removal of all of them.
    public func removeAll() throws {
        if editsByValue {
            // An empty array stays as it is, unset, as it does on the other paths.
            guard try !valueElements().isEmpty else { return }
            try object.setValue([Any](), forKey: key)
            return
        }
        try remove(at: IndexSet(integersIn: 0..<(try count())))
    }

    /// Replaces the element at `index`; observers see one replacement.
    public func replace(at index: Int, with element: Any) throws {
        guard index >= 0 else { throw rangeError("index \(index) is below 0") }
        try replace(at: IndexSet(integer: index), with: [element])
    }

    /// Replaces the elements at `indexes` with `elements`; observers see one replacement.
    ///
    /// Without a `replace` accessor, a class's accessors are called as a removal then an
    /// insertion at each index, still inside one replacement notification.
    ///
    /// - Throws: ``KeyValueCodingError/Code/indexOutOfRange``,
    ///   ``KeyValueCodingError/Code/typeMismatch``; nothing changes then.
    public func replace(at indexes: IndexSet, with elements: [Any]) throws {
        guard elements.count == indexes.count else {
            throw rangeError("\(elements.count) elements for \(indexes.count) indexes")
        }
        guard !indexes.isEmpty else { return }
        if let accessors, let (insert, remove) = accessors.mutators {
            try checkIndexes(indexes, count: try count())
            let converted = try convertForStorage(elements)
            try object.changeCollection(forKey: key, kind: .replacement, indexes: indexes) {
                for (element, index) in zip(converted, indexes) {
                    if let replace = accessors.replace {
                        try replace(object, index, element)
                    } else {
                        try remove(object, index)
                        try insert(object, element, index)
                    }
                }
            }
            return
        }
        if editsByValue {
            try editByValue { all in
                try checkIndexes(indexes, count: all.count)
                for (element, index) in zip(elements, indexes) { all[index] = element }
            }
            return
        }
        try withArray { address, array in
            try checkIndexes(indexes, count: array.count(at: address))
            guard let converted = array.converted(elements) else { throw mismatch(elements, array) }
            object.changeCollection(forKey: key, kind: .replacement, indexes: indexes) {
                array.replace(at: indexes, with: converted, at: address)
            }
        }
    }

    /// The elements converted for the class's accessors: to the element type of the declared
    /// array when the key has one stored in place, to the accessors' own type otherwise (a
    /// ``CustomAttribute`` over storage the class keeps, or no declared property).
    private func convertForStorage(_ elements: [Any]) throws -> [Any] {
        if let descriptor,
           let converted = try descriptor.storage.withStoredValue(in: object, at: descriptor.offset, {
               _, type -> [Any]? in
               guard let array = type as? any KeyValueArrayStorage.Type else { return nil }
               guard let converted = array.converted(elements) else { throw mismatch(elements, array) }
               return converted
           }),
           let converted {
            return converted
        }
        return try accessors?.convert(elements) ?? elements
    }

    private func checkIndexes(_ indexes: IndexSet, count: Int) throws {
        if let first = indexes.first, first < 0 { try checkIndexes(first, count: count) }
        if let last = indexes.last { try checkIndexes(last, count: count) }
    }

    /// Checks that `indexes` are where inserted elements can end up in an array of `count`
    /// elements: the last below `count + indexes.count`, compared without the sum, which may
    /// not fit in an `Int`.
    private func checkInsertion(_ indexes: IndexSet, count: Int) throws {
        guard let first = indexes.first, let last = indexes.last else { return }
        guard first >= 0, last - indexes.count < count else {
            throw rangeError("index \(last) is past the end of \(count) elements and \(indexes.count) inserted")
        }
    }

    private func checkIndexes(_ index: Int, count: Int) throws {
        guard index >= 0, index < count else {
            throw rangeError("index \(index) is outside 0..<\(count)")
        }
    }

    private func rangeError(_ message: String) -> KeyValueCodingError {
        KeyValueCodingError(
            .indexOutOfRange, key: key, className: String(reflecting: type(of: object)), message: message)
    }

    private func mismatch(_ elements: [Any], _ array: any KeyValueArrayStorage.Type) -> KeyValueCodingError {
        let wrong = elements.first { array.converted([$0]) == nil } ?? elements
        return KeyValueCodingError.mismatch(key, in: object, expected: array.elementType, given: wrong)
    }
}
