import Foundation

/// A property value as a store holds it: a typed attribute value, or object IDs for
/// relationships.
///
/// Stores see only these values, never managed objects, so records cross threads freely.
///
/// Corresponds to the values Core Data's `NSIncrementalStoreNode` holds; differences: a typed
/// enumeration instead of `Any`.
public enum StoreValue: Hashable, Sendable, CustomStringConvertible {
    /// No value.
    case null
    /// An `integer16`, `integer32` or `integer64` value.
    case integer(Int64)
    /// A `double` or `float` value.
    case double(Double)
    /// A `decimal` value, kept without loss.
    case decimal(Decimal)
    /// A `string` value.
    case string(String)
    /// A `boolean` value.
    case boolean(Bool)
    /// A `date` value.
    case date(Date)
    /// A `binaryData` value, or a `transformable` value as its transformer wrote it.
    case data(Data)
    /// A `uuid` value.
    case uuid(UUID)
    /// A `uri` value.
    case uri(URL)
    /// A to-one relationship: the related object, or nil.
    case toOne(ManagedObjectID?)
    /// A to-many relationship: the related objects, in order for ordered relationships.
    case toMany([ManagedObjectID])

    /// The value as text, for descriptions and messages.
    public var description: String {
        switch self {
        case .null: "nil"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .decimal(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .boolean(let value): "\(value)"
        case .date(let value): "\(value)"
        case .data(let value): "<\(value.count) bytes>"
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        case .toOne(let id): id.map { "\($0)" } ?? "nil"
        case .toMany(let ids): "<\(ids.count) objects>"
        }
    }
}

extension StoreValue {
    /// The case's name, for messages.
    var kindName: String {
        switch self {
        case .null: "nil"
        case .integer: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .uuid: "UUID"
        case .uri: "URI"
        case .toOne: "to-one reference"
        case .toMany: "to-many references"
        }
    }
}

/// One record of a store: the object's ID, its version (incremented by every save that writes
/// it, for optimistic locking) and its persistent values by property index.
///
/// Corresponds to Core Data's `NSIncrementalStoreNode`.
public struct StoreRecord: Sendable {
    /// The record's object ID (permanent).
    public var objectID: ManagedObjectID
    /// The version of the record: 1 after its first save, one more after each save that
    /// changes it.
    public var version: Int64
    /// The values, indexed like the entity's ``EntityDescription/properties``; transient
    /// properties hold ``StoreValue/null``.
    public var values: [StoreValue]
    /// The property indexes of to-many relationships the record leaves out (their values are
    /// ignored). A record read for firing a fault may leave them out
    /// (``PersistentStore/faultRecord(for:)``): the context asks
    /// ``PersistentStore/relatedObjectIDs(of:through:)`` when one is first used. A changed
    /// record in a save leaves out the relationships never read since: the store keeps what
    /// it has for them.
    public var omittedRelationships: Set<Int>

    /// Creates a record.
    public init(objectID: ManagedObjectID, version: Int64, values: [StoreValue], omittedRelationships: Set<Int> = []) {
        self.objectID = objectID
        self.version = version
        self.values = values
        self.omittedRelationships = omittedRelationships
    }

    /// The record with the values it leaves out taken from `stored`, the record as a store
    /// holds it: what a store that keeps whole records writes for a changed record.
    func keepingOmittedRelationships(of stored: StoreRecord?) -> StoreRecord {
        guard !omittedRelationships.isEmpty else { return self }
        var whole = self
        for index in omittedRelationships where index < whole.values.count {
            if let stored, index < stored.values.count { whole.values[index] = stored.values[index] }
        }
        whole.omittedRelationships = []
        return whole
    }
}

extension StoreRecord {
    /// The record with the IDs in `replacements` (its own and those its relationships hold)
    /// replaced.
    func replacingIDs(_ replacements: [ManagedObjectID: ManagedObjectID]) -> StoreRecord {
        var record = self
        record.objectID = replacements[objectID] ?? objectID
        for index in record.values.indices {
            switch record.values[index] {
            case .toOne(let id?): if let new = replacements[id] { record.values[index] = .toOne(new) }
            case .toMany(let ids): record.values[index] = .toMany(ids.map { replacements[$0] ?? $0 })
            default: continue
            }
        }
        return record
    }
}

/// What one save asks a store to do, all or nothing.
///
/// Corresponds to Core Data's `NSSaveChangesRequest`.
public struct SaveChanges: Sendable {
    /// New records (version 1).
    public var inserted: [StoreRecord] = []
    /// Changed records, with the version they will have; `expectedVersions` holds the one the
    /// context read.
    public var updated: [StoreRecord] = []
    /// Records to delete.
    public var deleted: [ManagedObjectID] = []
    /// For each updated or deleted record, the version the saving context read: a store whose
    /// record has another version reports a conflict.
    public var expectedVersions: [ManagedObjectID: Int64] = [:]
    /// Who made the save and what each updated record changed, for stores that record
    /// persistent history (see ``PersistentHistoryStore``).
    public var history = HistoryDetails()

    /// An empty request.
    public init() {}

    /// Whether there is nothing to do.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
