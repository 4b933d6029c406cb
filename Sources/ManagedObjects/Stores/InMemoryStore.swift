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
    public func apply(_ changes: SaveChanges) throws {
        state.withLock { state in
            historyLog?.record(changes, storeIdentifier: identifier) { state.records[$0] }
            for record in changes.inserted { state.records[record.objectID] = record }
            for record in changes.updated { state.records[record.objectID] = record.keepingOmittedRelationships(of: state.records[record.objectID]) }
            for id in changes.deleted { state.records[id] = nil }
        }
    }
}
