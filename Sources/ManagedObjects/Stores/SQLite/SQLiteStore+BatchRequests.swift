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
        values: [(attribute: AttributeDescription, value: StoreValue)]
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
                let ids = try matchingIDs(connection, table: table, condition: condition, bindings: plan.bindings)
                try connection.prepare(update).execute(bindings + plan.bindings)
                return ids
            }
        }
    }

    /// One transaction: the matching rows' keys, then one `DELETE`, when the entity and its
    /// subentities have no relationships (nothing else to change) and the whole predicate
    /// translates to SQL; nil otherwise.
    ///
    /// - Throws: ``PersistenceError/Code/operationFailed`` when SQLite fails.
    func batchDelete(entity: EntityDescription, includesSubentities: Bool, predicate: KeyValuePredicate?) throws -> [ManagedObjectID]? {
        var kinds = [entity]
        var next = 0
        while includesSubentities && next < kinds.count {
            kinds += kinds[next].subentities
            next += 1
        }
        guard kinds.allSatisfy({ $0.relationships.allSatisfy(\.isTransient) }) else { return nil }
        guard let plan = plan(StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate)) else {
            return []
        }
        guard plan.appliedPredicate else { return nil }
        let table = plan.mapping.table
        let condition = plan.condition.isEmpty ? "" : " WHERE " + plan.condition
        return try withPlan(plan) { state in
            let connection = state.connection
            return try connection.transaction {
                let ids = try matchingIDs(connection, table: table, condition: condition, bindings: plan.bindings)
                try connection.prepare("DELETE FROM \(table)" + condition).execute(plan.bindings)
                return ids
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
