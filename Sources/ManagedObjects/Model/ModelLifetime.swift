import Synchronization

/// Whether a managed object model exists: its descriptions point back at each other without
/// reference counting, and answer nil once their model is gone.
final class ModelLifetime: Sendable {
    private let alive = Atomic<Bool>(true)

    /// Whether the model still exists.
    var isAlive: Bool { alive.load(ordering: .acquiring) }

    /// Called when the model goes away.
    func end() { alive.store(false, ordering: .releasing) }
}
