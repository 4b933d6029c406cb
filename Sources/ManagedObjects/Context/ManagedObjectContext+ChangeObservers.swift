import Foundation

/// The objects one objects-did-change notification announces, as its user info holds them.
struct ContextChangeSet {
    var inserted: Set<ManagedObject>
    var updated: Set<ManagedObject>
    var deleted: Set<ManagedObject>
    var refreshed: Set<ManagedObject>
}

/// An object the context tells of each change set it announces, synchronously and before the
/// notification is posted, so that observers of the notification find it up to date.
///
/// A direct call rather than a notification observer: `NotificationCenter` takes `@Sendable`
/// blocks, which cannot hold the context's non-`Sendable` objects; this keeps the observer in
/// the context's isolation domain, checked by the compiler.
protocol ContextChangeObserver: AnyObject {
    func contextDidAnnounce(_ changes: ContextChangeSet)
}

/// An observer held without retaining it: a controller lives as long as its owner keeps it.
struct WeakContextChangeObserver {
    weak var observer: (any ContextChangeObserver)?
}

extension ManagedObjectContext {
    /// Adds `observer` once; observers that went away are dropped on the way.
    func addChangeObserver(_ observer: any ContextChangeObserver) {
        changeObservers.removeAll { $0.observer == nil }
        guard !changeObservers.contains(where: { $0.observer === observer }) else { return }
        changeObservers.append(WeakContextChangeObserver(observer: observer))
    }

    func removeChangeObserver(_ observer: any ContextChangeObserver) {
        changeObservers.removeAll { $0.observer == nil || $0.observer === observer }
    }

    /// Tells every observer of a change set, in the order they were added.
    func notifyChangeObservers(_ changes: ContextChangeSet) {
        for entry in changeObservers { entry.observer?.contextDidAnnounce(changes) }
    }
}
