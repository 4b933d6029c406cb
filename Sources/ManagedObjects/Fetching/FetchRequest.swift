import Foundation
import ModelObjects

/// A description of the objects to fetch from a context: an entity, a predicate, an order and
/// limits. `Object` is the class of the results: ``ManagedObject`` for a fetch by entity name,
/// or your subclass for a typed fetch.
///
/// ```swift
/// var request = FetchRequest<Employee>(entityName: "Employee")
/// request.predicate = try KeyValuePredicate(format: "salary > %d", 50_000)
/// request.sortDescriptors = [KeyPathSortDescriptor(key: "lastName")]
/// let wellPaid = try context.fetch(request)                      // [Employee]
/// let howMany = try context.count(for: request)
/// let names = try context.fetchDictionaries(request, properties: ["firstName", "lastName"])
/// ```
///
/// Corresponds to Core Data's `NSFetchRequest`; differences: a value type; the result type is
/// chosen by the context method (``ManagedObjectContext/fetch(_:)``,
/// ``ManagedObjectContext/fetchObjectIDs(_:)``, ``ManagedObjectContext/fetchDictionaries(_:properties:)``,
/// ``ManagedObjectContext/count(for:)``) rather than a `resultType` property.
public struct FetchRequest<Object: ManagedObject> {
    /// The name of the entity fetched.
    ///
    /// Corresponds to `NSFetchRequest.entityName`.
    public var entityName: String
    /// The condition results meet; nil for every object of the entity.
    ///
    /// Corresponds to `NSFetchRequest.predicate`.
    public var predicate: KeyValuePredicate?
    /// The order of the results; empty for no particular order.
    ///
    /// Corresponds to `NSFetchRequest.sortDescriptors`.
    public var sortDescriptors: [KeyPathSortDescriptor] = []
    /// At most this many results; 0 for no limit.
    ///
    /// Corresponds to `NSFetchRequest.fetchLimit`.
    public var fetchLimit = 0
    /// Results to skip first.
    ///
    /// Corresponds to `NSFetchRequest.fetchOffset`.
    public var fetchOffset = 0
    /// How many objects' values are loaded together when the first of them is read; 0 loads
    /// them all with the fetch.
    ///
    /// Corresponds to `NSFetchRequest.fetchBatchSize`.
    public var fetchBatchSize = 0
    /// Whether fetched objects are faults (their values held by the context's row cache until
    /// first read) rather than loaded objects; true by default.
    ///
    /// Corresponds to `NSFetchRequest.returnsObjectsAsFaults`.
    public var returnsObjectsAsFaults = true
    /// Whether objects of subentities are fetched too; true by default.
    ///
    /// Corresponds to `NSFetchRequest.includesSubentities`.
    public var includesSubentities = true
    /// Relationship key paths whose objects are loaded with the fetch, in one pass per path.
    ///
    /// Corresponds to `NSFetchRequest.relationshipKeyPathsForPrefetching`.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// Whether unsaved changes of the context count: inserted objects that match are included,
    /// changed objects are matched on their current values, deleted objects are left out. True
    /// by default.
    ///
    /// Corresponds to `NSFetchRequest.includesPendingChanges`.
    public var includesPendingChanges = true
    /// Whether the fetch reads the objects' values along with their IDs; true by default.
    ///
    /// When false, the store reads only the IDs of the matching records, and each object that is
    /// not already registered comes back as a fault holding no row (whatever
    /// ``returnsObjectsAsFaults`` says): it takes no memory for its values, and firing it reads
    /// its record by key, one statement per object (or per batch, with ``fetchBatchSize``). Use
    /// it for objects whose values you will not read, for example to delete them. Objects already
    /// registered come back as they are. When the store cannot answer the request alone (unsaved
    /// changes the request must see, several stores), the rows are read to match them in memory,
    /// as with true.
    ///
    /// Corresponds to `NSFetchRequest.includesPropertyValues`.
    public var includesPropertyValues = true
    /// The names of the only properties (attributes and to-one relationships) a fetch reads;
    /// nil, the default, for all of them.
    ///
    /// For ``ManagedObjectContext/fetch(_:)``, the objects not registered yet come back as
    /// *partial faults*: the SQLite and PostgreSQL stores read the keys and these columns only,
    /// and reading one of these properties of such a fault answers from the fetched values
    /// without firing it (no statement). Reading any other property fires the fault, which reads
    /// its whole record (one statement), as does a change or a read after another context saved
    /// the record. The objects stay faults whatever ``returnsObjectsAsFaults`` says. Other stores,
    /// a child context, a batched fetch (``fetchBatchSize``) and a fetch that prefetches
    /// relationships read whole rows. ``ManagedObjectContext/fetchDictionaries(_:properties:)``
    /// reads these properties when it is not given its own.
    ///
    /// A name that is not an attribute or a to-one relationship of the entity makes the fetch
    /// throw `KeyValueCodingError/Code/undefinedKey`.
    ///
    /// Corresponds to `NSFetchRequest.propertiesToFetch` (with property names; Core Data's
    /// managed-object results are faults "partially pre-populated with the named properties").
    public var propertiesToFetch: [String]?

    /// A request for the objects of the entity named `entityName`.
    ///
    /// Corresponds to `NSFetchRequest(entityName:)`.
    public init(entityName: String, predicate: KeyValuePredicate? = nil, sortDescriptors: [KeyPathSortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

extension FetchRequest where Object == ManagedObject {
    /// A request for the objects of the entity named `entityName`, as ``ManagedObject``s.
    public init(_ entityName: String) {
        self.init(entityName: entityName)
    }
}
