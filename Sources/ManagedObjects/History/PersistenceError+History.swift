extension PersistenceError.Code {
    /// The store cannot run the request: a history request (or the
    /// ``PersistentStoreOptions/persistentHistoryTracking`` option) for a store that does not
    /// track persistent history (`NSPersistentStoreUnsupportedRequestTypeError`, 134091).
    public static let unsupportedRequest = PersistenceError.Code(rawValue: 134_091)
    /// A history fetch started from a token older than history deleted since: the transactions
    /// in between are gone (`NSPersistentHistoryTokenExpiredError`, 134301). Start again from
    /// the current state and ``PersistentStoreCoordinator/currentPersistentHistoryToken(fromStore:)``.
    public static let historyTokenExpired = PersistenceError.Code(rawValue: 134_301)
    /// A history request named a token of a store other than the one it runs on, a token with
    /// a negative number, or a negative fetch limit (this library's own code; Core Data raises).
    public static let invalidHistoryToken = PersistenceError.Code(rawValue: 134_310)
}
