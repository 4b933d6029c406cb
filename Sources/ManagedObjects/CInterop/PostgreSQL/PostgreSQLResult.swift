internal import CLibPQ
import Foundation

/// The rows of a statement, in text format: owns the `PGresult` and clears it in `deinit`.
///
/// Not thread-safe: it is used under the lock of the store that owns its connection.
final class PostgreSQLResult {
    /// The statement's SQL, for the errors its readers report.
    let sql: String
    private let handle: OpaquePointer
    /// The number of rows.
    let rowCount: Int32
    /// The number of columns.
    let columnCount: Int32

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
        rowCount = PQntuples(handle)
        columnCount = PQnfields(handle)
    }

    deinit {
        PQclear(handle)
    }

    /// The result's status.
    var status: ExecStatusType { PQresultStatus(handle) }

    /// A diagnostic field of a failed result (SQLSTATE, primary message).
    func errorField(_ field: Int32) -> String? {
        PQresultErrorField(handle, field).map { String(cString: $0) }
    }

    /// The number of rows an INSERT, UPDATE or DELETE changed.
    var changedRowCount: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// Whether the value at `row`, `column` is NULL (also for positions outside the result).
    func isNull(_ row: Int32, _ column: Int32) -> Bool {
        guard row >= 0, row < rowCount, column >= 0, column < columnCount else { return true }
        return PQgetisnull(handle, row, column) != 0
    }

    /// The value at `row`, `column` as the server wrote it in text; nil for NULL.
    func text(_ row: Int32, _ column: Int32) -> String? {
        guard !isNull(row, column), let value = PQgetvalue(handle, row, column) else { return nil }
        return String(cString: value)
    }

    /// The value's bytes as the server wrote them in text; nil for NULL. Reading numbers and
    /// `bytea` this way costs no `String`.
    func withBytes<Result>(_ row: Int32, _ column: Int32, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows -> Result {
        guard !isNull(row, column), let value = PQgetvalue(handle, row, column) else { return try body(nil) }
        let length = Int(PQgetlength(handle, row, column))
        return try value.withMemoryRebound(to: UInt8.self, capacity: max(length, 1)) { bytes in
            try body(UnsafeBufferPointer(start: bytes, count: length))
        }
    }

    /// An integer column's value; nil for NULL or text that is not an `Int64`.
    func int64(_ row: Int32, _ column: Int32) -> Int64? {
        withBytes(row, column) { bytes in
            guard let bytes, !bytes.isEmpty else { return nil }
            var value: Int64 = 0
            var negative = false
            for (offset, byte) in bytes.enumerated() {
                if offset == 0 && byte == UInt8(ascii: "-") {
                    negative = true
                    continue
                }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                value = next
            }
            return negative && bytes.count == 1 ? nil : value
        }
    }
}
