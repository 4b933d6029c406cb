internal import CSQLite
import Foundation

extension SQLiteConnection {
    /// Defines a deterministic SQL function of `argumentCount` arguments, answered by `body`
    /// on the connection's thread while a statement runs. It lives as long as the connection.
    ///
    /// `body` receives the arguments as ``SQLiteValue``s, as they are stored (text that is not
    /// valid UTF-8 as a blob of its bytes, never repaired); an error it throws fails the
    /// statement with the error's description.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the definition.
    func defineFunction(_ name: String, argumentCount: Int32, _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) throws {
        // SQLite holds the box until the connection closes, then calls `releaseFunctionBox`.
        let box = Unmanaged.passRetained(SQLiteFunctionBox(body)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box, callFunctionBox, nil, nil, releaseFunctionBox)
        guard code == SQLITE_OK else {
            // On failure SQLite has already called the destructor.
            throw SQLiteError(resultCode: code, message: "cannot define the SQL function \(name): " + String(cString: sqlite3_errmsg(handle)))
        }
    }
}

/// A Swift function SQL calls, kept alive by SQLite (see ``SQLiteConnection/defineFunction(_:argumentCount:_:)``).
private final class SQLiteFunctionBox {
    let body: ([SQLiteValue]) throws -> SQLiteValue

    init(_ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) {
        self.body = body
    }
}

/// SQLite's entry into a ``SQLiteFunctionBox``: reads the arguments, calls the body, sets the result.
private func callFunctionBox(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let context, let pointer = sqlite3_user_data(context) else { return }
    let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(pointer).takeUnretainedValue()
    var values: [SQLiteValue] = []
    values.reserveCapacity(Int(count))
    for index in 0..<Int(count) {
        values.append(sqliteValue(arguments?[index]))
    }
    do {
        switch try box.body(values) {
        case .null: sqlite3_result_null(context)
        case .integer(let integer): sqlite3_result_int64(context, integer)
        case .real(let real): sqlite3_result_double(context, real)
        case .text(let text): sqlite3_result_text(context, text, -1, csqlite_transient())
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                sqlite3_result_blob(context, bytes.baseAddress, Int32(bytes.count), csqlite_transient())
            }
        }
    } catch {
        sqlite3_result_error(context, "\(error)", -1)
    }
}

/// SQLite's release of a ``SQLiteFunctionBox`` when the function is dropped or the connection closes.
private func releaseFunctionBox(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<SQLiteFunctionBox>.fromOpaque(pointer).release()
}

/// A function argument as a Swift value: text that is not UTF-8 as a blob of its bytes.
private func sqliteValue(_ value: OpaquePointer?) -> SQLiteValue {
    guard let value else { return .null }
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
        guard let bytes = sqlite3_value_text(value) else { return .text("") }
        let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
        return String(validating: buffer, as: UTF8.self).map(SQLiteValue.text) ?? .blob(Data(buffer))
    case SQLITE_BLOB:
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
        return .blob(Data(bytes: bytes, count: count))
    default: return .null
    }
}
