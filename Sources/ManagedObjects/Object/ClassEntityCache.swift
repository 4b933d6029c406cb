import Synchronization

/// Answers worked out once per managed-object class and entity, shared by every thread.
typealias ClassEntityCache<Value: Sendable> = ClassKeyedCache<EntityDescription, Value>

/// Answers worked out once per managed-object class and model description (an entity, a
/// relationship), shared by every thread.
///
/// Each answer is kept with its description: holding it keeps its identifier from being reused
/// by another description while the answer is cached.
final class ClassKeyedCache<Description: AnyObject & Sendable, Value: Sendable>: Sendable {
    private struct Key: Hashable, Sendable {
        var type: ObjectIdentifier
        var description: ObjectIdentifier
    }

    /// One answer, with its key and description. Never freed while the cache lives: `answers`
    /// keeps every one, so `last` may point at one without retaining it.
    private final class Answer: Sendable {
        let key: Key
        let description: Description
        let value: Value

        init(key: Key, description: Description, value: Value) {
            self.key = key
            self.description = description
            self.value = value
        }
    }

    private let answers = Mutex<[Key: Answer]>([:])

    /// The last answer asked for or made, read without the lock: a loop over many objects of
    /// one class and entity (a fetch making them, inserting, validating, saving) finds it
    /// with one atomic load, no hashing and no lock.
    private let last = Atomic<Unmanaged<Answer>?>(nil)

    /// The answer for `type` and `description`, worked out with `compute` the first time
    /// (outside the lock: two threads may both compute it, and the answers are the same).
    func value(for type: ManagedObject.Type, _ description: Description, compute: () -> Value) -> Value {
        let key = Key(type: ObjectIdentifier(type), description: ObjectIdentifier(description))
        // SAFETY: every answer stays in `answers` as long as the cache, so the unretained one is valid.
        if let last = last.load(ordering: .acquiring)?.takeUnretainedValue(), last.key == key { return last.value }
        if let known = answers.withLock({ $0[key] }) {
            last.store(Unmanaged.passUnretained(known), ordering: .releasing)
            return known.value
        }
        let value = compute()
        let answer = answers.withLock { answers in
            if let existing = answers[key] { return existing }
            let answer = Answer(key: key, description: description, value: value)
            answers[key] = answer
            return answer
        }
        last.store(Unmanaged.passUnretained(answer), ordering: .releasing)
        return answer.value
    }
}

extension ClassKeyedCache where Description == EntityDescription {
    /// The answer for `type` and `entity`, worked out with `compute` the first time.
    func value(for type: ManagedObject.Type, entity: EntityDescription, compute: () -> Value) -> Value {
        value(for: type, entity, compute: compute)
    }
}
