extension ManagedPrototype {
    /// The key of the `@Managed` property of `type` (or of a superclass) that `keyPath` is,
    /// found on a prototype of `type`; nil for any other key path.
    ///
    /// Reading alone cannot tell a property from a computed property that reads it
    /// (`email?.lowercased()` reads `email`): the key path must also write only that property,
    /// and have its type.
    /// Nil too for every key path of a class with a property ``propertyWithoutStandIn(of:)``
    /// finds, whose reading on a prototype would stop the program.
    static func managedKey(of keyPath: AnyKeyPath, in type: ManagedObject.Type) -> String? {
        guard let writable = keyPath as? any PrototypeWritableKeyPath,
            (try? propertyWithoutStandIn(of: type) == nil) == true
        else { return nil }
        return writable.managedKey(in: type)
    }
}

/// A key path that can be read and written on a prototype, whatever its types.
private protocol PrototypeWritableKeyPath {
    func managedKey(in type: ManagedObject.Type) -> String?
}

extension ReferenceWritableKeyPath: PrototypeWritableKeyPath {
    fileprivate func managedKey(in type: ManagedObject.Type) -> String? {
        guard let prototype = (try? ManagedPrototype.make(type)) as? Root else { return nil }
        // The value to write back is the one read inside the probe: read after it, it would
        // count as a read of the probe whose getter is asking (when one is).
        var read: Value?
        let readKeys = ManagedPrototype.accessedKeys { read = prototype[keyPath: self] }
        guard let key = readKeys.first, readKeys == [key], let value = read else { return nil }
        let written = ManagedPrototype.accessedKeys(during: { prototype[keyPath: self] = value })
        guard !written.isEmpty, written.allSatisfy({ $0 == key }),
            let levels = try? ClassModelReader.levels(of: type),
            let field = levels.lazy.flatMap(\.fields).first(where: { $0.name == key }),
            field.valueType == Value.self
        else { return nil }
        return key
    }
}
