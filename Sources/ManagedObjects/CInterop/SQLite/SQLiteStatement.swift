internal import CSQLite
import Foundation

/// Counts and optionally records the statements a connection runs, for tests that pin the SQL
/// a store generates and check there is no N+1.
final class SQLiteTrace {
    // Counted on every statement run (a fault fired alone is one): the dynamic exclusivity
    // checks would cost more than the count. SAFETY: a trace belongs to one connection, used
    // under its store's lock, and no access to these properties spans a call that reaches them.

    /// Statements run since the connection opened (each execution counts once, however many
    /// rows it returns).
    @exclusivity(unchecked) var count = 0
    /// The SQL of each execution, in order, while non-nil.
    @exclusivity(unchecked) var log: [String]?

    func record(_ sql: String) {
        count += 1
        log?.append(sql)
    }
}

/// A prepared statement: owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// Not thread-safe: it is used under the lock of the store that owns its connection.
final class SQLiteStatement {
    /// The statement's SQL, attached to every error it reports.
    let sql: String
    private let handle: OpaquePointer
    private let database: OpaquePointer
    private let trace: SQLiteTrace
    /// Whether the statement has been stepped since it was prepared or reset.
    private var isRunning = false

    /// Compiles `sql` on `database`.
    ///
    /// - Throws: ``SQLiteError`` with the SQL when it does not compile.
    init(database: OpaquePointer, sql: String, trace: SQLiteTrace) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError(resultCode: code, message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        self.sql = sql
        self.handle = statement
        self.database = database
        self.trace = trace
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(resultCode: code, message: String(cString: sqlite3_errmsg(database)), sql: sql)
    }

    // MARK: - Binding (parameters are numbered from 1)

    /// Binds a value to the parameter at `index` (from 1).
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try check(sqlite3_bind_null(handle, index))
        case .integer(let value): try check(sqlite3_bind_int64(handle, index, value))
        case .real(let value): try check(sqlite3_bind_double(handle, index, value))
        case .text(let value): try bind(value, at: index)
        case .blob(let value): try bind(value, at: index)
        }
    }

    /// Binds an integer.
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Fails for values longer than SQLite's `Int32` lengths can say, instead of trapping.
    private func checkLength(_ count: Int) throws {
        guard count <= Int(Int32.max) else {
            throw SQLiteError(resultCode: SQLITE_TOOBIG, message: "a value of \(count) bytes is too big for SQLite", sql: sql)
        }
    }

    /// Binds a string, copied by SQLite.
    func bind(_ value: String, at index: Int32) throws {
        try checkLength(value.utf8.count)
        var value = value
        let code = value.withUTF8 { bytes in
            // An empty buffer may have no base address; SQLite then binds NULL, so give it "".
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, csqlite_transient()) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), csqlite_transient())
            }
        }
        try check(code)
    }

    /// Binds `count` bytes of UTF-8 text at `bytes` without SQLite copying them
    /// (`SQLITE_STATIC`): the bytes must stay valid and unchanged until the parameter is bound
    /// again or the bindings are cleared (`reset()`), and while the statement runs.
    func bindText(borrowing bytes: UnsafePointer<CChar>, count: Int, at index: Int32) throws {
        try checkLength(count)
        try check(sqlite3_bind_text(handle, index, bytes, Int32(count), nil))
    }

    /// Binds bytes, copied by SQLite; empty data binds an empty blob, not NULL.
    func bind(_ value: Data, at index: Int32) throws {
        if value.isEmpty {
            try check(sqlite3_bind_zeroblob(handle, index, 0))
            return
        }
        try checkLength(value.count)
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds `values` to parameters 1, 2, …
    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    /// Binds `keys` to parameters 1, 2, … (no `SQLiteValue` made for each).
    func bind(keys: some Collection<Int64>) throws {
        var index: Int32 = 1
        for key in keys {
            try check(sqlite3_bind_int64(handle, index, key))
            index += 1
        }
    }

    // MARK: - Running

    /// Runs the statement to its next row.
    ///
    /// - Returns: true when a row is available to the column readers, false when done.
    /// - Throws: ``SQLiteError`` with the SQL.
    func step() throws -> Bool {
        if !isRunning {
            isRunning = true
            trace.record(sql)
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            // The statement must be reset before it can run again; the reset repeats the code.
            sqlite3_reset(handle)
            isRunning = false
            throw error(code)
        }
    }

    /// Makes the statement ready to run again and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        isRunning = false
    }

    /// Resets, binds `values` and runs the statement to completion, ignoring rows.
    func execute(_ values: [SQLiteValue] = []) throws {
        reset()
        try bind(values)
        while try step() {}
        reset()
    }

    /// Makes the statement ready to run again, keeping its bindings: for a statement whose
    /// other parameters stay bound from one run to the next.
    func resetKeepingBindings() {
        sqlite3_reset(handle)
        isRunning = false
    }

    /// Resets, binds `keys` to parameters 1, 2, …, and calls `row` for each row.
    func forEachRow(keys: some Collection<Int64>, _ row: (SQLiteStatement) throws -> Void) throws {
        reset()
        defer { reset() }
        try bind(keys: keys)
        while try step() { try row(self) }
    }

    /// Resets, binds `values`, and calls `row` for each row.
    func forEachRow(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws -> Void) throws {
        reset()
        defer { reset() }
        try bind(values)
        while try step() { try row(self) }
    }

    // MARK: - Reading columns of the current row (numbered from 0)

    /// The number of result columns.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether the column holds NULL.
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// How the column's value is stored, which the readers below would convert.
    func storageClass(at index: Int32) -> SQLiteStorageClass {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// The column as an integer (SQLite converts other types).
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column as a primary key: an integer of at least 1 (the keys the stores hand out);
    /// nil for anything else, which SQLite would convert (text to 0, a real truncated).
    func key(at index: Int32) -> Int64? {
        column(at: index).key
    }

    /// The column at `index` of the current row, for reading its storage class and then its
    /// value with one call into the statement (each `sqlite3_column_*` call looks the column
    /// up again). Valid until the statement steps or resets.
    func column(at index: Int32) -> SQLiteColumn {
        SQLiteColumn(value: sqlite3_column_value(handle, index))
    }

    /// The column as a floating-point number (SQLite converts other types).
    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Whether the column is text whose bytes are `utf8`, compared without making a string.
    func textEquals(_ utf8: [UInt8], at index: Int32) -> Bool {
        column(at: index).textEquals(utf8)
    }

    /// The column as text; invalid UTF-8 is repaired, never trapped on.
    func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column as text when it is valid UTF-8; nil otherwise (no repair).
    func validText(at index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        let buffer = UnsafeBufferPointer(start: bytes, count: count)
        // ASCII (most text) is valid as it is; validating the rest costs more than decoding.
        if buffer.reduce(0, |) < 0x80 { return String(decoding: buffer, as: UTF8.self) }
        return String(validating: buffer, as: UTF8.self)
    }

    /// The column as bytes.
    func data(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column as it is stored.
    func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(data(at: index))
        default: .null
        }
    }
}

/// A column of a statement's current row as SQLite holds it (`sqlite3_column_value`): its
/// storage class and its value read without looking the column up again for each. The value
/// is SQLite's unprotected one, which the `sqlite3_value_*` readers may read on the thread
/// using the connection: connections are opened without a mutex of their own and used under
/// their store's lock, so that is always the case. Valid until the statement steps or resets.
struct SQLiteColumn {
    private let value: OpaquePointer?

    fileprivate init(value: OpaquePointer?) {
        self.value = value
    }

    /// How the value is stored, which the readers below would convert.
    var storageClass: SQLiteStorageClass {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// The value as an integer (SQLite converts other types).
    var int64: Int64 { sqlite3_value_int64(value) }

    /// The value as a floating-point number (SQLite converts other types).
    var double: Double { sqlite3_value_double(value) }

    /// The value as a primary key: an integer of at least 1; nil for anything else.
    var key: Int64? {
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        let key = sqlite3_value_int64(value)
        return key >= 1 ? key : nil
    }

    /// Whether the value is text whose bytes are `utf8`, compared without making a string.
    func textEquals(_ utf8: [UInt8]) -> Bool {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else { return false }
        let count = Int(sqlite3_value_bytes(value))
        guard count == utf8.count else { return false }
        return utf8.withUnsafeBufferPointer { expected in
            guard let base = expected.baseAddress else { return count == 0 }
            return memcmp(base, bytes, count) == 0
        }
    }

    /// The value as text when it is valid UTF-8; nil otherwise (no repair).
    var validText: String? {
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
        // ASCII (most text) is valid as it is; validating the rest costs more than decoding.
        if buffer.reduce(0, |) < 0x80 { return String(decoding: buffer, as: UTF8.self) }
        return String(validating: buffer, as: UTF8.self)
    }
}
