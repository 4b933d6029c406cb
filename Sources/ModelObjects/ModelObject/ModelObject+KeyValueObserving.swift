import Foundation
import Synchronization

extension ModelObject {
    /// Registers `observer` to receive changes of `keyPath`, relative to this object.
    ///
    /// The key path may go through to-one relationships (`"department.name"`): the observer
    /// hears when any key along it changes, and the registration follows the path to new
    /// intermediate objects. Through to-many relationships it hears changes of any related
    /// object. Keys that others depend on (``keyPathsForValuesAffectingValue(forKey:)``)
    /// notify their dependents.
    ///
    /// The same observer may register for the same key path several times, with different
    /// contexts; each registration is notified. The observer is held weakly.
    ///
    /// With ``KeyValueObservingOptions/initial`` the observer receives one notification before
    /// this method returns.
    ///
    /// - Throws: ``KeyValueCodingError/Code/keyPathTooComplex`` when `keyPath`, or a key path a
    ///   key on it depends on, holds more than ``maximumObservedKeyPathLength`` keys; nothing is
    ///   registered.
    ///
    /// Corresponds to `-[NSObject addObserver:forKeyPath:options:context:]`; differences: the
    /// observer is not retained and need not be removed before it goes away, and an overlong key
    /// path throws.
    public func addObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String,
        options: KeyValueObservingOptions = [], context: UnsafeMutableRawPointer? = nil
    ) throws {
        try register(Observation(
            root: self, keyPath: keyPath, options: options, context: context, observer: observer, handler: nil))
    }

    /// Removes the most recent registration of `observer` for `keyPath`.
    ///
    /// - Throws: ``KeyValueObservingError/Code/observerNotRegistered`` when there is none.
    ///
    /// Corresponds to `-[NSObject removeObserver:forKeyPath:]`, which raises in that case.
    public func removeObserver(_ observer: any KeyValueObserver, forKeyPath keyPath: String) throws {
        try removeObserver(observer, forKeyPath: keyPath, matching: .none)
    }

    /// Removes the registration of `observer` for `keyPath` made with `context`.
    ///
    /// - Throws: ``KeyValueObservingError/Code/observerNotRegistered`` when there is none.
    ///
    /// Corresponds to `-[NSObject removeObserver:forKeyPath:context:]`.
    public func removeObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, context: UnsafeMutableRawPointer?
    ) throws {
        try removeObserver(observer, forKeyPath: keyPath, matching: .some(context))
    }

    private func removeObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, matching context: UnsafeMutableRawPointer??
    ) throws {
        guard let observation = registration(by: observer, keyPath: keyPath, context: context) else {
            throw KeyValueObservingError(
                .observerNotRegistered, keyPath: keyPath, className: String(reflecting: type(of: self)),
                message: "cannot remove an observer of type \(type(of: observer)) for the key path '\(keyPath)' because it is not registered as an observer")
        }
        observation.invalidate()
    }

    /// Observes `keyPath` (a string key path) with a handler, until the returned token is
    /// invalidated or released.
    ///
    /// The handler receives this object and the change; it should not capture this object
    /// strongly.
    ///
    /// - Throws: ``KeyValueCodingError/Code/keyPathTooComplex`` when `keyPath`, or a key path a
    ///   key on it depends on, holds more than ``maximumObservedKeyPathLength`` keys; nothing is
    ///   registered.
    ///
    /// Corresponds to Foundation's `observe(_:options:changeHandler:)` with a string key path.
    public func observe(
        _ keyPath: String, options: KeyValueObservingOptions = [],
        changeHandler: @escaping (ModelObject, KeyValueChange) -> Void
    ) throws -> KeyValueObservation {
        let observation = Observation(
            root: self, keyPath: keyPath, options: options, context: nil, observer: nil, handler: changeHandler)
        try register(observation)
        return KeyValueObservation(observation)
    }

    /// The most keys an observed key path may hold, and so may each key path it depends on
    /// through ``keyPathsForValuesAffectingValue(forKey:)``.
    ///
    /// Subscribing to a key path nests one call per key, so a path of tens of thousands of keys
    /// would exhaust the stack; key-value coding itself reads paths of any length.
    public static let maximumObservedKeyPathLength = 1_000

    func register(_ observation: Observation) throws {
        try Observation.checkLength(of: observation.keyPath, observing: self)
        if observation.options.contains(.initial) {
            var change = KeyValueChange(kind: .setting)
            if observation.options.contains(.new) {
                change.newValue = observation.currentValue()
                change.includesNewValue = true
            }
            observation.deliver(change)
        }
        addRegistration(observation)
        observation.attach()
        if let dependent = observation.tooLongDependentKeyPath {
            observation.invalidate()
            try Observation.checkLength(of: dependent, observing: self)
        }
    }

    /// Tells observers of an ordered to-many key that objects at `indexes` are about to be
    /// inserted, removed or replaced; pair it with ``didChange(_:valuesAt:forKey:)``.
    ///
    /// Corresponds to `-[NSObject willChange:valuesAtIndexes:forKey:]`.
    public func willChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        notifyTrackerWillChange(forKey: key, change: .ordered(kind, indexes))
        observationState?.willChange(self, key: key, change: .ordered(kind, indexes))
    }

    /// Tells observers of an ordered to-many key that objects at `indexes` were inserted,
    /// removed or replaced.
    ///
    /// Corresponds to `-[NSObject didChange:valuesAtIndexes:forKey:]`.
    public func didChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        notifyTrackerDidChange(forKey: key)
        observationState?.didChange(self, key: key)
    }

    /// Tells observers of an unordered to-many key that it is about to be mutated; pair it with
    /// ``didChangeValue(forKey:withSetMutation:using:)``. Observers see an insertion of the
    /// objects a union actually adds, a removal of those a minus or an intersect actually
    /// removes, and a replacement for a set.
    ///
    /// Corresponds to `-[NSObject willChangeValueForKey:withSetMutation:usingObjects:]`.
    public func willChangeValue(
        forKey key: String, withSetMutation mutation: KeyValueSetMutation, using objects: Set<AnyHashable>
    ) {
        notifyTrackerWillChange(forKey: key, change: .setMutation(mutation, objects))
        observationState?.willChange(self, key: key, change: .setMutation(mutation, objects))
    }

    /// Tells observers of an unordered to-many key that it was mutated.
    ///
    /// Corresponds to `-[NSObject didChangeValueForKey:withSetMutation:usingObjects:]`.
    public func didChangeValue(
        forKey key: String, withSetMutation mutation: KeyValueSetMutation, using objects: Set<AnyHashable>
    ) {
        notifyTrackerDidChange(forKey: key)
        observationState?.didChange(self, key: key)
    }

    /// Runs `body`, which changes `key`, between automatic will/did notifications when the object
    /// has observers and the class notifies automatically for the key.
    @inline(__always)
    func changeValue(
        forKey key: String, descriptor: PropertyDescriptor? = nil, _ body: () throws -> Void
    ) rethrows {
        guard let state = observationState else {
            try body()
            return
        }
        try changeValue(forKey: key, descriptor: descriptor, state: state, body)
    }

    /// ``changeValue(forKey:descriptor:_:)`` once the object's observation state is known.
    @inline(__always)
    func changeValue(
        forKey key: String, descriptor: PropertyDescriptor?, state: ObservationState, _ body: () throws -> Void
    ) rethrows {
        let notifies = descriptor.map { $0.notifiesAutomatically(in: type(of: self)) }
            ?? type(of: self).automaticallyNotifiesObservers(forKey: key)
        guard notifies else {
            try body()
            return
        }
        if try state.changeNotifyingDirectly(self, key: key, descriptor: descriptor, body) { return }
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

    /// Registers `keys` as affecting `dependentKey` for this class and its subclasses.
    ///
    /// Corresponds to the deprecated `+[NSObject setKeys:triggerChangeNotificationsForDependentKey:]`;
    /// prefer ``Derived`` or overriding ``keyPathsForValuesAffectingValue(forKey:)``.
    public class func setKeys(_ keys: [String], triggerChangeNotificationsForDependentKey dependentKey: String) {
        KeyDependencies.register(keys, affecting: dependentKey, in: self)
    }
}

extension KeyValueCodingKeyPaths {
    /// Observes the property named by a typed key path, with typed old and new values, until the
    /// returned token is invalidated or released.
    ///
    /// ```swift
    /// let token = employee.observe(\.salary, options: [.old, .new]) { employee, change in
    ///     print(change.oldValue ?? 0, "→", change.newValue ?? 0)
    /// }
    /// ```
    /// The key path must name a property declared with ``Attribute``, ``CustomAttribute``,
    /// ``Relationship`` or ``Derived``; for key paths through relationships use the string form,
    /// ``ModelObject/observe(_:options:changeHandler:)``. A notification costs what the string
    /// form's does: values of the property's own type reach the handler without a dynamic cast.
    ///
    /// - Throws: ``KeyValueCodingError/Code/unmappableKeyPath`` for any other key path.
    ///
    /// Corresponds to Foundation's `observe(_:options:changeHandler:)`.
    @inlinable
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>, options: KeyValueObservingOptions = [],
        changeHandler: @escaping (Self, ObservedChange<Value>) -> Void
    ) throws -> KeyValueObservation {
        let key = try key(for: keyPath)
        // The handler receives the observed object, this one, so it is a `Self`: no cast.
        return try observe(key, options: options) { object, change in
            changeHandler(unsafeDowncast(object, to: Self.self), ObservedChange(change))
        }
    }
}

/// Dependent keys registered with ``ModelObject/setKeys(_:triggerChangeNotificationsForDependentKey:)``,
/// and the default answer of ``ModelObject/keyPathsForValuesAffectingValue(forKey:)``.
enum KeyDependencies {
    private static let registered = Mutex<[ObjectIdentifier: [String: Set<String>]]>([:])

    static func register(_ keys: [String], affecting dependentKey: String, in type: ModelObject.Type) {
        registered.withLock { $0[ObjectIdentifier(type), default: [:]][dependentKey, default: []].formUnion(keys) }
    }

    /// The dependencies declared with ``Derived`` on the class and those registered with
    /// `setKeys` on the class or any superclass.
    static func declaredKeyPaths(affecting key: String, in type: ModelObject.Type) -> Set<String> {
        var keyPaths = Set(PropertyTable.existingTable(for: type)?.descriptor(forKey: key)?.dependencies ?? [])
        var current: AnyClass? = type
        while let cls = current {
            let identifier = ObjectIdentifier(cls)
            if let keys = registered.withLock({ $0[identifier]?[key] }) { keyPaths.formUnion(keys) }
            current = _getSuperclass(cls)
        }
        return keyPaths
    }
}
