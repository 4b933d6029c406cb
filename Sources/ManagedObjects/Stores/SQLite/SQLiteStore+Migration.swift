import Foundation

/// A SQLite connection as lightweight migration (``SQLMigration``) and the unique-index
/// synchronization use it.
struct SQLiteMigrationDatabase: SQLMigrationDatabase {
    let connection: SQLiteConnection
    var dialect: SQLDialect { .sqlite }

    func columnsByTable() throws -> [String: Set<String>] {
        var tableNames: [String] = []
        try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .forEachRow { tableNames.append($0.text(at: 0)) }
        var columnsByTable: [String: Set<String>] = [:]
        for name in tableNames {
            var columns = Set<String>()
            try connection.prepare("PRAGMA table_info(\(quoted(name)))").forEachRow { columns.insert($0.text(at: 1).uppercased()) }
            columnsByTable[name.uppercased()] = columns
        }
        return columnsByTable
    }

    func declaredTypes(of table: String) throws -> [String: String] {
        var columns: [String: String] = [:]
        try connection.prepare("PRAGMA table_info(\(table))").forEachRow {
            columns[$0.text(at: 1).uppercased()] = $0.text(at: 2).uppercased()
        }
        return columns
    }

    func indexNames(withPrefix prefix: String) throws -> Set<String> {
        var names: Set<String> = []
        try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, ?) = ?")
            .forEachRow([.integer(Int64(prefix.count)), .text(prefix)]) { names.insert($0.text(at: 0)) }
        return names
    }

    func execute(_ sql: String, _ parameters: [StoreValue]) throws {
        if parameters.isEmpty {
            try connection.execute(sql)
        } else {
            try connection.prepare(sql).execute(parameters.map(SQLiteStore.sqliteValue))
        }
    }

    func firstRow(_ sql: String, _ parameters: [StoreValue]) throws -> [String]? {
        var first: [String]?
        try connection.prepare(sql).forEachRow(parameters.map(SQLiteStore.sqliteValue)) { row in
            if first == nil { first = (0..<row.columnCount).map { row.text(at: $0) } }
        }
        return first
    }
}
