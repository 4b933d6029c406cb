import ModelObjects

extension ManagedObject: DeclaredKeyResolving {
    /// The key of the `@Managed` property `keyPath` names, found on a prototype of the class (in
    /// no context, keeping no values) rather than on the object, whose probe write would be a
    /// change: `"salary"` for `\Employee.salary`. Nil for a key path that does not read and
    /// write exactly one `@Managed` property of its declared type, which leaves the key to the
    /// probe of ``KeyValueCodingKeyPaths/key(for:)`` (for `@Derived` keys).
    package static func declaredKey<Root, Value>(for keyPath: KeyPath<Root, Value>) -> String? {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value>,
            let prototype = (try? ManagedPrototype.make(self)) as? Root
        else { return nil }
        let read = ManagedPrototype.accessedKeys { _ = prototype[keyPath: writable] }
        guard let key = read.first, read == [key] else { return nil }
        // A computed property that reads one `@Managed` property is not it: the property's own
        // key path also writes only it, and has its type.
        let value = prototype[keyPath: writable]
        let written = ManagedPrototype.accessedKeys(during: { prototype[keyPath: writable] = value })
        guard !written.isEmpty, written.allSatisfy({ $0 == key }),
            let levels = try? ClassModelReader.levels(of: self),
            let field = levels.lazy.flatMap(\.fields).first(where: { $0.name == key }),
            field.valueType == Value.self
        else { return nil }
        return key
    }
}
