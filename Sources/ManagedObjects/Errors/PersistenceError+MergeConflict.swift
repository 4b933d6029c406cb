import Foundation

extension PersistenceError {
    /// The records of `changes` whose version in the store (`current` reads it; nil for a
    /// record no longer there) is not the one the save expects: the version the store's last
    /// `versions(of:)` call reported (`reported`), or without one, for an update the version
    /// before the record's, for a deletion the version the request expects. What a SQL store
    /// checks inside its save transaction, since another process may have written meanwhile.
    static func versionConflicts(
        in changes: SaveChanges, reported: [ManagedObjectID: Int64?], current: (ManagedObjectID) throws -> Int64?
    ) rethrows -> [Conflict] {
        var conflicts: [Conflict] = []
        func check(_ id: ManagedObjectID, fallback: Int64?) throws {
            let expected: Int64? = reported[id] ?? fallback
            let now = try current(id)
            if now != expected {
                conflicts.append(Conflict(objectID: id, oldVersion: changes.expectedVersions[id] ?? expected ?? 0, newVersion: now))
            }
        }
        for record in changes.updated {
            // The version a caller gives may be any number.
            let (previous, overflow) = record.version.subtractingReportingOverflow(1)
            try check(record.objectID, fallback: overflow ? nil : previous)
        }
        for id in changes.deleted { try check(id, fallback: changes.expectedVersions[id]) }
        return conflicts
    }

    /// The error a store's save throws for records another writer changed during the save,
    /// listed by ID.
    static func mergeConflicts(_ conflicts: [Conflict]) -> PersistenceError {
        let sorted = conflicts.sorted { $0.objectID.description < $1.objectID.description }
        return PersistenceError(
            .mergeConflict,
            message: "\(sorted.count) record\(sorted.count == 1 ? " was" : "s were") changed by another writer "
                + "during the save: " + sorted.map(\.description).joined(separator: "; "),
            conflicts: sorted)
    }
}
