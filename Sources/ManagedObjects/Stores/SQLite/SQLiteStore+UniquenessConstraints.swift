import Foundation

extension SQLiteStore {
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

    /// The unique indexes the model's uniqueness constraints need.
    static func uniqueIndexes(schema: SQLSchema, model: ManagedObjectModel) -> [UniqueIndex] {
        var indexes: [UniqueIndex] = []
        for entity in model.entities {
            guard let mapping = schema.entities[entity.name] else { continue }
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
                indexes.append(UniqueIndex(
                    name: uniqueIndexPrefix + entity.name + "_" + constraint.names.joined(separator: "_"), table: mapping.table,
                    columns: columns, condition: condition, label: constraint.label))
            }
        }
        return indexes
    }

    /// Brings the file's unique indexes in line with the model's uniqueness constraints
    /// (inside the caller's transaction): drops those of constraints the model no longer
    /// has, creates the missing ones.
    ///
    /// - Throws: ``PersistenceError/Code/migrationFailed`` naming the constraint and the
    ///   values when records already in the file share the values of a new constraint (the
    ///   caller's transaction then leaves the file as it was).
    static func synchronizeUniqueIndexes(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, path: String
    ) throws {
        var existing: Set<String> = []
        try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, ?) = ?")
            .forEachRow([.integer(Int64(uniqueIndexPrefix.count)), .text(uniqueIndexPrefix)]) { existing.insert($0.text(at: 0)) }
        let wanted = uniqueIndexes(schema: schema, model: model)
        let wantedNames = Set(wanted.map(\.name))
        for name in existing.sorted() where !wantedNames.contains(name) {
            try connection.execute("DROP INDEX \(quoted(name))")
        }
        for index in wanted where !existing.contains(index.name) {
            let columns = index.columns.joined(separator: ", ")
            let filter = (index.columns.map { "\($0) IS NOT NULL" } + (index.condition.map { [$0] } ?? [])).joined(separator: " AND ")
            var duplicate: [String] = []
            try connection.prepare("SELECT \(columns) FROM \(index.table) WHERE \(filter) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 1")
                .forEachRow { row in duplicate = index.columns.indices.map { row.text(at: Int32($0)) } }
            if !duplicate.isEmpty {
                throw PersistenceError(
                    .migrationFailed,
                    message: "\(path) cannot take the uniqueness constraint \(index.label): records already share the values "
                        + duplicate.joined(separator: ", ") + "; remove the duplicates with the model that wrote them first")
            }
            try connection.execute(
                "CREATE UNIQUE INDEX \(quoted(index.name)) ON \(index.table) (\(columns))" + (index.condition.map { " WHERE \($0)" } ?? ""))
        }
    }
}
