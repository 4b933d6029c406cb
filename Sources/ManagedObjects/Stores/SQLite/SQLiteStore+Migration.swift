import Foundation
import ModelObjects

extension SQLiteStore {
    /// Brings a store written with an earlier model up to `model` in place (inside the
    /// caller's transaction): lightweight migration, as Core Data infers it.
    ///
    /// What it does: creates the tables and join tables of new entities and relationships;
    /// adds a column for each new attribute (filled with its default value) and to-one
    /// relationship; renames tables, columns and stored entity names for entities and
    /// properties whose `renamingIdentifier` names the old one; leaves the columns of removed
    /// properties in place, unread; deletes the records of removed entities from the tables of
    /// hierarchies it keeps, with the references to them. Then it records the model's version
    /// hashes.
    ///
    /// A kept property may become optional; it may become required when it has a default
    /// value (records without a value take it) or when every record has a value.
    ///
    /// - Throws: ``PersistenceError/Code/migrationFailed`` for a change it cannot infer: a new
    ///   non-optional attribute without a default value (existing rows would break the rule); a
    ///   kept property whose attribute type, destination or cardinality changed (its stored
    ///   values would be misread; rename it through `renamingIdentifier` to a new property
    ///   instead); a property made required with records that have no value and no default.
    ///   Files written before shapes were recorded are checked on their columns' declared
    ///   types instead (an attribute whose column type changed is refused).
    static func migrate(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, storedEntities: Set<String>,
        metadata: [String: String], path: String
    ) throws {
        try checkKeptProperties(connection, schema: schema, model: model, storedEntities: storedEntities, metadata: metadata, path: path)
        var columnsByTable: [String: Set<String>] = [:]
        var tableNames: [String] = []
        try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .forEachRow { tableNames.append($0.text(at: 0)) }
        for name in tableNames {
            var columns = Set<String>()
            try connection.prepare("PRAGMA table_info(\(quoted(name)))").forEachRow { columns.insert($0.text(at: 1).uppercased()) }
            columnsByTable[name.uppercased()] = columns
        }
        let creation = schema.creationStatements
        func statements(for table: String) -> [String] {
            creation.filter { $0.hasPrefix("CREATE TABLE \(table) (") || $0.hasSuffix(" ON \(table) (\"Z_ENT\")") || $0.contains(" ON \(table) (") }
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
                    try connection.execute("ALTER TABLE \(quoted("Z" + old.uppercased())) RENAME TO \(table.name)")
                    columnsByTable[name.uppercased()] = columnsByTable.removeValue(forKey: ("Z" + old).uppercased())
                } else {
                    for statement in statements(for: table.name) { try connection.execute(statement) }
                    try connection.prepare("INSERT OR IGNORE INTO \"Z_PRIMARYKEY\" (\"Z_ENT\", \"Z_MAX\") VALUES (?, 0)")
                        .execute([.text(table.rootEntityName)])
                    continue
                }
            }
            var columns = columnsByTable[name.uppercased()] ?? []
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
                    try connection.execute("ALTER TABLE \(table.name) RENAME COLUMN \(quoted("Z" + old.uppercased())) TO \(column.name)")
                    columns.remove(("Z" + old).uppercased())
                    columns.insert(columnName.uppercased())
                    continue
                }
                if let attribute = property as? AttributeDescription, !attribute.isOptional, attribute.defaultValue == nil {
                    throw PersistenceError(
                        .migrationFailed,
                        message: "\(path): cannot add the non-optional attribute \(owner?.name ?? "?").\(attribute.name) "
                            + "without a default value (existing records would have none)")
                }
                try connection.execute("ALTER TABLE \(table.name) ADD COLUMN \(column.name) \(column.type)")
                columns.insert(columnName.uppercased())
                if let attribute = property as? AttributeDescription, let owner, let defaultValue = attribute.defaultValue,
                   let value = StoreValue(attributeValue: defaultValue, type: attribute.attributeType) {
                    let kinds = model.entities.filter { $0.isKindOf(entity: owner) }.map(\.name)
                    let placeholders = Array(repeating: "?", count: kinds.count).joined(separator: ", ")
                    try connection.prepare("UPDATE \(table.name) SET \(column.name) = ? WHERE \"Z_ENT\" IN (\(placeholders))")
                        .execute([sqliteValue(value)] + kinds.map { .text($0) })
                }
            }
            for indexed in table.indexedColumns {
                let index = quoted(name + "_" + unquoted(indexed))
                try connection.execute("CREATE INDEX IF NOT EXISTS \(index) ON \(table.name) (\(indexed))")
            }
            columnsByTable[name.uppercased()] = columns
        }
        for join in schema.joinTables where columnsByTable[unquoted(join.name).uppercased()] == nil {
            for statement in statements(for: join.name) { try connection.execute(statement) }
        }
        for (old, new) in renamedEntities {
            for table in schema.tables {
                try connection.prepare("UPDATE \(table.name) SET \"Z_ENT\" = ? WHERE \"Z_ENT\" = ?").execute([.text(new), .text(old)])
            }
            try connection.prepare("UPDATE \"Z_PRIMARYKEY\" SET \"Z_ENT\" = ? WHERE \"Z_ENT\" = ?").execute([.text(new), .text(old)])
        }
        let modelNames = Set(model.entities.map(\.name))
        let removed = storedEntities.subtracting(modelNames).subtracting(renamedEntities.map(\.old)).sorted()
        if !removed.isEmpty { try dropRecords(of: removed, connection, schema: schema) }

        try connection.execute(
            "DELETE FROM \"Z_METADATA\" WHERE \"Z_KEY\" LIKE 'entity.%' OR \"Z_KEY\" LIKE 'property.%' OR \"Z_KEY\" LIKE 'shape.%' OR \"Z_KEY\" = 'modelVersionHash'")
        let metadata = try connection.prepare("INSERT INTO \"Z_METADATA\" (\"Z_KEY\", \"Z_VALUE\") VALUES (?, ?)")
        try metadata.execute([.text(MetadataKey.modelVersionHash), .text(hex(model.versionHash))])
        for (key, value) in modelMetadataRows(model) { try metadata.execute([.text(key), .text(value)]) }
    }

    /// Refuses a to-many relationship made required while records of `kinds` have no member
    /// (`condition` selects them): no default can fill a relationship.
    private static func refuseEmptyToMany(
        _ connection: SQLiteConnection, entity: EntityDescription, property: PropertyDescription, path: String,
        kinds: [String], condition: String, table: String
    ) throws {
        let placeholders = Array(repeating: "?", count: kinds.count).joined(separator: ", ")
        var empty: Int64 = 0
        try connection.prepare("SELECT COUNT(*) FROM \(table) WHERE \"Z_ENT\" IN (\(placeholders)) AND \(condition)")
            .forEachRow(kinds.map { .text($0) }) { empty = $0.int64(at: 0) }
        guard empty > 0 else { return }
        throw PersistenceError(
            .migrationFailed,
            message: "\(path): \(entity.name).\(property.name) became required, but \(empty) record"
                + (empty == 1 ? " has" : "s have") + " no related object")
    }

    /// Deletes the rows of entities the model no longer has from the tables of hierarchies it
    /// keeps (they would name an unknown entity), then clears the foreign keys and join rows
    /// that referred to records no longer there.
    private static func dropRecords(of removed: [String], _ connection: SQLiteConnection, schema: SQLSchema) throws {
        let placeholders = Array(repeating: "?", count: removed.count).joined(separator: ", ")
        for table in schema.tables {
            try connection.prepare("DELETE FROM \(table.name) WHERE \"Z_ENT\" IN (\(placeholders))").execute(removed.map { .text($0) })
        }
        for mapping in schema.entities.values {
            for storage in mapping.storage {
                switch storage {
                case .toOne(let column, let entityColumn, let destination):
                    guard let target = schema.entities[destination]?.table else { continue }
                    let clear = ([column] + (entityColumn.map { [$0] } ?? [])).map { "\($0) = NULL" }.joined(separator: ", ")
                    try connection.execute(
                        "UPDATE \(mapping.table) SET \(clear) WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT \"Z_PK\" FROM \(target))")
                case .toManyByJoin(let join, let own, let other, _, let otherTable):
                    try connection.execute(
                        "DELETE FROM \(join) WHERE \(own) NOT IN (SELECT \"Z_PK\" FROM \(mapping.table)) "
                            + "OR \(other) NOT IN (SELECT \"Z_PK\" FROM \(otherTable))")
                default:
                    continue
                }
            }
        }
    }

    /// For a file that recorded no property shapes: refuses an attribute whose column exists
    /// with another declared type than the attribute's type takes (its values would be
    /// misread). `declaredTypes` caches each table's columns.
    private static func checkColumnType(
        of property: PropertyDescription, in entity: EntityDescription, _ connection: SQLiteConnection, schema: SQLSchema,
        declaredTypes: inout [String: [String: String]], path: String
    ) throws {
        guard let attribute = property as? AttributeDescription, !attribute.isTransient,
              let mapping = schema.entities[entity.name], attribute.index < mapping.storage.count,
              case .attribute(let column, let type) = mapping.storage[attribute.index],
              let expected = SQLDialect.sqlite.columnType(type)
        else { return }
        if declaredTypes[mapping.table] == nil {
            var columns: [String: String] = [:]
            try connection.prepare("PRAGMA table_info(\(mapping.table))").forEachRow {
                columns[$0.text(at: 1).uppercased()] = $0.text(at: 2).uppercased()
            }
            declaredTypes[mapping.table] = columns
        }
        let name = unquoted(column).uppercased()
        guard let declared = declaredTypes[mapping.table]?[name], declared != expected else { return }
        throw PersistenceError(
            .migrationFailed,
            message: "\(path): \(entity.name).\(property.name) is now \(type) (a \(expected) column), but the file keeps it in a "
                + "\(declared) column, which lightweight migration cannot convert; add a new property (or rename the old one "
                + "with renamingIdentifier)")
    }

    /// Refuses changes of a kept property's shape that would misread stored values, and fills
    /// the default into records without a value of a property made required.
    private static func checkKeptProperties(
        _ connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, storedEntities: Set<String>,
        metadata: [String: String], path: String
    ) throws {
        var declaredTypes: [String: [String: String]] = [:]
        for entity in model.entities where storedEntities.contains(entity.name) {
            for property in entity.ownProperties {
                guard let old = metadata[MetadataKey.shapePrefix + entity.name + "." + property.name] else {
                    try checkColumnType(
                        of: property, in: entity, connection, schema: schema, declaredTypes: &declaredTypes, path: path)
                    continue
                }
                var new = propertyShape(property)
                // A destination renamed through its renaming identifier is the same destination.
                if let renamed = (property as? RelationshipDescription)?.destinationEntity?.renamingIdentifier,
                   storedEntities.contains(renamed), old != new {
                    new = propertyShape(property, destinationName: renamed)
                }
                if old == new || old == "transient" || new == "transient" { continue }
                let oldKind = old.split(separator: "|").first.map(String.init) ?? old
                let newKind = new.split(separator: "|").first.map(String.init) ?? new
                guard oldKind == newKind else {
                    throw PersistenceError(
                        .migrationFailed,
                        message: "\(path): \(entity.name).\(property.name) changed from \(oldKind) to \(newKind), which lightweight "
                            + "migration cannot convert; add a new property (or rename the old one with renamingIdentifier)")
                }
                guard !property.isOptional, let mapping = schema.entities[entity.name], property.index < mapping.storage.count else {
                    continue
                }
                let kinds = model.entities.filter { $0.isKindOf(entity: entity) }.map(\.name)
                let placeholders = Array(repeating: "?", count: kinds.count).joined(separator: ", ")
                let column: String
                switch mapping.storage[property.index] {
                case .attribute(let name, _): column = name
                case .toOne(let name, _, _): column = name
                case .toManyByInverse(let table, let foreignKey, _):
                    try refuseEmptyToMany(
                        connection, entity: entity, property: property, path: path, kinds: kinds,
                        condition: "\"Z_PK\" NOT IN (SELECT \(foreignKey) FROM \(table) WHERE \(foreignKey) IS NOT NULL)",
                        table: mapping.table)
                    continue
                case .toManyByJoin(let join, let own, _, _, _):
                    try refuseEmptyToMany(
                        connection, entity: entity, property: property, path: path, kinds: kinds,
                        condition: "\"Z_PK\" NOT IN (SELECT \(own) FROM \(join))", table: mapping.table)
                    continue
                default: continue
                }
                let condition = "\(column) IS NULL AND \"Z_ENT\" IN (\(placeholders))"
                var missing: Int64 = 0
                try connection.prepare("SELECT COUNT(*) FROM \(mapping.table) WHERE \(condition)")
                    .forEachRow(kinds.map { .text($0) }) { missing = $0.int64(at: 0) }
                guard missing > 0 else { continue }
                guard let attribute = property as? AttributeDescription, let defaultValue = attribute.defaultValue,
                      let value = StoreValue(attributeValue: defaultValue, type: attribute.attributeType)
                else {
                    throw PersistenceError(
                        .migrationFailed,
                        message: "\(path): \(entity.name).\(property.name) became required, but \(missing) record"
                            + (missing == 1 ? " has" : "s have") + " no value and it has no default value")
                }
                try connection.prepare("UPDATE \(mapping.table) SET \(column) = ? WHERE \(condition)")
                    .execute([sqliteValue(value)] + kinds.map { .text($0) })
            }
        }
    }
}

extension StoreValue {
    /// A value of an attribute type as a store keeps it; nil when `value` is not of the type.
    init?(attributeValue value: Any, type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let integer = convertKeyValue(value, to: Int64.self) else { return nil }
            self = .integer(integer)
        case .double, .float:
            guard let double = convertKeyValue(value, to: Double.self) else { return nil }
            self = .double(double)
        case .decimal:
            guard let decimal = convertKeyValue(value, to: Decimal.self) else { return nil }
            self = .decimal(decimal)
        case .string:
            guard let string = value as? String else { return nil }
            self = .string(string)
        case .boolean:
            guard let bool = value as? Bool else { return nil }
            self = .boolean(bool)
        case .date:
            guard let date = value as? Date else { return nil }
            self = .date(date)
        case .binaryData:
            guard let data = value as? Data else { return nil }
            self = .data(data)
        case .uuid:
            guard let uuid = value as? UUID else { return nil }
            self = .uuid(uuid)
        case .uri:
            guard let url = value as? URL else { return nil }
            self = .uri(url)
        default:
            return nil
        }
    }
}
