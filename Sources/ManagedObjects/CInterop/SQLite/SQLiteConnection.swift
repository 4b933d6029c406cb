internal import CSQLite
import Foundation

/// An open SQLite database: owns the `sqlite3` handle and closes it in `deinit`, caches
/// prepared statements by SQL text, and runs transactions.
///
/// Not thread-safe: its owner (``SQLiteStore``) uses it under a lock.
final class SQLiteConnection {
    /// The database file's path.
    let path: String
    /// Counts (and optionally logs) the statements run.
    let trace = SQLiteTrace()
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements run once per object (a fault's row), by what they read: hashing the key's
    /// short name costs a fraction of hashing their SQL.
    private var keyedStatements: [StatementKey: SQLiteStatement] = [:]

    /// What a statement of ``cachedStatement(_:sql:)`` reads: its purpose, and the name of the
    /// entity whose rows it reads.
    struct StatementKey: Hashable {
        var purpose: Int
        var entityName: String
        /// The number of parameters, for statements made for several counts (`IN (?, …)`).
        var count: Int = 0
    }

    /// The most parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`: 32,766 since
    /// SQLite 3.32, 999 before).
    var parameterLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Opens (and with `create`, creates) the database at `path`, with extended result codes on.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    init(path: String, create: Bool = true) throws {
        var database: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &database, flags, nil)
        guard code == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(database)
            throw SQLiteError(resultCode: code, message: "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(database, 1)
        self.path = path
        self.handle = database
    }

    deinit {
        statements.removeAll()
        keyedStatements.removeAll()
        // close_v2 waits for statements that are still alive to be finalized.
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for another connection's lock before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements without parameters or results.
    ///
    /// - Throws: ``SQLiteError`` with the SQL.
    func execute(_ sql: String) throws {
        trace.record(sql)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(resultCode: code, message: text, sql: sql)
        }
    }

    /// A new prepared statement, owned by the caller.
    ///
    /// - Throws: ``SQLiteError`` when `sql` does not compile.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(database: handle, sql: sql, trace: trace)
    }

    /// The prepared statement for `sql`, compiled on first use and kept for the connection's
    /// life. The statement is reset by its run methods; do not keep it across calls that may
    /// use the same SQL.
    ///
    /// - Throws: ``SQLiteError`` when `sql` does not compile.
    func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// The prepared statement for `key`, compiled from `sql()` on first use and kept for the
    /// connection's life, as ``cachedStatement(_:)`` keeps statements by their SQL.
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    func cachedStatement(_ key: StatementKey, sql: () -> String) throws -> SQLiteStatement {
        if let statement = keyedStatements[key] { return statement }
        let statement = try cachedStatement(sql())
        keyedStatements[key] = statement
        return statement
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` takes the write lock at once, so that
    /// checks made inside stay true until `COMMIT`), rolling back when it throws.
    ///
    /// - Throws: what `body` throws, or ``SQLiteError`` from `BEGIN`/`COMMIT`.
    func transaction<Result>(immediate: Bool = true, _ body: () throws -> Result) throws -> Result {
        try cachedStatement(immediate ? "BEGIN IMMEDIATE" : "BEGIN").execute()
        do {
            let result = try body()
            try cachedStatement("COMMIT").execute()
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                try? cachedStatement("ROLLBACK").execute()
            }
            throw error
        }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }
}
