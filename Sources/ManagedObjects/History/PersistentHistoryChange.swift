import Foundation

/// What a change in persistent history did to its record.
///
/// Corresponds to Core Data's `NSPersistentHistoryChangeType` (same raw values).
public enum PersistentHistoryChangeType: Int, Hashable, Sendable, CustomStringConvertible {
    /// The record was inserted.
    case insert = 0
    /// The record was updated.
    case update = 1
    /// The record was deleted.
    case delete = 2

    /// `"insert"`, `"update"` or `"delete"`.
    public var description: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

/// One record's change in a ``PersistentHistoryTransaction``.
///
/// ```swift
/// for change in transaction.changes where change.changeType == .delete {
///     print(change.changedObjectID, change.tombstone?["name"] ?? .null)
/// }
/// ```
///
/// Corresponds to Core Data's `NSPersistentHistoryChange`; differences: a value (no
/// `transaction` back-reference: see ``transactionNumber``), ``updatedProperties`` holds
/// property names rather than descriptions, and ``tombstone`` holds ``StoreValue``s.
public struct PersistentHistoryChange: Hashable, Sendable, CustomStringConvertible {
    /// The change's number in its store's history; numbers grow with every change.
    ///
    /// Corresponds to `NSPersistentHistoryChange.changeID`.
    public var changeID: Int64
    /// The ID of the record inserted, updated or deleted.
    ///
    /// Corresponds to `NSPersistentHistoryChange.changedObjectID`.
    public var changedObjectID: ManagedObjectID
    /// What happened to the record.
    ///
    /// Corresponds to `NSPersistentHistoryChange.changeType`.
    public var changeType: PersistentHistoryChangeType
    /// For an update, the names of the persistent properties the saving context changed
    /// (relationships included; for a batch insert's related records, the to-many inverse that
    /// gained the new records); nil for inserts and deletes.
    ///
    /// Corresponds to `NSPersistentHistoryChange.updatedProperties`; differences: names.
    public var updatedProperties: Set<String>?
    /// For a delete, the values the record had of the entity's attributes that preserve their
    /// value in history on deletion (``AttributeDescription/preservesValueInHistoryOnDeletion``),
    /// by name (``StoreValue/null`` for no value); nil for inserts, updates, and entities with no
    /// such attribute.
    ///
    /// Corresponds to `NSPersistentHistoryChange.tombstone`; differences: typed store values.
    public var tombstone: [String: StoreValue]?
    /// The number of the transaction the change belongs to.
    public var transactionNumber: Int64

    /// Creates a change; stores make them.
    public init(
        changeID: Int64, changedObjectID: ManagedObjectID, changeType: PersistentHistoryChangeType,
        updatedProperties: Set<String>? = nil, tombstone: [String: StoreValue]? = nil, transactionNumber: Int64
    ) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.transactionNumber = transactionNumber
    }

    /// `"update Employee p3 (name, salary)"`.
    public var description: String {
        var text = "\(changeType) \(changedObjectID.entity.name) p\(changedObjectID.primaryKey ?? 0)"
        if let updatedProperties { text += " (" + updatedProperties.sorted().joined(separator: ", ") + ")" }
        if let tombstone {
            text += " [" + tombstone.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        }
        return text
    }
}
