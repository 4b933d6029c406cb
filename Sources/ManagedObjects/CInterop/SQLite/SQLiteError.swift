internal import CSQLite
import Foundation

/// A failed SQLite call: the extended result code, SQLite's message and the SQL that failed.
///
/// It stays inside the store: ``SQLiteStore`` turns it into a ``PersistenceError`` with
/// ``persistenceError(_:)`` before anything reaches a caller.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_NOTADB`, …).
    var resultCode: Int32
    /// SQLite's message, or the library's own for failures found in Swift.
    var message: String
    /// The statement that failed, when there is one.
    var sql: String?

    /// The primary result code (the low byte of the extended one).
    var primaryCode: Int32 { resultCode & 0xFF }

    /// Whether the file is not a database or is damaged.
    var isInvalidFile: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    var description: String {
        "SQLite error \(resultCode): \(message)" + (sql.map { " [SQL: \($0)]" } ?? "")
    }

    /// The error as the store reports it: ``PersistenceError/Code/invalidStore`` marked as a
    /// corrupt file (bridged to 259) for a file that is not a database or is damaged, `code`
    /// otherwise, with the file, the SQL and the result code attached.
    func persistenceError(_ code: PersistenceError.Code, file: URL? = nil) -> PersistenceError {
        let prefix = isInvalidFile ? (file.map { "\($0.path) is not a valid SQLite store: " } ?? "") : ""
        // A unique index of a uniqueness constraint refused a row: Core Data's constraint conflict.
        let code = resultCode == SQLITE_CONSTRAINT | (8 << 8) ? .constraintConflict : code  // SQLITE_CONSTRAINT_UNIQUE
        return PersistenceError(
            isInvalidFile ? .invalidStore : code, message: prefix + "SQLite error \(resultCode): \(message)", sql: sql,
            fileURL: file, isCorruptFile: isInvalidFile, sqliteResultCode: Int(resultCode))
    }
}

/// Runs `body`, turning a ``SQLiteError`` it throws into a ``PersistenceError`` with `code`
/// naming `file`.
func mappingSQLiteErrors<Result>(
    _ code: PersistenceError.Code, file: URL? = nil, _ body: () throws -> Result
) throws -> Result {
    do {
        return try body()
    } catch let error as SQLiteError {
        throw error.persistenceError(code, file: file)
    }
}
