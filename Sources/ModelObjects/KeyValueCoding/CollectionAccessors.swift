import Foundation

/// The collection accessors a class writes for a to-many key, in Swift form, so that mutable
/// collection proxies edit the relationship through them instead of replacing it whole.
///
/// Return them from ``ModelObject/collectionAccessors(forKey:)``:
/// ```swift
/// override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
///     guard key == "employees" else { return super.collectionAccessors(forKey: key) }
///     return .ordered(
///         count: { (department: Department) in department.employees.count },
///         objectAt: { department, index in department.employees[index] },
///         insert: { department, employee, index in department.employees.insert(employee, at: index) },
///         remove: { department, index in department.employees.remove(at: index) })
/// }
/// ```
/// The proxy posts the precise change around each call (when the class notifies automatically
/// for the key), so the accessors need not notify themselves.
///
/// Corresponds to Cocoa's `countOf<Key>`, `objectIn<Key>AtIndex:`, `insertObject:in<Key>AtIndex:`,
/// `removeObjectFrom<Key>AtIndex:`, `replaceObjectIn<Key>AtIndex:withObject:` for arrays, and
/// `add<Key>Object:`, `remove<Key>Object:`, `add<Key>:`, `remove<Key>:`, `intersect<Key>:` for sets.
public struct CollectionAccessors {
    enum Accessors {
        case ordered(Ordered)
        case unordered(Unordered)
        /// Both kinds, for a class that answers every to-many key (the managed-object layer).
        case both(Ordered, Unordered)

        var ordered: Ordered? {
            switch self {
            case .ordered(let ordered), .both(let ordered, _): ordered
            case .unordered: nil
            }
        }

        var unordered: Unordered? {
            switch self {
            case .unordered(let unordered), .both(_, let unordered): unordered
            case .ordered: nil
            }
        }
    }

    struct Ordered {
        var count: (ModelObject) throws -> Int
        var objectAt: (ModelObject, Int) throws -> Any
        var insert: (ModelObject, Any, Int) throws -> Void
        var remove: (ModelObject, Int) throws -> Void
        var replace: ((ModelObject, Int, Any) throws -> Void)?
        /// Converts values to the accessors' element type, all or nothing.
        var convert: ([Any]) throws -> [Any]
    }

    struct Unordered {
        var members: ((ModelObject) throws -> [AnyHashable])?
        var add: (ModelObject, [Any]) throws -> Void
        var remove: (ModelObject, [Any]) throws -> Void
        var intersect: ((ModelObject, [Any]) throws -> Void)?
    }

    let accessors: Accessors
    /// Whether these are the accessors the managed-object layer gives by default rather than a
    /// class's own.
    package var isFrameworkDefault = false
    /// Checked when a proxy is made for an object, so that a key the object cannot serve fails
    /// at once rather than at first use (the managed layer's defaults answer for every key of
    /// a class, but only the entity's to-many keys work).
    package var checkObject: ((ModelObject) throws -> Void)?

    /// Accessors for an ordered to-many key: `countOf<Key>`, `objectIn<Key>AtIndex:`,
    /// `insertObject:in<Key>AtIndex:`, `removeObjectFrom<Key>AtIndex:` and, optionally,
    /// `replaceObjectIn<Key>AtIndex:withObject:`.
    public static func ordered<Object: ModelObject, Element>(
        count: @escaping (Object) -> Int,
        objectAt: @escaping (Object, Int) -> Element,
        insert: @escaping (Object, Element, Int) -> Void,
        remove: @escaping (Object, Int) -> Void,
        replace: ((Object, Int, Element) -> Void)? = nil
    ) -> CollectionAccessors {
        let ordered = Ordered(
            count: { try count(cast($0)) },
            objectAt: { try objectAt(cast($0), $1) },
            insert: { try insert(cast($0), convert($1, "insertObject:in<Key>AtIndex:"), $2) },
            remove: { try remove(cast($0), $1) },
            replace: replace.map { replace in
                { try replace(cast($0), $1, convert($2, "replaceObjectIn<Key>AtIndex:withObject:")) }
            },
            convert: { values in try values.map { try convert($0, "insertObject:in<Key>AtIndex:") as Element } })
        return CollectionAccessors(accessors: .ordered(ordered))
    }

    init(accessors: Accessors, isFrameworkDefault: Bool = false) {
        self.accessors = accessors
        self.isFrameworkDefault = isFrameworkDefault
    }

    /// Accessors for an unordered to-many key. Give the `add<Key>Object:`/`remove<Key>Object:`
    /// pair (`addObject`, `removeObject`), the `add<Key>:`/`remove<Key>:` pair (`add`, `remove`),
    /// or both; `intersect<Key>:` is optional. `members` reads the set when the key has no
    /// declared storage.
    public static func unordered<Object: ModelObject, Element: Hashable>(
        members: ((Object) -> Set<Element>)? = nil,
        addObject: ((Object, Element) -> Void)? = nil,
        removeObject: ((Object, Element) -> Void)? = nil,
        add: ((Object, Set<Element>) -> Void)? = nil,
        remove: ((Object, Set<Element>) -> Void)? = nil,
        intersect: ((Object, Set<Element>) -> Void)? = nil
    ) -> CollectionAccessors? {
        func elements(_ values: [Any], _ method: String) throws -> Set<Element> {
            Set(try values.map { try convert($0, method) as Element })
        }
        let addAll: (ModelObject, [Any]) throws -> Void
        if let add {
            addAll = { add(try cast($0), try elements($1, "add<Key>:")) }
        } else if let addObject {
            addAll = { object, values in
                let object: Object = try cast(object)
                for element in try elements(values, "add<Key>Object:") { addObject(object, element) }
            }
        } else {
            return nil
        }
        let removeAll: (ModelObject, [Any]) throws -> Void
        if let remove {
            removeAll = { remove(try cast($0), try elements($1, "remove<Key>:")) }
        } else if let removeObject {
            removeAll = { object, values in
                let object: Object = try cast(object)
                for element in try elements(values, "remove<Key>Object:") { removeObject(object, element) }
            }
        } else {
            return nil
        }
        let unordered = Unordered(
            members: members.map { members in { object in try members(cast(object)).map { AnyHashable($0) } } },
            add: addAll,
            remove: removeAll,
            intersect: intersect.map { intersect in
                { intersect(try cast($0), try elements($1, "intersect<Key>:")) }
            })
        return CollectionAccessors(accessors: .unordered(unordered))
    }
}

private func cast<Object: ModelObject>(_ object: ModelObject) throws -> Object {
    guard let typed = object as? Object else {
        throw KeyValueCodingError.mismatch("self", in: nil, expected: Object.self, given: object)
    }
    return typed
}

private func convert<Element>(_ value: Any, _ method: String) throws -> Element {
    guard let element = convertKeyValue(value, to: Element.self) else {
        throw KeyValueCodingError.mismatch(method, in: nil, expected: Element.self, given: value)
    }
    return element
}

extension CollectionAccessors {
    /// Accessors for an ordered to-many key whose closures may throw and take elements as they
    /// come; the managed-object layer gives these for modeled relationships.
    package static func throwingOrdered(
        count: @escaping (ModelObject) throws -> Int,
        objectAt: @escaping (ModelObject, Int) throws -> Any,
        insert: @escaping (ModelObject, Any, Int) throws -> Void,
        remove: @escaping (ModelObject, Int) throws -> Void,
        replace: @escaping (ModelObject, Int, Any) throws -> Void
    ) -> CollectionAccessors {
        CollectionAccessors(
            accessors: .ordered(
                Ordered(
                    count: count, objectAt: objectAt, insert: insert, remove: remove, replace: replace,
                    convert: { $0 })))
    }

    /// Accessors for an unordered to-many key whose closures may throw and take elements as they
    /// come; the managed-object layer gives these for modeled relationships.
    package static func throwingUnordered(
        members: @escaping (ModelObject) throws -> [AnyHashable],
        add: @escaping (ModelObject, [Any]) throws -> Void,
        remove: @escaping (ModelObject, [Any]) throws -> Void
    ) -> CollectionAccessors {
        CollectionAccessors(
            accessors: .unordered(Unordered(members: members, add: add, remove: remove, intersect: nil)))
    }

    /// The ordered accessors of `ordered` and the unordered ones of `unordered` together, marked
    /// as the managed-object layer's defaults.
    package static func combined(unordered: CollectionAccessors, ordered: CollectionAccessors) -> CollectionAccessors? {
        guard let orderedAccessors = ordered.accessors.ordered, let unorderedAccessors = unordered.accessors.unordered
        else { return nil }
        return CollectionAccessors(accessors: .both(orderedAccessors, unorderedAccessors), isFrameworkDefault: true)
    }
}
