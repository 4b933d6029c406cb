import Foundation

/// What the SQL stores share for reading records by ID and for prefetching: grouping the keys by
/// table, and the shape of the query that reads a to-many relationship's related rows.
extension SQLSchema {
    /// The query that reads the rows a to-many relationship relates its owners to, with each
    /// owner's key: the related rows' `table`, what to select `from` (the table, or the table
    /// joined with the join table), the `ownerColumn` to compare with the owners' keys and
    /// select beside each row, and the `order` that keeps each owner's rows together and in
    /// the relationship's order.
    struct RelatedRowsQuery {
        var table: String
        var from: String
        var ownerColumn: String
        var order: String
    }

    /// The related-rows query of a to-many relationship kept as `storage`; nil for other
    /// storage.
    func relatedRowsQuery(_ storage: Storage) -> RelatedRowsQuery? {
        switch storage {
        case .toManyByInverse(let other, let foreignKey, let position):
            let ownerColumn = "\(other).\(foreignKey)"
            return RelatedRowsQuery(
                table: other, from: other, ownerColumn: ownerColumn,
                order: " ORDER BY \(ownerColumn), " + (position.map { "\(other).\($0), " } ?? "") + "\(other).\"Z_PK\"")
        case .toManyByJoin(let join, let own, let otherColumn, let position, let otherTable):
            return RelatedRowsQuery(
                table: otherTable, from: "\(otherTable) JOIN \(join) AS j ON j.\(otherColumn) = \(otherTable).\"Z_PK\"",
                ownerColumn: "j.\(own)",
                order: " ORDER BY j.\(own), " + (position.map { "j.\($0), " } ?? "") + "j.\(otherColumn)")
        default:
            return nil
        }
    }

    /// The records of the IDs among `objectIDs` that the store `storeIdentifier` gave and that
    /// `read` returns: the keys grouped by table (tables in name order), `read` called with
    /// each table and its keys, `chunkSize` keys at a time at most. Records `read` returns for
    /// other IDs (a row whose entity is not the ID's) are left out.
    func records(
        for objectIDs: [ManagedObjectID], storeIdentifier: String, chunkSize: Int = .max,
        read: (_ table: String, _ keys: ArraySlice<Int64>) throws -> [StoreRecord]
    ) rethrows -> [ManagedObjectID: StoreRecord] {
        var found: [ManagedObjectID: StoreRecord] = [:]
        found.reserveCapacity(objectIDs.count)
        // Only where a table's IDs name several entities: a row's record is wanted when an ID
        // names it with its own entity.
        var wanted: Set<ManagedObjectID>?
        try forEachKeyChunk(of: objectIDs, storeIdentifier: storeIdentifier, chunkSize: chunkSize) { table, keys, entity in
            for record in try read(table, keys) {
                // Records of another entity than the IDs' (a row whose entity is not the ID's) are left out.
                if let entity {
                    guard record.objectID.entity === entity || record.objectID.entity.name == entity.name else { continue }
                } else {
                    if wanted == nil { wanted = Set(objectIDs) }
                    guard wanted?.contains(record.objectID) == true else { continue }
                }
                found[record.objectID] = record
            }
        }
        return found
    }

    /// Calls `body` with the keys of the IDs among `objectIDs` that the store
    /// `storeIdentifier` gave, grouped by table (tables in name order), `chunkSize` keys at a
    /// time at most, with the one entity the table's IDs name (nil when they name several).
    func forEachKeyChunk(
        of objectIDs: [ManagedObjectID], storeIdentifier: String, chunkSize: Int = .max,
        _ body: (_ table: String, _ keys: ArraySlice<Int64>, _ entity: EntityDescription?) throws -> Void
    ) rethrows {
        // The IDs of one batch are usually of one entity: the last entity's table is kept at
        // hand, and keys are gathered in a run per table (one dictionary access per run, not
        // per ID), with the one entity each table's IDs name (nil once they name several).
        let store = StoreIdentity.interned(storeIdentifier).address
        var keysByTable: [String: (keys: [Int64], entity: EntityDescription?)] = [:]
        var run: (table: String, entity: EntityDescription, keys: [Int64])?
        func closeRun() {
            guard let run else { return }
            if var gathered = keysByTable[run.table] {
                gathered.keys += run.keys
                if let entity = gathered.entity, entity.name != run.entity.name { gathered.entity = nil }
                keysByTable[run.table] = gathered
            } else {
                keysByTable[run.table] = (run.keys, run.entity)
            }
        }
        for id in objectIDs where id.key.store == store {
            // Compared without binding a copy of `run`: a copy would share its keys' buffer and
            // make each append copy every key gathered so far.
            if run?.entity === id.entity {
                run?.keys.append(id.key.number)
                continue
            }
            guard let mapping = entities[id.entity.name] else { continue }
            if run?.table == mapping.table, run?.entity.name == id.entity.name {
                run?.keys.append(id.key.number)
                continue
            }
            closeRun()
            run = (mapping.table, id.entity, [id.key.number])
        }
        closeRun()
        let size = max(1, chunkSize)
        for (table, (keys, entity)) in keysByTable.sorted(by: { $0.key < $1.key }) {
            var start = 0
            while start < keys.count {
                let end = keys.count - start > size ? start + size : keys.count
                try body(table, keys[start..<end], entity)
                start = end
            }
        }
    }

    /// What prefetching `relationship`, a to-many relationship of `owners`, reads: `read` is
    /// called with the related-rows query and the owners' keys (the IDs the store
    /// `storeIdentifier` gave, in key order, `chunkSize` at a time at most) and returns the
    /// related records with the owner key of each. Nil for a relationship not kept in a
    /// foreign key or a join table.
    func relatedRecords(
        of owners: [ManagedObjectID], through relationship: RelationshipDescription, storeIdentifier: String, chunkSize: Int = .max,
        read: (_ query: RelatedRowsQuery, _ keys: ArraySlice<Int64>) throws -> (records: [StoreRecord], owners: [Int64])
    ) rethrows -> StoreRelatedRecords? {
        guard let owner = owners.first, let mapping = entities[owner.entity.name], relationship.index < mapping.storage.count,
              let query = relatedRowsQuery(mapping.storage[relationship.index])
        else { return nil }
        var ownersByKey: [Int64: ManagedObjectID] = [:]
        for id in owners where id.storeIdentifier == storeIdentifier { if let key = id.primaryKey { ownersByKey[key] = id } }
        let keys = ownersByKey.keys.sorted()
        var result = StoreRelatedRecords(records: [], relatedIDs: [:])
        // Grouped by the owner's key: hashing an integer per row, not an object ID.
        var relatedByKey: [Int64: [ManagedObjectID]] = [:]
        let size = max(1, chunkSize)
        var start = 0
        while start < keys.count {
            let end = keys.count - start > size ? start + size : keys.count
            let (records, ownerKeys) = try read(query, keys[start..<end])
            for (record, ownerKey) in zip(records, ownerKeys) { relatedByKey[ownerKey, default: []].append(record.objectID) }
            result.records += records
            start = end
        }
        for (key, ids) in relatedByKey { if let owner = ownersByKey[key] { result.relatedIDs[owner] = ids } }
        return result
    }
}
