import Foundation

/// A request to fetch or delete a store's persistent history, run with
/// ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)`` or
/// ``PersistentStoreCoordinator/execute(_:)``.
///
/// ```swift
/// let result = try context.execute(.fetchHistory(after: lastToken))
/// for transaction in result.transactions { context.mergeChanges(from: transaction) }
/// lastToken = result.transactions.last?.token ?? lastToken
/// try context.execute(.deleteHistory(before: Date(timeIntervalSinceNow: -7 * 86_400)))
/// ```
///
/// A request with a token runs on the token's store; one without, on the coordinator's first
/// store (the one new objects are saved to).
///
/// Corresponds to Core Data's `NSPersistentHistoryChangeRequest`; differences: no
/// `fetchRequest` over the history entities and no `resultType` (a fetch returns transactions
/// with their changes, a delete the number of transactions deleted); ``fetchLimit`` counts
/// transactions.
public struct PersistentHistoryChangeRequest: Hashable, Sendable {
    /// What the request does.
    public enum Operation: Hashable, Sendable {
        /// Fetch the transactions after the token's (all of them for nil).
        case fetchAfterToken(PersistentHistoryToken?)
        /// Fetch the transactions recorded after the date.
        case fetchAfterDate(Date)
        /// Delete the transactions before the token's, which is kept (all of them for nil).
        case deleteBeforeToken(PersistentHistoryToken?)
        /// Delete the transactions recorded before the date.
        case deleteBeforeDate(Date)
    }

    /// What the request does.
    public var operation: Operation
    /// The most transactions a fetch returns, the oldest first; 0 (the default) for no limit.
    /// Fetch again after the last one's token for the next ones. Ignored by deletes.
    public var fetchLimit: Int = 0

    /// Creates a request.
    public init(operation: Operation, fetchLimit: Int = 0) {
        self.operation = operation
        self.fetchLimit = fetchLimit
    }

    /// The transactions after the one `token` marks, oldest first; every transaction the store
    /// still has for nil.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.fetchHistory(after:)` with a token.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .fetchAfterToken(token))
    }

    /// The transactions after `transaction`, oldest first; every transaction the store still has
    /// for nil.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.fetchHistory(after:)` with a transaction.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        fetchHistory(after: transaction?.token)
    }

    /// The transactions recorded after `date` (timestamps later than it), oldest first.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.fetchHistory(after:)` with a date.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .fetchAfterDate(date))
    }

    /// Deletes the transactions before the one `token` marks (that one is kept); every
    /// transaction for nil. A token older than what is deleted then expires: fetching after it
    /// throws ``PersistenceError/Code/historyTokenExpired``.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.deleteHistory(before:)` with a token.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .deleteBeforeToken(token))
    }

    /// Deletes the transactions before `transaction` (which is kept); every transaction for nil.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.deleteHistory(before:)` with a transaction.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        deleteHistory(before: transaction?.token)
    }

    /// Deletes the transactions recorded before `date` (timestamps earlier than it).
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.deleteHistory(before:)` with a date.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .deleteBeforeDate(date))
    }

    /// The token the request starts from or ends at, if it has one.
    ///
    /// Corresponds to `NSPersistentHistoryChangeRequest.token`.
    public var token: PersistentHistoryToken? {
        switch operation {
        case .fetchAfterToken(let token), .deleteBeforeToken(let token): token
        case .fetchAfterDate, .deleteBeforeDate: nil
        }
    }

    /// Whether the request deletes history (rather than fetching it).
    public var isDelete: Bool {
        switch operation {
        case .deleteBeforeToken, .deleteBeforeDate: true
        case .fetchAfterToken, .fetchAfterDate: false
        }
    }
}

/// What a ``PersistentHistoryChangeRequest`` gave.
///
/// Corresponds to Core Data's `NSPersistentHistoryResult`; differences: typed fields instead of
/// `result: Any?`.
public struct PersistentHistoryResult: Hashable, Sendable {
    /// The transactions fetched, oldest first, each with its changes; empty for a delete.
    public var transactions: [PersistentHistoryTransaction]
    /// The number of transactions deleted; 0 for a fetch.
    public var deletedTransactionCount: Int

    /// Creates a result; stores make them.
    public init(transactions: [PersistentHistoryTransaction] = [], deletedTransactionCount: Int = 0) {
        self.transactions = transactions
        self.deletedTransactionCount = deletedTransactionCount
    }
}
