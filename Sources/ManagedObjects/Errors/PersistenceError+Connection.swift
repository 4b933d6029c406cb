extension PersistenceError.Code {
    /// A store's database server could not be reached, refused the login (a wrong password, an
    /// unknown user), has no such database, or the connection broke during an operation (a
    /// server stopped or restarted). The message names the server (`postgresql://user@host:port/database`,
    /// never the password). Nothing was written; the store connects again for its next
    /// operation.
    ///
    /// Corresponds to Core Data's `NSPersistentStoreOpenError` (134080), which Core Data reports
    /// for a store it cannot open; Core Data has no store on a server.
    public static let connectionFailed = PersistenceError.Code(rawValue: 134_080)
}
