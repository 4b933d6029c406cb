internal import CLibPQ
import Foundation

/// An open connection to a PostgreSQL server: owns the `PGconn` and closes it in `deinit`,
/// prepares each statement once and runs it by name, and runs transactions.
///
/// Parameters go as text (binary for `bytea`); results come as text, or in binary format when
/// the caller asks (what the store's reads do: no number goes through text); see
/// ``PostgreSQLConfiguration`` for the session settings that make doubles read back exactly.
///
/// Not thread-safe: its owner (``PostgreSQLStore``) uses it under a lock.
final class PostgreSQLConnection {
    /// The server and database, without the password, for messages.
    let server: String
    /// Statements run since the connection opened (each execution counts once).
    private(set) var statementCount = 0
    /// The SQL of each execution, in order, while non-nil.
    var log: [String]?
    let handle: OpaquePointer
    /// Prepared statements by SQL text: their names on the server.
    private var prepared: [String: String] = [:]
    private var nextStatementNumber = 0
    /// How many prepared statements a connection keeps before it drops them all: SQL built
    /// for one list of keys is prepared once and seldom run again.
    private static let preparedLimit = 2_000

    /// Connects to the server `configuration` names.
    ///
    /// - Throws: ``PostgreSQLError`` with ``PostgreSQLError/Kind/connectionFailed`` and libpq's
    ///   message (no server, refused credentials, no such database), naming the server.
    init(configuration: PostgreSQLConfiguration) throws {
        server = configuration.serverDescription
        let parameters = configuration.connectionParameters
        let keywords = parameters.map { strdup($0.0) }, values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection: OpaquePointer? = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordPointers in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valuePointers in
                PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
            }
        }
        guard let connection else {
            throw PostgreSQLError(.connectionFailed, message: "libpq could not allocate a connection", server: server)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgreSQLError(.connectionFailed, message: message.isEmpty ? "cannot connect" : message, server: server)
        }
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is still up as far as libpq knows (it learns of a broken one
    /// when a statement fails).
    var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction is open (also a failed one, waiting for `ROLLBACK`).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The server's process ID for this connection (what `pg_terminate_backend` takes).
    var backendProcessID: Int32 { PQbackendPID(handle) }

    /// Runs statements without parameters (several, separated by semicolons), unprepared.
    ///
    /// - Throws: ``PostgreSQLError`` with the SQL.
    func execute(_ sql: String) throws {
        record(sql)
        guard let result = PQexec(handle, sql) else { throw failure(sql: sql) }
        _ = try check(PostgreSQLResult(handle: result, sql: sql))
    }

    /// Runs `sql` with `parameters` (`$1`, `$2`, …), preparing it on first use; the result's
    /// values come in `resultFormat`.
    ///
    /// - Throws: ``PostgreSQLError`` with the SQL: the server refused it, the connection broke,
    ///   or a text parameter holds NUL (which PostgreSQL's text cannot).
    @discardableResult
    func run(
        _ sql: String, _ parameters: [PostgreSQLParameter] = [], resultFormat: PostgreSQLResult.Format = .text
    ) throws -> PostgreSQLResult {
        let name = try statementName(sql)
        record(sql)
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = [], formats: [Int32] = []
        buffers.reserveCapacity(parameters.count)
        defer { buffers.forEach { $0?.deallocate() } }
        for parameter in parameters {
            switch parameter {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                let bytes = text.utf8CString
                guard bytes.dropLast().allSatisfy({ $0 != 0 }) else {
                    throw PostgreSQLError(
                        .invalidValue, message: "PostgreSQL text cannot hold the character U+0000", sql: sql, server: server)
                }
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
                bytes.withUnsafeBufferPointer { source in
                    if let base = source.baseAddress { buffer.initialize(from: base, count: bytes.count) }
                }
                buffers.append(buffer)
                lengths.append(0)
                formats.append(0)
            case .binary(let data):
                guard data.count <= Int(Int32.max) else {
                    throw PostgreSQLError(.invalidValue, message: "a value of \(data.count) bytes is too big for libpq", sql: sql, server: server)
                }
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(data.count, 1))
                data.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { buffer.initialize(from: base.assumingMemoryBound(to: CChar.self), count: data.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(data.count))
                formats.append(1)
            }
        }
        let pointers = buffers.map { $0.map { UnsafePointer($0) } }
        let result = pointers.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    PQexecPrepared(
                        handle, name, Int32(parameters.count), values.baseAddress, lengths.baseAddress, formats.baseAddress,
                        resultFormat.rawValue)
                }
            }
        }
        guard let result else { throw failure(sql: sql) }
        return try check(PostgreSQLResult(handle: result, sql: sql, format: resultFormat))
    }

    /// Runs `body` in a transaction, rolling back when it throws.
    ///
    /// - Throws: what `body` throws, or ``PostgreSQLError`` from `BEGIN`/`COMMIT`.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try run("BEGIN")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if isOpen && isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The name of the prepared statement for `sql`, preparing it first when needed.
    private func statementName(_ sql: String) throws -> String {
        if let name = prepared[sql] { return name }
        if prepared.count >= Self.preparedLimit && PQtransactionStatus(handle) != PQTRANS_INERROR {
            try execute("DEALLOCATE ALL")
            prepared = [:]
        }
        nextStatementNumber += 1
        let name = "mo_\(nextStatementNumber)"
        guard let result = PQprepare(handle, name, sql, 0, nil) else { throw failure(sql: sql) }
        _ = try check(PostgreSQLResult(handle: result, sql: sql))
        prepared[sql] = name
        return name
    }

    private func record(_ sql: String) {
        statementCount += 1
        log?.append(sql)
    }

    /// `result` when its statement succeeded; the error otherwise.
    private func check(_ result: PostgreSQLResult) throws -> PostgreSQLResult {
        let status = result.status
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY else { return result }
        let state = result.errorField(clibpq_diag_sqlstate())
        let message = result.errorField(clibpq_diag_message_primary()) ?? Self.trimmed(PQerrorMessage(handle))
        let kind: PostgreSQLError.Kind = isOpen ? .statementFailed : .connectionLost
        throw PostgreSQLError(kind, message: message, sqlState: state, sql: result.sql, server: server)
    }

    /// The error for a call that returned no result (out of memory, or a broken connection).
    private func failure(sql: String) -> PostgreSQLError {
        let message = Self.trimmed(PQerrorMessage(handle))
        return PostgreSQLError(isOpen ? .statementFailed : .connectionLost, message: message.isEmpty ? "no result" : message, sql: sql, server: server)
    }

    /// A libpq message without its trailing newline.
    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
