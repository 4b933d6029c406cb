import Synchronization

/// Answers worked out once per managed-object class and entity, shared by every thread.
///
/// Each answer is kept with its entity: holding the entity keeps its identifier from being
/// reused by another entity while the answer is cached.
final class ClassEntityCache<Value: Sendable>: Sendable {
    private struct Key: Hashable {
        var type: ObjectIdentifier
        var entity: ObjectIdentifier
    }

    private let answers = Mutex<[Key: (entity: EntityDescription, value: Value)]>([:])

    /// The answer for `type` and `entity`, worked out with `compute` the first time (outside the
    /// lock: two threads may both compute it, and the answers are the same).
    func value(for type: ManagedObject.Type, entity: EntityDescription, compute: () -> Value) -> Value {
        let key = Key(type: ObjectIdentifier(type), entity: ObjectIdentifier(entity))
        if let known = answers.withLock({ $0[key]?.value }) { return known }
        let value = compute()
        answers.withLock { $0[key] = (entity, value) }
        return value
    }
}
