import ModelObjects

extension ManagedObject: DeclaredKeyResolving {
    /// The key of the `@Managed` property `keyPath` names, found on a prototype of the class (in
    /// no context, keeping no values) rather than on the object, whose probe write would be a
    /// change: `"salary"` for `\Employee.salary`. Nil for a key path that does not read and
    /// write exactly one `@Managed` property of its declared type, which leaves the key to the
    /// probe of ``KeyValueCodingKeyPaths/key(for:)`` (for `@Derived` keys).
    package static func declaredKey<Root, Value>(for keyPath: KeyPath<Root, Value>) -> String? {
        ManagedPrototype.managedKey(of: keyPath, in: self)
    }
}
