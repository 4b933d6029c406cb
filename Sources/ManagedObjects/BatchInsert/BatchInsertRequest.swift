import Foundation

/// Records to insert straight into the persistent store, in one write, without making managed
/// objects: the fast way to load many records.
///
/// ```swift
/// let rows: [[String: Any]] = (0..<100_000).map { index in
///     ["firstName": "First\(index)", "salary": 50_000.0, "department": research.objectID]
/// }
/// let ids = try context.execute(BatchInsertRequest(entityName: "Employee", objects: rows))
/// ```
///
/// Each dictionary gives values by property name: attributes (converted to the attribute's type
/// without loss, as key-value coding does; `nil` or `NSNull` for no value; missing ones take the
/// model's default) and to-one relationships (a saved object's ``ManagedObjectID``, or the saved
/// object). The model's constraints are checked (mandatory values, bounds, lengths, patterns);
/// classes' own validators and `validateForInsert()` do not run, since no object is made.
/// Inverse to-many relationships of the related records are kept.
///
/// Into an entity with uniqueness constraints, the executing context's merge policy decides:
/// `.error` refuses a record that meets a saved record's constrained values (or another
/// record's of the batch) with `PersistenceError` `constraintConflict`; the other policies make
/// the batch an upsert (`.objectTrump` and `.overwrite`: the saved record takes the batch's
/// values; `.storeTrump` and `.rollback`: it stays as it is).
///
/// Corresponds to Core Data's `NSBatchInsertRequest` with `resultType` `.objectIDs`;
/// differences: to-one relationships may be set (Core Data's batch inserts set attributes only),
/// values are validated against the model, and errors are thrown before anything is written.
public struct BatchInsertRequest {
    /// The name of the entity of every record.
    public var entityName: String
    /// One dictionary of values per record to insert, by property name.
    public var objects: [[String: Any]]

    /// Creates a request inserting a record of `entityName` for each dictionary of `objects`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objects = objects
    }
}
