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

    private struct Answers {
        var byKey: [Key: (entity: EntityDescription, value: Value)] = [:]
        /// The last answer asked for or made: a loop over many objects of one class and entity
        /// (inserting, validating, saving) finds it without hashing.
        var last: (key: Key, value: Value)?
    }

    private let answers = Mutex(Answers())

    /// The answer for `type` and `entity`, worked out with `compute` the first time (outside the
    /// lock: two threads may both compute it, and the answers are the same).
    func value(for type: ManagedObject.Type, entity: EntityDescription, compute: () -> Value) -> Value {
        let key = Key(type: ObjectIdentifier(type), entity: ObjectIdentifier(entity))
        let known = answers.withLock { answers -> Value? in
            if let last = answers.last, last.key == key { return last.value }
            guard let value = answers.byKey[key]?.value else { return nil }
            answers.last = (key, value)
            return value
        }
        if let known { return known }
        let value = compute()
        answers.withLock {
            $0.byKey[key] = (entity, value)
            $0.last = (key, value)
        }
        return value
    }
}
