import Foundation

/// A change announced through ``ModelObject/willChangeValue(forKey:)`` or one of its to-many
/// forms, as a change tracker receives it.
package enum TrackedChange {
    /// The whole value is replaced.
    case setting
    /// Objects at indexes of an ordered to-many key are inserted, removed or replaced.
    case ordered(KeyValueChange.Kind, IndexSet)
    /// An unordered to-many key is mutated with `objects`.
    case setMutation(KeyValueSetMutation, Set<AnyHashable>)
}

/// Adopted by classes of the managed-object layer, which must hear every will/did-change of their
/// instances, observed or not, to record changes, keep inverse relationships and register undo.
///
/// The key table notes once per class whether the class adopts it, so other classes pay one
/// load and branch per notification.
package protocol ChangeTrackingObject: ModelObject {
    /// Called before observers hear a `willChange` for `key`.
    func trackWillChange(forKey key: String, change: TrackedChange)
    /// Called before observers hear the matching `didChange` for `key`.
    func trackDidChange(forKey key: String)
}

extension ModelObject {
    @inline(__always)
    final func notifyTrackerWillChange(forKey key: String, change: @autoclosure () -> TrackedChange) {
        guard withPropertyTable(\.tracksChanges), let tracker = self as? any ChangeTrackingObject else { return }
        tracker.trackWillChange(forKey: key, change: change())
    }

    @inline(__always)
    final func notifyTrackerDidChange(forKey key: String) {
        guard withPropertyTable(\.tracksChanges), let tracker = self as? any ChangeTrackingObject else { return }
        tracker.trackDidChange(forKey: key)
    }
}

extension ModelObject {
    /// Whether `type` declares `key` with a property wrapper (its own accessor).
    package static func declaresKey(_ key: String, in type: ModelObject.Type) -> Bool {
        PropertyTable.table(for: type).descriptor(forKey: key) != nil
    }
}
