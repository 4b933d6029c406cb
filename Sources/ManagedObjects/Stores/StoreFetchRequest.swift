import Foundation
import ModelObjects

/// A fetch as a store sees it: the entity, a predicate and sort descriptors it may translate
/// into its own query language, and a limit and offset.
///
/// A store answers with the records it found and says which parts it applied; the context
/// applies the rest in memory, so results are the same whichever store runs the fetch.
public struct StoreFetchRequest {
    /// The entity fetched.
    public var entity: EntityDescription
    /// Whether records of subentities match too.
    public var includesSubentities: Bool
    /// The condition records must meet; nil for all. Where the fetch's predicate named objects
    /// registered with the fetching context, a store finds ``StoreObjectReference``s to them.
    public var predicate: KeyValuePredicate?
    /// The order of the results.
    public var sortDescriptors: [KeyPathSortDescriptor]
    /// At most this many results; 0 for no limit.
    public var fetchLimit: Int
    /// Results to skip first.
    public var fetchOffset: Int
    /// The names of the only properties a fetch decoding rows into objects' storage needs to
    /// read (the keys are always read); nil for every property. A store may read more: rows
    /// decoded from these columns alone hold nothing else. Set from
    /// ``FetchRequest/propertiesToFetch``; `fetch(_:)`, which returns whole records, ignores it.
    public var propertiesToFetch: Set<String>?

    /// Creates a request.
    public init(
        entity: EntityDescription, includesSubentities: Bool = true, predicate: KeyValuePredicate? = nil,
        sortDescriptors: [KeyPathSortDescriptor] = [], fetchLimit: Int = 0, fetchOffset: Int = 0
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        propertiesToFetch = nil
    }
}

/// An object a fetch's predicate names, as the fetching context hands it to a store: the saved
/// object registered under `objectID` in that context, which is equal to exactly the record
/// with that ID. (Objects of other contexts, and unsaved ones, stay objects: no record is them.)
public struct StoreObjectReference: Hashable, Sendable {
    /// The object's ID.
    public let objectID: ManagedObjectID

    /// Creates a reference.
    public init(objectID: ManagedObjectID) {
        self.objectID = objectID
    }
}

/// What a store found for a ``StoreFetchRequest``.
public struct StoreFetchResult: Sendable {
    /// The records, filtered, ordered and limited as far as the flags say.
    public var records: [StoreRecord]
    /// Whether only records meeting the predicate were returned.
    public var appliedPredicate: Bool
    /// Whether the records are in the sort descriptors' order (and the offset and limit, which
    /// a store can apply only after filtering and sorting, were applied).
    public var appliedSortAndLimit: Bool

    /// Creates a result.
    public init(records: [StoreRecord], appliedPredicate: Bool, appliedSortAndLimit: Bool) {
        self.records = records
        self.appliedPredicate = appliedPredicate
        self.appliedSortAndLimit = appliedSortAndLimit
    }
}

/// What ``PersistentStore/records(relatedTo:through:)`` reads for prefetching a to-many
/// relationship: the related records and, for each owner, the IDs its relationship holds.
///
/// Corresponds to no public Core Data type: what its SQLite store reads for
/// `relationshipKeyPathsForPrefetching`.
public struct StoreRelatedRecords: Sendable {
    /// The related records (a record related to several owners may appear more than once).
    /// They may leave their own to-many relationships out (``StoreRecord/omittedRelationships``).
    public var records: [StoreRecord]
    /// For each owner read, the IDs of the records the relationship relates it to, in order
    /// for an ordered relationship; owners relating none may be missing.
    public var relatedIDs: [ManagedObjectID: [ManagedObjectID]]

    /// Creates the result of a read.
    public init(records: [StoreRecord], relatedIDs: [ManagedObjectID: [ManagedObjectID]]) {
        self.records = records
        self.relatedIDs = relatedIDs
    }
}

/// The IDs and chosen attribute values of the records a fetch asked for: what
/// ``PersistentStore/fetchAttributes(_:for:)`` reads for counts, ID and dictionary results.
public struct StoreAttributeRows: Sendable {
    /// The records' IDs, in the request's order.
    public var objectIDs: [ManagedObjectID]
    /// The attribute values, row after row: the values of the record `objectIDs[row]` are at
    /// `row * attributeCount ..< (row + 1) * attributeCount`, in the order asked for.
    public var values: [StoreValue]
    /// The number of values per row.
    public var attributeCount: Int

    /// Creates rows; `values` holds `attributeCount` values per ID.
    public init(objectIDs: [ManagedObjectID], values: [StoreValue], attributeCount: Int) {
        self.objectIDs = objectIDs
        self.values = values
        self.attributeCount = attributeCount
    }
}

extension PersistentStore {
    /// Answers ``PersistentStore/record(for:)``: the whole record.
    public func faultRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try record(for: objectID)
    }

    /// Reads the IDs from ``PersistentStore/record(for:)``.
    public func relatedObjectIDs(of objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]? {
        guard let record = try record(for: objectID) else { return nil }
        guard relationship.index < record.values.count, case .toMany(let ids) = record.values[relationship.index] else { return [] }
        return ids
    }

    /// Answers nil: the context reads the related records by ID.
    public func records(relatedTo owners: [ManagedObjectID], through relationship: RelationshipDescription) throws -> StoreRelatedRecords? {
        nil
    }

    /// Answers ``PersistentStore/records(for:)``: whole records.
    ///
    /// Corresponds to `-[NSIncrementalStore newValuesForObjectWithID:withContext:error:]` for each ID.
    public func faultRecords(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        try records(for: objectIDs)
    }

    /// Answers nil: the context counts fetched objects.
    public func count(for request: StoreFetchRequest) throws -> Int? { nil }

    /// Answers nil: the context reads fetched objects.
    public func fetchAttributes(_ attributes: [AttributeDescription], for request: StoreFetchRequest) throws -> StoreAttributeRows? {
        nil
    }

    /// The records of `objectIDs` that exist, read one by one; stores that can read several in
    /// one query do better.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    public func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        var records: [ManagedObjectID: StoreRecord] = [:]
        for id in objectIDs { if let record = try record(for: id) { records[id] = record } }
        return records
    }

    /// Every record of the entity, nothing applied: the context filters, sorts and limits in
    /// memory. Stores that can do better implement ``PersistentStore/fetch(_:)`` themselves.
    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        StoreFetchResult(
            records: try records(of: request.entity, includesSubentities: request.includesSubentities),
            appliedPredicate: request.predicate == nil, appliedSortAndLimit: false)
    }
}
