import Foundation

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

    /// The records of one `will`, waiting for the matching `did`.
    private struct PendingChange {
        let key: String
        let change: PendingChangeKind
        var records: [Record]
    }

    private let lock = NSLock()
    private var subscriptions: [String: [Subscription]] = [:]
    /// Observations registered on this object (whose root it is), in registration order.
    private var registrations: [Observation] = []
    private var pending: [PendingChange] = []

    /// Set when this state is a probe that maps a typed key path to its key.
    private(set) var isProbe = false
    /// The key the probe saw being written or read.
    private(set) var probedKey: String?
    /// The declared key path of that property, rooted at its declaring class.
    private(set) var probedKeyPath: AnyKeyPath?

    init() {}

    static func probe() -> ObservationState {
        let state = ObservationState()
        state.isProbe = true
        return state
    }

    /// Records the first property a probe sees being written or read.
    func recordProbe(_ key: String, keyPath: AnyKeyPath) {
        guard isProbe, probedKey == nil else { return }
        probedKey = key
        probedKeyPath = keyPath
    }

    /// True when nothing observes the object and no change is in flight.
    var isEmpty: Bool {
        lock.withLock { subscriptions.isEmpty && registrations.isEmpty && pending.isEmpty }
    }

    // MARK: Registry

    /// Adds a subscription, keeping each key's subscriptions in registration order (an
    /// observation that re-attaches after an intermediate object changed keeps its place).
    func add(_ subscription: Subscription, forKey key: String) {
        lock.withLock {
            var list = subscriptions[key] ?? []
            let sequence = subscription.observation.sequenceNumber
            var index = list.endIndex
            while index > list.startIndex, list[index - 1].observation.sequenceNumber > sequence { index -= 1 }
            list.insert(subscription, at: index)
            subscriptions[key] = list
        }
    }

    func removeSubscriptions(of observation: Observation) {
        lock.withLock {
            for key in Array(subscriptions.keys) {
                subscriptions[key]?.removeAll { $0.observation === observation }
                if subscriptions[key]?.isEmpty == true { subscriptions[key] = nil }
            }
        }
    }

    func addRegistration(_ observation: Observation) {
        lock.withLock { registrations.append(observation) }
    }

    func removeRegistration(_ observation: Observation) {
        lock.withLock { registrations.removeAll { $0 === observation } }
    }

    /// The most recent registration by `observer` for `keyPath` (with `context`, when given).
    func registration(
        by observer: any KeyValueObserver, keyPath: String, context: UnsafeMutableRawPointer??
    ) -> Observation? {
        lock.withLock {
            registrations.last {
                $0.isRegistered(by: observer) && $0.keyPath == keyPath
                    && (context == nil || $0.context == context ?? nil)
            }
        }
    }

    /// The observations registered on this object.
    var allRegistrations: [Observation] {
        lock.withLock { registrations }
    }

    func objectWillDeinitialize() {
        for observation in allRegistrations { observation.invalidate() }
    }

    // MARK: Will and did

    /// Announces a change of `key`: takes the old values, sends prior notifications in
    /// registration order, and keeps the records for the matching ``didChange(_:key:)``.
    func willChange(_ object: ModelObject, key: String, change: PendingChangeKind) {
        let interested = lock.withLock { subscriptions[key] ?? [] }
        var records: [Record] = []
        records.reserveCapacity(interested.count)
        // Read for each observer: an observer's prior notification may change the value.
        func currentValue() -> Any? {
            (try? object.value(forKey: key)) ?? nil
        }
        for subscription in interested {
            let observation = subscription.observation
            guard observation.isActive else { continue }
            if let index = records.firstIndex(where: { $0.observation === observation }) {
                records[index].isStructural = records[index].isStructural || subscription.isStructural
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
            records.append(record)
            if observation.options.contains(.prior) {
                var prior = KeyValueChange(
                    kind: record.kind, oldValue: record.oldValue, indexes: record.indexes, isPrior: true)
                prior.includesOldValue = wantsOld && record.kind != .insertion
                observation.deliver(prior)
            }
        }
        lock.withLock { pending.append(PendingChange(key: key, change: change, records: records)) }
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
    /// registration order, with the new values read now.
    func didChange(_ object: ModelObject, key: String) {
        let popped: PendingChange? = lock.withLock {
            guard let index = pending.lastIndex(where: { $0.key == key }) else { return nil }
            return pending.remove(at: index)
        }
        guard let popped else { return }
        for record in popped.records where record.isStructural && record.observation.isActive {
            record.observation.reattach()
        }
        // Read for each observer, as Cocoa does: an earlier observer may change the value again.
        func currentValue() -> Any? {
            (try? object.value(forKey: key)) ?? nil
        }
        for record in popped.records.reversed() {
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
                    switch popped.change {
                    case .setting: change.newValue = currentValue()
                    case .ordered(_, let indexes): change.newValue = Self.elements(of: currentValue(), at: indexes)
                    case .setMutation: change.newValue = record.newValueAtWill
                    }
                }
            }
            observation.deliver(change)
        }
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
        let state = ObservationState()
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

    /// Returns the object to the fast path once nothing observes it; call with the lock held.
    private func dropObservationStateIfUnused() {
        if let state = observationState, !state.isProbe, state.isEmpty { observationState = nil }
    }
}
