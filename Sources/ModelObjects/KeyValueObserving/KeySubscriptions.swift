/// The subscriptions to one key of one object, in registration order, with a summary of what a
/// change of the key owes them.
///
/// The summary is worked out when a subscription is added or removed (rarely) rather than at
/// every change (often): a change reads the list and the summary out of the observation state's
/// lock and knows at once whether it can notify directly, whether it must read the old value,
/// and whether an observation must be kept from hearing the change twice.
struct KeySubscriptions {
    /// What the subscriptions of a key need from a change.
    struct Summary: OptionSet {
        var rawValue: UInt8
        /// Some observer asked for prior notifications, or the key leads to further objects:
        /// the change takes the general will/did path, which keeps records.
        static let needsRecords = Summary(rawValue: 1 << 0)
        /// Some observer of the key itself asks for the old value.
        static let directWantsOld = Summary(rawValue: 1 << 1)
        /// Some observer of a dependent key asks for the old value of its key path.
        static let indirectWantsOld = Summary(rawValue: 1 << 2)
        /// Some observation holds two subscriptions to the key (through two dependencies).
        static let repeatsObservation = Summary(rawValue: 1 << 3)
    }

    /// What a change reads: the subscriptions and their summary.
    struct Snapshot {
        let subscriptions: [Subscription]
        let summary: Summary
    }

    let key: String
    private(set) var subscriptions: [Subscription]
    private(set) var summary: Summary

    init(key: String, first subscription: Subscription) {
        self.key = key
        subscriptions = [subscription]
        summary = Self.summary(of: subscriptions)
    }

    var isEmpty: Bool { subscriptions.isEmpty }

    var snapshot: Snapshot { Snapshot(subscriptions: subscriptions, summary: summary) }

    /// Adds a subscription in registration order (an observation that re-attaches after an
    /// intermediate object changed keeps its place).
    mutating func insert(_ subscription: Subscription) {
        let sequence = subscription.observation.sequenceNumber
        var index = subscriptions.endIndex
        while index > 0, subscriptions[index - 1].observation.sequenceNumber > sequence {
            index -= 1
        }
        subscriptions.insert(subscription, at: index)
        summary = Self.summary(of: subscriptions)
    }

    /// Removes every subscription of `observation`.
    mutating func removeAll(of observation: Observation) {
        subscriptions.removeAll { $0.observation === observation }
        summary = Self.summary(of: subscriptions)
    }

    private static func summary(of subscriptions: [Subscription]) -> Summary {
        var summary: Summary = []
        var seen = Set<ObjectIdentifier>()
        for subscription in subscriptions {
            let options = subscription.observation.options
            if subscription.isStructural || options.contains(.prior) { summary.insert(.needsRecords) }
            if options.contains(.old) { summary.insert(subscription.isDirect ? .directWantsOld : .indirectWantsOld) }
            if !seen.insert(ObjectIdentifier(subscription.observation)).inserted { summary.insert(.repeatsObservation) }
        }
        return summary
    }
}
