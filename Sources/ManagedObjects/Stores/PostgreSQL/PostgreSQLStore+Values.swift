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

    /// A column's value as an attribute's type, in the result's format (text or binary); nil
    /// when it is not a value of the type (see ``SQLSchema/Decoding``). The column types keep
    /// most wrong values out; another writer's out-of-range number is still refused rather
    /// than converted.
    static func decode(_ result: PostgreSQLResult, _ row: Int32, _ column: Int32, as decoding: SQLSchema.Decoding) -> StoreValue? {
        switch decoding {
        case .integer(let min, let max):
            guard let value = result.int64(row, column), value >= min, value <= max else { return nil }
            return .integer(value)
        case .boolean:
            return result.boolean(row, column).map(StoreValue.boolean)
        case .double:
            return result.double(row, column).map(StoreValue.double)
        case .float:
            guard let double = result.double(row, column) else { return nil }
            // Past Float's range a finite number would read as an infinity.
            return double.isFinite && Float(double).isInfinite ? nil : .double(double)
        case .date:
            return result.double(row, column).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .decimal:
            guard let text = result.numericText(row, column), let decimal = Decimal(string: text, locale: nil) else { return nil }
            return .decimal(decimal)
        case .string:
            return result.text(row, column).map(StoreValue.string)
        case .uri:
            return result.text(row, column).flatMap { URL(string: $0) }.map(StoreValue.uri)
        case .data:
            return result.bytes(row, column).map(StoreValue.data)
        case .uuid:
            return result.uuid(row, column).map(StoreValue.uuid)
        case .none:
            return .null
        }
    }
}
