import Synchronization

/// The notification streams a context has handed out that are still open: its deinit (it goes
/// with its context) finishes them, so a consumer's loop ends when the context goes away.
///
/// A stream leaves the list when it ends for another reason (its consumer was cancelled), so
/// the list holds only open streams.
final class ContextNotificationStreams: Sendable {
    /// Each open stream's `finish`, by a number of its own.
    private let finishers = Mutex<(next: Int, byNumber: [Int: @Sendable () -> Void])>((0, [:]))

    /// Keeps `finish` until the stream it ends is removed; returns the number to remove it by.
    func add(_ finish: @escaping @Sendable () -> Void) -> Int {
        finishers.withLock { state in
            state.next += 1
            state.byNumber[state.next] = finish
            return state.next
        }
    }

    /// How many streams are open.
    var count: Int { finishers.withLock { $0.byNumber.count } }

    /// Forgets the stream numbered `number`: it has ended.
    func remove(_ number: Int) {
        _ = finishers.withLock { $0.byNumber.removeValue(forKey: number) }
    }

    deinit {
        // Finishing runs each stream's termination handler, which calls `remove`: take the
        // list out first, so that no handler runs under the lock.
        let open = finishers.withLock { state in
            defer { state.byNumber.removeAll() }
            return Array(state.byNumber.values)
        }
        for finish in open { finish() }
    }
}
