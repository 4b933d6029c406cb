internal import CLibPQ
import Foundation

/// The rows of a statement: owns the `PGresult` and clears it in `deinit`.
///
/// A result comes in text format (the server writes every value as text) or in binary format
/// (``PostgreSQLConnection/run(_:_:resultFormat:)`` with ``Format/binary``: integers, doubles
/// and Booleans as their big-endian bytes, `uuid` as 16 bytes, `bytea` as the bytes themselves,
/// `numeric` as base-10000 digits, text as its UTF-8). The typed readers (``int64(_:_:)``,
/// ``double(_:_:)``, …) read either format, so callers choose the format only for speed.
/// Every reader checks the position and, in binary format, the value's length: a value of
/// another type reads as nil rather than as garbage.
///
/// Not thread-safe: it is used under the lock of the store that owns its connection.
final class PostgreSQLResult {
    /// How the server writes the values of a result.
    enum Format: Int32, Sendable {
        /// Every value as text (libpq's result format 0).
        case text = 0
        /// Every value in its type's binary form (libpq's result format 1).
        case binary = 1
    }

    /// The statement's SQL, for the errors its readers report.
    let sql: String
    /// The format the values come in.
    let format: Format
    private let handle: OpaquePointer
    /// The number of rows.
    let rowCount: Int32
    /// The number of columns.
    let columnCount: Int32

    init(handle: OpaquePointer, sql: String, format: Format = .text) {
        self.handle = handle
        self.sql = sql
        self.format = format
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

    /// The value's bytes as the server wrote them (text, or the type's binary form); nil for
    /// NULL. Reading numbers and `bytea` this way costs no `String`.
    func withBytes<Result>(_ row: Int32, _ column: Int32, _ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        guard row >= 0, row < rowCount, column >= 0, column < columnCount, let value = PQgetvalue(handle, row, column) else {
            return try body(nil)
        }
        let length = Int(PQgetlength(handle, row, column))
        // libpq gives NULL as an empty value: only an empty one needs asking which it is.
        if length <= 0 && PQgetisnull(handle, row, column) != 0 { return try body(nil) }
        return try body(UnsafeRawBufferPointer(start: value, count: max(length, 0)))
    }

    /// A text column's value (in either format: a text value's binary form is its UTF-8); nil
    /// for NULL.
    func text(_ row: Int32, _ column: Int32) -> String? {
        withBytes(row, column) { bytes in bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Whether the text value at `row`, `column` is `text` (false for NULL), without making a
    /// `String`.
    func textEquals(_ row: Int32, _ column: Int32, _ text: String) -> Bool {
        withBytes(row, column) { value in
            guard let value else { return false }
            let utf8 = text.utf8
            return utf8.withContiguousStorageIfAvailable { expected in
                guard expected.count == value.count else { return false }
                guard let expectedBase = expected.baseAddress, let valueBase = value.baseAddress else { return true }
                return memcmp(expectedBase, valueBase, value.count) == 0
            } ?? value.elementsEqual(utf8)
        }
    }

    /// The value for a message: its text (cut to 40 characters) in text format, its length
    /// in binary format.
    func valueDescription(_ row: Int32, _ column: Int32) -> String {
        guard !isNull(row, column) else { return "NULL" }
        switch format {
        case .text: return "\"" + (text(row, column).map { String($0.prefix(40)) } ?? "") + "\""
        case .binary: return "a binary value of \(withBytes(row, column) { $0?.count ?? 0 }) bytes"
        }
    }

    /// An integer column's value (`smallint`, `integer` or `bigint` in binary format); nil for
    /// NULL or a value that is not an integer that fits an `Int64`.
    func int64(_ row: Int32, _ column: Int32) -> Int64? {
        withBytes(row, column) { bytes in
            guard let bytes, !bytes.isEmpty else { return nil }
            switch format {
            case .binary:
                return Self.binaryInteger(bytes)
            case .text:
                return Self.parseInteger(bytes)
            }
        }
    }

    /// A `double precision` (or `real`) column's value; nil for NULL or another value.
    func double(_ row: Int32, _ column: Int32) -> Double? {
        withBytes(row, column) { bytes in
            guard let bytes else { return nil }
            switch format {
            case .binary:
                return Self.binaryDouble(bytes)
            case .text:
                // The standard library's parser (no Foundation); PostgreSQL writes the
                // infinities and NaN as "Infinity", "-Infinity" and "NaN", which it reads too.
                return Double(Substring(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// A `boolean` column's value; nil for NULL or another value.
    func boolean(_ row: Int32, _ column: Int32) -> Bool? {
        withBytes(row, column) { bytes in
            guard let bytes, bytes.count == 1 else { return nil }
            switch (format, bytes[0]) {
            case (.binary, 1), (.text, UInt8(ascii: "t")): return true
            case (.binary, 0), (.text, UInt8(ascii: "f")): return false
            default: return nil
            }
        }
    }

    /// A `uuid` column's value; nil for NULL or another value.
    func uuid(_ row: Int32, _ column: Int32) -> UUID? {
        withBytes(row, column) { bytes in
            guard let bytes else { return nil }
            switch format {
            case .binary:
                guard bytes.count == 16 else { return nil }
                var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
                return UUID(uuid: uuid)
            case .text:
                return UUID(uuidString: String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// A `bytea` column's bytes (in text format, read from the server's hex output `\x0aff…`);
    /// nil for NULL or text that is not hex output.
    func bytes(_ row: Int32, _ column: Int32) -> Data? {
        withBytes(row, column) { bytes in
            guard let bytes else { return nil }
            switch format {
            case .binary: return Data(bytes)
            case .text: return Self.parseHex(bytes)
            }
        }
    }

    /// A `numeric` column's value as decimal text (`-12.50`), which `Decimal` reads; nil for
    /// NULL, NaN, the infinities or a malformed value.
    func numericText(_ row: Int32, _ column: Int32) -> String? {
        withBytes(row, column) { bytes in
            guard let bytes else { return nil }
            switch format {
            case .binary: return Self.numericText(binary: bytes)
            case .text: return String(decoding: bytes, as: UTF8.self)
            }
        }
    }

    // MARK: - Decoding

    /// A `smallint`, `integer` or `bigint` in binary format (2, 4 or 8 big-endian bytes); nil
    /// for another length.
    @inline(__always)
    static func binaryInteger(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        switch bytes.count {
        case 8: Int64(bitPattern: bigEndian(bytes))
        case 4: Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: bigEndian(bytes))))
        case 2: Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: bigEndian(bytes))))
        default: nil
        }
    }

    /// A `double precision` (8 big-endian bytes) or `real` (4) in binary format; nil for
    /// another length.
    @inline(__always)
    static func binaryDouble(_ bytes: UnsafeRawBufferPointer) -> Double? {
        switch bytes.count {
        case 8: Double(bitPattern: bigEndian(bytes))
        case 4: Double(Float(bitPattern: UInt32(truncatingIfNeeded: bigEndian(bytes))))
        default: nil
        }
    }

    /// The bytes (at most 8) as a big-endian unsigned integer.
    @inline(__always)
    private static func bigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        switch bytes.count {
        // One unaligned load and a byte swap for the widths the binary format uses.
        case 8: return UInt64(bigEndian: base.loadUnaligned(as: UInt64.self))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(as: UInt32.self)))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(as: UInt16.self)))
        default:
            var value: UInt64 = 0
            for byte in bytes.prefix(8) { value = value << 8 | UInt64(byte) }
            return value
        }
    }

    /// Decimal digits with an optional leading minus as an `Int64`; nil for anything else or
    /// a number past `Int64`'s range.
    private static func parseInteger(_ bytes: UnsafeRawBufferPointer) -> Int64? {
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

    /// The server's hex output of `bytea` (`\x0aff…`) as bytes.
    private static func parseHex(_ bytes: UnsafeRawBufferPointer) -> Data? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index + 1 < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    /// `numeric`'s binary form as decimal text: four 16-bit big-endian header fields (the
    /// number of digits, the weight of the first digit as a power of 10,000, the sign, the
    /// number of decimal places to show) and the base-10,000 digits.
    static func numericText(binary bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 8 else { return nil }
        func field(_ index: Int) -> Int {
            Int(Int16(bitPattern: UInt16(bytes[index * 2]) << 8 | UInt16(bytes[index * 2 + 1])))
        }
        let count = field(0), weight = field(1), sign = UInt16(truncatingIfNeeded: field(2)), scale = field(3)
        guard count >= 0, scale >= 0, bytes.count == 8 + count * 2, sign == 0 || sign == 0x4000 else { return nil }
        var digits: [Int] = []
        digits.reserveCapacity(count)
        for index in 0..<count {
            let digit = field(4 + index)
            guard (0..<10_000).contains(digit) else { return nil }
            digits.append(digit)
        }
        func digit(at position: Int) -> Int { position >= 0 && position < digits.count ? digits[position] : 0 }
        func padded(_ digit: Int) -> String {
            let text = String(digit)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            text += String(digit(at: 0))
            for position in stride(from: 1, through: weight, by: 1) { text += padded(digit(at: position)) }
        }
        if scale > 0 {
            var fraction = ""
            var position = weight + 1
            while fraction.count < scale {
                fraction += padded(digit(at: position))
                position += 1
            }
            text += "." + fraction.prefix(scale)
        }
        return text
    }
}
