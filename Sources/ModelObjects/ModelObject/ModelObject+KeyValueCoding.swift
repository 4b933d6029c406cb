import Foundation

extension ModelObject {
    /// Returns the value at a dot-separated key path.
    ///
    /// Each key is read from the value the previous one returned: through to-one relationships
    /// key by key; through a to-many relationship the rest of the path is read from every
    /// related object and the values are collected (an array for ordered relationships, with
    /// `NSNull` for nil, a set for unordered ones). A nil on the way makes the result nil.
    /// Collection operators apply to collections: `"employees.@sum.salary"`,
    /// `"employees.@count"`, `"employees.@distinctUnionOfObjects.lastName"`.
    ///
    /// - Throws: ``KeyValueCodingError`` with ``KeyValueCodingError/Code/undefinedKey`` for an
    ///   unknown key, ``KeyValueCodingError/Code/malformedKeyPath`` for an empty key,
    ///   ``KeyValueCodingError/Code/operatorOnNonCollection``,
    ///   ``KeyValueCodingError/Code/unknownCollectionOperator``,
    ///   ``KeyValueCodingError/Code/missingOperatorKeyPath``,
    ///   ``KeyValueCodingError/Code/nonNumericValue`` for operators that cannot apply, and
    ///   ``KeyValueCodingError/Code/notKeyValueCodingCompliant`` when the path continues past a
    ///   plain value.
    ///
    /// Corresponds to `-[NSObject valueForKeyPath:]`.
    public func value(forKeyPath keyPath: String) throws -> Any? {
        var path = keyPath
        return try path.withUTF8 { bytes in try value(forKeyPath: keyPath, utf8: bytes) }
    }

    /// Walks through to-one relationships key by key on the path's bytes, with no string made
    /// for declared keys; anything else (collections, operators, nil, errors) goes to the general
    /// evaluator from where the path leaves model objects.
    private func value(forKeyPath keyPath: String, utf8 bytes: UnsafeBufferPointer<UInt8>) throws -> Any? {
        let dot = UInt8(ascii: "."), at = UInt8(ascii: "@")
        var target: ModelObject = self
        var start = 0
        while true {
            var end = start
            while end < bytes.count, bytes[end] != dot { end += 1 }
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let isLast = end == bytes.count
            guard !segment.isEmpty, segment[0] != at, isLast || end + 1 < bytes.count else { break }
            let value: Any?
            if let descriptor = target.withPropertyTable({ $0.descriptor(forUTF8Key: segment) }) {
                if !isLast, case .some(let related) = descriptor.relatedObject(in: target) {
                    // A to-one relationship in the middle of the path: no boxing, no cast.
                    start = end + 1
                    guard let related else {
                        // Still reports a malformed rest of the path, as the general evaluator does.
                        return try KeyValuePath.value(of: nil, forKeyPath: Self.suffix(of: keyPath, fromUTF8Offset: start), fullPath: keyPath)
                    }
                    target = related
                    continue
                }
                value = descriptor.value(in: target)
            } else {
                value = try target.value(forUndefinedKey: String(decoding: segment, as: UTF8.self))
            }
            if isLast { return value }
            start = end + 1
            guard let value, let object = asModelObject(value) else {
                return try KeyValuePath.value(of: value, forKeyPath: Self.suffix(of: keyPath, fromUTF8Offset: start), fullPath: keyPath)
            }
            target = object
        }
        return try KeyValuePath.value(of: target, forKeyPath: Self.suffix(of: keyPath, fromUTF8Offset: start), fullPath: keyPath)
    }

    private static func suffix(of string: String, fromUTF8Offset offset: Int) -> Substring {
        string[string.utf8.index(string.utf8.startIndex, offsetBy: offset)...]
    }

    /// Sets the value at a dot-separated key path: the last key is set, with
    /// ``setValue(_:forKey:)``, on the object the rest of the path leads to. Nothing happens when
    /// that object is nil, as in Cocoa.
    ///
    /// - Throws: What ``setValue(_:forKey:)`` throws, ``KeyValueCodingError/Code/malformedKeyPath``,
    ///   or ``KeyValueCodingError/Code/notKeyValueCodingCompliant`` when the path goes through a
    ///   value that is not a model object.
    ///
    /// Corresponds to `-[NSObject setValue:forKeyPath:]`.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) throws {
        try KeyValuePath.setValue(value, on: self, forKeyPath: keyPath)
    }

    /// Returns the values of `keys` in a dictionary; nil values are `NSNull`, as in Cocoa.
    ///
    /// - Throws: What ``value(forKey:)`` throws for the first key that fails.
    ///
    /// Corresponds to `-[NSObject dictionaryWithValuesForKeys:]`.
    public func dictionaryWithValues(forKeys keys: [String]) throws -> [String: Any] {
        var values: [String: Any] = [:]
        values.reserveCapacity(keys.count)
        for key in keys { values[key] = try value(forKey: key) ?? NSNull() }
        return values
    }

    /// Sets several keys at once; `NSNull` stands for nil, as in Cocoa.
    ///
    /// All or nothing: when one key fails, the keys already set are put back to their previous
    /// values (observers see those changes and their reversal) and the error is rethrown.
    ///
    /// - Throws: What ``setValue(_:forKey:)`` throws for the first key that fails.
    ///
    /// Corresponds to `-[NSObject setValuesForKeysWithDictionary:]`; differences: Cocoa leaves
    /// the keys set before the failing one changed.
    public func setValuesForKeys(_ keyedValues: [String: Any]) throws {
        var previous: [(key: String, value: Any?)] = []
        do {
            for (key, value) in keyedValues {
                let old = try self.value(forKey: key)
                try setValue(isNull(value) ? nil : value, forKey: key)
                previous.append((key, old))
            }
        } catch {
            for (key, value) in previous.reversed() { try? setValue(value, forKey: key) }
            throw error
        }
    }

    /// A live, mutable proxy for an ordered to-many key (or an array attribute).
    ///
    /// Besides declared arrays and keys with collection accessors, the proxy serves any key
    /// key-value coding reads as an array (a ``CustomAttribute``, read-only accessors, the
    /// undefined-key hooks): see ``MutableArrayProxy`` for how it edits each.
    ///
    /// - Throws: ``KeyValueCodingError/Code/undefinedKey`` for a key nothing serves,
    ///   ``KeyValueCodingError/Code/notACollection`` when the key does not hold an array.
    ///
    /// Corresponds to `-[NSObject mutableArrayValueForKey:]`.
    public func mutableArrayValue(forKey key: String) throws -> MutableArrayProxy {
        try MutableArrayProxy(object: self, key: key)
    }

    /// A live, mutable proxy for an unordered to-many key (or a set attribute).
    ///
    /// Besides declared sets and keys with collection accessors, the proxy serves any key
    /// key-value coding reads as a set (a ``CustomAttribute``, read-only accessors, the
    /// undefined-key hooks): see ``MutableSetProxy`` for how it edits each.
    ///
    /// - Throws: ``KeyValueCodingError/Code/undefinedKey`` for a key nothing serves,
    ///   ``KeyValueCodingError/Code/notACollection`` when the key does not hold a set.
    ///
    /// Corresponds to `-[NSObject mutableSetValueForKey:]`.
    public func mutableSetValue(forKey key: String) throws -> MutableSetProxy {
        try MutableSetProxy(object: self, key: key)
    }

    /// Every key the object's class declares, superclass keys first, each class's in declaration
    /// order.
    public var declaredKeys: [String] { propertyTable.descriptors.map(\.key) }

    /// The keys declared with ``Attribute``.
    public var attributeKeys: [String] {
        propertyTable.descriptors.filter { $0.kind == .attribute }.map(\.key)
    }

    /// The keys declared with ``Relationship``.
    public var relationshipKeys: [String] {
        propertyTable.descriptors.filter(\.isRelationship).map(\.key)
    }

    /// The keys declared with ``Derived``.
    public var derivedKeys: [String] {
        propertyTable.descriptors.filter { $0.kind == .derived }.map(\.key)
    }
}

/// Typed key paths for model objects: the bridge between Swift key paths and string keys.
///
/// `ModelObject` adopts it; its members take key paths rooted at the object's own class.
public protocol KeyValueCodingKeyPaths: ModelObject {}

extension ModelObject: KeyValueCodingKeyPaths {}

extension KeyValueCodingKeyPaths {
    /// The key of a declared property named by a typed key path: `"salary"` for
    /// `\Employee.salary`.
    ///
    /// Works for key paths of one component that name an ``Attribute``, a ``CustomAttribute``
    /// (without calling its accessors), a ``Relationship`` or a ``Derived`` key, or, on a managed
    /// object, a `@Managed` property (found on a prototype of the class: the object is not
    /// written). The answer is cached per class. Limitation: for a key path rooted at a
    /// subclass, a computed property of the subclass that only forwards to one inherited declared
    /// property of the same type is taken for that property, as is, on a managed object, a
    /// settable computed property of the same type that reads and writes one `@Managed` property.
    ///
    /// - Throws: ``KeyValueCodingError/Code/unmappableKeyPath`` for any other key path.
    ///
    /// Corresponds to Foundation's `_kvcKeyPathString`, which exists only for `@objc` properties
    /// on Apple platforms.
    public func key<Value>(for keyPath: KeyPath<Self, Value>) throws -> String {
        if let key = propertyTable.cachedKey(for: keyPath) { return key }
        let resolving = Self.self as? any DeclaredKeyResolving.Type
        if let resolving, let key = resolving.declaredKey(for: keyPath) {
            propertyTable.cacheKey(key, for: keyPath)
            return key
        }
        let probe = ObservationState.probe(propertyTable: propertyTable)
        let saved = observationState
        observationState = probe
        defer { observationState = saved }
        // A class that resolves keys itself may store what a probe writes: it is only read.
        if resolving == nil, let writable = keyPath as? ReferenceWritableKeyPath<Self, Value> {
            let value = self[keyPath: writable]
            self[keyPath: writable] = value
        } else {
            _ = self[keyPath: keyPath]
        }
        guard let key = probe.probedKey, let declared = probe.probedKeyPath,
              Self.keyPath(keyPath, isTheDeclaredProperty: declared)
        else {
            throw KeyValueCodingError(
                .unmappableKeyPath, key: "\(keyPath)", className: String(reflecting: Self.self),
                message: "the key path does not name a property declared with @Attribute, @CustomAttribute, @Relationship or @Derived")
        }
        propertyTable.cacheKey(key, for: keyPath)
        return key
    }

    /// Whether `keyPath` names the property whose wrapper reported `declared` (its own key path,
    /// rooted at the declaring class), rather than a longer path or a computed property that
    /// reaches it.
    ///
    /// A key path rooted at a subclass of the declaring class is never equal to the declared
    /// one, so for inherited properties only the value types are compared: a computed property
    /// of a subclass that reads one inherited declared property of the same type maps to that
    /// property's key.
    private static func keyPath(_ keyPath: AnyKeyPath, isTheDeclaredProperty declared: AnyKeyPath) -> Bool {
        if type(of: declared).rootType == Self.self { return declared == keyPath }
        return type(of: declared).valueType == type(of: keyPath).valueType
    }

    /// Reads a property through key-value coding by typed key path.
    public func value<Value>(for keyPath: KeyPath<Self, Value>) throws -> Any? {
        try value(forKey: key(for: keyPath))
    }

    /// A live, mutable proxy for the ordered to-many property named by a typed key path.
    public func mutableArrayValue<Element>(for keyPath: KeyPath<Self, [Element]>) throws -> MutableArrayProxy {
        try mutableArrayValue(forKey: key(for: keyPath))
    }

    /// A live, mutable proxy for the unordered to-many property named by a typed key path.
    public func mutableSetValue<Element>(for keyPath: KeyPath<Self, Set<Element>>) throws -> MutableSetProxy {
        try mutableSetValue(forKey: key(for: keyPath))
    }
}

extension ModelObject {
    /// Whether a key-path probe is installed (``KeyValueCodingKeyPaths/key(for:)`` is mapping a
    /// typed key path to its key), during which custom accessors do not run.
    @usableFromInline
    final var isProbingKeyPaths: Bool {
        observationState?.isProbe ?? false
    }

    /// Records the key of a derived property read while a key-path probe is installed.
    @usableFromInline
    final func recordDerivedProbe(at offset: Int, wrappedKeyPath: @autoclosure () -> AnyKeyPath) {
        guard let state = observationState, state.isProbe,
              let descriptor = propertyTable.descriptor(atOffset: offset) else { return }
        state.recordProbe(descriptor.key, keyPath: wrappedKeyPath())
    }
}
