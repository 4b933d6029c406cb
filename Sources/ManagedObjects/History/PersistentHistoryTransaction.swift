import Foundation

/// One save (or batch operation) as a store's persistent history recorded it: when, by whom,
/// from which context, and the change of each record.
///
/// ```swift
/// for transaction in try context.fetchHistory(.fetchHistory(after: lastToken)) {
///     print(transaction.timestamp, transaction.author ?? "-", transaction.changes.count)
///     context.mergeChanges(from: transaction)
///     lastToken = transaction.token
/// }
/// ```
///
/// A value: send it to any task. Turn it into the managed objects of a context with
/// ``ManagedObjectContext/mergeChanges(from:)-(PersistentHistoryTransaction)`` or, as in Core Data,
/// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)`` with ``objectIDNotification()``.
///
/// Corresponds to Core Data's `NSPersistentHistoryTransaction`; differences: a value, no
/// `bundleID` or `processID`.
public struct PersistentHistoryTransaction: Hashable, Sendable, CustomStringConvertible {
    /// The transaction's number in its store's history; numbers grow with every transaction.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.transactionNumber`.
    public var transactionNumber: Int64
    /// The identifier of the store that recorded it.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.storeID`.
    public var storeIdentifier: String
    /// When the store wrote it (the clock of the process that saved).
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.timestamp`.
    public var timestamp: Date
    /// The ``ManagedObjectContext/transactionAuthor`` of the context that saved, if it had one.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.author`.
    public var author: String?
    /// The ``ManagedObjectContext/name`` of the context that saved, if it had one.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.contextName`.
    public var contextName: String?
    /// The changes, in the order they were recorded: deletes, inserts, then updates.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.changes`.
    public var changes: [PersistentHistoryChange]

    /// Creates a transaction; stores make them.
    public init(
        transactionNumber: Int64, storeIdentifier: String, timestamp: Date, author: String?, contextName: String?,
        changes: [PersistentHistoryChange]
    ) {
        self.transactionNumber = transactionNumber
        self.storeIdentifier = storeIdentifier
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }

    /// The token that marks this transaction: fetch history after it for what came next.
    ///
    /// Corresponds to `NSPersistentHistoryTransaction.token`.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: transactionNumber)
    }

    /// The IDs of the records the transaction inserted.
    public var insertedObjectIDs: Set<ManagedObjectID> { objectIDs(.insert) }
    /// The IDs of the records the transaction updated.
    public var updatedObjectIDs: Set<ManagedObjectID> { objectIDs(.update) }
    /// The IDs of the records the transaction deleted.
    public var deletedObjectIDs: Set<ManagedObjectID> { objectIDs(.delete) }

    private func objectIDs(_ type: PersistentHistoryChangeType) -> Set<ManagedObjectID> {
        Set(changes.lazy.filter { $0.changeType == type }.map(\.changedObjectID))
    }

    /// A ``ManagedObjectContext/didSaveNotification`` holding only the transaction's object IDs
    /// (under ``ManagedObjectContext/insertedObjectIDsKey``,
    /// ``ManagedObjectContext/updatedObjectIDsKey`` and
    /// ``ManagedObjectContext/deletedObjectIDsKey``, each a `Set<ManagedObjectID>`), for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``. Its object is nil.
    ///
    /// Corresponds to `-[NSPersistentHistoryTransaction objectIDNotification]`.
    public func objectIDNotification() -> Notification {
        Notification(
            name: ManagedObjectContext.didSaveNotification, object: nil,
            userInfo: [
                ManagedObjectContext.insertedObjectIDsKey: insertedObjectIDs,
                ManagedObjectContext.updatedObjectIDsKey: updatedObjectIDs,
                ManagedObjectContext.deletedObjectIDsKey: deletedObjectIDs,
            ])
    }

    /// `"transaction 4 by importer (main) at <date>: 3 changes"`.
    public var description: String {
        var text = "transaction \(transactionNumber)"
        if let author { text += " by \(author)" }
        if let contextName { text += " (\(contextName))" }
        return text + " at \(timestamp): \(changes.count) change\(changes.count == 1 ? "" : "s")"
    }
}
