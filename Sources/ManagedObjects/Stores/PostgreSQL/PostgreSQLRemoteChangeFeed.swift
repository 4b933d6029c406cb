import Foundation

/// What a store's listener thread hands to the contexts that merge remote changes
/// automatically.
enum RemoteChangeEvent: Sendable {
    /// Another coordinator saved these changes.
    case changes(RemoteChanges)
    /// The listener's connection broke and is back: saves committed in between were not heard,
    /// so every registered object has to be checked against the store.
    case resynchronize
}

/// Where a context's remote changes wait until the context merges them in its own isolation
/// domain, and the signal that wakes a task awaiting them.
///
/// Shared by the listener threads of every PostgreSQL store of the context's coordinator; the
/// threads hold it weakly, so a context that goes away stops receiving.
// SAFETY: `events` and `continuation` are read and written only inside `lock.withLock`; `feeds`
// is immutable after `init`.
final class RemoteChangeMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [RemoteChangeEvent] = []
    private var continuation: AsyncStream<Void>.Continuation?
    /// Kept so that the listener threads run as long as the mailbox does.
    private let feeds: [PostgreSQLRemoteChangeFeed]

    init(stores: [PostgreSQLStore]) {
        feeds = stores.map(\.remoteChangeFeed)
        for store in stores { store.remoteChangeFeed.subscribe(self, listening: store) }
    }

    deinit {
        continuation?.finish()
    }

    /// Adds an event and wakes the awaiting task, if any.
    func deliver(_ event: RemoteChangeEvent) {
        let continuation = lock.withLock {
            events.append(event)
            return self.continuation
        }
        continuation?.yield()
    }

    /// The events that arrived since the last call, oldest first.
    func takeEvents() -> [RemoteChangeEvent] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }

    /// Ends the sequence of ``arrivals()``.
    func close() {
        lock.withLock { continuation }?.finish()
    }

    /// A signal for each delivery (coalesced while nobody waits), for one awaiting task: a new
    /// call ends the previous sequence.
    func arrivals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let previous = lock.withLock {
            defer { self.continuation = continuation }
            return self.continuation
        }
        previous?.finish()
        // Events that came before the wait began are merged at once.
        if lock.withLock({ !events.isEmpty }) { continuation.yield() }
        return stream
    }
}

/// One store's listener thread: it waits for the notifications of other coordinators' saves on
/// a ``PostgreSQLChangeListener`` and delivers them to every subscribed mailbox. It runs while
/// a mailbox is subscribed; when its connection breaks it connects again (waiting longer after
/// each failure, up to two seconds) and then asks the mailboxes to resynchronize.
// SAFETY: `mailboxes` and `isRunning` are read and written only inside `lock.withLock`.
final class PostgreSQLRemoteChangeFeed: @unchecked Sendable {
    /// How long one wait for notifications lasts, so that the thread notices its last
    /// mailbox went away.
    static let pollInterval: TimeInterval = 0.25

    private struct WeakMailbox {
        weak var mailbox: RemoteChangeMailbox?
    }

    private let lock = NSLock()
    private var mailboxes: [WeakMailbox] = []
    private var isRunning = false

    /// Adds `mailbox`, starting the thread when it is not running. The first listener connects
    /// here, before returning, so that every save committed after it is heard; when it cannot
    /// connect, the thread keeps trying and resynchronizes once it can.
    func subscribe(_ mailbox: RemoteChangeMailbox, listening store: PostgreSQLStore) {
        let start = lock.withLock {
            mailboxes.append(WeakMailbox(mailbox: mailbox))
            defer { isRunning = true }
            return !isRunning
        }
        guard start else { return }
        let listener = try? store.makeChangeListener()
        let makeListener: @Sendable () throws -> PostgreSQLChangeListener = { [weak store] in
            guard let store else { throw CancellationError() }
            return try store.makeChangeListener()
        }
        let thread = Thread { [self] in run(listener, makeListener: makeListener) }
        thread.name = "ModelObjects PostgreSQL listener"
        thread.start()
    }

    /// The mailboxes still alive; with `stoppingWhenNone`, when none is, marks the thread
    /// stopped (in the same critical section, so that a concurrent `subscribe` starts a new
    /// one, and the thread then returns).
    private func liveMailboxes(stoppingWhenNone: Bool = false) -> [RemoteChangeMailbox] {
        lock.withLock {
            let live = mailboxes.compactMap(\.mailbox)
            mailboxes = live.map { WeakMailbox(mailbox: $0) }
            if live.isEmpty && stoppingWhenNone { isRunning = false }
            return live
        }
    }

    private func run(_ first: PostgreSQLChangeListener?, makeListener: @Sendable () throws -> PostgreSQLChangeListener) {
        var listener = first
        var missedSaves = first == nil
        var retryDelay = 0.05
        while true {
            let live = liveMailboxes(stoppingWhenNone: true)
            if live.isEmpty { return }
            do {
                let current = try listener ?? makeListener()
                listener = current
                if missedSaves {
                    missedSaves = false
                    retryDelay = 0.05
                    for mailbox in live { mailbox.deliver(.resynchronize) }
                }
                guard let notification = try current.nextChanges(waitingUpTo: Self.pollInterval) else { continue }
                let changes = RemoteChanges(notification)
                for mailbox in liveMailboxes() { mailbox.deliver(.changes(changes)) }
            } catch is CancellationError {
                // The store is gone: nothing is left to listen to.
                lock.withLock { isRunning = false }
                return
            } catch {
                listener = nil
                missedSaves = true
                Thread.sleep(forTimeInterval: retryDelay)
                retryDelay = min(retryDelay * 2, 2)
            }
        }
    }
}

extension RemoteChanges {
    /// The ID sets of a ``PostgreSQLChangeListener`` notification.
    init(_ notification: Notification) {
        func ids(_ key: String) -> [ManagedObjectID] {
            Array(notification.userInfo?[key] as? Set<ManagedObjectID> ?? [])
        }
        self.init(
            inserted: ids(ManagedObjectContext.insertedObjectIDsKey), updated: ids(ManagedObjectContext.updatedObjectIDsKey),
            deleted: ids(ManagedObjectContext.deletedObjectIDsKey))
    }
}
