import Foundation

/// What lightweight migration (``SQLMigration``) asks of a SQL store's connection, inside the
/// transaction the store opened: the SQL it runs is in the connection's ``SQLDialect``.
protocol SQLMigrationDatabase {
    /// The dialect of the statements the migration runs.
    var dialect: SQLDialect { get }
    /// Every table of the store with its column names, all uppercased.
    func columnsByTable() throws -> [String: Set<String>]
    /// The declared type of each column of `table` (a quoted name): names and types uppercased.
    func declaredTypes(of table: String) throws -> [String: String]
    /// The names of the indexes whose name starts with `prefix`.
    func indexNames(withPrefix prefix: String) throws -> Set<String>
    /// Runs `sql` with `parameters` bound to its placeholders in order.
    func execute(_ sql: String, _ parameters: [StoreValue]) throws
    /// The first row `sql` returns, each column as text (an empty string for NULL); nil without rows.
    func firstRow(_ sql: String, _ parameters: [StoreValue]) throws -> [String]?
}

extension SQLMigrationDatabase {
    /// The integer in the first column of the first row `sql` returns (a count); 0 without rows.
    func integer(_ sql: String, _ parameters: [StoreValue]) throws -> Int64 {
        try firstRow(sql, parameters)?.first.flatMap { Int64($0) } ?? 0
    }

    /// `count` placeholders separated by commas, numbered from `first`.
    func placeholders(_ count: Int, from first: Int = 1) -> String {
        (0..<count).map { dialect.placeholder(first + $0, for: nil) }.joined(separator: ", ")
    }
}
