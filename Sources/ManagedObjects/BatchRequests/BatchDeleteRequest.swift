import Foundation
import ModelObjects

/// Records to delete straight from the store in one step, without making managed objects:
/// those of an entity that match a predicate, or those of given IDs.
///
/// ```swift
/// let request = BatchDeleteRequest(entityName: "Reading", predicate: try KeyValuePredicate(format: "taken < %@", cutoff))
/// let result = try context.execute(request)
/// ```
///
/// The relationships' delete rules apply as Core Data applies them to batch deletes: related
/// records of a cascade relationship are deleted too, those of a nullify relationship lose the
/// deleted records from their inverse, and a deny relationship that still relates a record
/// left alive refuses the whole delete. Validation and `prepareForDeletion()` do not run.
///
/// Corresponds to Core Data's `NSBatchDeleteRequest`.
public struct BatchDeleteRequest {
    /// What to delete.
    enum Target {
        case matching(entityName: String, predicate: KeyValuePredicate?, includesSubentities: Bool)
        case objectIDs([ManagedObjectID])
    }

    let target: Target
    /// What `ManagedObjectContext.execute(_:)` reports.
    ///
    /// Corresponds to `NSBatchDeleteRequest.resultType`.
    public var resultType: BatchRequestResultType = .statusOnly

    /// Creates a request deleting the records of `entityName` (and of its subentities when
    /// `includesSubentities`) that match `predicate`; every record of it when nil.
    ///
    /// Corresponds to `NSBatchDeleteRequest(fetchRequest:)`.
    public init(entityName: String, predicate: KeyValuePredicate? = nil, includesSubentities: Bool = true) {
        target = .matching(entityName: entityName, predicate: predicate, includesSubentities: includesSubentities)
    }

    /// Creates a request deleting what `fetchRequest` fetches: its entity, predicate and
    /// `includesSubentities` (its sort descriptors, limit and offset do not apply).
    ///
    /// Corresponds to `NSBatchDeleteRequest(fetchRequest:)`.
    public init<Object>(fetchRequest: FetchRequest<Object>) {
        self.init(entityName: fetchRequest.entityName, predicate: fetchRequest.predicate, includesSubentities: fetchRequest.includesSubentities)
    }

    /// Creates a request deleting the records of `objectIDs` (saved objects' IDs; those whose
    /// records are already gone are skipped).
    ///
    /// Corresponds to `NSBatchDeleteRequest(objectIDs:)`.
    public init(objectIDs: [ManagedObjectID]) {
        target = .objectIDs(objectIDs)
    }
}
