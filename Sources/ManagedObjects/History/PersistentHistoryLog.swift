import Foundation
import Synchronization

/// Persistent history kept in memory, for the in-memory store: the transactions recorded by
/// `record(_:storeIdentifier:stored:)` and the requests that read or delete them.
///
/// Corresponds to Core Data's history tables, kept in memory.
final class PersistentHistoryLog: Sendable {
    private struct State {
        var transactions: [PersistentHistoryTransaction] = []
        var lastTransaction: Int64 = 0
        var lastChange: Int64 = 0
        /// History was deleted up to this transaction number: tokens older than it expired.
        var deletedThrough: Int64 = 0
    }

    private let state = Mutex(State())

    /// Records a save as one transaction; `stored` gives a deleted record's values (for its
    /// tombstone) as they were before the save. Records nothing for an empty save.
    func record(_ changes: SaveChanges, storeIdentifier: String, stored: (ManagedObjectID) -> StoreRecord?) {
        guard !changes.isEmpty else { return }
        state.withLock { state in
            state.lastTransaction += 1
            let number = state.lastTransaction
            var recorded: [PersistentHistoryChange] = []
            func append(_ id: ManagedObjectID, _ type: PersistentHistoryChangeType, updated: Set<String>? = nil, tombstone: [String: StoreValue]? = nil) {
                state.lastChange += 1
                recorded.append(PersistentHistoryChange(
                    changeID: state.lastChange, changedObjectID: id, changeType: type, updatedProperties: updated,
                    tombstone: tombstone, transactionNumber: number))
            }
            for id in changes.deleted { append(id, .delete, tombstone: id.entity.tombstone(of: stored(id)?.values ?? [])) }
            for record in changes.inserted { append(record.objectID, .insert) }
            for record in changes.updated { append(record.objectID, .update, updated: changes.history.updatedProperties(of: record)) }
            state.transactions.append(PersistentHistoryTransaction(
                transactionNumber: number, storeIdentifier: storeIdentifier, timestamp: Date(), author: changes.history.author,
                contextName: changes.history.contextName, changes: recorded))
        }
    }

    /// The token of the last transaction recorded.
    func currentToken(storeIdentifier: String) -> PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: state.withLock { $0.lastTransaction })
    }

    /// Runs a request that `PersistentHistoryStore/check(_:)` accepted.
    func execute(_ request: PersistentHistoryChangeRequest, store: some PersistentHistoryStore) throws -> PersistentHistoryResult {
        try state.withLock { state in
            switch request.operation {
            case .fetchAfterToken(let token):
                try store.checkNotExpired(request, deletedThrough: state.deletedThrough)
                let after = token?.transactionNumber ?? 0
                return PersistentHistoryResult(transactions: limited(state.transactions.filter { $0.transactionNumber > after }, request))
            case .fetchAfterDate(let date):
                return PersistentHistoryResult(transactions: limited(state.transactions.filter { $0.timestamp > date }, request))
            case .deleteBeforeToken(let token):
                let before = token?.transactionNumber ?? Int64.max
                return PersistentHistoryResult(deletedTransactionCount: delete(&state) { $0.transactionNumber < before })
            case .deleteBeforeDate(let date):
                return PersistentHistoryResult(deletedTransactionCount: delete(&state) { $0.timestamp < date })
            }
        }
    }

    private func limited(_ transactions: [PersistentHistoryTransaction], _ request: PersistentHistoryChangeRequest) -> [PersistentHistoryTransaction] {
        request.fetchLimit > 0 ? Array(transactions.prefix(request.fetchLimit)) : transactions
    }

    private func delete(_ state: inout State, where isDeleted: (PersistentHistoryTransaction) -> Bool) -> Int {
        let gone = state.transactions.filter(isDeleted)
        guard let last = gone.map(\.transactionNumber).max() else { return 0 }
        state.transactions.removeAll(where: isDeleted)
        state.deletedThrough = max(state.deletedThrough, last)
        return gone.count
    }
}

extension InMemoryStore: PersistentHistoryStore {
    /// Whether the store was made to record persistent history.
    public var tracksPersistentHistory: Bool { historyLog != nil }

    /// The token of the last transaction recorded.
    ///
    /// - Throws: ``PersistenceError/Code/unsupportedRequest`` when the store does not track history.
    public func currentPersistentHistoryToken() throws -> PersistentHistoryToken {
        try checkTracksHistory()
        return historyLog?.currentToken(storeIdentifier: identifier) ?? PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: 0)
    }

    /// Fetches or deletes the history kept in memory.
    ///
    /// - Throws: See ``PersistentHistoryStore/execute(_:)``.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try check(request)
        guard let historyLog else { return PersistentHistoryResult() }
        return try historyLog.execute(request, store: self)
    }
}
