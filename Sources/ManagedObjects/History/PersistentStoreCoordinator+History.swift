import Foundation

extension PersistentStoreCoordinator {
    /// The token of the last transaction `store` recorded (the coordinator's first store when
    /// nil): fetch history after it later to learn what changed since.
    ///
    /// - Throws: ``PersistenceError/Code/noPersistentStore`` when the coordinator has no store;
    ///   ``PersistenceError/Code/unsupportedRequest`` when the store does not track history;
    ///   ``PersistenceError`` when it cannot be read.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator currentPersistentHistoryTokenFromStores:]`;
    /// differences: one store, and a token (number 0) even before the first transaction.
    public func currentPersistentHistoryToken(fromStore store: (any PersistentStore)? = nil) throws -> PersistentHistoryToken {
        try historyStore(store ?? storeForNewObjects()).currentPersistentHistoryToken()
    }

    /// Fetches or deletes persistent history: on the store of the request's token, or the
    /// coordinator's first store for a request without one. Touches no context.
    ///
    /// - Throws: ``PersistenceError/Code/noPersistentStore`` when the coordinator has no such
    ///   store; what ``PersistentHistoryStore/execute(_:)`` throws.
    ///
    /// Corresponds to `-[NSPersistentStoreCoordinator executeRequest:withContext:error:]` with an
    /// `NSPersistentHistoryChangeRequest`.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let store: any PersistentStore
        if let token = request.token {
            guard let found = persistentStores.first(where: { $0.identifier == token.storeIdentifier }) else {
                throw PersistenceError(
                    .noPersistentStore, message: "the history token \(token) is of store \(token.storeIdentifier), which the coordinator does not have")
            }
            store = found
        } else {
            store = try storeForNewObjects()
        }
        return try historyStore(store).execute(request)
    }

    /// `store` as a store that tracks history.
    ///
    /// - Throws: ``PersistenceError/Code/unsupportedRequest``.
    private func historyStore(_ store: any PersistentStore) throws -> any PersistentHistoryStore {
        guard let historyStore = store as? any PersistentHistoryStore else {
            throw PersistenceError(
                .unsupportedRequest, message: "the \(store.type) store \(store.identifier) cannot record persistent history")
        }
        return historyStore
    }
}
