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

    /// A list of keys as a `bigint[]` parameter, so that one statement reads any number of
    /// rows. In the array's binary form (what PostgreSQL's `array_recv` reads): the number of
    /// dimensions, a flag for NULLs, the element type (`int8`, OID 20), the length and lower
    /// bound of the dimension, then each key as its length (8) and its big-endian bytes; an
    /// empty list has no dimension. No key goes through text, on either side. The statement
    /// must give the parameter its type (`$1::bigint[]`).
    static func keyArray<Keys: Sequence<Int64>>(_ keys: Keys) -> PostgreSQLParameter {
        let keys = Array(keys)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + 12 * keys.count)
        func append(_ value: UInt32) {
            for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        append(keys.isEmpty ? 0 : 1)
        append(0)
        append(20)
        guard !keys.isEmpty else { return .binary(Data(bytes)) }
        append(UInt32(truncatingIfNeeded: keys.count))
        append(1)
        for key in keys {
            append(8)
            let value = UInt64(bitPattern: key)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return .binary(Data(bytes))
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
