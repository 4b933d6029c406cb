import Foundation
import ModelObjects

/// New attribute values for every record of an entity that matches a predicate, written
/// straight to the store in one step, without making managed objects.
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Employee")
/// request.predicate = try KeyValuePredicate(format: "department.name == %@", "Research")
/// request.propertiesToUpdate = ["salary": 60_000.0]
/// request.resultType = .objectIDs
/// let result = try context.execute(request)
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: RemoteChanges(updated: result.objectIDs ?? []), into: [context])
/// ```
///
/// Values are converted to each attribute's type without loss (as key-value coding does; `nil`
/// or `NSNull` for no value) and checked against the model's constraints (mandatory values,
/// bounds, lengths, patterns) before anything is written.
///
/// Corresponds to Core Data's `NSBatchUpdateRequest`; differences: values only (no
/// expressions), attributes only.
public struct BatchUpdateRequest {
    /// The name of the entity whose records change.
    ///
    /// Corresponds to `NSBatchUpdateRequest.entityName`.
    public var entityName: String
    /// The records that change; nil for all of the entity's.
    ///
    /// Corresponds to `NSBatchUpdateRequest.predicate`.
    public var predicate: KeyValuePredicate?
    /// The new values, by attribute name.
    ///
    /// Corresponds to `NSBatchUpdateRequest.propertiesToUpdate`.
    public var propertiesToUpdate: [String: Any]
    /// Whether records of subentities change too (true by default).
    ///
    /// Corresponds to `NSBatchUpdateRequest.includesSubentities`.
    public var includesSubentities = true
    /// What `ManagedObjectContext.execute(_:)` reports.
    ///
    /// Corresponds to `NSBatchUpdateRequest.resultType`.
    public var resultType: BatchRequestResultType = .statusOnly

    /// Creates a request changing `propertiesToUpdate` of the records of `entityName` that
    /// match `predicate`.
    ///
    /// Corresponds to `NSBatchUpdateRequest(entityName:)`.
    public init(entityName: String, predicate: KeyValuePredicate? = nil, propertiesToUpdate: [String: Any] = [:]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// What a batch update or delete reports.
///
/// Corresponds to Core Data's `NSBatchUpdateRequestResultType` and
/// `NSBatchDeleteRequestResultType`.
public enum BatchRequestResultType: Sendable, Hashable {
    /// Whether it succeeded (it always did when it returns).
    ///
    /// Corresponds to `.statusOnlyResultType` / `.resultTypeStatusOnly`.
    case statusOnly
    /// The number of records changed.
    ///
    /// Corresponds to `.updatedObjectsCountResultType` / `.resultTypeCount`.
    case count
    /// The IDs of the records changed.
    ///
    /// Corresponds to `.updatedObjectIDsResultType` / `.resultTypeObjectIDs`.
    case objectIDs
}

/// The outcome of a batch update or delete.
///
/// Corresponds to Core Data's `NSBatchUpdateResult` and `NSBatchDeleteResult`; differences:
/// typed fields instead of one `result` of type `Any`.
public struct BatchRequestResult: Sendable {
    /// The kind of result the request asked for.
    ///
    /// Corresponds to `NSBatchUpdateResult.resultType`.
    public var resultType: BatchRequestResultType
    /// The number of records changed (deleted ones: those matched and those the delete rules
    /// cascaded to); always set.
    ///
    /// Corresponds to `result` with the count result type.
    public var count: Int
    /// The IDs of the records changed, with ``BatchRequestResultType/objectIDs``; nil otherwise.
    ///
    /// Corresponds to `result` with the object IDs result type.
    public var objectIDs: [ManagedObjectID]?

    /// Creates a result.
    ///
    /// Corresponds to nothing in Core Data, whose results only the store makes.
    public init(resultType: BatchRequestResultType, count: Int, objectIDs: [ManagedObjectID]?) {
        self.resultType = resultType
        self.count = count
        self.objectIDs = objectIDs
    }
}
