import Foundation

// Converting, comparing and parsing the values of an attribute type: default values and bounds
// written in code (`defaultValue: 0` for a double) and in model files (`defaultValueString="0"`).

extension AttributeType {
    /// `value` as this type's Swift value type, or nil when it cannot be converted without loss.
    ///
    /// Integers convert between widths when in range; any number converts to `Double`, `Float`
    /// and `Decimal`; a `String` converts to a `URL` for `.uri`. Undefined, transformable and
    /// object-ID attributes take any value unchanged.
    package func converting(_ value: any Sendable) -> (any Sendable)? {
        switch self {
        case .integer16: Self.int64(value).flatMap { Int16(exactly: $0) }
        case .integer32: Self.int64(value).flatMap { Int32(exactly: $0) }
        case .integer64: Self.int64(value)
        case .double: Self.double(value)
        case .float: Self.double(value).map { Float($0) }
        case .decimal: Self.decimal(value)
        case .string: (value as? String) ?? (value as? Substring).map(String.init)
        case .boolean: value as? Bool
        case .date: value as? Date
        case .binaryData: (value as? Data) ?? (value as? [UInt8]).map { Data($0) }
        case .uuid: (value as? UUID) ?? (value as? String).flatMap(UUID.init(uuidString:))
        case .uri: (value as? URL) ?? (value as? String).flatMap { URL(string: $0) }
        default: value
        }
    }

    /// Compares two values of this type (as ``converting(_:)`` returns them); nil when the type
    /// is not ordered (only numbers and dates are) or a value is not of the type.
    package func compare(_ lhs: any Sendable, _ rhs: any Sendable) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T?, _ b: T?) -> ComparisonResult? {
            guard let a, let b else { return nil }
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
        switch self {
        case .integer16, .integer32, .integer64: return order(Self.int64(lhs), Self.int64(rhs))
        case .double, .float: return order(Self.double(lhs), Self.double(rhs))
        case .decimal: return order(Self.decimal(lhs), Self.decimal(rhs))
        case .date: return order(lhs as? Date, rhs as? Date)
        default: return nil
        }
    }

    /// Parses a value as Xcode writes it in a model file (`defaultValueString`,
    /// `minValueString`): decimal numbers, `YES`/`NO`, UUID and URL strings. Dates are seconds
    /// since 2001-01-01 (Xcode's `defaultDateTimeInterval`). Nil when the text is not a value of
    /// the type, or the type has no text form (binary data, transformable).
    package func parse(_ text: String) -> (any Sendable)? {
        let text = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .integer16: return Int16(text)
        case .integer32: return Int32(text)
        case .integer64: return Int64(text)
        case .double: return Double(text)
        case .float: return Float(text)
        case .decimal:
            guard Double(text) != nil else { return nil }
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .string: return text
        case .boolean:
            switch text.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        case .date: return Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .uuid: return UUID(uuidString: text)
        case .uri: return URL(string: text)
        default: return nil
        }
    }

    private static func int64(_ value: any Sendable) -> Int64? {
        if let integer = value as? any BinaryInteger { return Int64(exactly: integer) }
        if let floating = value as? any BinaryFloatingPoint { return Int64(exactly: floating) }
        if let decimal = value as? Decimal {
            guard decimal.isFinite, decimal == decimal.rounded() else { return nil }
            return Int64(decimal.description)
        }
        // Not `number.decimalValue`, which traps for an infinity.
        if let number = value as? NSNumber { return convertKeyValue(number, to: Int64.self) }
        return nil
    }

    private static func double(_ value: any Sendable) -> Double? {
        if let floating = value as? any BinaryFloatingPoint { return Double(floating) }
        if let integer = value as? any BinaryInteger { return Double(integer) }
        if let decimal = value as? Decimal { return NSDecimalNumber(decimal: decimal).doubleValue }
        if let number = value as? NSNumber { return number.doubleValue }
        return nil
    }

    private static func decimal(_ value: any Sendable) -> Decimal? {
        if let decimal = value as? Decimal { return decimal }
        if let integer = value as? any BinaryInteger {
            if let small = Int64(exactly: integer) { return Decimal(small) }
            return Decimal(string: String(integer), locale: Locale(identifier: "en_US_POSIX"))
        }
        if let floating = value as? any BinaryFloatingPoint {
            let double = Double(floating)
            guard double.isFinite else { return nil }
            return exactDecimal(double)
        }
        if let number = value as? NSNumber { return convertKeyValue(number, to: Decimal.self) }
        return nil
    }
}

extension Decimal {
    fileprivate func rounded() -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, 0, .plain)
        return result
    }
}
