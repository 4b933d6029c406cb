/// What happened to an object or a section of a ``FetchedResultsController``'s results.
///
/// Corresponds to Core Data's `NSFetchedResultsChangeType`, with its raw values.
public enum FetchedResultsChangeType: Int, Hashable, Sendable, CustomStringConvertible {
    /// The object or section joined the results; its index path or index is in the new results.
    case insert = 1
    /// The object or section left the results; its index path or index is in the old results.
    case delete = 2
    /// The object changed place: from an index path of the old results to one of the new. It
    /// may have changed its values too.
    case move = 3
    /// The object stayed in place among the objects that did not change, and changed its values.
    case update = 4

    /// `insert`, `delete`, `move` or `update`.
    public var description: String {
        switch self {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}
