import Foundation

extension SQLSchema {
    /// The prefix of the names of the indexes that the model's fetch indexes ask for.
    static let fetchIndexPrefix = "ZINDEX_"

    /// An index one of the model's ``FetchIndexDescription``s asks for.
    struct FetchIndex {
        /// The index's name, unquoted: the prefix, the entity, the index's name and a digest of
        /// its definition, so that a changed index is a different one.
        var name: String
        var table: String
        /// The indexed columns, quoted, each with its order.
        var columns: [String]
    }

    /// The indexes the fetch indexes of `model` need, one per index of each entity, in its
    /// entity's table.
    func fetchIndexes(model: ManagedObjectModel) -> [FetchIndex] {
        var indexes: [FetchIndex] = []
        for entity in model.entities {
            guard let mapping = entities[entity.name] else { continue }
            for index in entity.indexes {
                let columns = index.elements.compactMap { element -> String? in
                    guard let property = entity.propertiesByName[element.propertyName], property.index < mapping.storage.count else {
                        return nil
                    }
                    switch mapping.storage[property.index] {
                    case .attribute(let column, _), .toOne(let column, _, _): return column + (element.isAscending ? " ASC" : " DESC")
                    default: return nil
                    }
                }
                guard columns.count == index.elements.count else { continue }
                let definition = mapping.table + "(" + columns.joined(separator: ", ") + ")"
                let digest = String(SHA256.hex(SHA256.hash(Array(definition.utf8))).prefix(8))
                var name = Self.fetchIndexPrefix + entity.name + "_" + index.name + "_" + digest
                // PostgreSQL cuts names after 63 bytes.
                if name.utf8.count > 63 {
                    let whole = String(SHA256.hex(SHA256.hash(Array(name.utf8))).prefix(16))
                    name = Self.fetchIndexPrefix + String(entity.name.prefix(20)) + "_" + whole
                }
                indexes.append(FetchIndex(name: name, table: mapping.table, columns: columns))
            }
        }
        return indexes
    }
}

extension SQLMigrationDatabase {
    /// Brings the store's fetch indexes in line with the fetch indexes of `model` (inside the
    /// caller's transaction): drops those the model no longer has (or has changed), creates the
    /// missing ones. Fetch indexes are not part of the version hash, so this runs on every open.
    ///
    /// - Throws: what the database throws.
    func synchronizeFetchIndexes(schema: SQLSchema, model: ManagedObjectModel) throws {
        let existing = try indexNames(withPrefix: SQLSchema.fetchIndexPrefix)
        let wanted = schema.fetchIndexes(model: model)
        let wantedNames = Set(wanted.map(\.name))
        for name in existing.sorted() where !wantedNames.contains(name) {
            try execute("DROP INDEX \(quoted(name))", [])
        }
        for index in wanted where !existing.contains(index.name) {
            try execute("CREATE INDEX \(quoted(index.name)) ON \(index.table) (\(index.columns.joined(separator: ", ")))", [])
        }
    }
}
