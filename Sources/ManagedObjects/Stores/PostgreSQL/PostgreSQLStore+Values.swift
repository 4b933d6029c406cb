import Foundation

extension PostgreSQLStore {
    /// A store value as a statement parameter (text the server parses for the column's type;
    /// bytes for `bytea`); see ``SQLDialect/columnType(_:)`` for the types.
    static func parameter(_ value: StoreValue) -> PostgreSQLParameter {
        switch value {
        case .null, .toMany: .null
        case .integer(let value): .text(String(value))
        case .double(let value): .text(text(of: value))
        case .decimal(let value): .text(value.description)
        case .string(let value): .text(value)
        case .boolean(let value): .text(value ? "t" : "f")
        case .date(let value): .text(text(of: value.timeIntervalSinceReferenceDate))
        case .data(let value): .binary(value)
        case .uuid(let value): .text(value.uuidString)
        case .uri(let value): .text(value.absoluteString)
        case .toOne(let id): id?.primaryKey.map { .text(String($0)) } ?? .null
        }
    }

    /// A translated condition's value as a parameter.
    static func parameter(_ value: SQLValue) -> PostgreSQLParameter {
        switch value {
        case .null: .null
        case .integer(let value): .text(String(value))
        case .real(let value): .text(text(of: value))
        case .text(let value): .text(value)
        case .blob(let value): .binary(value)
        }
    }

    /// A double as PostgreSQL reads it back exactly: Swift's shortest round-trip digits, and
    /// PostgreSQL's names for the infinities and NaN.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    /// A list of keys as a `bigint[]` parameter (`{1,2,3}`), so that one statement reads any
    /// number of rows.
    static func keyArray<Keys: Sequence<Int64>>(_ keys: Keys) -> PostgreSQLParameter {
        .text("{" + keys.map(String.init).joined(separator: ",") + "}")
    }

    /// A column's text as an attribute's type; nil when it is not a value of the type (see
    /// ``SQLSchema/Decoding``). The column types keep most wrong values out; another writer's
    /// out-of-range number is still refused rather than converted.
    static func decode(_ result: PostgreSQLResult, _ row: Int32, _ column: Int32, as decoding: SQLSchema.Decoding) -> StoreValue? {
        switch decoding {
        case .integer(let min, let max):
            guard let value = result.int64(row, column), value >= min, value <= max else { return nil }
            return .integer(value)
        case .boolean:
            switch result.text(row, column) {
            case "t": return .boolean(true)
            case "f": return .boolean(false)
            default: return nil
            }
        case .double:
            return result.text(row, column).flatMap(Double.init).map(StoreValue.double)
        case .float:
            guard let double = result.text(row, column).flatMap(Double.init) else { return nil }
            // Past Float's range a finite number would read as an infinity.
            return double.isFinite && Float(double).isInfinite ? nil : .double(double)
        case .date:
            return result.text(row, column).flatMap(Double.init).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .decimal:
            guard let text = result.text(row, column), let decimal = Decimal(string: text, locale: nil) else { return nil }
            return .decimal(decimal)
        case .string:
            return result.text(row, column).map(StoreValue.string)
        case .uri:
            return result.text(row, column).flatMap { URL(string: $0) }.map(StoreValue.uri)
        case .data:
            return bytea(result, row, column).map(StoreValue.data)
        case .uuid:
            return result.text(row, column).flatMap { UUID(uuidString: $0) }.map(StoreValue.uuid)
        case .none:
            return .null
        }
    }

    /// The bytes of a `bytea` column in the server's hex output (`\x0aff…`).
    static func bytea(_ result: PostgreSQLResult, _ row: Int32, _ column: Int32) -> Data? {
        result.withBytes(row, column) { bytes -> Data? in
            guard let bytes, bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
            else { return nil }
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
    }
}
