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
/// Accessors that only read (``ordered(count:objectAt:)``,
/// ``unordered(count:enumerator:member:)``) make a key readable by ``ModelObject/value(forKey:)``,
/// key paths and collection operators; editing it through a proxy throws
/// ``KeyValueCodingError/Code/readOnlyKey``.
///
/// Corresponds to Cocoa's `countOf<Key>`, `objectIn<Key>AtIndex:`, `insertObject:in<Key>AtIndex:`,
/// `removeObjectFrom<Key>AtIndex:`, `replaceObjectIn<Key>AtIndex:withObject:` for arrays, and
/// `countOf<Key>`, `enumeratorOf<Key>`, `memberOf<Key>:`, `add<Key>Object:`, `remove<Key>Object:`,
/// `add<Key>:`, `remove<Key>:`, `intersect<Key>:` for sets.
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
        /// Nil, with `remove`, for read-only accessors (`countOf<Key>` and `objectIn<Key>AtIndex:`
        /// alone).
        var insert: ((ModelObject, Any, Int) throws -> Void)?
        var remove: ((ModelObject, Int) throws -> Void)?
        var replace: ((ModelObject, Int, Any) throws -> Void)?
        /// Converts values to the accessors' element type, all or nothing.
        var convert: ([Any]) throws -> [Any]

        /// The insert and remove accessors, when the key can be edited through them.
        var mutators: (insert: (ModelObject, Any, Int) throws -> Void, remove: (ModelObject, Int) throws -> Void)? {
            guard let insert, let remove else { return nil }
            return (insert, remove)
        }

        /// The elements, read with `count` and `objectAt`.
        func elements(of object: ModelObject) throws -> [Any] {
            // A count below zero (an accessor's bug) reads as empty rather than trapping.
            let count = max(0, try count(object))
            var elements: [Any] = []
            // The count comes from the class's code: a wrong, huge one must not make the
            // reservation itself fail.
            elements.reserveCapacity(min(count, 4096))
            for index in 0..<count { elements.append(try objectAt(object, index)) }
            return elements
        }
    }

    struct Unordered {
        var members: ((ModelObject) throws -> [AnyHashable])?
        /// `countOf<Key>`, when given; otherwise the members are counted.
        var count: ((ModelObject) throws -> Int)?
        /// `memberOf<Key>:`, when given; otherwise the members are searched.
        var member: ((ModelObject, Any) throws -> Any?)?
        /// `add<Key>Object:`/`remove<Key>Object:`, called for one object at a time.
        var addObject: ((ModelObject, Any) throws -> Void)?
        var removeObject: ((ModelObject, Any) throws -> Void)?
        /// `add<Key>:`/`remove<Key>:`, or a loop over the single-object accessors; nil for
        /// read-only accessors.
        var add: ((ModelObject, [Any]) throws -> Void)?
        var remove: ((ModelObject, [Any]) throws -> Void)?
        var intersect: ((ModelObject, [Any]) throws -> Void)?

        /// The bulk add and remove accessors, when the key can be edited through them.
        var mutators: (add: (ModelObject, [Any]) throws -> Void, remove: (ModelObject, [Any]) throws -> Void)? {
            guard let add, let remove else { return nil }
            return (add, remove)
        }
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
    /// declared storage. Returns nil without an add or without a remove accessor.
    ///
    /// A set proxy adding or removing one object (``MutableSetProxy/insert(_:)``,
    /// ``MutableSetProxy/remove(_:)``) calls `addObject`/`removeObject` when given, and the bulk
    /// accessor with a one-element set otherwise; bulk changes (``MutableSetProxy/formUnion(_:)``,
    /// ``MutableSetProxy/subtract(_:)``) call `add`/`remove` when given, and the single-object
    /// accessor once per object otherwise, as Cocoa's set proxy does.
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
        let addOne = addObject.map { addObject in
            { (object: ModelObject, value: Any) throws in
                addObject(try cast(object), try convert(value, "add<Key>Object:"))
            }
        }
        let removeOne = removeObject.map { removeObject in
            { (object: ModelObject, value: Any) throws in
                removeObject(try cast(object), try convert(value, "remove<Key>Object:"))
            }
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
            addObject: addOne,
            removeObject: removeOne,
            add: addAll,
            remove: removeAll,
            intersect: intersect.map { intersect in
                { intersect(try cast($0), try elements($1, "intersect<Key>:")) }
            })
        return CollectionAccessors(accessors: .unordered(unordered))
    }

    /// Read-only accessors for an ordered to-many key: `countOf<Key>` and
    /// `objectIn<Key>AtIndex:` alone.
    ///
    /// ``ModelObject/value(forKey:)`` answers the key with an array of the elements (through
    /// the default ``ModelObject/value(forUndefinedKey:)``), so key paths and collection
    /// operators go through it (`"milestones.@count"`), and
    /// ``ModelObject/mutableArrayValue(forKey:)`` gives a proxy that reads through the
    /// accessors. Editing through the proxy sets the whole new array with
    /// ``ModelObject/setValue(_:forKey:)``, as Cocoa's proxy does for a key without mutating
    /// accessors: the default ``ModelObject/setValue(_:forUndefinedKey:)`` then throws
    /// ``KeyValueCodingError/Code/readOnlyKey`` and nothing changes.
    ///
    /// Corresponds to a class implementing only `countOf<Key>` and `objectIn<Key>AtIndex:`
    /// (or `<key>AtIndexes:`); differences: `value(forKey:)` returns an array of the elements,
    /// read at once, rather than a live `NSArray` proxy.
    public static func ordered<Object: ModelObject, Element>(
        count: @escaping (Object) -> Int,
        objectAt: @escaping (Object, Int) -> Element
    ) -> CollectionAccessors {
        let ordered = Ordered(
            count: { try count(cast($0)) },
            objectAt: { try objectAt(cast($0), $1) },
            insert: nil, remove: nil, replace: nil,
            convert: { values in try values.map { try convert($0, "objectIn<Key>AtIndex:") as Element } })
        return CollectionAccessors(accessors: .ordered(ordered))
    }

    /// Read-only accessors for an unordered to-many key: `countOf<Key>`, `enumeratorOf<Key>`
    /// and `memberOf<Key>:` alone.
    ///
    /// ``ModelObject/value(forKey:)`` answers the key with a set of the elements the enumerator
    /// gives (through the default ``ModelObject/value(forUndefinedKey:)``), so key paths and
    /// collection operators go through it, and ``ModelObject/mutableSetValue(forKey:)`` gives a
    /// proxy whose ``MutableSetProxy/count()`` and ``MutableSetProxy/contains(_:)`` call
    /// `count` and `member`. Editing through the proxy sets the whole new set with
    /// ``ModelObject/setValue(_:forKey:)``, which the default
    /// ``ModelObject/setValue(_:forUndefinedKey:)`` refuses with
    /// ``KeyValueCodingError/Code/readOnlyKey``; nothing changes.
    ///
    /// Corresponds to a class implementing only `countOf<Key>`, `enumeratorOf<Key>` and
    /// `memberOf<Key>:`; differences: `value(forKey:)` returns a set of the elements, read at
    /// once, rather than a live `NSSet` proxy.
    public static func unordered<Object: ModelObject, Element: Hashable>(
        count: @escaping (Object) -> Int,
        enumerator: @escaping (Object) -> AnyIterator<Element>,
        member: @escaping (Object, Element) -> Element?
    ) -> CollectionAccessors {
        let unordered = Unordered(
            members: { object in
                var members: [AnyHashable] = []
                for element in IteratorSequence(enumerator(try cast(object))) { members.append(AnyHashable(element)) }
                return members
            },
            count: { try count(cast($0)) },
            member: { object, value in
                guard let element = convertKeyValue(value, to: Element.self) else { return nil }
                return member(try cast(object), element)
            })
        return CollectionAccessors(accessors: .unordered(unordered))
    }

    /// Whether the accessors only read: no insert or remove (ordered), no add or remove
    /// (unordered).
    var isReadOnly: Bool {
        switch accessors {
        case .ordered(let ordered): ordered.mutators == nil
        case .unordered(let unordered): unordered.mutators == nil
        case .both(let ordered, let unordered): ordered.mutators == nil && unordered.mutators == nil
        }
    }

    /// The elements the accessors read, when they can: an array for ordered accessors, a set
    /// for unordered ones with a way to list members; nil otherwise.
    func readValue(of object: ModelObject) throws -> Any? {
        if let ordered = accessors.ordered { return try ordered.elements(of: object) }
        if let members = accessors.unordered?.members { return Set(try members(object)) }
        return nil
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
            accessors: .unordered(Unordered(members: members, add: add, remove: remove)))
    }

    /// The ordered accessors of `ordered` and the unordered ones of `unordered` together, marked
    /// as the managed-object layer's defaults.
    package static func combined(unordered: CollectionAccessors, ordered: CollectionAccessors) -> CollectionAccessors? {
        guard let orderedAccessors = ordered.accessors.ordered, let unorderedAccessors = unordered.accessors.unordered
        else { return nil }
        return CollectionAccessors(accessors: .both(orderedAccessors, unorderedAccessors), isFrameworkDefault: true)
    }
}

extension CollectionAccessors {
    /// The class's accessors for a mutable proxy of `object`'s key, unless they cannot serve
    /// this object's key (the managed layer's defaults for a key its entity does not model):
    /// the key is then left to key-value coding, whose undefined-key hooks may serve it.
    static func forProxy(of object: ModelObject, forKey key: String) throws -> CollectionAccessors? {
        guard let accessors = type(of: object).collectionAccessors(forKey: key) else { return nil }
        do {
            try accessors.checkObject?(object)
        } catch KeyValueCodingError.Code.undefinedKey {
            return nil
        }
        return accessors
    }
}
