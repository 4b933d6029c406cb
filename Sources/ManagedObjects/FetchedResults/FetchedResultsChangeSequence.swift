import Foundation
import Synchronization

/// The change sets of a ``FetchedResultsController``, as an asynchronous sequence: one element
/// per ``ManagedObjectContext/processPendingChanges()`` (or merge, refresh, rollback) that
/// changed the results, from ``FetchedResultsController/changeSets()``.
///
/// ```swift
/// var rows = controller.sections?.map { $0.objects.map(\.objectID) } ?? []
/// for try await changes in controller.changeSets() {
///     apply(changes, to: &rows)     // each element follows the one before
/// }
/// ```
///
/// **Buffering:** every change set made after ``FetchedResultsController/changeSets()`` is
/// kept, in order, until it is read: none is dropped or merged, because each describes the
/// step from the results after the one before (apply them in order to a copy of the results
/// as they were when the sequence was made). The controller's own results may be ahead of the
/// element being read. A sequence nobody reads holds its change sets until it is dropped.
///
/// **End:** the sequence ends (`next()` returns nil) when the controller goes away, or when
/// the task iterating it is cancelled (then it ends for every iterator of the sequence). When
/// the controller cannot follow a change, `next()` throws its ``FetchedResultsError`` (code
/// ``FetchedResultsError/Code/trackingFailed``) once the change sets before it are read, then
/// the sequence ends. Iterators of one sequence share its elements: each goes to one of them.
///
/// Corresponds to nothing in Core Data, whose controller reports through its delegate only.
public struct FetchedResultsChangeSequence: AsyncSequence, Sendable {
    /// A change set.
    public typealias Element = FetchedResultsChangeSet

    let buffer: FetchedResultsChangeBuffer

    /// An iterator over the change sets.
    public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer) }

    /// Reads the change sets, waiting for the next one.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let buffer: FetchedResultsChangeBuffer

        /// The next change set; nil once the controller is gone or the task is cancelled.
        ///
        /// - Throws: The ``FetchedResultsError`` of a change the controller could not follow.
        public mutating func next() async throws -> FetchedResultsChangeSet? {
            try await buffer.next()
        }
    }
}

/// The change sets waiting to be read by one ``FetchedResultsChangeSequence``, and the tasks
/// waiting for one. The controller holds it weakly: a sequence nobody holds costs nothing.
// Sendable because its state sits behind a `Mutex`: the controller fills it from its isolation
// domain while iterators (in any task) and cancellation handlers (on any thread) drain it.
final class FetchedResultsChangeBuffer: Sendable {
    private struct State {
        var pending: [FetchedResultsChangeSet] = []
        var head = 0
        var waiters: [UnsafeContinuation<FetchedResultsChangeSet?, any Error>] = []
        var failure: FetchedResultsError?
        var isFinished = false
    }

    private let state = Mutex(State())

    /// Whether the sequence has ended (cancelled, finished or failed): the controller drops it.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Hands a change set to the first waiting task, or keeps it for the next read.
    func deliver(_ changes: FetchedResultsChangeSet) {
        let waiter = state.withLock { state -> UnsafeContinuation<FetchedResultsChangeSet?, any Error>? in
            guard !state.isFinished else { return nil }
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.pending.append(changes)
            return nil
        }
        waiter?.resume(returning: changes)
    }

    /// Ends the sequence after the change sets already kept: with `failure` thrown first when given.
    func finish(throwing failure: FetchedResultsError? = nil) {
        let waiters = state.withLock { state -> [UnsafeContinuation<FetchedResultsChangeSet?, any Error>] in
            guard !state.isFinished else { return [] }
            state.isFinished = true
            state.failure = failure
            defer { state.waiters = [] }
            return state.waiters
        }
        // Waiters exist only when nothing was pending: the first gets the failure, the rest the end.
        for (offset, waiter) in waiters.enumerated() {
            if offset == 0, let failure {
                state.withLock { $0.failure = nil }
                waiter.resume(throwing: failure)
            } else {
                waiter.resume(returning: nil)
            }
        }
    }

    private enum Read {
        case element(FetchedResultsChangeSet?)
        case failure(FetchedResultsError)
        case wait
    }

    func next() async throws -> FetchedResultsChangeSet? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<FetchedResultsChangeSet?, any Error>) in
                let read = state.withLock { state -> Read in
                    if state.head < state.pending.count {
                        let changes = state.pending[state.head]
                        state.head += 1
                        if state.head == state.pending.count {
                            state.pending.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .element(changes)
                    }
                    if let failure = state.failure {
                        state.failure = nil
                        return .failure(failure)
                    }
                    if state.isFinished { return .element(nil) }
                    state.waiters.append(continuation)
                    return .wait
                }
                switch read {
                case .element(let changes): continuation.resume(returning: changes)
                case .failure(let failure): continuation.resume(throwing: failure)
                case .wait: break
                }
            }
        } onCancel: {
            // Cancellation ends the sequence: pending change sets and a failure are dropped.
            let waiters = state.withLock { state -> [UnsafeContinuation<FetchedResultsChangeSet?, any Error>] in
                state.isFinished = true
                state.pending = []
                state.head = 0
                state.failure = nil
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: nil) }
        }
    }
}
