import Foundation
import Synchronization

/// Which records the saves through one coordinator changed, and when: the rows that its
/// contexts' faults keep from a fetch (or a batch, or a prefetch) are checked against it when
/// they fire, so that a fault whose record a sibling context updated or deleted and saved reads
/// the store instead of its stale row (the saved values, or
/// ``PersistenceError/Code/objectNotFound``).
///
/// Saves are numbered (generations). A row remembers the generation current before it was read
/// (``RowRead``); it is stale when a later save changed its record. Checking costs one atomic
/// load while no save happened since the read. The log keeps at most ``limit`` records: past
/// that it starts again, and rows read before are all treated as stale (read again from the
/// store, which is always right, only slower).
///
/// Corresponds to the part of Core Data's coordinator row cache that keeps sibling contexts'
/// faults from firing with outdated snapshots; differences: rows stay with the faults, and a
/// stale one is read again from the store instead of taken from the cache.
final class SavedRecordLog: Sendable {
    /// The most records remembered before the log starts again.
    static let limit = 100_000

    private struct State {
        /// Rows read before this generation are stale (the log started again after it).
        var floor: UInt64 = 0
        /// The last generation that changed each record.
        var changed: [ManagedObjectID: UInt64] = [:]
    }

    /// The number of the last save recorded; written only under `state`'s lock.
    private let generation = Atomic<UInt64>(0)
    private let state = Mutex(State())

    /// A stamp for rows about to be read.
    func read() -> RowRead {
        RowRead(generation: generation.load(ordering: .acquiring), uptime: ProcessInfo.processInfo.systemUptime)
    }

    /// Records a save that changed (updated or deleted) the records of `ids`; call it after the
    /// store wrote them.
    func recordSave(changing ids: some Collection<ManagedObjectID>) {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            let next = generation.load(ordering: .relaxed) &+ 1
            if state.changed.count + ids.count > Self.limit {
                state.changed = [:]
                state.floor = next
            } else {
                for id in ids { state.changed[id] = next }
            }
            generation.store(next, ordering: .releasing)
        }
    }

    /// Whether no save was recorded since the read of generation `generation`.
    func isCurrent(_ generation: UInt64) -> Bool { self.generation.load(ordering: .acquiring) == generation }

    /// Whether a save recorded since `read` changed the record of `id`.
    func isStale(_ id: ManagedObjectID, since read: RowRead) -> Bool {
        guard generation.load(ordering: .acquiring) != read.generation else { return false }
        return state.withLock { state in
            read.generation < state.floor || (state.changed[id] ?? 0) > read.generation
        }
    }
}

/// When a batch of rows was read: the save generation of the coordinator's
/// ``SavedRecordLog`` before the read, and the time (seconds of system uptime) for
/// ``ManagedObjectContext/stalenessInterval``. Shared by every row of one read.
package final class RowRead: Sendable {
    let generation: UInt64
    let uptime: TimeInterval
    /// For rows a fetch read only some columns of (``FetchRequest/propertiesToFetch``): the
    /// properties they hold. Nil for whole rows.
    let partial: PartialRowProperties?

    init(generation: UInt64, uptime: TimeInterval, partial: PartialRowProperties? = nil) {
        self.generation = generation
        self.uptime = uptime
        self.partial = partial
    }

    /// Whether these are partial rows holding the property at `index` of `entity`; false for
    /// whole rows.
    func partiallyHolds(_ index: Int, of entity: EntityDescription) -> Bool {
        partial?.holds(index, of: entity) ?? false
    }

    /// Whether the coordinator saved nothing since this read (of any record): the rows are then
    /// fresh without looking up their records (see `ManagedObjectContext.isFresh(_:of:)`).
    func isCurrent(in log: SavedRecordLog) -> Bool { log.isCurrent(generation) }

    /// The same read, of rows holding only `properties`.
    func holding(_ properties: PartialRowProperties) -> RowRead {
        RowRead(generation: generation, uptime: uptime, partial: properties)
    }
}

/// The properties the rows of a partial fetch hold (``FetchRequest/propertiesToFetch``): by
/// name, and by index for the fetched entity, whose rows are the usual ones.
package final class PartialRowProperties: Sendable {
    /// The names of the properties read.
    let names: Set<String>
    /// The fetched entity, and for each of its properties whether the rows hold it.
    private let entity: ObjectIdentifier
    private let held: [Bool]

    init(names: Set<String>, of entity: EntityDescription) {
        self.names = names
        self.entity = ObjectIdentifier(entity)
        held = entity.properties.map { names.contains($0.name) }
    }

    /// Whether a row of `entity` (the fetched one or a subentity) holds the property at `index`.
    func holds(_ index: Int, of entity: EntityDescription) -> Bool {
        if ObjectIdentifier(entity) == self.entity { return held.indices.contains(index) && held[index] }
        return entity.properties.indices.contains(index) && names.contains(entity.properties[index].name)
    }

}
