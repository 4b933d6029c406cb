extension ModelObject {
    /// The changes of the value at `keyPath` (a string key path, relative to this object), as an
    /// asynchronous sequence of typed changes.
    ///
    /// ```swift
    /// for await change in try employee.changes(forKeyPath: "department.name", as: String.self) {
    ///     print(change.newValue ?? "none")
    /// }
    /// ```
    /// It is a key-value observation (``observe(_:options:changeHandler:)``) whose changes are
    /// buffered for the consuming task: the options are the same, and each change carries the
    /// old and new values asked for, as `Value` (a value of another type, or nil, reads as nil).
    /// `Value` must be `Sendable`, since the changes are handed to a task: observe model objects
    /// themselves with ``observe(_:options:changeHandler:)``.
    ///
    /// Buffering: changes made while the consumer is busy wait in a buffer that keeps the
    /// newest 100 by default (older ones are dropped); pass `bufferingPolicy` to keep the oldest
    /// instead, another count, or every change (`.unbounded`).
    ///
    /// The sequence ends when this object goes away (after the changes already buffered) and,
    /// for its consumer, when the consuming task is cancelled. It does not keep the object
    /// alive. Once the consumer has stopped, the observation itself is removed at the next
    /// change it hears, or when the object goes away.
    ///
    /// - Throws: ``KeyValueCodingError/Code/keyPathTooComplex`` when `keyPath`, or a key path a
    ///   key on it depends on, holds more than ``maximumObservedKeyPathLength`` keys.
    ///
    /// Corresponds to Foundation's `NSObject.KeyValueObservingPublisher` (Combine's
    /// `publisher(for:options:)`) and its `values` sequence.
    public func changes<Value: Sendable>(
        forKeyPath keyPath: String, as type: Value.Type = Value.self, options: KeyValueObservingOptions = [.new],
        bufferingPolicy: AsyncStream<ObservedChange<Value>>.Continuation.BufferingPolicy = .bufferingNewest(100)
    ) throws -> AsyncStream<ObservedChange<Value>> {
        let (stream, continuation) = AsyncStream<ObservedChange<Value>>.makeStream(bufferingPolicy: bufferingPolicy)
        let link = ObservationLink()
        let observation = Observation(
            root: self, keyPath: keyPath, options: options, context: nil, observer: nil,
            handler: { _, change in
                // A consumer that stopped ends the stream; the observation goes with it, here,
                // on the thread that changes the object (an observation is not removed from
                // another thread while changes may be delivered).
                if case .terminated = continuation.yield(ObservedChange<Value>(change)) {
                    link.observation?.invalidate()
                }
            })
        link.observation = observation
        observation.invalidationHandler = { continuation.finish() }
        do {
            try register(observation)
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }
}

extension KeyValueCodingKeyPaths {
    /// The changes of the property named by a typed key path, as an asynchronous sequence of
    /// typed changes: ``ModelObject/changes(forKeyPath:as:options:bufferingPolicy:)`` for the
    /// property's key.
    ///
    /// ```swift
    /// for await change in try employee.changes(for: \.salary, options: [.old, .new]) {
    ///     print(change.oldValue ?? 0, "→", change.newValue ?? 0)
    /// }
    /// ```
    ///
    /// - Throws: ``KeyValueCodingError/Code/unmappableKeyPath`` for a key path that does not
    ///   name a declared property.
    ///
    /// Corresponds to Foundation's `publisher(for:options:)` on a key path, and its `values`.
    public func changes<Value: Sendable>(
        for keyPath: KeyPath<Self, Value>, options: KeyValueObservingOptions = [.new],
        bufferingPolicy: AsyncStream<ObservedChange<Value>>.Continuation.BufferingPolicy = .bufferingNewest(100)
    ) throws -> AsyncStream<ObservedChange<Value>> {
        try changes(forKeyPath: key(for: keyPath), as: Value.self, options: options, bufferingPolicy: bufferingPolicy)
    }
}

/// Lets an observation's handler reach the observation it belongs to, without a cycle.
private final class ObservationLink {
    weak var observation: Observation?
}
