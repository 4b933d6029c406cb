import Foundation

/// A number taken out of a key-value-coding value, keeping its exact kind so that conversions
/// and collection operators can stay lossless.
enum KeyValueNumber {
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)
    case decimal(Decimal)

    /// Reads a number out of any Swift or Foundation numeric value; nil for anything else.
    /// `Bool` counts as 0 or 1, as `NSNumber` does in Cocoa.
    init?(_ value: Any) {
        // On Linux every Swift number bridges to NSNumber and back, so a real NSNumber must be
        // recognised before the Swift cases, which would all match it.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = Self(number)
            return
        }
        switch value {
        case let v as Double: self = .double(v)
        case let v as Int: self = .signed(Int64(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Float: self = .double(Double(v))
        case let v as Int64: self = .signed(v)
        case let v as Int32: self = .signed(Int64(v))
        case let v as Int16: self = .signed(Int64(v))
        case let v as Int8: self = .signed(Int64(v))
        case let v as UInt: self = Self(unsigned: UInt64(v))
        case let v as UInt64: self = Self(unsigned: v)
        case let v as UInt32: self = .signed(Int64(v))
        case let v as UInt16: self = .signed(Int64(v))
        case let v as UInt8: self = .signed(Int64(v))
        case let v as CGFloat: self = .double(Double(v))
        case let v as Bool: self = .signed(v ? 1 : 0)
        default: return nil
        }
    }

    private init(unsigned value: UInt64) {
        if let signed = Int64(exactly: value) { self = .signed(signed) } else { self = .unsigned(value) }
    }

    private init(_ number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = .decimal(decimal.decimalValue)
            return
        }
        switch String(cString: number.objCType) {
        case "f", "d": self = .double(number.doubleValue)
        case "Q", "L": self = Self(unsigned: number.uint64Value)
        default: self = .signed(number.int64Value)
        }
    }

    /// The value as a `Double`, possibly rounded: for sums and averages.
    var doubleValue: Double {
        switch self {
        case .signed(let v): Double(v)
        case .unsigned(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        }
    }

    /// The value as a `Decimal`, exact for integers and for the shortest decimal form of a
    /// double; nil for a double `Decimal` cannot hold (see ``exactDecimal(_:)``).
    var decimalValue: Decimal? {
        switch self {
        case .signed(let v): Decimal(v)
        case .unsigned(let v): Decimal(v)
        case .double(let v): exactDecimal(v)
        case .decimal(let v): v
        }
    }

    /// The value as an integer of type `T`, when it is integral and fits.
    func exactly<T: BinaryInteger>(_: T.Type) -> T? {
        switch self {
        case .signed(let v): return T(exactly: v)
        case .unsigned(let v): return T(exactly: v)
        case .double(let v): return T(exactly: v)
        case .decimal(let v):
            var value = v
            var rounded = Decimal()
            NSDecimalRound(&rounded, &value, 0, .plain)
            guard rounded == v else { return nil }
            let number = NSDecimalNumber(decimal: v)
            if v < 0 {
                let int = number.int64Value
                return Decimal(int) == v ? T(exactly: int) : nil
            }
            let uint = number.uint64Value
            return Decimal(uint) == v ? T(exactly: uint) : nil
        }
    }

    /// The value as a `Double` when no precision is lost.
    var exactDouble: Double? {
        switch self {
        case .signed(let v): return Double(exactly: v)
        case .unsigned(let v): return Double(exactly: v)
        case .double(let v): return v
        case .decimal(let v):
            if v.isNaN { return .nan }
            let double = NSDecimalNumber(decimal: v).doubleValue
            return Decimal(string: "\(double)") == v ? double : nil
        }
    }

    /// The value as a `Float` when it prints back as the same number.
    var exactFloat: Float? {
        guard let double = exactDouble else { return nil }
        let float = Float(double)
        if Double(float) == double { return float }
        // A decimal literal such as 0.1 is not the same binary number as a Double and a Float,
        // but both are its nearest representation: compare the shortest printed forms.
        return Double("\(float)") == double ? float : nil
    }

    /// True when the number is the integer 0 or 1, and which.
    var exactBool: Bool? {
        switch exactly(Int8.self) {
        case 0: false
        case 1: true
        default: nil
        }
    }

    /// The number in its most natural Swift type: `Int` (or `UInt64`), `Double` or `Decimal`.
    var boxed: Any {
        switch self {
        case .signed(let v): Int(exactly: v) ?? v
        case .unsigned(let v): v
        case .double(let v): v
        case .decimal(let v): v
        }
    }
}

/// The `Decimal` with the shortest decimal form of `double`, or nil when `Decimal` cannot hold
/// it: an infinity, or a magnitude beyond `Decimal`'s range (above about 1e127 or below about
/// 1e-127 in this form). NaN gives `Decimal.nan`.
///
/// Every conversion of a floating-point value to `Decimal` goes through here: Foundation's
/// `Decimal(Double)` traps for an infinity, answers NaN past its range, and
/// `Decimal(string: "-inf")` reads as 0.
package func exactDecimal(_ double: Double) -> Decimal? {
    if double.isNaN { return .nan }
    guard double.isFinite else { return nil }
    return Decimal(string: "\(double)")
}
