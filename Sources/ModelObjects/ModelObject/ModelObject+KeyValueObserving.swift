import Foundation

extension ModelObject {
    /// Runs `body`, which changes `key`, between automatic will/did notifications when the object
    /// has observers and the class notifies automatically for the key.
    @inline(__always)
    func changeValue(forKey key: String, _ body: () throws -> Void) rethrows {
        guard observationState != nil, type(of: self).automaticallyNotifiesObservers(forKey: key) else {
            try body()
            return
        }
        willChangeValue(forKey: key)
        defer { didChangeValue(forKey: key) }
        try body()
    }

    /// Runs `body`, which edits an ordered to-many key, between automatic will/did notifications.
    func changeCollection(
        forKey key: String, kind: KeyValueChange.Kind, indexes: IndexSet, _ body: () throws -> Void
    ) rethrows {
        guard observationState != nil, type(of: self).automaticallyNotifiesObservers(forKey: key) else {
            try body()
            return
        }
        willChange(kind, valuesAt: indexes, forKey: key)
        defer { didChange(kind, valuesAt: indexes, forKey: key) }
        try body()
    }

    /// Runs `body`, which mutates an unordered to-many key, between automatic will/did
    /// notifications.
    func changeSet(
        forKey key: String, mutation: KeyValueSetMutation, objects: Set<AnyHashable>, _ body: () throws -> Void
    ) rethrows {
        guard observationState != nil, type(of: self).automaticallyNotifiesObservers(forKey: key) else {
            try body()
            return
        }
        willChangeValue(forKey: key, withSetMutation: mutation, using: objects)
        defer { didChangeValue(forKey: key, withSetMutation: mutation, using: objects) }
        try body()
    }

    /// Tells observers of an ordered to-many key that objects at `indexes` are about to be
    /// inserted, removed or replaced; pair it with ``didChange(_:valuesAt:forKey:)``.
    ///
    /// Corresponds to `-[NSObject willChange:valuesAtIndexes:forKey:]`.
    public func willChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        observationState?.willChange(self, key: key, change: kind)
    }

    /// Tells observers of an ordered to-many key that objects at `indexes` were inserted,
    /// removed or replaced.
    ///
    /// Corresponds to `-[NSObject didChange:valuesAtIndexes:forKey:]`.
    public func didChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        observationState?.didChange(self, key: key)
    }

    /// Tells observers of an unordered to-many key that it is about to be mutated; pair it with
    /// ``didChangeValue(forKey:withSetMutation:using:)``.
    ///
    /// Corresponds to `-[NSObject willChangeValueForKey:withSetMutation:usingObjects:]`.
    public func willChangeValue(forKey key: String, withSetMutation mutation: KeyValueSetMutation, using objects: Set<AnyHashable>) {
        observationState?.willChange(self, key: key, change: .setting)
    }

    /// Tells observers of an unordered to-many key that it was mutated.
    ///
    /// Corresponds to `-[NSObject didChangeValueForKey:withSetMutation:usingObjects:]`.
    public func didChangeValue(forKey key: String, withSetMutation mutation: KeyValueSetMutation, using objects: Set<AnyHashable>) {
        observationState?.didChange(self, key: key)
    }
}

/// Dependent keys declared with ``Derived`` or registered with
/// ``ModelObject/setKeys(_:triggerChangeNotificationsForDependentKey:)``.
enum KeyDependencies {
    static func declaredKeyPaths(affecting key: String, in type: ModelObject.Type) -> Set<String> {
        []
    }
}

extension ModelObject {
    /// Registers `keys` as affecting `dependentKey` for this class and its subclasses.
    ///
    /// Corresponds to the deprecated `+[NSObject setKeys:triggerChangeNotificationsForDependentKey:]`;
    /// prefer ``Derived`` or ``keyPathsForValuesAffectingValue(forKey:)``.
    public class func setKeys(_ keys: [String], triggerChangeNotificationsForDependentKey dependentKey: String) {}
}
