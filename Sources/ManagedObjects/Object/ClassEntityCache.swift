import Synchronization

/// Answers worked out once per managed-object class and entity, shared by every thread.
typealias ClassEntityCache<Value: Sendable> = ClassKeyedCache<EntityDescription, Value>

/// A model description that keeps the answers caches worked out for it (an entity, a
/// relationship), so that they go away with it.
protocol ClassCacheHolding: AnyObject, Sendable {
    /// The answers cached for this description.
    var classCaches: DescriptionClassCaches { get }
}

/// Answers worked out once per managed-object class and model description (an entity, a
/// relationship), shared by every thread.
///
/// The answers live on the description (`DescriptionClassCaches`), not in the cache: a model
/// that is dropped frees its descriptions and their answers, however many objects were made
/// from it. A cache is one of a few process-wide constants; it names its answers.
final class ClassKeyedCache<Description: ClassCacheHolding, Value: Sendable>: Sendable {
    /// The answer for `type` and `description`, worked out with `compute` the first time
    /// (outside any lock: two threads may both compute it, and the answers are the same).
    @inline(__always)
    func value(for type: ManagedObject.Type, _ description: Description, compute: () -> Value) -> Value {
        description.classCaches.value(
            for: DescriptionClassCaches.Key(cache: ObjectIdentifier(self), type: ObjectIdentifier(type)),
            as: Value.self, compute: compute)
    }
}

extension ClassKeyedCache where Description == EntityDescription {
    /// The answer for `type` and `entity`, worked out with `compute` the first time.
    @inline(__always)
    func value(for type: ManagedObject.Type, entity: EntityDescription, compute: () -> Value) -> Value {
        value(for: type, entity, compute: compute)
    }
}

/// The answers the caches hold for one description, by cache and class.
///
/// Read without a lock: readers load the current table (an immutable list, a handful of
/// entries: a few caches, usually one class per entity) and compare keys. A writer publishes a
/// new table with the answer added, under `tables`' lock; every table published stays in
/// `tables` until the description goes away, so a table a reader loaded is never freed under it.
final class DescriptionClassCaches: Sendable {
    /// Which cache and which class an answer is for. Both identify objects that are never freed
    /// (caches are static constants, classes are never unloaded), so neither is reused.
    struct Key: Equatable, Sendable {
        var cache: ObjectIdentifier
        var type: ObjectIdentifier
    }

    /// One answer: the cache of its key makes answers of exactly one `Value` type.
    private final class Answer<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// An immutable list of answers, with their keys at the same positions.
    private final class Table: Sendable {
        let keys: [Key]
        let answers: [any AnyObject & Sendable]

        init(keys: [Key], answers: [any AnyObject & Sendable]) {
            self.keys = keys
            self.answers = answers
        }
    }

    /// The latest table. SAFETY: a table of `tables`, which keeps it as long as `self`.
    private let current = Atomic<Unmanaged<Table>?>(nil)
    /// Every table published, the latest last.
    private let tables = Mutex<[Table]>([])

    /// The answer for `key`, worked out with `compute` the first time.
    ///
    /// The table and the answer are borrowed, not retained: a lookup runs several times per
    /// object made or saved, and each reference counted would be an atomic increment and
    /// decrement. Only the value handed back is a reference of the caller's.
    @inline(__always)
    func value<Value: Sendable>(for key: Key, as _: Value.Type, compute: () -> Value) -> Value {
        // SAFETY: `tables` keeps the table as long as `self`, and the table its answers.
        let found = current.load(ordering: .acquiring)?._withUnsafeGuaranteedRef { table -> Value? in
            guard let index = table.keys.firstIndex(of: key) else { return nil }
            return table.answers.withUnsafeBufferPointer { answers -> Value in
                // SAFETY: the key's cache stores answers of its own `Value` type only. An
                // `AnyObject & Sendable` existential is the object's reference alone (`Sendable`
                // has no witness table), so its bits are read as an unretained reference.
                guard MemoryLayout<any AnyObject & Sendable>.size == MemoryLayout<Unmanaged<Answer<Value>>>.size,
                      let base = answers.baseAddress
                else { return unsafeDowncast(answers[index], to: Answer<Value>.self).value }
                let answer = UnsafeRawPointer(base + index).load(as: Unmanaged<Answer<Value>>.self)
                return answer._withUnsafeGuaranteedRef { $0.value }
            }
        }
        if let found { return found }
        return add(compute(), for: key)
    }

    /// Publishes `value` as the answer for `key`, or returns the answer another thread
    /// published first.
    @inline(never)
    private func add<Value: Sendable>(_ value: Value, for key: Key) -> Value {
        tables.withLock { tables in
            let latest = tables.last
            if let latest, let index = latest.keys.firstIndex(of: key) {
                return unsafeDowncast(latest.answers[index], to: Answer<Value>.self).value
            }
            let table = Table(
                keys: (latest?.keys ?? []) + [key], answers: (latest?.answers ?? []) + [Answer(value)])
            tables.append(table)
            current.store(Unmanaged.passUnretained(table), ordering: .releasing)
            return value
        }
    }
}

extension EntityDescription: ClassCacheHolding {}
extension RelationshipDescription: ClassCacheHolding {}
