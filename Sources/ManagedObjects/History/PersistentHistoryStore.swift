import Foundation

/// A store that can record persistent history: every save and batch operation it applies, as a
/// ``PersistentHistoryTransaction``. Adopt it in your own store to make it answer history
/// requests; the SQLite store and the in-memory store do.
///
/// A store that adopts it records history only when ``tracksPersistentHistory`` is true: its
/// ``PersistentStore/apply(_:)`` then records the ``SaveChanges`` it writes as one transaction
/// (with ``SaveChanges/history``'s author, context name and updated properties, and a
/// tombstone for each deleted record), all or nothing with the write.
///
/// Corresponds to the part of Core Data's `NSPersistentStore` that `NSPersistentHistoryTrackingKey`
/// turns on.
public protocol PersistentHistoryStore: PersistentStore {
    /// Whether the store records history.
    var tracksPersistentHistory: Bool { get }

    /// The token of the last transaction the store recorded (its transaction number 0 when
    /// there was none): fetching history after it returns only what comes later.
    ///
    /// - Throws: ``PersistenceError/Code/unsupportedRequest`` when the store does not track
    ///   history; ``PersistenceError`` when it cannot be read.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator currentPersistentHistoryTokenFromStores:]`.
    func currentPersistentHistoryToken() throws -> PersistentHistoryToken

    /// Fetches or deletes history.
    ///
    /// - Throws: ``PersistenceError/Code/unsupportedRequest`` when the store does not track
    ///   history; ``PersistenceError/Code/historyTokenExpired`` when a fetch starts from a token
    ///   older than history deleted since; ``PersistenceError/Code/invalidHistoryToken`` for a
    ///   token of another store or a negative fetch limit; ``PersistenceError`` when the store
    ///   cannot be read or written (nothing is deleted then).
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator executeRequest:withContext:error:]` with an
    /// `NSPersistentHistoryChangeRequest`.
    func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult
}

extension PersistentHistoryStore {
    /// Throws unless the store tracks history and the request suits it (a token of this store,
    /// a fetch limit of 0 or more).
    func check(_ request: PersistentHistoryChangeRequest) throws {
        try checkTracksHistory()
        if let token = request.token, token.storeIdentifier != identifier {
            throw PersistenceError(
                .invalidHistoryToken,
                message: "the history token \(token) is of store \(token.storeIdentifier), not of store \(identifier)")
        }
        if let token = request.token, token.transactionNumber < 0 {
            throw PersistenceError(.invalidHistoryToken, message: "the history token \(token) has a negative transaction number")
        }
        if request.fetchLimit < 0 {
            throw PersistenceError(.invalidHistoryToken, message: "a history fetch limit cannot be negative (\(request.fetchLimit))")
        }
    }

    /// Throws ``PersistenceError/Code/unsupportedRequest`` unless the store tracks history.
    func checkTracksHistory() throws {
        guard tracksPersistentHistory else {
            throw PersistenceError(
                .unsupportedRequest,
                message: "the \(type) store \(identifier) does not track persistent history "
                    + "(add it with the persistentHistoryTracking option)")
        }
    }

    /// Throws ``PersistenceError/Code/historyTokenExpired`` when a fetch after `request`'s token
    /// would miss transactions deleted since: the store deleted history up to `deletedThrough`.
    func checkNotExpired(_ request: PersistentHistoryChangeRequest, deletedThrough: Int64) throws {
        guard case .fetchAfterToken(let token?) = request.operation, token.transactionNumber < deletedThrough else { return }
        throw PersistenceError(
            .historyTokenExpired,
            message: "the history after token \(token) was deleted up to transaction \(deletedThrough); "
                + "start again from the current state (refetch) and a new token")
    }
}

extension EntityDescription {
    /// The attributes whose values a deleted record leaves in its history tombstone.
    var tombstoneAttributes: [AttributeDescription] {
        attributes.filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }
    }

    /// The tombstone of a deleted record whose values were `values`; nil when the entity
    /// preserves no attribute.
    func tombstone(of values: [StoreValue]) -> [String: StoreValue]? {
        let preserved = tombstoneAttributes
        guard !preserved.isEmpty else { return nil }
        var tombstone: [String: StoreValue] = [:]
        for attribute in preserved {
            tombstone[attribute.name] = attribute.index < values.count ? values[attribute.index] : .null
        }
        return tombstone
    }
}
