import Foundation
import ModelObjects

/// Lightweight migration of a SQL store (SQLite or PostgreSQL), as Core Data infers it: brings a
/// store written with an earlier model up to the model of ``schema``, in place, inside the
/// transaction the store opened (so that a failure leaves the store as it was).
///
/// What it does: creates the tables and join tables of new entities and relationships;
/// adds a column for each new attribute (filled with its default value) and to-one
/// relationship; renames tables, columns and stored entity names for entities and
/// properties whose `renamingIdentifier` names the old one; leaves the columns of removed
/// properties in place, unread; deletes the records of removed entities from the tables of
/// hierarchies it keeps, with the references to them. Then it records the model's version
/// hashes (``SQLMetadata``).
///
/// A kept property may become optional; it may become required when it has a default
/// value (records without a value take it) or when every record has a value.
struct SQLMigration<Database: SQLMigrationDatabase> {
    let database: Database
    let schema: SQLSchema
    let model: ManagedObjectModel
    /// The entities the store was written with.
    let storedEntities: Set<String>
    /// The store's metadata rows.
    let metadata: [String: String]
    /// Names the store in errors (a path, a server).
    let store: String

    private var dialect: SQLDialect { database.dialect }

    /// Runs the migration.
    ///
    /// - Throws: ``PersistenceError/Code/migrationFailed`` for a change it cannot infer: a new
    ///   non-optional attribute without a default value (existing rows would break the rule); a
    ///   kept property whose attribute type, destination or cardinality changed (its stored
    ///   values would be misread; rename it through `renamingIdentifier` to a new property
    ///   instead); a property made required with records that have no value and no default.
    ///   Stores written before shapes were recorded are checked on their columns' declared
    ///   types instead (an attribute whose column type changed is refused). What the
    ///   connection throws for a statement the database refuses.
    func run() throws {
        try checkKeptProperties()
        var columnsByTable = try database.columnsByTable()
        let creation = schema.creationStatements
        func statements(for table: SQLSchema.Table?, named name: String) -> [String] {
            creation.filter { statement in
                statement.hasPrefix("CREATE TABLE \(name) (") || statement.contains(" ON \(name) (")
                    || table?.sequenceName.map { statement == "CREATE SEQUENCE \($0) AS bigint" } == true
            }
        }

        // Entities renamed: the model names the old entity in `renamingIdentifier`.
        var renamedEntities: [(old: String, new: String)] = []
        for entity in model.entities where !storedEntities.contains(entity.name) {
            if let old = entity.renamingIdentifier, storedEntities.contains(old) { renamedEntities.append((old, entity.name)) }
        }

        for table in schema.tables {
            let name = unquoted(table.name)
            if columnsByTable[name.uppercased()] == nil {
                let root = model.entity(named: table.rootEntityName)
                if let old = root?.renamingIdentifier, columnsByTable[("Z" + old).uppercased()] != nil {
                    try database.execute("ALTER TABLE \(quoted("Z" + old.uppercased())) RENAME TO \(table.name)", [])
                    if let sequence = table.sequenceName {
                        try database.execute("ALTER SEQUENCE IF EXISTS \(quoted("Z_SEQ_" + old.uppercased())) RENAME TO \(sequence)", [])
                    }
                    columnsByTable[name.uppercased()] = columnsByTable.removeValue(forKey: ("Z" + old).uppercased())
                } else {
                    for statement in statements(for: table, named: table.name) { try database.execute(statement, []) }
                    if dialect == .sqlite {
                        try database.execute(
                            "INSERT OR IGNORE INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, 0)", [.string(table.rootEntityName)])
                    }
                    continue
                }
            }
            columnsByTable[name.uppercased()] = try addColumns(of: table, to: columnsByTable[name.uppercased()] ?? [])
        }
        for join in schema.joinTables where columnsByTable[unquoted(join.name).uppercased()] == nil {
            for statement in statements(for: nil, named: join.name) { try database.execute(statement, []) }
        }
        for (old, new) in renamedEntities {
            let renaming = "SET \"Z_ENT\" = \(dialect.placeholder(1, for: nil)) WHERE \"Z_ENT\" = \(dialect.placeholder(2, for: nil))"
            for table in schema.tables {
                try database.execute("UPDATE \(table.name) \(renaming)", [.string(new), .string(old)])
            }
            if dialect == .sqlite {
                try database.execute("UPDATE \"Z_PRIMARYKEY\" \(renaming)", [.string(new), .string(old)])
            }
        }
        let modelNames = Set(model.entities.map(\.name))
        let removed = storedEntities.subtracting(modelNames).subtracting(renamedEntities.map(\.old)).sorted()
        if !removed.isEmpty { try dropRecords(of: removed) }

        try database.execute("DELETE FROM \"Z_METADATA\" WHERE \(SQLMetadata.modelRowsCondition)", [])
        let insert = "INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES (\(database.placeholders(2)))"
        for (key, value) in SQLMetadata.modelRows(model) { try database.execute(insert, [.string(key), .string(value)]) }
    }

    /// Adds the columns `table` lacks among `columns` (uppercased names): renamed from the
    /// column of the property a `renamingIdentifier` names, or new and filled with the
    /// attribute's default value; then the indexes of its foreign keys. Returns the columns.
    private func addColumns(of table: SQLSchema.Table, to existing: Set<String>) throws -> Set<String> {
        var columns = existing
        let name = unquoted(table.name)
        let hierarchy = model.entities.filter { entity in
            var root = entity
            while let parent = root.superentity { root = parent }
            return root.name == table.rootEntityName
        }
        for column in table.columns {
            let columnName = unquoted(column.name)
            if columns.contains(columnName.uppercased()) { continue }
            let owner = hierarchy.first { entity in
                entity.ownProperties.contains { "Z" + $0.name.uppercased() == columnName }
            }
            let property = owner?.ownProperties.first { "Z" + $0.name.uppercased() == columnName }
            if let old = property?.renamingIdentifier, columns.contains(("Z" + old).uppercased()) {
                try database.execute("ALTER TABLE \(table.name) RENAME COLUMN \(quoted("Z" + old.uppercased())) TO \(column.name)", [])
                columns.remove(("Z" + old).uppercased())
                columns.insert(columnName.uppercased())
                continue
            }
            if let attribute = property as? AttributeDescription, !attribute.isOptional, attribute.defaultValue == nil {
                throw PersistenceError(
                    .migrationFailed,
                    message: "\(store): cannot add the non-optional attribute \(owner?.name ?? "?").\(attribute.name) "
                        + "without a default value (existing records would have none)")
            }
            try database.execute("ALTER TABLE \(table.name) ADD COLUMN \(column.name) \(column.type)", [])
            columns.insert(columnName.uppercased())
            if let attribute = property as? AttributeDescription, let owner, let defaultValue = attribute.defaultValue,
               let value = StoreValue(attributeValue: defaultValue, type: attribute.attributeType) {
                let kinds = model.entities.filter { $0.isKindOf(entity: owner) }.map(\.name)
                try database.execute(
                    "UPDATE \(table.name) SET \(column.name) = \(dialect.placeholder(1, for: nil)) "
                        + "WHERE \"Z_ENT\" IN (\(database.placeholders(kinds.count, from: 2)))",
                    [value] + kinds.map { .string($0) })
            }
        }
        for indexed in table.indexedColumns {
            let index = quoted(name + "_" + unquoted(indexed))
            try database.execute("CREATE INDEX IF NOT EXISTS \(index) ON \(table.name) (\(indexed))", [])
        }
        return columns
    }

    /// Deletes the rows of entities the model no longer has from the tables of hierarchies it
    /// keeps (they would name an unknown entity), then clears the foreign keys and join rows
    /// that referred to records no longer there.
    private func dropRecords(of removed: [String]) throws {
        for table in schema.tables {
            try database.execute(
                "DELETE FROM \(table.name) WHERE \"Z_ENT\" IN (\(database.placeholders(removed.count)))", removed.map { .string($0) })
        }
        for mapping in schema.entities.values {
            for storage in mapping.storage {
                switch storage {
                case .toOne(let column, let entityColumn, let destination):
                    guard let target = schema.entities[destination]?.table else { continue }
                    let clear = ([column] + (entityColumn.map { [$0] } ?? [])).map { "\($0) = NULL" }.joined(separator: ", ")
                    try database.execute(
                        "UPDATE \(mapping.table) SET \(clear) WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT \"Z_PK\" FROM \(target))",
                        [])
                case .toManyByJoin(let join, let own, let other, _, let otherTable):
                    try database.execute(
                        "DELETE FROM \(join) WHERE \(own) NOT IN (SELECT \"Z_PK\" FROM \(mapping.table)) "
                            + "OR \(other) NOT IN (SELECT \"Z_PK\" FROM \(otherTable))",
                        [])
                default:
                    continue
                }
            }
        }
    }

    /// Refuses changes of a kept property's shape that would misread stored values, and fills
    /// the default into records without a value of a property made required.
    private func checkKeptProperties() throws {
        var declaredTypes: [String: [String: String]] = [:]
        for entity in model.entities where storedEntities.contains(entity.name) {
            for property in entity.ownProperties {
                guard let old = metadata[SQLMetadata.Key.shapePrefix + entity.name + "." + property.name] else {
                    try checkColumnType(of: property, in: entity, declaredTypes: &declaredTypes)
                    continue
                }
                var new = SQLMetadata.propertyShape(property)
                // A destination renamed through its renaming identifier is the same destination.
                if let renamed = (property as? RelationshipDescription)?.destinationEntity?.renamingIdentifier,
                   storedEntities.contains(renamed), old != new {
                    new = SQLMetadata.propertyShape(property, destinationName: renamed)
                }
                if old == new || old == "transient" || new == "transient" { continue }
                let oldKind = old.split(separator: "|").first.map(String.init) ?? old
                let newKind = new.split(separator: "|").first.map(String.init) ?? new
                guard oldKind == newKind else {
                    throw PersistenceError(
                        .migrationFailed,
                        message: "\(store): \(entity.name).\(property.name) changed from \(oldKind) to \(newKind), which lightweight "
                            + "migration cannot convert; add a new property (or rename the old one with renamingIdentifier)")
                }
                guard !property.isOptional else { continue }
                try fillRequired(property, of: entity)
            }
        }
    }

    /// For a property made required: refuses a to-many relationship some record has no member
    /// of, and fills the default value into records without a value (refusing an attribute
    /// without a default, or a to-one, when some record has none).
    private func fillRequired(_ property: PropertyDescription, of entity: EntityDescription) throws {
        guard let mapping = schema.entities[entity.name], property.index < mapping.storage.count else { return }
        let kinds = model.entities.filter { $0.isKindOf(entity: entity) }.map(\.name)
        let column: String
        switch mapping.storage[property.index] {
        case .attribute(let name, _): column = name
        case .toOne(let name, _, _): column = name
        case .toManyByInverse(let table, let foreignKey, _):
            try refuseEmptyToMany(
                entity: entity, property: property, kinds: kinds,
                condition: "\"Z_PK\" NOT IN (SELECT \(foreignKey) FROM \(table) WHERE \(foreignKey) IS NOT NULL)", table: mapping.table)
            return
        case .toManyByJoin(let join, let own, _, _, _):
            try refuseEmptyToMany(
                entity: entity, property: property, kinds: kinds, condition: "\"Z_PK\" NOT IN (SELECT \(own) FROM \(join))",
                table: mapping.table)
            return
        case .none:
            return
        }
        let condition = "\(column) IS NULL AND \"Z_ENT\" IN (\(database.placeholders(kinds.count, from: 1)))"
        let missing = try database.integer("SELECT COUNT(*) FROM \(mapping.table) WHERE \(condition)", kinds.map { .string($0) })
        guard missing > 0 else { return }
        guard let attribute = property as? AttributeDescription, let defaultValue = attribute.defaultValue,
              let value = StoreValue(attributeValue: defaultValue, type: attribute.attributeType)
        else {
            throw PersistenceError(
                .migrationFailed,
                message: "\(store): \(entity.name).\(property.name) became required, but \(missing) record"
                    + (missing == 1 ? " has" : "s have") + " no value and it has no default value")
        }
        let filling = "\(column) IS NULL AND \"Z_ENT\" IN (\(database.placeholders(kinds.count, from: 2)))"
        try database.execute(
            "UPDATE \(mapping.table) SET \(column) = \(dialect.placeholder(1, for: nil)) WHERE \(filling)", [value] + kinds.map { .string($0) })
    }

    /// Refuses a to-many relationship made required while records of `kinds` have no member
    /// (`condition` selects them): no default can fill a relationship.
    private func refuseEmptyToMany(
        entity: EntityDescription, property: PropertyDescription, kinds: [String], condition: String, table: String
    ) throws {
        let empty = try database.integer(
            "SELECT COUNT(*) FROM \(table) WHERE \"Z_ENT\" IN (\(database.placeholders(kinds.count))) AND \(condition)",
            kinds.map { .string($0) })
        guard empty > 0 else { return }
        throw PersistenceError(
            .migrationFailed,
            message: "\(store): \(entity.name).\(property.name) became required, but \(empty) record"
                + (empty == 1 ? " has" : "s have") + " no related object")
    }

    /// For a store that recorded no property shapes: refuses an attribute whose column exists
    /// with another declared type than the attribute's type takes (its values would be
    /// misread). `declaredTypes` caches each table's columns.
    private func checkColumnType(
        of property: PropertyDescription, in entity: EntityDescription, declaredTypes: inout [String: [String: String]]
    ) throws {
        guard let attribute = property as? AttributeDescription, !attribute.isTransient,
              let mapping = schema.entities[entity.name], attribute.index < mapping.storage.count,
              case .attribute(let column, let type) = mapping.storage[attribute.index],
              let expected = dialect.declaredType(type)
        else { return }
        if declaredTypes[mapping.table] == nil { declaredTypes[mapping.table] = try database.declaredTypes(of: mapping.table) }
        let name = unquoted(column).uppercased()
        guard let declared = declaredTypes[mapping.table]?[name], declared != expected else { return }
        throw PersistenceError(
            .migrationFailed,
            message: "\(store): \(entity.name).\(property.name) is now \(type) (a \(expected) column), but the store keeps it in a "
                + "\(declared) column, which lightweight migration cannot convert; add a new property (or rename the old one "
                + "with renamingIdentifier)")
    }
}

extension SQLMigrationDatabase {
    /// Compares the metadata rows of an existing store (`store` names it in errors) with the
    /// model of `schema` (``SQLMetadata/compare(_:with:schemaVersion:store:)``) and, when they
    /// differ, migrates the store if `migrate` is set (``SQLMigration``).
    ///
    /// - Returns: The store identifier.
    /// - Throws: ``PersistenceError/Code/invalidStore`` for metadata without identifier or layout
    ///   version; ``PersistenceError/Code/incompatibleModel`` for another model without `migrate`
    ///   (naming the entities and properties that differ); what ``SQLMigration/run()`` throws.
    func openExistingStore(
        metadata: [String: String], schema: SQLSchema, model: ManagedObjectModel, schemaVersion: Int, migrate: Bool, store: String
    ) throws -> String {
        let comparison = try SQLMetadata.compare(metadata, with: model, schemaVersion: schemaVersion, store: store)
        guard let difference = comparison.difference else { return comparison.identifier }
        guard migrate else {
            throw PersistenceError(.incompatibleModel, message: "\(store) was written with another model (\(difference))")
        }
        try SQLMigration(
            database: self, schema: schema, model: model, storedEntities: comparison.storedEntities, metadata: metadata, store: store
        ).run()
        return comparison.identifier
    }
}
