import Foundation

/// Evaluates key paths against model objects, collections and dictionaries, as Cocoa's
/// `valueForKeyPath:` does: through to-one relationships key by key, and through to-many
/// relationships by collecting the values at the rest of the path.
enum KeyValuePath {
    /// Splits a key path at its first dot.
    @inline(__always)
    static func split(_ path: Substring) -> (first: Substring, rest: Substring?) {
        guard let dot = path.utf8.firstIndex(of: UInt8(ascii: ".")) else { return (path, nil) }
        return (path[..<dot], path[path.index(after: dot)...])
    }

    /// The most collection operators one key path may hold. Each applies the rest of the path
    /// to every element by calling back into key-path evaluation, so the stack grows with their
    /// number; no real key path needs more than a few.
    static let maximumCollectionOperators = 32

    /// The value at `path`, starting from `target`.
    ///
    /// Walks the keys in a loop, so that the stack does not grow with the path's length; only
    /// collection operators recurse (they apply the rest of the path to every element), and
    /// their number is checked before the first is applied.
    static func value(of target: Any?, forKeyPath path: Substring, fullPath: String) throws -> Any? {
        var target = target
        var remaining = path
        while true {
            let (first, rest) = split(remaining)
            guard !first.isEmpty, rest.map({ !$0.isEmpty }) ?? true else {
                throw malformed(fullPath)
            }
            if first.utf8.first == UInt8(ascii: "@") {
                try checkCollectionOperators(remaining, fullPath)
                guard let target else { return nil }
                guard let collection = target as? any KeyValueCollection else {
                    throw KeyValueCodingError(
                        .operatorOnNonCollection, key: fullPath,
                        className: String(reflecting: type(of: target)),
                        message: "the collection operator '\(first)' needs an array or a set, got \(type(of: target))")
                }
                return try CollectionOperator.apply(first.dropFirst(), to: collection, rightPath: rest, fullPath: fullPath)
            }
            let value = try self.value(of: target, forKey: String(first), fullPath: fullPath)
            guard let rest else { return value }
            target = value
            remaining = rest
        }
    }

    /// Throws ``KeyValueCodingError/Code/keyPathTooComplex`` when `path` holds more than
    /// ``maximumCollectionOperators`` collection operators.
    static func checkCollectionOperators(_ path: Substring, _ fullPath: String) throws {
        var operators = 0
        var atKeyStart = true
        for byte in path.utf8 {
            if atKeyStart, byte == UInt8(ascii: "@") { operators += 1 }
            atKeyStart = byte == UInt8(ascii: ".")
        }
        guard operators > maximumCollectionOperators else { return }
        throw KeyValueCodingError(
            .keyPathTooComplex, key: fullPath,
            message: "the key path holds \(operators) collection operators; at most \(maximumCollectionOperators) are allowed")
    }

    /// The value for one key of `target`: a model object's property, a dictionary's entry, or
    /// for a collection the collection of its elements' values (nil becomes `NSNull` in arrays
    /// and is left out of sets, as in Cocoa).
    static func value(of target: Any?, forKey key: String, fullPath: String) throws -> Any? {
        if let target, let object = asModelObject(target) { return try object.value(forKey: key) }
        switch target {
        case nil:
            return nil
        case let value? where isNull(value):
            return nil
        case let collection as any KeyValueCollection:
            if collection.isOrderedKeyValueCollection {
                var values: [Any] = []
                values.reserveCapacity(collection.keyValueCount)
                try collection.forEachKeyValue { element in
                    values.append(try value(of: element, forKey: key, fullPath: fullPath) ?? NSNull())
                }
                return values
            }
            var values: Set<AnyHashable> = []
            try collection.forEachKeyValue { element in
                guard let value = try value(of: element, forKey: key, fullPath: fullPath) else { return }
                guard let hashable = value as? AnyHashable else {
                    throw KeyValueCodingError.mismatch(fullPath, in: nil, expected: AnyHashable.self, given: value)
                }
                values.insert(hashable)
            }
            return values
        case let dictionary as [String: Any]:
            return dictionary[key].flatMap(flattenOptional)
        case let dictionary as [AnyHashable: Any]:
            return dictionary[AnyHashable(key)].flatMap(flattenOptional)
        case let target?:
            throw KeyValueCodingError(
                .notKeyValueCodingCompliant, key: fullPath, className: String(reflecting: type(of: target)),
                message: "a value of type \(type(of: target)) has no key '\(key)'")
        }
    }

    /// Sets the value at `path`: the last key is set on the object the rest of the path leads to.
    /// Does nothing when that object is nil, as in Cocoa.
    static func setValue(_ value: Any?, on object: ModelObject, forKeyPath path: String) throws {
        guard let (target, key) = try lastTarget(of: object, forKeyPath: path) else { return }
        try target.setValue(value, forKey: key)
    }

    /// The object the path leads to before its last key, and that key; nil when a key on the
    /// way holds nil, after calling `onNil` with that key and the object that holds it (which
    /// may throw instead).
    ///
    /// - Throws: ``KeyValueCodingError/Code/malformedKeyPath``,
    ///   ``KeyValueCodingError/Code/notKeyValueCodingCompliant`` when the path goes through a
    ///   value that is not a model object, or what reading a key on the way throws.
    static func lastTarget(
        of object: ModelObject, forKeyPath path: String, onNil: (String, ModelObject) throws -> Void = { _, _ in }
    ) throws -> (ModelObject, String)? {
        var target: ModelObject = object
        var remaining = Substring(path)
        while true {
            let (first, rest) = split(remaining)
            guard !first.isEmpty, rest.map({ !$0.isEmpty }) ?? true else { throw malformed(path) }
            guard let rest else { return (target, String(first)) }
            guard let next = try target.value(forKey: String(first)) else {
                try onNil(String(first), target)
                return nil
            }
            guard let nextObject = asModelObject(next) else {
                throw KeyValueCodingError(
                    .notKeyValueCodingCompliant, key: path, className: String(reflecting: type(of: next)),
                    message: "cannot go through '\(first)', which holds a \(type(of: next)), not a model object")
            }
            target = nextObject
            remaining = rest
        }
    }

    static func malformed(_ path: String) -> KeyValueCodingError {
        KeyValueCodingError(.malformedKeyPath, key: path, message: "the key path '\(path)' has an empty key")
    }
}
