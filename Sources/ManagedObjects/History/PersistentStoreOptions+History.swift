extension PersistentStoreOptions {
    /// Record every save and batch operation as a transaction of persistent history (see
    /// ``PersistentHistoryTransaction``), for the SQLite and in-memory stores. A binary or
    /// PostgreSQL store added with it throws ``PersistenceError/Code/unsupportedRequest``.
    ///
    /// A SQLite file once opened with it keeps recording history when opened without it (its
    /// history tables say so), so that no reader's token silently misses a save. A store
    /// decides when it opens: open every coordinator (and process) of a file with the option, or
    /// open the file with it once first, since a store opened before the history tables existed
    /// does not record its saves.
    ///
    /// Corresponds to `NSPersistentHistoryTrackingKey` set to true; differences: a SQLite file
    /// opened without it keeps tracking (Core Data opens it read-only).
    public static let persistentHistoryTracking = PersistentStoreOptions(rawValue: 1 << 1)
}
