import Foundation
import ModelObjects

extension SQLiteStore: BatchRequestExecuting {
    /// One transaction: the matching rows' keys (`SELECT`), then one `UPDATE` of their columns
    /// and versions, when the whole predicate translates to SQL; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` for a NaN value or a record at the
    ///   largest version; ``PersistenceError/Code/constraintConflict`` when a unique index
    ///   refuses the values; ``PersistenceError/Code/operationFailed`` when SQLite fails.
    func batchUpdate(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?,
        values: [(attribute: AttributeDescription, value: StoreValue)], history: SaveChanges.HistoryDetails
    ) throws -> [ManagedObjectID]? {
        guard let plan = plan(StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate)) else {
            return []
        }
        guard plan.appliedPredicate else { return nil }
        var assignments: [String] = []
        var bindings: [SQLiteValue] = []
        for (attribute, value) in values {
            guard attribute.index < plan.mapping.storage.count, case .attribute(let column, _) = plan.mapping.storage[attribute.index] else {
                return nil
            }
            let sqlite = Self.sqliteValue(value)
            if case .real(let real) = sqlite, real.isNaN {
                throw PersistenceError(
                    .saveFailed, message: "\(entity.name).\(attribute.name) cannot be set to NaN, which SQLite cannot keep", key: attribute.name)
            }
            assignments.append("\(column) = ?")
            bindings.append(sqlite)
        }
        let table = plan.mapping.table
        let condition = plan.condition.isEmpty ? "" : " WHERE " + plan.condition
        let update = "UPDATE \(table) SET " + (assignments + ["\"Z_OPT\" = \"Z_OPT\" + 1"]).joined(separator: ", ") + condition
        return try withPlan(plan) { state in
            let connection = state.connection
            return try connection.transaction {
                let ids = try matchingIDs(connection, table: table, condition: condition, bindings: plan.sqliteBindings)
                let names = Set(values.map(\.attribute.name))
                try recordHistory(
                    deleted: [], inserted: [], updated: ids.map { ($0, names) }, author: history.author, contextName: history.contextName,
                    connection)
                try connection.prepare(update).execute(bindings + plan.sqliteBindings)
                return ids
            }
        }
    }

    /// One transaction when the whole predicate translates to SQL and no relationship of the
    /// entity or its subentities cascades or denies: the keys of the matching rows go into a
    /// temporary table; then, for each relationship that nullifies, the related rows lose
    /// their references to them and get a new version (foreign keys set to NULL, join-table
    /// rows deleted, the records whose to-many relationship loses members raised); then one
    /// `DELETE`. Nil otherwise (the context follows the delete rules record by record).
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` for a related record at the largest
    ///   version; ``PersistenceError/Code/operationFailed`` when SQLite fails.
    func batchDelete(
        entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?, history: SaveChanges.HistoryDetails
    ) throws -> (deleted: [ManagedObjectID], updated: [ManagedObjectID])? {
        var kinds = [entity]
        var next = 0
        while includesSubentities && next < kinds.count {
            kinds += kinds[next].subentities
            next += 1
        }
        guard let plan = plan(StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate)) else {
            return ([], [])
        }
        guard plan.appliedPredicate else { return nil }
        let table = plan.mapping.table
        let doomed = "SELECT \"pk\" FROM temp.\"Z_BATCH_DELETED\""
        /// Rows of other records a relationship's rule changes: their table, which rows, the
        /// columns set to NULL (besides the version raised), and the relationship of theirs that
        /// changes (for persistent history).
        var touches: [(table: String, condition: String, cleared: [String], property: String)] = []
        var joinRows: [String] = []
        var seen = Set<ObjectIdentifier>()
        for kind in kinds {
            guard let mapping = schema.entities[kind.name] else { return nil }
            for relationship in kind.relationships where !relationship.isTransient && seen.insert(ObjectIdentifier(relationship)).inserted {
                guard relationship.deleteRule != .cascade && relationship.deleteRule != .deny else { return nil }
                guard relationship.index < mapping.storage.count else { return nil }
                let nullifies = relationship.deleteRule == .nullify && relationship.inverseRelationship != nil
                let changedProperty = relationship.inverseRelationship?.name ?? ""
                var inverseStorage: SQLSchema.Storage = .none
                var destinationTable = ""
                if let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity,
                   let destinationMapping = schema.entities[destination.name], inverse.index < destinationMapping.storage.count {
                    inverseStorage = destinationMapping.storage[inverse.index]
                    destinationTable = destinationMapping.table
                }
                switch mapping.storage[relationship.index] {
                case .toOne(let column, _, _):
                    guard nullifies else { continue }
                    let targets = "\"Z_PK\" IN (SELECT \(column) FROM \(table) WHERE \"Z_PK\" IN (\(doomed)))"
                    switch inverseStorage {
                    case .toManyByInverse:
                        touches.append((destinationTable, targets, [], changedProperty))
                    case .toOne(let back, let backEntity, _):
                        touches.append((destinationTable, targets, [back] + (backEntity.map { [$0] } ?? []), changedProperty))
                    default:
                        return nil
                    }
                case .toManyByInverse(let other, let foreignKey, let order):
                    guard nullifies else { continue }
                    guard case .toOne(_, let entityColumn, _) = inverseStorage else { return nil }
                    touches.append((other, "\(foreignKey) IN (\(doomed))", [foreignKey] + [order, entityColumn].compactMap { $0 }, changedProperty))
                case .toManyByJoin(let join, let own, let other, _, let otherTable):
                    if nullifies {
                        touches.append((otherTable, "\"Z_PK\" IN (SELECT \(other) FROM \(join) WHERE \(own) IN (\(doomed)))", [], changedProperty))
                    }
                    joinRows.append("DELETE FROM \(join) WHERE \(own) IN (\(doomed))")
                case .attribute, .none:
                    continue
                }
            }
        }
        let condition = plan.condition.isEmpty ? "" : " WHERE " + plan.condition
        return try withPlan(plan) { state in
            let connection = state.connection
            return try connection.transaction {
                if touches.isEmpty && joinRows.isEmpty {
                    // Nothing else changes: the rows' keys, then one DELETE.
                    let deleted = try matchingIDs(connection, table: table, condition: condition, bindings: plan.sqliteBindings)
                    // Before the rows go: their tombstones are copied from them.
                    try recordHistory(
                        deleted: deleted, inserted: [], updated: [], author: history.author, contextName: history.contextName, connection)
                    try connection.prepare("DELETE FROM \(table)" + condition).execute(plan.sqliteBindings)
                    return (deleted, [])
                }
                // The rows to delete, fixed before anything changes what the predicate reads.
                try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \"Z_BATCH_DELETED\" (\"pk\" INTEGER PRIMARY KEY)")
                try connection.execute("DELETE FROM temp.\"Z_BATCH_DELETED\"")
                try connection.prepare("INSERT INTO temp.\"Z_BATCH_DELETED\" SELECT \"Z_PK\" FROM \(table)" + condition).execute(plan.sqliteBindings)
                let deleted = try matchingIDs(connection, table: table, condition: " WHERE \"Z_PK\" IN (\(doomed))", bindings: [])
                var updated: [ManagedObjectID] = []
                var changedProperties: [ManagedObjectID: Set<String>] = [:]
                for touch in touches {
                    let touched = try matchingIDs(connection, table: touch.table, condition: " WHERE " + touch.condition, bindings: [])
                    for id in touched { changedProperties[id, default: []].insert(touch.property) }
                    updated += touched
                    let sets = touch.cleared.map { "\($0) = NULL" } + ["\"Z_OPT\" = \"Z_OPT\" + 1"]
                    try connection.execute("UPDATE \(touch.table) SET " + sets.joined(separator: ", ") + " WHERE " + touch.condition)
                }
                for sql in joinRows { try connection.execute(sql) }
                let gone = Set(deleted)
                var kept = Set<ManagedObjectID>()
                let changed = updated.filter { !gone.contains($0) && kept.insert($0).inserted }
                // Before the rows go: their tombstones are copied from them.
                try recordHistory(
                    deleted: deleted, inserted: [], updated: changed.map { ($0, changedProperties[$0] ?? []) },
                    author: history.author, contextName: history.contextName, connection)
                try connection.execute("DELETE FROM \(table) WHERE \"Z_PK\" IN (\(doomed))")
                try connection.execute("DELETE FROM temp.\"Z_BATCH_DELETED\"")
                return (deleted, changed)
            }
        }
    }

    /// The IDs of the rows of `table` that meet `condition`.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` for a row whose key or entity the
    ///   store did not write; ``PersistenceError/Code/saveFailed`` for a row at the largest
    ///   version, which cannot be raised.
    private func matchingIDs(_ connection: SQLiteConnection, table: String, condition: String, bindings: [SQLiteValue]) throws -> [ManagedObjectID] {
        let sql = "SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\" FROM \(table)" + condition
        var ids: [ManagedObjectID] = []
        var last: (name: String, entity: EntityDescription)?
        try connection.prepare(sql).forEachRow(bindings) { row in
            guard let key = row.key(at: 0) else {
                throw PersistenceError(.operationFailed, message: "a row of \(table) has no valid Z_PK", sql: sql)
            }
            let name = row.text(at: 1)
            let entity: EntityDescription
            if let last, last.name == name {
                entity = last.entity
            } else {
                guard let found = model.entity(named: name), schema.entities[name]?.table == table else {
                    throw PersistenceError(.operationFailed, message: "row \(key) of \(table) names an entity it cannot hold: \(name)", sql: sql)
                }
                entity = found
                last = (name, found)
            }
            let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: identifier, primaryKey: key))
            if row.int64(at: 2) == .max {
                throw PersistenceError(
                    .saveFailed, message: "the record version of \(id) is the largest there is: it cannot be changed again", objectID: id)
            }
            ids.append(id)
        }
        return ids
    }
}
