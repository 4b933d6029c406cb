import Foundation
import Synchronization

/// A store that keeps its records in memory, for tests, caches and scratch graphs.
///
/// Corresponds to Core Data's `NSInMemoryStoreType`.
public final class InMemoryStore: PersistentStore {
    private struct State {
        var records: [ManagedObjectID: StoreRecord] = [:]
        var nextPrimaryKey: Int64 = 1
    }

    /// The store's unique identifier.
    public let identifier: String
    /// ``PersistentStoreType/inMemory``.
    public var type: PersistentStoreType { .inMemory }
    /// Nil: the store has no file.
    public var url: URL? { nil }
    private let state = Mutex(State())
    /// The persistent history, when the store records it.
    let historyLog: PersistentHistoryLog?

    /// Creates an empty store; with `tracksPersistentHistory`, one that records every save as
    /// a transaction of persistent history (see ``PersistentHistoryStore``).
    public init(identifier: String = UUID().uuidString, tracksPersistentHistory: Bool = false) {
        self.identifier = identifier
        historyLog = tracksPersistentHistory ? PersistentHistoryLog() : nil
    }

    /// Reserves `count` keys; keys are unique in the store across entities.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        state.withLock { state in
            let first = state.nextPrimaryKey
            state.nextPrimaryKey += Int64(count)
            return Array(first..<(first + Int64(count)))
        }
    }

    /// The record for `objectID`.
    public func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        state.withLock { $0.records[objectID] }
    }

    /// The records of `entity`, in primary-key order.
    public func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        let matching = state.withLock { state in
            state.records.values.filter { record in
                let recordEntity = record.objectID.entity
                return includesSubentities ? recordEntity.isKindOf(entity: entity) : recordEntity.name == entity.name
            }
        }
        return matching.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
    }

    /// The versions of the records that exist.
    public func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] {
        state.withLock { state in
            var versions: [ManagedObjectID: Int64] = [:]
            for id in objectIDs { if let record = state.records[id] { versions[id] = record.version } }
            return versions
        }
    }

    /// Writes the save, and records it in history when the store tracks history; cannot fail
    /// halfway.
    ///
    /// - Throws: ``PersistenceError/Code/constraintConflict`` when inserted or updated records
    ///   would share the values of a uniqueness constraint with others (nothing is written or
    ///   recorded).
    public func apply(_ changes: SaveChanges) throws {
        try state.withLock { state in
            // Tombstones need the deleted records as they were before the write.
            let deletedRecords = historyLog == nil ? [:] : Dictionary(
                changes.deleted.compactMap { id in state.records[id].map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
            // Written in place (no copy of every record per save); the records replaced are kept
            // to put back when a uniqueness constraint refuses the write.
            let checks = UniquenessConstraint.applies(to: changes)
            var replaced: [(ManagedObjectID, StoreRecord?)] = []
            func put(_ record: StoreRecord?, for id: ManagedObjectID) {
                if checks { replaced.append((id, state.records[id])) }
                state.records[id] = record
            }
            for id in changes.deleted { put(nil, for: id) }
            for record in changes.inserted { put(record, for: record.objectID) }
            for record in changes.updated { put(record.keepingOmittedRelationships(of: state.records[record.objectID]), for: record.objectID) }
            if checks {
                let conflicts = UniquenessConstraint.conflicts(in: state.records, touched: changes.inserted + changes.updated)
                guard conflicts.isEmpty else {
                    for (id, old) in replaced.reversed() { state.records[id] = old }
                    throw PersistenceError.constraintConflicts(conflicts, by: "in the in-memory store")
                }
            }
            historyLog?.record(changes, storeIdentifier: identifier) { deletedRecords[$0] }
        }
    }
}
