import Foundation

/// A PostgreSQL connection as lightweight migration (``SQLMigration``) and the unique-index
/// synchronization use it: the tables, columns and indexes of the connection's current schema.
struct PostgreSQLMigrationDatabase: SQLMigrationDatabase {
    let connection: PostgreSQLConnection
    var dialect: SQLDialect { .postgreSQL }

    func columnsByTable() throws -> [String: Set<String>] {
        let result = try connection.run(
            "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
                + "WHERE n.nspname = current_schema() AND c.relkind = 'r'")
        var columnsByTable: [String: Set<String>] = [:]
        for row in 0..<result.rowCount {
            guard let table = result.text(row, 0)?.uppercased() else { continue }
            var columns = columnsByTable[table] ?? []
            if let column = result.text(row, 1) { columns.insert(column.uppercased()) }
            columnsByTable[table] = columns
        }
        return columnsByTable
    }

    func declaredTypes(of table: String) throws -> [String: String] {
        let result = try connection.run(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
            [.text(unquoted(table))])
        var columns: [String: String] = [:]
        for row in 0..<result.rowCount {
            if let name = result.text(row, 0), let type = result.text(row, 1) { columns[name.uppercased()] = type.uppercased() }
        }
        return columns
    }

    func indexNames(withPrefix prefix: String) throws -> Set<String> {
        let result = try connection.run(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND left(indexname, $1::integer) = $2",
            [.text(String(prefix.count)), .text(prefix)])
        return Set((0..<result.rowCount).compactMap { result.text($0, 0) })
    }

    func execute(_ sql: String, _ parameters: [StoreValue]) throws {
        if parameters.isEmpty {
            try connection.execute(sql)
        } else {
            try connection.run(sql, parameters.map(PostgreSQLStore.parameter))
        }
    }

    func firstRow(_ sql: String, _ parameters: [StoreValue]) throws -> [String]? {
        let result = try connection.run(sql, parameters.map(PostgreSQLStore.parameter))
        guard result.rowCount > 0 else { return nil }
        return (0..<result.columnCount).map { result.text(0, $0) ?? "" }
    }
}
