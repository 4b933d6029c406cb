import Foundation

/// A store that writes the rows of a save's inserted objects straight from their typed storage
/// (``PropertyValues`` in the entity's layout), with no ``StoreRecord`` or array of
/// ``StoreValue``s per object. Every other write (updated and deleted records, and an inserted
/// object the store cannot write from its storage) goes through records.
package protocol InsertedRowWriting: PersistentStore {
    /// Applies `changes` as ``PersistentStore/apply(_:)`` does, with the objects of `rows`
    /// inserted too, in the same transaction, with the same errors.
    ///
    /// - Throws: What ``PersistentStore/apply(_:)`` throws, and what `rows` throws.
    func apply(_ changes: SaveChanges, inserting rows: InsertedObjectRows) throws
}

/// The inserted objects of a save, with their permanent IDs, for an ``InsertedRowWriting``
/// store: what it needs to write their rows from their storage, and the record of one it cannot.
///
/// Reached only during the save's write (with the store's lock held): its closures must not
/// reach the store.
package struct InsertedObjectRows {
    /// The inserted objects.
    package var objects: [ManagedObject]
    /// The permanent ID of each object, in the same order.
    package var ids: [ManagedObjectID]
    /// The ID the to-one relationship (second argument) of an object (third) saves for the
    /// related object (first).
    ///
    /// - Throws: ``PersistenceError/Code/objectNotFound`` for a dangling reference.
    package var relatedID: (ManagedObject, RelationshipDescription, ManagedObject) throws -> ManagedObjectID
    /// The record of an object (first argument) of `objects` with its ID (second), for a row
    /// the store cannot write from the object's storage (it relates objects through a join
    /// table, say). The context passes only objects whose records need none of their class's
    /// code (no primitive accessor of its own, no value transformer), so this runs none.
    ///
    /// - Throws: What building the record throws (a value transformer, a dangling reference).
    package var record: (ManagedObject, ManagedObjectID) throws -> StoreRecord

    /// Whether there are no objects.
    package var isEmpty: Bool { objects.isEmpty }
}
