import Foundation

/// What a ``FetchedResultsController`` tells as its results change: every method has a default
/// that does nothing, so implement only those you need.
///
/// For each change set, in this order, synchronously inside the context's
/// ``ManagedObjectContext/processPendingChanges()`` (or `rollback()`, `refresh`, merge) that
/// announced the change:
/// 1. `controllerWillChangeContent(_:)`;
/// 2. `controller(_:didChange:atSectionIndex:for:)` for each section deleted
///    (last first, with the section as it was), then each section inserted (first first);
/// 3. `controller(_:didChange:at:for:newIndexPath:)` for each object deleted (last first),
///    inserted (first first), moved (by new index path), updated (by old index path);
/// 4. `controller(_:didChangeContentWith:)` with the whole ``FetchedResultsChangeSet``;
/// 5. `controllerDidChangeContent(_:)`.
///
/// Nothing is called for a change set that leaves the results as they were. The controller
/// already holds the new results during the calls: index paths of deletions are the old
/// results', read the objects from the arguments.
///
/// ```swift
/// final class EmployeeList: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<Employee>, didChangeContentWith changes: FetchedResultsChangeSet) {
///         tableView.performBatchUpdates {
///             tableView.deleteSections(changes.deletedSections, with: .fade)
///             tableView.insertSections(changes.insertedSections, with: .fade)
///             tableView.deleteRows(at: changes.deletedIndexPaths, with: .fade)
///             tableView.insertRows(at: changes.insertedIndexPaths, with: .fade)
///             for move in changes.movedIndexPaths { tableView.moveRow(at: move.from, to: move.to) }
///             tableView.reloadRows(at: changes.updatedIndexPaths, with: .none)
///         }
///     }
/// }
/// ```
///
/// Corresponds to Core Data's `NSFetchedResultsControllerDelegate`; differences: generic over
/// the controller's object type; `controller(_:didFailWith:)` reports a change the
/// controller could not follow, where Core Data raises.
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    /// The class of the controller's objects.
    associatedtype Object: ManagedObject

    /// The results are about to change; the calls for each change follow.
    ///
    /// Corresponds to `controllerWillChangeContent(_:)`.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)

    /// A section left (``FetchedResultsChangeType/delete``, `sectionIndex` in the old results,
    /// `sectionInfo` as the section was) or joined (``FetchedResultsChangeType/insert``,
    /// `sectionIndex` in the new results).
    ///
    /// Corresponds to `controller(_:didChange:atSectionIndex:for:)`.
    func controller(
        _ controller: FetchedResultsController<Object>, didChange sectionInfo: FetchedResultsSectionInfo<Object>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

    /// An object left (`indexPath` in the old results), joined (`newIndexPath` in the new),
    /// moved (both) or changed in place (both: where it was, where it is now).
    ///
    /// Corresponds to `controller(_:didChange:at:for:newIndexPath:)`.
    func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)

    /// The whole change set, after the per-section and per-object calls.
    ///
    /// Corresponds to `controller(_:didChangeContentWith:)` (its `CollectionDifference` form);
    /// differences: called together with the other methods, not instead of them.
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith changes: FetchedResultsChangeSet)

    /// The results have changed.
    ///
    /// Corresponds to `controllerDidChangeContent(_:)`.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)

    /// The index title of the section named `sectionName`; by default its first letter,
    /// uppercased (nil for an empty name). Asked when sections are made.
    ///
    /// Corresponds to `controller(_:sectionIndexTitleForSectionName:)`.
    func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String?

    /// The controller could not follow a change of its context (``FetchedResultsError/Code/trackingFailed``)
    /// and dropped its results; call ``FetchedResultsController/performFetch()`` to start again.
    ///
    /// Corresponds to nothing in Core Data, where the exception escapes.
    func controller(_ controller: FetchedResultsController<Object>, didFailWith error: FetchedResultsError)
}

extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// Does nothing.
    public func controller(
        _ controller: FetchedResultsController<Object>, didChange sectionInfo: FetchedResultsSectionInfo<Object>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    /// Does nothing.
    public func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith changes: FetchedResultsChangeSet) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    /// The name's first letter, uppercased; nil for an empty name.
    public func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        FetchedResultsController<Object>.defaultSectionIndexTitle(forSectionName: sectionName)
    }
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<Object>, didFailWith error: FetchedResultsError) {}
}
