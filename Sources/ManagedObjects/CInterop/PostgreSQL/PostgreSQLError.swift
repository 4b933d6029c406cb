import Foundation

/// A failed libpq call: what kind of failure, the server's message and SQLSTATE, the server
/// (never the password) and the SQL that failed.
///
/// It stays inside the store: ``PostgreSQLStore`` turns it into a ``PersistenceError`` with
/// ``persistenceError(_:)`` before anything reaches a caller.
struct PostgreSQLError: Error, CustomStringConvertible {
    /// What failed.
    enum Kind: Sendable {
        /// The URL is not one the store can connect with.
        case invalidURL
        /// No connection could be made: no server, refused credentials, no such database.
        case connectionFailed
        /// The connection broke while a statement ran (server stopped or restarted, network).
        case connectionLost
        /// The server refused a statement.
        case statementFailed
        /// A value cannot cross to the server as it is (text holding NUL, say).
        case invalidValue
    }

    var kind: Kind
    /// The server's message, or the library's own.
    var message: String
    /// The five-character SQLSTATE the server reported (`40001`, `23505`, …), when it did.
    var sqlState: String?
    /// The statement that failed, when there is one.
    var sql: String?
    /// The server, as ``PostgreSQLConfiguration/serverDescription`` names it.
    var server: String?

    init(_ kind: Kind, message: String, sqlState: String? = nil, sql: String? = nil, server: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.sql = sql
        self.server = server
    }

    /// Whether the failure is the connection's (class 08, or the server shutting down): the
    /// store makes a new connection for the next operation.
    var isConnectionFailure: Bool {
        switch kind {
        case .connectionFailed, .connectionLost: return true
        case .statementFailed:
            guard let sqlState else { return false }
            return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
        case .invalidURL, .invalidValue: return false
        }
    }

    var description: String {
        "PostgreSQL error" + (sqlState.map { " \($0)" } ?? "") + (server.map { " (\($0))" } ?? "") + ": \(message)"
            + (sql.map { " [SQL: \($0)]" } ?? "")
    }

    /// The error as the store reports it: ``PersistenceError/Code/connectionFailed`` for a
    /// connection that could not be made or broke, ``PersistenceError/Code/invalidStore`` for
    /// a URL the store cannot use, ``PersistenceError/Code/constraintConflict`` for a save's row
    /// a unique index refuses, `code` otherwise; the message names the server.
    func persistenceError(_ code: PersistenceError.Code) -> PersistenceError {
        let reported: PersistenceError.Code
        switch kind {
        case .invalidURL: reported = .invalidStore
        case .connectionFailed, .connectionLost: reported = .connectionFailed
        case .statementFailed where isConnectionFailure: reported = .connectionFailed
        // A unique index refused a row of a save (unique_violation): another process saved
        // the same values of a uniqueness constraint since this one looked.
        case .statementFailed where code == .saveFailed && sqlState == "23505": reported = .constraintConflict
        case .statementFailed: reported = code
        case .invalidValue: reported = code
        }
        let place = server.map { "\($0): " } ?? ""
        let state = sqlState.map { " (SQLSTATE \($0))" } ?? ""
        return PersistenceError(reported, message: place + message + state, sql: sql)
    }
}

/// Runs `body`, turning a ``PostgreSQLError`` it throws into a ``PersistenceError`` with `code`.
func mappingPostgreSQLErrors<Result>(_ code: PersistenceError.Code, _ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as PostgreSQLError {
        throw error.persistenceError(code)
    }
}
