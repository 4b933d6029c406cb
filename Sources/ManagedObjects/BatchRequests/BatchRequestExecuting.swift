import Foundation
import ModelObjects

/// A store that runs batch updates and deletes itself, in a statement or two instead of
/// record by record. Each method answers nil when it cannot run the request exactly (a
/// predicate its query language cannot express, relationships to maintain): the context then
/// runs it through ``PersistentStore/records(for:)`` and ``PersistentStore/apply(_:)``.
/// Both run under the coordinator's save lock, all or nothing.
protocol BatchRequestExecuting {
    /// Sets `values` on every record of `entity` (and of its subentities when
    /// `includesSubentities`) that matches `predicate`, raising each one's version; returns
    /// their IDs. A store that tracks persistent history records the batch as one transaction
    /// by `history`'s author and context.
    func batchUpdate(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?,
        values: [(attribute: AttributeDescription, value: StoreValue)], history: SaveChanges.HistoryDetails
    ) throws -> [ManagedObjectID]?

    /// Deletes every record of `entity` (and of its subentities when `includesSubentities`)
    /// that matches `predicate`, applying the delete rules; returns their IDs and those of the
    /// other records it changed (whose versions it raised). A store that tracks persistent
    /// history records the batch as one transaction by `history`'s author and context.
    func batchDelete(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?, history: SaveChanges.HistoryDetails
    ) throws -> (deleted: [ManagedObjectID], updated: [ManagedObjectID])?
}
