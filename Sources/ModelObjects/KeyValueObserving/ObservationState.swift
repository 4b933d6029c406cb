import Foundation
import Synchronization

/// What a will/did pair announces about a key.
enum PendingChangeKind {
    case setting
    case ordered(KeyValueChange.Kind, IndexSet)
    case setMutation(KeyValueSetMutation, Set<AnyHashable>)
}

/// The observers of one object and the changes in flight on it. An object has one only while
/// something observes it (or while a key-path probe runs); otherwise its typed setters skip
/// observation entirely.
///
/// Registration and removal may happen on any thread: the subscriptions are guarded by a lock.
/// Notifications are delivered synchronously on the thread that makes the change, outside the
/// lock, so observers may register, remove or change values from inside a notification.
@usableFromInline
package final class ObservationState {
    /// One observation's part of a change announced by a `will`.
    private struct Record {
        let observation: Observation
        var isDirect: Bool
        var isStructural: Bool
        let kind: KeyValueChange.Kind
        let indexes: IndexSet?
        let oldValue: Any?
        /// For set mutations, the inserted objects are known at `will` time.
        let newValueAtWill: Any?
    }

    /// A `will` waiting for its `did`: its records are `pendingRecords[start...]` up to the next
    /// frame's start.
    private struct PendingFrame {
        let key: String
        let change: PendingChangeKind
        var start: Int
    }

    /// The subscriptions and registrations, behind a lock.
    private struct Registry {
        /// Each observed key with its subscriptions in registration order. Objects are observed
        /// on few keys, so a linear search beats hashing the key.
        var subscriptionLists: [KeySubscriptions] = []
        /// Observations registered on this object (whose root it is), in registration order.
        var registrations: [Observation] = []

        /// The subscriptions to `key` and their summary; nil when nothing subscribes to it.
        @inline(__always)
        func snapshot(forKey key: String) -> KeySubscriptions.Snapshot? {
            for entry in subscriptionLists where entry.key == key { return entry.snapshot }
            return nil
        }
    }

    private let lock = NSLock()
    /// Whether any key has subscriptions: a change of an object only tracked by Observation
    /// skips the lock. Written with `lock` held.
    private let hasSubscriptions = Atomic<Bool>(false)
    /// Read and written with `lock` held only.
    @exclusivity(unchecked) private var registry = Registry()
    /// Changes in flight, touched only by the thread making changes to the object (which owns
    /// it): no lock, and storage reused from change to change.
    @exclusivity(unchecked) private var pendingRecords: [Record] = []
    @exclusivity(unchecked) private var pendingFrames: [PendingFrame] = []

    /// The Observation framework's registrar and tracked keys; nil until a tracking scope reads
    /// the object. Set once, under the object's state lock, by the thread that owns the object.
    @exclusivity(unchecked) var trackedKeys: ObservationTrackedKeys?

    /// Set when this state is a probe that maps a typed key path to its key.
    private(set) var isProbe = false
    /// The key the probe saw being written or read.
    private(set) var probedKey: String?
    /// The declared key path of that property, rooted at its declaring class.
    private(set) var probedKeyPath: AnyKeyPath?

    /// The keys of the observed object's class: the state takes the object's word that held
    /// them (see `ModelObject.keysAndObservers`).
    @usableFromInline let propertyTable: PropertyTable

    init(propertyTable: PropertyTable) { self.propertyTable = propertyTable }

    static func probe(propertyTable: PropertyTable) -> ObservationState {
        let state = ObservationState(propertyTable: propertyTable)
        state.isProbe = true
        return state
    }

    /// Records the first property a probe sees being written or read.
    func recordProbe(_ key: String, keyPath: AnyKeyPath) {
        guard isProbe, probedKey == nil else { return }
        probedKey = key
        probedKeyPath = keyPath
    }

    /// True when nothing observes the object: no key-value observer and no tracking scope ever
    /// read it (trackings installed with the registrar cannot be counted, so a tracked object
    /// keeps its state).
    var isEmpty: Bool {
        trackedKeys == nil && lock.withLock { registry.subscriptionLists.isEmpty && registry.registrations.isEmpty }
    }

    // MARK: Registry

    /// Adds a subscription, keeping each key's subscriptions in registration order (an
    /// observation that re-attaches after an intermediate object changed keeps its place).
    func add(_ subscription: Subscription, forKey key: String) {
        lock.withLock {
            hasSubscriptions.store(true, ordering: .releasing)
            guard let position = registry.subscriptionLists.firstIndex(where: { $0.key == key }) else {
                registry.subscriptionLists.append(KeySubscriptions(key: key, first: subscription))
                return
            }
            registry.subscriptionLists[position].insert(subscription)
        }
    }

    func removeSubscriptions(of observation: Observation) {
        lock.withLock {
            for position in registry.subscriptionLists.indices.reversed() {
                registry.subscriptionLists[position].removeAll(of: observation)
                if registry.subscriptionLists[position].isEmpty { registry.subscriptionLists.remove(at: position) }
            }
            hasSubscriptions.store(!registry.subscriptionLists.isEmpty, ordering: .releasing)
        }
    }

    func addRegistration(_ observation: Observation) {
        lock.withLock { registry.registrations.append(observation) }
    }

    func removeRegistration(_ observation: Observation) {
        lock.withLock { registry.registrations.removeAll { $0 === observation } }
    }

    /// The most recent registration by `observer` for `keyPath` (with `context`, when given).
    func registration(
        by observer: any KeyValueObserver, keyPath: String, context: UnsafeMutableRawPointer??
    ) -> Observation? {
        lock.withLock {
            registry.registrations.last {
                $0.isRegistered(by: observer) && $0.keyPath == keyPath
                    && (context == nil || $0.context == context ?? nil)
            }
        }
    }

    /// The observations registered on this object.
    var allRegistrations: [Observation] {
        lock.withLock { registry.registrations }
    }

    /// Ends the observations rooted at the object and tells every observation subscribed on it
    /// to forget it.
    func objectWillDeinitialize(_ object: ModelObject) {
        for observation in allRegistrations { observation.invalidate() }
        let subscribers = lock.withLock { registry.subscriptionLists.flatMap { $0.subscriptions.map(\.observation) } }
        for observation in subscribers { observation.forget(object) }
    }

    // MARK: Will and did

    /// Makes a change of `key` when no observer of the key needs the general will/did path
    /// (none asked for prior notifications, and none follows the key to further objects): takes
    /// the old values, runs `body`, and notifies in reverse registration order with the new
    /// values read for each observer — what the general path does for such observers, without
    /// keeping records. Returns false, running nothing, when the key needs the general path.
    ///
    /// What the key's subscriptions need (old values, dependents, deduplication) is worked out
    /// when they change, so a change only copies the list out of the lock and walks it once.
    func changeNotifyingDirectly(
        _ object: ModelObject, key: String, descriptor knownDescriptor: PropertyDescriptor?, _ body: () throws -> Void
    ) rethrows -> Bool {
        guard hasSubscriptions.load(ordering: .acquiring), let snapshot = lock.withLock({ registry.snapshot(forKey: key) })
        else {
            // Tracked keys, once made, stay as long as the state: borrowed without reference
            // counting.
            guard let trackedKeys = trackedKeys.map(Unmanaged.passUnretained) else {
                try body()
                return true
            }
            try trackedKeys._withUnsafeGuaranteedRef { try $0.change(object, key: key, body) }
            return true
        }
        guard !snapshot.summary.contains(.needsRecords) else { return false }
        trackedKeys?.willSet(object, key: key)
        defer { trackedKeys?.didSet(object, key: key) }
        // The snapshot holds the observations strongly for the whole change, so the code below
        // borrows them (`borrowedObservation`) without reference counting, even when an observer
        // invalidates another observation.
        if snapshot.subscriptions.count == 1 {
            try Self.changeNotifyingOne(snapshot.subscriptions, object, key: key, descriptor: knownDescriptor, body)
        } else {
            try Self.changeNotifyingEach(snapshot, object, key: key, descriptor: knownDescriptor, body)
        }
        return true
    }

    /// ``changeNotifyingDirectly(_:key:descriptor:_:)`` for a key with one subscription, the
    /// common case: straight-line code, so that the old value moves into the change. (Copying
    /// or destroying an `Any?` goes through its type's value witnesses, a few calls each.)
    ///
    /// Takes the whole list, which it reads only trivial fields of, so that nothing is retained.
    private static func changeNotifyingOne(
        _ subscriptions: [Subscription], _ object: ModelObject, key: String, descriptor: PropertyDescriptor?,
        _ body: () throws -> Void
    ) rethrows {
        let subscription = (observation: subscriptions[0].borrowedObservation, isDirect: subscriptions[0].isDirect)
        let observation = subscription.observation
        let options = observation._withUnsafeGuaranteedRef { $0.options }
        let includesOld = options.contains(.old)
        let includesNew = options.contains(.new)
        let isDirect = subscription.isDirect
        let old: Any?
        if !includesOld {
            old = nil
        } else if isDirect {
            old = value(of: object, key: key, descriptor: descriptor)
        } else {
            old = observation._withUnsafeGuaranteedRef { $0.currentValue() }
        }
        try body()
        guard observation._withUnsafeGuaranteedRef({ $0.isActive }) else { return }
        let new: Any?
        if !includesNew {
            new = nil
        } else if isDirect {
            new = value(of: object, key: key, descriptor: descriptor)
        } else {
            new = observation._withUnsafeGuaranteedRef { $0.currentValue() }
        }
        let change = KeyValueChange(
            settingOld: consume old, includesOld: includesOld, new: consume new, includesNew: includesNew)
        observation._withUnsafeGuaranteedRef { $0.deliver(change) }
    }

    /// ``changeNotifyingDirectly(_:key:descriptor:_:)`` for a key with several subscriptions.
    private static func changeNotifyingEach(
        _ snapshot: KeySubscriptions.Snapshot, _ object: ModelObject, key: String, descriptor: PropertyDescriptor?,
        _ body: () throws -> Void
    ) rethrows {
        let summary = snapshot.summary
        let interested = snapshot.subscriptions
        let oldValue = summary.contains(.directWantsOld) ? value(of: object, key: key, descriptor: descriptor) : nil
        // Observers of dependent keys see the old value of their own key path, taken now.
        var indirectOldValues: [Any?] = []
        if summary.contains(.indirectWantsOld) {
            indirectOldValues.reserveCapacity(interested.count)
            for subscription in interested {
                indirectOldValues.append(subscription.borrowedObservation._withUnsafeGuaranteedRef { observation in
                    !subscription.isDirect && observation.options.contains(.old) ? observation.currentValue() : nil
                })
            }
        }
        try body()
        // An observation subscribed twice to the key (through two dependencies) is notified once.
        var notified: [UnsafeMutableRawPointer] = []
        var index = interested.count
        while index > 0 {
            index -= 1
            let isDirect = interested[index].isDirect
            let observation = interested[index].borrowedObservation
            let (isActive, options) = observation._withUnsafeGuaranteedRef { ($0.isActive, $0.options) }
            guard isActive else { continue }
            if summary.contains(.repeatsObservation) {
                let identifier = observation.toOpaque()
                if notified.contains(identifier) { continue }
                notified.append(identifier)
            }
            let includesOld = options.contains(.old)
            let includesNew = options.contains(.new)
            let old: Any? = !includesOld ? nil : isDirect ? oldValue : indirectOldValues[index]
            let new: Any?
            if !includesNew {
                new = nil
            } else if isDirect {
                new = value(of: object, key: key, descriptor: descriptor)
            } else {
                new = observation._withUnsafeGuaranteedRef { $0.currentValue() }
            }
            let change = KeyValueChange(
                settingOld: consume old, includesOld: includesOld, new: consume new, includesNew: includesNew)
            observation._withUnsafeGuaranteedRef { $0.deliver(change) }
        }
    }

    /// The subscriptions for `key`, in registration order.
    private func subscriptions(forKey key: String) -> [Subscription] {
        lock.withLock { registry.snapshot(forKey: key)?.subscriptions ?? [] }
    }

    /// Announces a change of `key`: takes the old values, sends prior notifications in
    /// registration order, and keeps the records for the matching ``didChange(_:key:)``.
    func willChange(_ object: ModelObject, key: String, change: PendingChangeKind) {
        trackedKeys?.willSet(object, key: key)
        let interested = subscriptions(forKey: key)
        let start = pendingRecords.count
        if !interested.isEmpty {
            let descriptor = object.propertyTable.descriptor(forKey: key)
            // Read for each observer: an observer's prior notification may change the value.
            func currentValue() -> Any? { Self.value(of: object, key: key, descriptor: descriptor) }
            for subscription in interested {
                let observation = subscription.observation
                guard observation.isActive else { continue }
                if let index = pendingRecords[start...].firstIndex(where: { $0.observation === observation }) {
                    pendingRecords[index].isStructural = pendingRecords[index].isStructural || subscription.isStructural
                    continue
                }
                let wantsOld = observation.options.contains(.old)
                let record: Record
                if subscription.isDirect {
                    record = Self.directRecord(
                        observation, subscription, change: change, wantsOld: wantsOld, current: currentValue)
                } else {
                    record = Record(
                        observation: observation, isDirect: false, isStructural: subscription.isStructural,
                        kind: .setting, indexes: nil, oldValue: wantsOld ? observation.currentValue() : nil,
                        newValueAtWill: nil)
                }
                pendingRecords.append(record)
                if observation.options.contains(.prior) {
                    var prior = KeyValueChange(
                        kind: record.kind, oldValue: record.oldValue, indexes: record.indexes, isPrior: true)
                    prior.includesOldValue = wantsOld && record.kind != .insertion
                    observation.deliver(prior)
                }
            }
        }
        pendingFrames.append(PendingFrame(key: key, change: change, start: start))
    }

    private static func directRecord(
        _ observation: Observation, _ subscription: Subscription, change: PendingChangeKind,
        wantsOld: Bool, current: () -> Any?
    ) -> Record {
        switch change {
        case .setting:
            return Record(
                observation: observation, isDirect: true, isStructural: subscription.isStructural,
                kind: .setting, indexes: nil, oldValue: wantsOld ? current() : nil, newValueAtWill: nil)
        case .ordered(let kind, let indexes):
            let old = wantsOld && kind != .insertion ? elements(of: current(), at: indexes) : nil
            return Record(
                observation: observation, isDirect: true, isStructural: subscription.isStructural,
                kind: kind, indexes: indexes, oldValue: old, newValueAtWill: nil)
        case .setMutation(let mutation, let objects):
            let present = Set(members(of: current()))
            let kind: KeyValueChange.Kind
            var old: Set<AnyHashable>?
            var new: Set<AnyHashable>?
            switch mutation {
            case .union:
                kind = .insertion
                new = objects.subtracting(present)
            case .minus:
                kind = .removal
                old = objects.intersection(present)
            case .intersect:
                kind = .removal
                old = present.subtracting(objects)
            default:
                kind = .replacement
                old = present.subtracting(objects)
                new = objects.subtracting(present)
            }
            return Record(
                observation: observation, isDirect: true, isStructural: subscription.isStructural,
                kind: kind, indexes: nil, oldValue: wantsOld ? old : nil, newValueAtWill: new)
        }
    }

    /// Delivers the notifications of the most recent unmatched `will` for `key`, in reverse
    /// registration order, with the new values read now; then tells the key's trackings.
    func didChange(_ object: ModelObject, key: String) {
        deliverDidChange(object, key: key)
        trackedKeys?.didSet(object, key: key)
    }

    private func deliverDidChange(_ object: ModelObject, key: String) {
        guard let frameIndex = pendingFrames.lastIndex(where: { $0.key == key }) else { return }
        let frame = pendingFrames.remove(at: frameIndex)
        let end = frameIndex < pendingFrames.count ? pendingFrames[frameIndex].start : pendingRecords.count
        guard frame.start < end else { return }
        for index in frame.start..<end where pendingRecords[index].isStructural {
            let observation = pendingRecords[index].observation
            if observation.isActive { observation.reattach() }
        }
        let descriptor = object.propertyTable.descriptor(forKey: key)
        // Read for each observer, as Cocoa does: an earlier observer may change the value again.
        func currentValue() -> Any? { Self.value(of: object, key: key, descriptor: descriptor) }
        // Nested changes made by observers push and pop their own frames after `end`, so the
        // indexes of this frame's records stay put during delivery.
        for index in (frame.start..<end).reversed() {
            let record = pendingRecords[index]
            let observation = record.observation
            guard observation.isActive else { continue }
            let wantsNew = observation.options.contains(.new)
            var change = KeyValueChange(kind: record.kind, oldValue: record.oldValue, indexes: record.indexes)
            change.includesOldValue = observation.options.contains(.old) && record.kind != .insertion
            change.includesNewValue = wantsNew && record.kind != .removal
            if change.includesNewValue {
                if !record.isDirect {
                    change.newValue = observation.currentValue()
                } else {
                    switch frame.change {
                    case .setting: change.newValue = currentValue()
                    case .ordered(_, let indexes): change.newValue = Self.elements(of: currentValue(), at: indexes)
                    case .setMutation: change.newValue = record.newValueAtWill
                    }
                }
            }
            observation.deliver(change)
        }
        pendingRecords.removeSubrange(frame.start..<end)
        let removed = end - frame.start
        for later in frameIndex..<pendingFrames.count { pendingFrames[later].start -= removed }
    }

    /// The current value of `key`: read through its descriptor when the key is declared, through
    /// key-value coding (the undefined-key hook) otherwise; nil when that throws.
    @inline(__always)
    private static func value(of object: ModelObject, key: String, descriptor: PropertyDescriptor?) -> Any? {
        if let descriptor { return descriptor.value(in: object) }
        return (try? object.value(forKey: key)) ?? nil
    }

    /// The elements of an ordered collection at `indexes`, as an array.
    private static func elements(of collection: Any?, at indexes: IndexSet) -> [Any] {
        guard let collection = collection as? any KeyValueCollection else { return [] }
        var all: [Any] = []
        collection.forEachKeyValue { all.append($0) }
        return indexes.compactMap { $0 < all.count ? all[$0] : nil }
    }

    private static func members(of collection: Any?) -> [AnyHashable] {
        guard let collection = collection as? any KeyValueCollection else { return [] }
        var members: [AnyHashable] = []
        collection.forEachKeyValue { if let member = $0 as? AnyHashable { members.append(member) } }
        return members
    }
}

extension ModelObject {
    /// Guards creating, filling and dropping objects' observation states, so that a registration
    /// racing with the last removal on another thread is never added to a dropped state.
    private static let observationStateLock = NSLock()

    /// The object's observation state, made on first use; call with the lock held.
    private func observationStateCreatingIfNeeded() -> ObservationState {
        if let state = observationState, !state.isProbe { return state }
        let state = ObservationState(propertyTable: propertyTable)
        observationState = state
        return state
    }

    func addRegistration(_ observation: Observation) {
        Self.observationStateLock.withLock { observationStateCreatingIfNeeded().addRegistration(observation) }
    }

    func addSubscription(_ subscription: Subscription, forKey key: String) {
        Self.observationStateLock.withLock { observationStateCreatingIfNeeded().add(subscription, forKey: key) }
    }

    func removeSubscriptions(of observation: Observation) {
        Self.observationStateLock.withLock {
            observationState?.removeSubscriptions(of: observation)
            dropObservationStateIfUnused()
        }
    }

    func removeRegistration(_ observation: Observation) {
        Self.observationStateLock.withLock {
            observationState?.removeRegistration(observation)
            dropObservationStateIfUnused()
        }
    }

    /// The registration to remove for `removeObserver`, looked up under the lock.
    func registration(
        by observer: any KeyValueObserver, keyPath: String, context: UnsafeMutableRawPointer??
    ) -> Observation? {
        Self.observationStateLock.withLock {
            observationState?.registration(by: observer, keyPath: keyPath, context: context)
        }
    }

    /// The object's Observation registrar and tracked keys, made on first use; nil while a
    /// key-path probe is installed.
    func observationTrackedKeysCreatingIfNeeded() -> ObservationTrackedKeys? {
        if let state = observationState {
            if state.isProbe { return nil }
            if let trackedKeys = state.trackedKeys { return trackedKeys }
        }
        return Self.observationStateLock.withLock {
            let state = observationStateCreatingIfNeeded()
            if let trackedKeys = state.trackedKeys { return trackedKeys }
            let trackedKeys = ObservationTrackedKeys()
            state.trackedKeys = trackedKeys
            return trackedKeys
        }
    }

    /// Returns the object to the fast path once nothing observes it; call with the lock held.
    private func dropObservationStateIfUnused() {
        if let state = observationState, !state.isProbe, state.isEmpty { observationState = nil }
    }
}
