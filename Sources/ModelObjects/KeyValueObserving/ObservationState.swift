import Foundation

/// The observers of one object and the changes in flight on it. An object has one only while
/// something observes it (or while a key-path probe runs).
@usableFromInline
package final class ObservationState {
    /// Set when this state is a probe that maps a typed key path to its key.
    private(set) var isProbe = false
    /// The key the probe saw being written or read.
    private(set) var probedKey: String?

    init() {}

    static func probe() -> ObservationState {
        let state = ObservationState()
        state.isProbe = true
        return state
    }

    /// Records a key seen by a probe; returns true when this state is a probe, in which case the
    /// caller must not write.
    func recordProbe(_ key: String) -> Bool {
        guard isProbe else { return false }
        if probedKey == nil { probedKey = key }
        return true
    }

    func willChange(_ object: ModelObject, key: String, change: KeyValueChange.Kind) {}
    func didChange(_ object: ModelObject, key: String) {}
    func objectWillDeinitialize() {}
}
