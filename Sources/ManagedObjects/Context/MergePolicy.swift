/// How a save resolves records that someone else saved since this context read them.
///
/// A context remembers the version of each record it read; when a save finds another version
/// in the store, the records conflict and the policy decides.
///
/// Corresponds to Core Data's `NSMergePolicy` and its predefined policies.
public struct MergePolicy: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case error, storeTrump, objectTrump, overwrite, rollback
    }

    let kind: Kind

    /// The save fails with ``PersistenceError/Code/mergeConflict``, listing the conflicts;
    /// nothing is written. The default.
    ///
    /// Corresponds to `NSErrorMergePolicy`.
    public static let error = MergePolicy(kind: .error)
    /// Property by property, values the other save changed win over this context's changes;
    /// this context's other changes are saved.
    ///
    /// Corresponds to `NSMergeByPropertyStoreTrumpMergePolicy`.
    public static let storeTrump = MergePolicy(kind: .storeTrump)
    /// Property by property, this context's changes win; values it did not change take what
    /// the other save wrote.
    ///
    /// Corresponds to `NSMergeByPropertyObjectTrumpMergePolicy`.
    public static let objectTrump = MergePolicy(kind: .objectTrump)
    /// The objects in conflict are written whole, as this context has them.
    ///
    /// Corresponds to `NSOverwriteMergePolicy`.
    public static let overwrite = MergePolicy(kind: .overwrite)
    /// The objects in conflict drop this context's changes and take the store's values; they
    /// are not written.
    ///
    /// Corresponds to `NSRollbackMergePolicy`.
    public static let rollback = MergePolicy(kind: .rollback)

    /// The policy's name.
    public var description: String {
        switch kind {
        case .error: "error"
        case .storeTrump: "storeTrump"
        case .objectTrump: "objectTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        }
    }
}
