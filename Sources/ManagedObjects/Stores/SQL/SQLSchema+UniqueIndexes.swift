import Foundation

extension SQLSchema {
    /// The prefix of the names of the unique indexes that enforce uniqueness constraints.
    static let uniqueIndexPrefix = "ZUNIQUE_"

    /// A unique index enforcing one uniqueness constraint.
    struct UniqueIndex {
        /// The index's name, unquoted: the prefix, the entity and the properties, so that a
        /// changed constraint is a different index.
        var name: String
        var table: String
        var columns: [String]
        /// `"Z_ENT" IN (…)` for a constraint of a subentity (the table holds its whole
        /// hierarchy); nil for a root entity's.
        var condition: String?
        var label: String
    }

    /// The unique indexes the uniqueness constraints of `model` need.
    ///
    /// PostgreSQL cuts names after 63 bytes: a longer name becomes the prefix, the start of the
    /// entity's name and a digest of the whole name, so that it is still one constraint's.
    func uniqueIndexes(model: ManagedObjectModel) -> [UniqueIndex] {
        var indexes: [UniqueIndex] = []
        for entity in model.entities {
            guard let mapping = entities[entity.name] else { continue }
            for constraint in entity.allUniquenessConstraints where constraint.entity === entity {
                let columns = constraint.properties.compactMap { property -> String? in
                    guard property.index < mapping.storage.count else { return nil }
                    switch mapping.storage[property.index] {
                    case .attribute(let column, _), .toOne(let column, _, _): return column
                    default: return nil
                    }
                }
                guard columns.count == constraint.properties.count else { continue }
                let condition = mapping.isRoot
                    ? nil : "\"Z_ENT\" IN (" + mapping.kindNames.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ") + ")"
                var name = Self.uniqueIndexPrefix + entity.name + "_" + constraint.names.joined(separator: "_")
                if dialect == .postgreSQL && name.utf8.count > 63 {
                    let digest = String(SHA256.hex(SHA256.hash(Array(name.utf8))).prefix(16))
                    name = Self.uniqueIndexPrefix + String(entity.name.prefix(20)) + "_" + digest
                }
                indexes.append(UniqueIndex(name: name, table: mapping.table, columns: columns, condition: condition, label: constraint.label))
            }
        }
        return indexes
    }
}

extension SQLMigrationDatabase {
    /// Brings the store's unique indexes in line with the uniqueness constraints of `model`
    /// (inside the caller's transaction): drops those of constraints the model no longer has,
    /// creates the missing ones. Uniqueness constraints are not part of the version hash, so
    /// this runs on every open.
    ///
    /// - Throws: ``PersistenceError/Code/migrationFailed`` naming the constraint and the
    ///   values when records already in the store share the values of a new constraint (the
    ///   caller's transaction then leaves the store as it was).
    func synchronizeUniqueIndexes(schema: SQLSchema, model: ManagedObjectModel, store: String) throws {
        let existing = try indexNames(withPrefix: SQLSchema.uniqueIndexPrefix)
        let wanted = schema.uniqueIndexes(model: model)
        let wantedNames = Set(wanted.map(\.name))
        for name in existing.sorted() where !wantedNames.contains(name) {
            try execute("DROP INDEX \(quoted(name))", [])
        }
        for index in wanted where !existing.contains(index.name) {
            let columns = index.columns.joined(separator: ", ")
            let filter = (index.columns.map { "\($0) IS NOT NULL" } + (index.condition.map { [$0] } ?? [])).joined(separator: " AND ")
            if let duplicate = try firstRow(
                "SELECT \(columns) FROM \(index.table) WHERE \(filter) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 1", []) {
                throw PersistenceError(
                    .migrationFailed,
                    message: "\(store) cannot take the uniqueness constraint \(index.label): records already share the values "
                        + duplicate.joined(separator: ", ") + "; remove the duplicates with the model that wrote them first")
            }
            try execute(
                "CREATE UNIQUE INDEX \(quoted(index.name)) ON \(index.table) (\(columns))" + (index.condition.map { " WHERE \($0)" } ?? ""), [])
        }
    }
}
