import Foundation

/// The changes of a ``FetchedResultsController``'s results in one
/// ``ManagedObjectContext/processPendingChanges()``: the sections and objects that left, joined,
/// moved or changed, as a table view applies them in one batch of updates.
///
/// Index paths are `[section, row]` (`IndexPath(indexes: [section, row])`). How to apply a
/// change set to a copy of the previous results, as `UITableView.performBatchUpdates` does:
/// 1. Against the **old** results: take out the deleted sections
///    (``deletedSections``), the rows at ``deletedIndexPaths`` and the rows moved away (the
///    `from` of ``movedIndexPaths``). Deleted rows inside deleted sections are listed too.
/// 2. Against the **new** results: put in the inserted sections (``insertedSections``,
///    empty), then the rows at ``insertedIndexPaths`` and the moved rows at their `to`, in
///    ascending order. The rows that stayed keep their order and fill the other places; a
///    section keeps its place among the sections that stayed.
/// 3. ``updatedIndexPaths`` (old index paths, as `reloadRows(at:)` takes them) name rows that
///    stayed in place but whose object changed; ``updates`` also gives each one's new index path.
///
/// The lists are in the order of those steps: ``sectionChanges`` holds the deletions (from the
/// last section to the first) then the insertions (from the first); ``objectChanges`` holds
/// the deletions (from the last index path to the first), the insertions (from the first),
/// the moves (by new index path) and the updates (by old index path). An object that moves
/// out of a deleted section or into an inserted one is reported as a deletion and an
/// insertion, never a move, as table views require; so is every object of a section that
/// changed its place among the others (the section is deleted and inserted).
///
/// A `Sendable` value: objects are named by ``ManagedObjectID`` (temporary IDs until the
/// objects are saved), so the change set can go to another task; the delegate's callbacks
/// give the objects themselves.
///
/// Corresponds to the calls Core Data's `NSFetchedResultsController` makes to its delegate
/// between `controllerWillChangeContent(_:)` and `controllerDidChangeContent(_:)`, and to the
/// `CollectionDifference` of `controller(_:didChangeContentWith:)`; differences: one value
/// holding the whole batch, in a documented order.
public struct FetchedResultsChangeSet: Hashable, Sendable, CustomStringConvertible {
    /// A section that left or joined the results.
    ///
    /// Corresponds to a call of `controller(_:didChange:atSectionIndex:for:)`.
    public struct SectionChange: Hashable, Sendable {
        /// ``FetchedResultsChangeType/delete`` or ``FetchedResultsChangeType/insert``.
        public var type: FetchedResultsChangeType
        /// The section's index: in the old results for a deletion, in the new for an insertion.
        public var index: Int
        /// The section's name.
        public var name: String
    }

    /// An object that left, joined, moved or changed.
    ///
    /// Corresponds to a call of `controller(_:didChange:at:for:newIndexPath:)`.
    public struct ObjectChange: Hashable, Sendable {
        /// What happened.
        public var type: FetchedResultsChangeType
        /// The object's ID when the change was reported.
        public var objectID: ManagedObjectID
        /// Where the object was in the old results; nil for an insertion.
        public var indexPath: IndexPath?
        /// Where the object is in the new results; nil for a deletion.
        public var newIndexPath: IndexPath?
    }

    /// The sections that left and joined: deletions from the last index to the first, then
    /// insertions from the first.
    public var sectionChanges: [SectionChange]
    /// The objects that left, joined, moved or changed: deletions (last index path first),
    /// insertions (first index path first), moves (by new index path), updates (by old index path).
    public var objectChanges: [ObjectChange]

    /// Creates a change set.
    public init(sectionChanges: [SectionChange] = [], objectChanges: [ObjectChange] = []) {
        self.sectionChanges = sectionChanges
        self.objectChanges = objectChanges
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }

    /// The indexes, in the old results, of the sections that left.
    ///
    /// Corresponds to `UITableView.deleteSections(_:with:)`'s argument.
    public var deletedSections: IndexSet { IndexSet(sectionChanges.lazy.filter { $0.type == .delete }.map(\.index)) }
    /// The indexes, in the new results, of the sections that joined.
    ///
    /// Corresponds to `UITableView.insertSections(_:with:)`'s argument.
    public var insertedSections: IndexSet { IndexSet(sectionChanges.lazy.filter { $0.type == .insert }.map(\.index)) }
    /// The index paths, in the old results, of the objects that left; last first.
    ///
    /// Corresponds to `UITableView.deleteRows(at:with:)`'s argument.
    public var deletedIndexPaths: [IndexPath] { objectChanges.compactMap { $0.type == .delete ? $0.indexPath : nil } }
    /// The index paths, in the new results, of the objects that joined; first first.
    ///
    /// Corresponds to `UITableView.insertRows(at:with:)`'s argument.
    public var insertedIndexPaths: [IndexPath] { objectChanges.compactMap { $0.type == .insert ? $0.newIndexPath : nil } }
    /// The objects that changed place: from an old index path to a new one.
    ///
    /// Corresponds to the arguments of `UITableView.moveRow(at:to:)`.
    public var movedIndexPaths: [(from: IndexPath, to: IndexPath)] {
        objectChanges.compactMap { change in
            guard change.type == .move, let from = change.indexPath, let to = change.newIndexPath else { return nil }
            return (from, to)
        }
    }
    /// The old index paths of the objects that stayed in place and changed.
    ///
    /// Corresponds to `UITableView.reloadRows(at:with:)`'s argument.
    public var updatedIndexPaths: [IndexPath] { objectChanges.compactMap { $0.type == .update ? $0.indexPath : nil } }
    /// The objects that stayed in place and changed: their old and new index paths (which
    /// differ when rows before them left or joined).
    public var updates: [(from: IndexPath, to: IndexPath)] {
        objectChanges.compactMap { change in
            guard change.type == .update, let from = change.indexPath, let to = change.newIndexPath else { return nil }
            return (from, to)
        }
    }

    /// One line per change: `delete section 2 "B"`, `move [0, 3] -> [1, 0]`, ….
    public var description: String {
        func path(_ indexPath: IndexPath?) -> String { indexPath.map { "\(Array($0))" } ?? "nil" }
        let sections = sectionChanges.map { "\($0.type) section \($0.index) \"\($0.name)\"" }
        let objects = objectChanges.map { change -> String in
            switch change.type {
            case .delete: "delete \(path(change.indexPath))"
            case .insert: "insert \(path(change.newIndexPath))"
            case .move, .update: "\(change.type) \(path(change.indexPath)) -> \(path(change.newIndexPath))"
            }
        }
        return (sections + objects).joined(separator: "\n")
    }
}
