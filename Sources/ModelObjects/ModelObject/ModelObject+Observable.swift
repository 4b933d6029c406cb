import Observation

/// Model objects are observable with the Observation framework, as `@Observable` classes are:
/// inside `withObservationTracking` (and so in SwiftUI views), reading a property declared with
/// ``Attribute``, ``Relationship``, ``CustomAttribute`` or ``Derived`` (through the keys it
/// depends on) registers it, and any change of it calls the tracking's `onChange`.
///
/// Every model class takes part, as every `@Observable` class does:
/// ```swift
/// final class Employee: ModelObject {
///     @Attribute var salary = 0.0
/// }
/// withObservationTracking {
///     render(employee.salary)
/// } onChange: {
///     scheduleRender()
/// }
/// ```
/// Every route that notifies key-value observers tells the tracking too: typed setters,
/// ``ModelObject/setValue(_:forKey:)`` and key paths, collection proxies, manual
/// ``ModelObject/willChangeValue(forKey:)``/``ModelObject/didChangeValue(forKey:)`` pairs,
/// undo. A set notifies even when the value is equal to the old one, as key-value observing
/// does (an `@Observable` class skips equal values of `Equatable` types since Swift 6.2).
///
/// Outside tracking scopes a typed getter costs one check of the thread's tracking pointer (a
/// thread-local load on Linux) and registers nothing; a class opts out with
/// ``ModelObject/tracksObservationAccess``.
///
/// Corresponds to the `@Observable` macro's conformance.
extension ModelObject: Observable {}

extension ModelObject {
    /// The object's tracked keys when the current thread is inside an Observation tracking
    /// scope (made on first use), nil outside one.
    package final func observationTrackedKeysIfTrackingScope() -> ObservationTrackedKeys? {
        switch ObservationTrackingScope.isActive {
        case true?:
            return observationTrackedKeysCreatingIfNeeded()
        case false?:
            return nil
        case nil:
            // Only a probe can tell. Its registrar, which the scope now keeps its `onChange` in,
            // stays with the tracked keys, so the closure goes with the object.
            guard let probeRegistrar = ObservationTrackingProbe.enrolledRegistrar(),
                  let trackedKeys = observationTrackedKeysCreatingIfNeeded()
            else { return nil }
            trackedKeys.keep(probeRegistrar: probeRegistrar)
            return trackedKeys
        }
    }

    /// Registers a typed read of the property whose wrapper lives at `offset` with the current
    /// tracking scope, if there is one. The wrappers' getters call it once
    /// ``ObservationTrackingScope/mayBeActive`` says a scope may be active.
    ///
    /// The key path is an autoclosure: a getter that passed it as a value would make the key
    /// path object on every read, tracked or not.
    @usableFromInline
    final func trackObservationAccess<Object: ModelObject, Value>(
        atOffset offset: Int, keyPath: @autoclosure () -> KeyPath<Object, Value>
    ) {
        guard withPropertyTable(\.tracksObservationAccess) else { return }
        if let state = observationState.map(Unmanaged.passUnretained) {
            // An object already tracked asks its own registrar, whose `access` records the read
            // in a scope and does nothing outside one: no second look at the thread's scope, and
            // no probe, whose registrar would join the scope's access list too. Tracked keys stay
            // as long as the state, so both are borrowed without reference counting.
            let handled = state._withUnsafeGuaranteedRef { state -> Bool in
                guard !state.isProbe, let trackedKeys = state.trackedKeys.map(Unmanaged.passUnretained) else {
                    return false
                }
                return propertyTable.withDescriptor(atOffset: offset) { descriptor -> Bool in
                    guard descriptor.kind != .derived else { return false }
                    trackedKeys._withUnsafeGuaranteedRef { $0.access(self, key: descriptor.key, keyPath: keyPath()) }
                    return true
                } ?? false
            }
            if handled { return }
        }
        guard let trackedKeys = observationTrackedKeysIfTrackingScope(),
              let descriptor = propertyTable.descriptor(atOffset: offset)
        else { return }
        trackedKeys.access(self, key: descriptor.key, keyPath: keyPath())
        if descriptor.kind == .derived {
            for dependency in descriptor.dependencies { trackObservationAccess(toKeyPath: dependency) }
        }
    }

    /// The object's Observation registrar and tracked keys, once a tracking scope has read it.
    package final var trackedKeysIfTracked: ObservationTrackedKeys? {
        guard let state = observationState, !state.isProbe else { return nil }
        return state.trackedKeys
    }

    /// Whether a tracking scope has read the object: its reads then go to its own registrar.
    package final var isTrackedByObservation: Bool {
        trackedKeysIfTracked != nil
    }

    /// Registers a read of `key` under the property's own key path; the caller has checked
    /// that a tracking scope is active, or that the object is tracked already.
    package final func trackObservationAccess<Object: ModelObject, Value>(
        forKey key: String, keyPath: () -> KeyPath<Object, Value>
    ) {
        observationTrackedKeysCreatingIfNeeded()?.access(self, key: key, keyPath: keyPath())
    }

    /// Registers a read of every key along `keyPath` (a derived key's dependency) on the
    /// objects it goes through: to-one relationships lead to one object, to-many ones to each
    /// of their objects, collection operators are skipped. Objects of classes that do not track
    /// access are left out, as their own reads would be.
    final func trackObservationAccess(toKeyPath keyPath: String) {
        var objects: [ModelObject] = [self]
        var keys = keyPath.split(separator: ".", omittingEmptySubsequences: false)[...]
        while let key = keys.popFirst(), !objects.isEmpty {
            if key.hasPrefix("@") { continue }
            let name = String(key)
            var next: [ModelObject] = []
            for object in objects where object.propertyTable.tracksObservationAccess {
                object.observationTrackedKeysCreatingIfNeeded()?.access(object, key: name)
                guard !keys.isEmpty, let value = try? object.value(forKey: name) else { continue }
                if let related = asModelObject(value) {
                    next.append(related)
                } else if let collection = value as? any KeyValueCollection {
                    collection.forEachKeyValue { if let related = asModelObject($0) { next.append(related) } }
                }
            }
            objects = next
        }
    }

    /// Tells the object's trackings that every key is about to change (a managed object turning
    /// back into a fault drops its values without a change per key); pair it with
    /// ``observationDidChangeAllKeys()``.
    package final func observationWillChangeAllKeys() {
        observationState?.trackedKeys?.willSetAll(self)
    }

    /// Tells the object's trackings that every key changed.
    package final func observationDidChangeAllKeys() {
        observationState?.trackedKeys?.didSetAll(self)
    }
}
