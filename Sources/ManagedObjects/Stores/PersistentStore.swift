import Foundation

/// A store of records behind a ``PersistentStoreCoordinator``: what contexts save to and load
/// faults from. Adopt it to plug in a new kind of store.
///
/// A store is shared by every context of its coordinator, from any thread: implementations
/// protect their state with a lock. The coordinator serializes saves, so ``versions(of:)``
/// followed by ``apply(_:)`` in one save sees no other save in between.
///
/// Corresponds to Core Data's `NSPersistentStore` with the `NSIncrementalStore` methods;
/// differences: a protocol over typed records.
public protocol PersistentStore: AnyObject, Sendable {
    /// The store's unique identifier, part of every permanent object ID it issues.
    ///
    /// Corresponds to `NSPersistentStore.identifier`.
    var identifier: String { get }
    /// The kind of store.
    ///
    /// Corresponds to `NSPersistentStore.type`.
    var type: PersistentStoreType { get }
    /// Where the store keeps its data; nil for the in-memory store.
    ///
    /// Corresponds to `NSPersistentStore.url`.
    var url: URL? { get }

    /// Reserves `count` new primary keys for records of `entity`.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    ///
    /// Corresponds to `-[NSIncrementalStore obtainPermanentIDsForObjects:error:]`.
    func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64]

    /// The record for `objectID`, or nil when there is none.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    ///
    /// Corresponds to `-[NSIncrementalStore newValuesForObjectWithID:withContext:error:]`.
    func record(for objectID: ManagedObjectID) throws -> StoreRecord?

    /// The record for `objectID` when its fault fires alone, or nil when there is none. A
    /// store may leave the to-many relationships out (``StoreRecord/omittedRelationships``)
    /// and answer ``relatedObjectIDs(of:through:)`` when one is first used, as Core Data's
    /// relationship faults do; its ``apply(_:)`` then gets changed records that leave out the
    /// relationships not read since, and keeps what it has for them. The default answers
    /// ``record(for:)``.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func faultRecord(for objectID: ManagedObjectID) throws -> StoreRecord?

    /// The IDs of the records that `relationship`, a to-many relationship of the record of
    /// `objectID`, relates it to (in order for an ordered relationship); nil when the store
    /// knows no such record. The default reads them from ``record(for:)``.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    ///
    /// Corresponds to `-[NSIncrementalStore newValueForRelationship:forObjectWithID:withContext:error:]`.
    func relatedObjectIDs(of objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]?

    /// The records that `relationship`, a to-many relationship of the records of `owners`,
    /// relates them to, and which of them each owner's relationship holds, read together (what
    /// prefetching a relationship key path reads); nil when the store cannot, and the context
    /// then reads them by ID. The default answers nil.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func records(relatedTo owners: [ManagedObjectID], through relationship: RelationshipDescription) throws -> StoreRelatedRecords?

    /// The records of `objectIDs` that exist, for faults of a batch or prefetched targets: like
    /// ``records(for:)``, but a store may leave the to-many relationships out, as in
    /// ``faultRecord(for:)``. The default answers ``records(for:)``.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    ///
    /// Corresponds to `-[NSIncrementalStore newValuesForObjectWithID:withContext:error:]` for
    /// several IDs at once.
    func faultRecords(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord]

    /// The records of `objectIDs` that exist, in one read where the store can.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord]

    /// Every record of `entity` (and of its subentities when `includesSubentities`).
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord]

    /// The current version of each record that exists among `objectIDs`.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64]

    /// The records a fetch asks for. A store that cannot translate part of the request returns
    /// more (every record of the entity, unsorted) and says so in the result; the context does
    /// the rest in memory. A store may leave the records' to-many relationships out, as in
    /// ``faultRecord(for:)``. The default does nothing but ``records(of:includesSubentities:)``.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The number of records a fetch asks for (offset and limit applied), counted without
    /// reading them; nil when the store cannot apply the whole request itself, and the context
    /// then counts fetched objects. The default answers nil.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func count(for request: StoreFetchRequest) throws -> Int?

    /// The IDs of the records a fetch asks for and the values of `attributes` of each, in the
    /// request's order, read without making whole records; nil when the store cannot apply the
    /// whole request (predicate, sort descriptors, offset and limit) itself, and the context
    /// then reads fetched objects. `attributes` may be empty (only the IDs). The default
    /// answers nil.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func fetchAttributes(_ attributes: [AttributeDescription], for request: StoreFetchRequest) throws -> StoreAttributeRows?

    /// Writes a save, all or nothing.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` (nothing is written).
    ///
    /// Corresponds to `-[NSIncrementalStore executeRequest:withContext:error:]` with a save request.
    func apply(_ changes: SaveChanges) throws
}

/// The kind of a persistent store, chosen when it is added to a coordinator.
///
/// Corresponds to Core Data's `NSPersistentStore.StoreType`.
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name of the kind.
    public var rawValue: String
    /// Creates a kind from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Records in memory, gone with the process.
    ///
    /// Corresponds to `NSInMemoryStoreType`.
    public static let inMemory = PersistentStoreType(rawValue: "InMemory")
    /// A SQLite database file.
    ///
    /// Corresponds to `NSSQLiteStoreType`.
    public static let sqlite = PersistentStoreType(rawValue: "SQLite")
    /// A whole-file store written atomically.
    ///
    /// Corresponds to `NSBinaryStoreType`.
    public static let binary = PersistentStoreType(rawValue: "Binary")

    /// The name.
    public var description: String { rawValue }
}

/// Options for adding a persistent store.
///
/// Corresponds to the options dictionary of Core Data's `addPersistentStore(ofType:…options:)`.
public struct PersistentStoreOptions: OptionSet, Sendable {
    /// The raw bits.
    public var rawValue: Int
    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Migrate a store written with an earlier model when it is opened, inferring the changes:
    /// new entities, new optional attributes or ones with a default value, new relationships,
    /// removed properties and entities, and renames named by `renamingIdentifier`. A change that
    /// cannot be inferred throws ``PersistenceError/Code/migrationFailed`` and leaves the store as
    /// it was.
    ///
    /// Corresponds to `NSMigratePersistentStoresAutomaticallyOption` with
    /// `NSInferMappingModelAutomaticallyOption`.
    public static let lightweightMigration = PersistentStoreOptions(rawValue: 1 << 0)
}
