import Foundation

/// How a model maps onto the tables of a SQL store (SQLite or PostgreSQL): one table per
/// inheritance hierarchy, a column per attribute and to-one relationship of the whole
/// hierarchy, order columns and join tables. Names are the same in both dialects; column
/// types and placeholders are the dialect's (``SQLDialect``).
///
/// The mapping is computed from the model alone, the same way on every open, so the store
/// keeps no description of it; the metadata table's version hashes say whether a file was
/// written with the same model.
///
/// - A table per root entity, `Z<NAME>`: `Z_PK` (the primary key), `Z_ENT` (the concrete
///   entity's name), `Z_OPT` (the record version), then a column per persistent attribute and
///   to-one relationship of every entity of the hierarchy (`Z<PROPERTY>`).
/// - A to-one relationship is its target's `Z_PK`, plus `Z<NAME>_ENT` (the target entity's
///   name) when the destination entity has subentities.
/// - A to-many relationship whose inverse is to-one is read from the inverse's column; when
///   it is ordered, the destination table holds each row's position, `Z_FOK_<INVERSE>`.
/// - Other to-many relationships (many-to-many, or without inverse) live in a join table
///   `Z_<ENTITY>_<RELATIONSHIP>` with `Z_1` (the owner), `Z_2` (the related row), and
///   `Z_1_ORDER`/`Z_2_ORDER` for the ordered sides. One table serves both sides of a pair.
struct SQLSchema: Sendable {
    /// The table of one inheritance hierarchy.
    struct Table: Sendable {
        /// The quoted table name.
        var name: String
        /// The root entity's name (the key of its `Z_PRIMARYKEY` row).
        var rootEntityName: String
        /// The quoted name of the sequence of the table's primary keys (PostgreSQL; nil in SQLite).
        var sequenceName: String?
        /// Column definitions after `Z_PK`, `Z_ENT`, `Z_OPT`: `("ZNAME", "TEXT")`.
        var columns: [(name: String, type: String)] = []
        /// Columns to index (foreign keys).
        var indexedColumns: [String] = []
        /// Every column name in the table, uppercased, to keep names unique.
        var usedNames: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

        mutating func addColumn(_ base: String, type: String, indexed: Bool = false) -> String {
            var name = base
            var suffix = 1
            while usedNames.contains(name.uppercased()) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            usedNames.insert(name.uppercased())
            columns.append((quoted(name), type))
            if indexed { indexedColumns.append(quoted(name)) }
            return quoted(name)
        }
    }

    /// A join table for a to-many relationship that is not read through an inverse column.
    struct JoinTable: Sendable {
        /// The quoted table name.
        var name: String
        /// The table of the rows in `Z_1` and of those in `Z_2`.
        var firstTable: String, secondTable: String
        /// Whether `Z_1_ORDER` / `Z_2_ORDER` exist.
        var firstOrdered: Bool, secondOrdered: Bool
    }

    /// Where one property's value lives.
    enum Storage: Sendable {
        /// Transient, or of a type the store does not keep.
        case none
        /// A column of the entity's table.
        case attribute(column: String, type: AttributeType)
        /// A foreign key, with the target's entity column when the destination has
        /// subentities (otherwise the target is always `destination`).
        case toOne(column: String, entityColumn: String?, destination: String)
        /// Rows of `table` whose `foreignKey` is the record's key, ordered by `orderColumn`.
        case toManyByInverse(table: String, foreignKey: String, orderColumn: String?)
        /// Rows of a join table; the record is in `ownColumn`, the related rows in
        /// `otherColumn` (in `otherTable`), its order in `orderColumn`.
        case toManyByJoin(join: String, ownColumn: String, otherColumn: String, orderColumn: String?, otherTable: String)
    }

    /// How one property is read from a row (positions in the table's SELECT list): a plain
    /// struct holding no reference that walking an entity's reads would retain and release,
    /// since decoding a row walks them once per row.
    struct Read: Sendable {
        enum Kind: UInt8, Sendable {
            /// An attribute's column.
            case attribute
            /// A to-one relationship's foreign key (and, with `entityPosition`, the column
            /// naming the target's entity).
            case toOne
            /// A to-many relationship, read by a statement of its own (no column).
            case toMany
        }
        let kind: Kind
        /// Whether NULL is refused (an attribute that is not optional).
        let isRequired: Bool
        /// The property's index.
        let index: Int
        /// The column's position in the row; unused for a to-many relationship.
        let position: Int32
        /// The position of the column naming a to-one's destination entity; -1 for none.
        let entityPosition: Int32
        /// How an attribute's column reads (`.none` for relationships).
        let decoding: Decoding
        /// A to-one's destination entity, unretained. SAFETY: the schema keeps every
        /// destination alive (`destinations`) for as long as its reads exist.
        ///
        /// `Unmanaged`, not `unowned(unsafe) let destination: EntityDescription?`: with such a
        /// field, Swift 6.3.1 gets the struct's spare bits wrong in unoptimized generic code,
        /// so that an array's iterator never returns nil (a debug build's decoding of a row
        /// looped on its last column forever; `FetchRegistrationTests` pins the walk).
        let unretainedDestination: Unmanaged<EntityDescription>?

        /// A to-one's destination entity; nil for other reads.
        var destination: EntityDescription? { unretainedDestination?.takeUnretainedValue() }

        static func attribute(index: Int, position: Int32, decoding: Decoding, isRequired: Bool) -> Read {
            Read(kind: .attribute, isRequired: isRequired, index: index, position: position, entityPosition: -1, decoding: decoding,
                 unretainedDestination: nil)
        }

        static func toOne(index: Int, position: Int32, entityPosition: Int32?, destination: EntityDescription) -> Read {
            Read(kind: .toOne, isRequired: false, index: index, position: position, entityPosition: entityPosition ?? -1,
                 decoding: .none, unretainedDestination: Unmanaged.passUnretained(destination))
        }

        static func toMany(index: Int) -> Read {
            Read(kind: .toMany, isRequired: false, index: index, position: -1, entityPosition: -1, decoding: .none,
                 unretainedDestination: nil)
        }
    }

    /// What an attribute's column may hold and how it reads, worked out once per entity so
    /// that reading a row switches over this enumeration instead of comparing attribute types.
    /// A value the store would not have written for the type (another storage class, a number
    /// outside the type, text that is not UTF-8 or not a number) is refused, never converted.
    enum Decoding: Sendable {
        /// An integer (a real only when it is one) from `min` to `max`.
        case integer(min: Int64, max: Int64)
        /// 0 or 1.
        case boolean
        /// A real, or an integer a `Double` holds exactly.
        case double
        /// A real or an integer within `Float`'s range.
        case float
        /// A real or an integer: seconds since the reference date.
        case date
        /// Text of a decimal number in plain notation (what `Decimal.description` writes).
        case decimal
        /// UTF-8 text.
        case string
        /// UTF-8 text that is a URL.
        case uri
        /// A blob.
        case data
        /// A blob of 16 bytes.
        case uuid
        /// A type the store keeps no column for.
        case none

        init(_ type: AttributeType) {
            switch type {
            case .integer16: self = .integer(min: Int64(Int16.min), max: Int64(Int16.max))
            case .integer32: self = .integer(min: Int64(Int32.min), max: Int64(Int32.max))
            case .integer64: self = .integer(min: .min, max: .max)
            case .boolean: self = .boolean
            case .double: self = .double
            case .float: self = .float
            case .date: self = .date
            case .decimal: self = .decimal
            case .string: self = .string
            case .uri: self = .uri
            case .binaryData, .transformable: self = .data
            case .uuid: self = .uuid
            default: self = .none
            }
        }
    }

    /// One entity's place in the schema.
    struct EntityMapping: Sendable {
        /// The quoted name of the hierarchy's table.
        var table: String
        /// The root entity's name.
        var rootEntityName: String
        /// The entity's name and those of every entity inheriting from it, for
        /// `includesSubentities`.
        var kindNames: [String]
        /// Whether the table holds only this entity and its subentities (it is the root).
        var isRoot: Bool
        /// Where each property lives, indexed like the entity's properties.
        var storage: [Storage]
        /// The columns written by INSERT/UPDATE of a record of this entity, with the property
        /// index and whether the column is a to-one's entity column.
        var writtenColumns: [(column: String, index: Int, isEntityColumn: Bool)]
        /// Whether saving a record writes more than its row: join-table rows or positions
        /// of ordered one-to-many relationships.
        var writesRelationships: Bool
        /// How to read each property from a row of the table's SELECT list, positions resolved.
        var reads: [Read] = []
        /// `INSERT INTO table (Z_PK, Z_ENT, Z_OPT, written columns…) VALUES (?, …)`.
        var insertSQL: String
        /// `UPDATE table SET Z_OPT = ?, written columns… = ? WHERE Z_PK = ?`.
        var updateSQL: String
    }

    /// The dialect of the statements.
    let dialect: SQLDialect
    var tables: [Table] = []
    var joinTables: [JoinTable] = []
    var entities: [String: EntityMapping] = [:]
    /// For each table: the column list every SELECT of its rows uses (`Z_PK`, `Z_ENT`,
    /// `Z_OPT`, then the columns) and each column's position in it.
    var selectLists: [String: (sql: String, positions: [String: Int32])] = [:]
    /// The destinations of the to-one reads, held for the reads, which do not retain them.
    private var destinations: [EntityDescription] = []

    /// Maps `model`, with `dialect`'s column types and placeholders.
    init(model: ManagedObjectModel, dialect: SQLDialect = .sqlite) {
        self.dialect = dialect
        var usedTableNames: Set<String> = ["Z_METADATA", "Z_PRIMARYKEY"]
        func tableName(_ base: String) -> String {
            var name = base
            var suffix = 1
            while usedTableNames.contains(name.uppercased()) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            usedTableNames.insert(name.uppercased())
            return quoted(name)
        }
        func root(of entity: EntityDescription) -> EntityDescription {
            var root = entity
            while let parent = root.superentity { root = parent }
            return root
        }

        // Tables, and the hierarchy of each entity.
        var tableIndex: [String: Int] = [:]  // root entity name -> index in tables
        for entity in model.entities where entity.superentity == nil {
            tableIndex[entity.name] = tables.count
            let name = tableName("Z" + entity.name.uppercased())
            // A sequence shares the namespace of tables in PostgreSQL.
            let sequence = dialect == .postgreSQL ? tableName("Z_SEQ_" + entity.name.uppercased()) : nil
            tables.append(Table(name: name, rootEntityName: entity.name, sequenceName: sequence))
        }
        func kinds(of entity: EntityDescription) -> [String] {
            [entity.name] + entity.subentities.flatMap(kinds(of:))
        }

        // Columns of attributes and to-one relationships, in model order of the declaring
        // entities, so that names are the same on every open.
        var columnOf: [ObjectIdentifier: String] = [:]
        var entityColumnOf: [ObjectIdentifier: String] = [:]
        for entity in model.entities {
            guard let index = tableIndex[root(of: entity).name] else { continue }
            for property in entity.ownProperties where !property.isTransient {
                let base = "Z" + property.name.uppercased()
                if let attribute = property as? AttributeDescription {
                    guard let type = dialect.columnType(attribute.attributeType) else { continue }
                    columnOf[ObjectIdentifier(property)] = tables[index].addColumn(base, type: type)
                } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                    columnOf[ObjectIdentifier(property)] = tables[index].addColumn(base, type: dialect.keyType, indexed: true)
                    if let destination = relationship.destinationEntity, !destination.subentityNames.isEmpty {
                        entityColumnOf[ObjectIdentifier(property)] = tables[index].addColumn(base + "_ENT", type: dialect.nameType)
                    }
                }
            }
        }

        // To-many relationships: an order column in the destination's table, or a join table.
        var toMany: [ObjectIdentifier: Storage] = [:]
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties
            where relationship.isToMany && !relationship.isTransient {
                guard let destination = relationship.destinationEntity,
                      let destinationIndex = tableIndex[root(of: destination).name],
                      let ownIndex = tableIndex[root(of: entity).name]
                else { continue }
                let inverse = relationship.inverseRelationship
                if let inverse, !inverse.isToMany, let foreignKey = columnOf[ObjectIdentifier(inverse)] {
                    var order: String?
                    if relationship.isOrdered {
                        order = tables[destinationIndex].addColumn("Z_FOK_" + inverse.name.uppercased(), type: dialect.keyType)
                    }
                    toMany[ObjectIdentifier(relationship)] = .toManyByInverse(
                        table: tables[destinationIndex].name, foreignKey: foreignKey, orderColumn: order)
                    continue
                }
                if let inverse, inverse !== relationship, let existing = toMany[ObjectIdentifier(inverse)],
                   case .toManyByJoin(let join, let own, let other, _, _) = existing {
                    // The second side of a pair: the same table, the columns swapped.
                    let order = relationship.isOrdered ? unquoted(other) + "_ORDER" : nil
                    if relationship.isOrdered, let position = joinTables.firstIndex(where: { $0.name == join }) {
                        joinTables[position].secondOrdered = true
                    }
                    toMany[ObjectIdentifier(relationship)] = .toManyByJoin(
                        join: join, ownColumn: other, otherColumn: own, orderColumn: order.map(quoted),
                        otherTable: tables[destinationIndex].name)
                    continue
                }
                let join = tableName("Z_" + entity.name.uppercased() + "_" + relationship.name.uppercased())
                joinTables.append(JoinTable(
                    name: join, firstTable: tables[ownIndex].name, secondTable: tables[destinationIndex].name,
                    firstOrdered: relationship.isOrdered, secondOrdered: false))
                toMany[ObjectIdentifier(relationship)] = .toManyByJoin(
                    join: join, ownColumn: quoted("Z_1"), otherColumn: quoted("Z_2"),
                    orderColumn: relationship.isOrdered ? quoted("Z_1_ORDER") : nil, otherTable: tables[destinationIndex].name)
            }
        }

        // Per-entity mappings.
        for entity in model.entities {
            let rootEntity = root(of: entity)
            guard let index = tableIndex[rootEntity.name] else { continue }
            var storage = [Storage](repeating: .none, count: entity.properties.count)
            var written: [(String, Int, Bool)] = []
            for property in entity.properties {
                let id = ObjectIdentifier(property)
                if let attribute = property as? AttributeDescription, let column = columnOf[id] {
                    storage[property.index] = .attribute(column: column, type: attribute.attributeType)
                    written.append((column, property.index, false))
                } else if let relationship = property as? RelationshipDescription {
                    if let column = columnOf[id] {
                        let entityColumn = entityColumnOf[id]
                        storage[property.index] = .toOne(
                            column: column, entityColumn: entityColumn, destination: relationship.destinationEntityName)
                        written.append((column, property.index, false))
                        if let entityColumn { written.append((entityColumn, property.index, true)) }
                    } else if let many = toMany[id] {
                        storage[property.index] = many
                    }
                }
            }
            let table = tables[index].name
            let names = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + written.map(\.0)
            // Untyped placeholders: PostgreSQL takes each one's type from its column.
            let placeholder = { (number: Int) in dialect.placeholder(number, for: nil) }
            let insertSQL = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES ("
                + names.indices.map { placeholder($0 + 1) }.joined(separator: ", ") + ")"
            let assignments = ["\"Z_OPT\" = \(placeholder(1))"] + written.enumerated().map { "\($1.0) = \(placeholder($0 + 2))" }
            let updateSQL = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = \(placeholder(written.count + 2))"
            let writesRelationships = storage.contains { storage in
                switch storage {
                case .toManyByJoin, .toManyByInverse(_, _, _?): true
                default: false
                }
            }
            entities[entity.name] = EntityMapping(
                table: table, rootEntityName: rootEntity.name, kindNames: kinds(of: entity),
                isRoot: entity.superentity == nil, storage: storage, writtenColumns: written,
                writesRelationships: writesRelationships, insertSQL: insertSQL, updateSQL: updateSQL)
        }
        for table in tables {
            let names = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + table.columns.map(\.name)
            let positions = Dictionary(names.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { first, _ in first })
            selectLists[table.name] = (names.map { table.name + "." + $0 }.joined(separator: ", "), positions)
        }
        for (name, mapping) in entities {
            guard let positions = selectLists[mapping.table]?.positions else { continue }
            var reads: [Read] = []
            for (index, storage) in mapping.storage.enumerated() {
                switch storage {
                case .attribute(let column, let type):
                    guard let position = positions[column], let entity = model.entity(named: name) else { break }
                    reads.append(.attribute(
                        index: index, position: position, decoding: Decoding(type), isRequired: !entity.properties[index].isOptional))
                case .toOne(let column, let entityColumn, let destination):
                    if let position = positions[column], let destination = model.entity(named: destination) {
                        destinations.append(destination)
                        reads.append(.toOne(
                            index: index, position: position, entityPosition: entityColumn.flatMap { positions[$0] },
                            destination: destination))
                    }
                case .toManyByInverse, .toManyByJoin:
                    reads.append(.toMany(index: index))
                case .none:
                    break
                }
            }
            entities[name]?.reads = reads
        }
    }

    /// The SELECT list of `table` (as `selectLists` gives it) in which only the keys (`Z_PK`,
    /// `Z_ENT`, `Z_OPT`) and the columns of the properties named `names`, of any entity whose
    /// records the table holds, are read; every other column reads as NULL. Positions stay
    /// those of `selectLists`, so the entities' reads apply unchanged (see `reads(_:of:holding:)`).
    func selectList(of table: String, holding names: Set<String>, model: ManagedObjectModel) -> String? {
        guard let columns = tables.first(where: { $0.name == table })?.columns else { return nil }
        var kept: Set<String> = []
        for (entityName, mapping) in entities where mapping.table == table {
            guard let entity = model.entity(named: entityName) else { continue }
            for (index, storage) in mapping.storage.enumerated()
            where entity.properties.indices.contains(index) && names.contains(entity.properties[index].name) {
                switch storage {
                case .attribute(let column, _):
                    kept.insert(column)
                case .toOne(let column, let entityColumn, _):
                    kept.insert(column)
                    if let entityColumn { kept.insert(entityColumn) }
                case .toManyByInverse, .toManyByJoin, .none:
                    break
                }
            }
        }
        let keys = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""].map { table + "." + $0 }
        return (keys + columns.map { kept.contains($0.name) ? table + "." + $0.name : "NULL" }).joined(separator: ", ")
    }

    /// `reads`, an entity's, without those of the properties not named in `names` (to-many
    /// relationships, which no column holds, stay): how a row read through
    /// `selectList(of:holding:model:)` decodes.
    static func reads(_ reads: [Read], of entity: EntityDescription, holding names: Set<String>) -> [Read] {
        reads.filter { read in
            read.kind == .toMany || (entity.properties.indices.contains(read.index) && names.contains(entity.properties[read.index].name))
        }
    }

    /// The statements that create the schema (tables and indexes), in order.
    var creationStatements: [String] {
        var statements: [String] = []
        for table in tables {
            if let sequence = table.sequenceName { statements.append("CREATE SEQUENCE \(sequence) AS bigint") }
            let key = dialect.keyType, name = dialect.nameType
            let columns = ["\"Z_PK\" \(key) PRIMARY KEY", "\"Z_ENT\" \(name) NOT NULL", "\"Z_OPT\" \(key) NOT NULL"]
                + table.columns.map { "\($0.name) \($0.type)" }
            statements.append("CREATE TABLE \(table.name) (\(columns.joined(separator: ", ")))")
            statements.append("CREATE INDEX \(quoted(unquoted(table.name) + "_Z_ENT")) ON \(table.name) (\"Z_ENT\")")
            for column in table.indexedColumns {
                statements.append(
                    "CREATE INDEX \(quoted(unquoted(table.name) + "_" + unquoted(column))) ON \(table.name) (\(column))")
            }
        }
        for join in joinTables {
            let key = dialect.keyType
            var columns = ["\"Z_1\" \(key) NOT NULL", "\"Z_2\" \(key) NOT NULL"]
            if join.firstOrdered { columns.append("\"Z_1_ORDER\" \(key)") }
            if join.secondOrdered { columns.append("\"Z_2_ORDER\" \(key)") }
            columns.append("PRIMARY KEY (\"Z_1\", \"Z_2\")")
            let rowid = dialect == .sqlite ? " WITHOUT ROWID" : ""
            statements.append("CREATE TABLE \(join.name) (\(columns.joined(separator: ", ")))\(rowid)")
            statements.append("CREATE INDEX \(quoted(unquoted(join.name) + "_Z_2")) ON \(join.name) (\"Z_2\", \"Z_1\")")
        }
        return statements
    }
}

/// `name` as an SQL identifier: in double quotes, with quotes inside doubled.
func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// The name inside a quoted identifier.
func unquoted(_ identifier: String) -> String {
    guard identifier.count >= 2, identifier.first == "\"", identifier.last == "\"" else { return identifier }
    return String(identifier.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
}
