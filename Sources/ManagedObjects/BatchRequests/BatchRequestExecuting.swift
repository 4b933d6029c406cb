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
    /// their IDs.
    func batchUpdate(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?,
        values: [(attribute: AttributeDescription, value: StoreValue)]
    ) throws -> [ManagedObjectID]?

    /// Deletes every record of `entity` (and of its subentities when `includesSubentities`)
    /// that matches `predicate`, applying the delete rules; returns their IDs and those of the
    /// other records it changed (whose versions it raised).
    func batchDelete(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?
    ) throws -> (deleted: [ManagedObjectID], updated: [ManagedObjectID])?
}
