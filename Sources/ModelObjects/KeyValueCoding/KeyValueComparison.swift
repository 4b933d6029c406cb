import Foundation

/// Orders two key-value-coding values of comparable kinds: numbers of any Swift or Foundation
/// type with each other, strings, dates, UUIDs and URLs. Returns nil for values that cannot be
/// compared (a string with a number, two model objects).
///
/// Numbers compare exactly: integers as integers, decimals as decimals, and doubles as doubles.
func compareKeyValues(_ lhs: Any, _ rhs: Any) -> ComparisonResult? {
    if let left = lhs as? String, let right = rhs as? String {
        return left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending)
    }
    if let left = KeyValueNumber(lhs), let right = KeyValueNumber(rhs) {
        return compareKeyValueNumbers(left, right)
    }
    if let left = lhs as? Date, let right = rhs as? Date { return order(left, right) }
    if let left = lhs as? NSString, let right = rhs as? NSString {
        return left.compare(String(describing: right))
    }
    if let left = lhs as? NSDate, let right = rhs as? NSDate { return left.compare(right as Date) }
    if let left = lhs as? UUID, let right = rhs as? UUID { return order(left.uuidString, right.uuidString) }
    if let left = lhs as? URL, let right = rhs as? URL { return order(left.absoluteString, right.absoluteString) }
    return nil
}

private func order<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
    lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending)
}

/// Orders two numbers exactly, whatever their kinds: integers as integers, a double against an
/// integer without rounding either, a decimal against a double or an integer as decimals.
///
/// The order is total, so that sorting and `@max`/`@min` are well defined: −∞ comes before every
/// other number and +∞ after, and NaN (a double's or a decimal's) comes before everything and is
/// the same as NaN, as Foundation's `-[NSNumber compare:]` and `NSDecimalCompare` order it. A
/// double beyond `Decimal`'s range orders by its sign and magnitude against any decimal.
func compareKeyValueNumbers(_ lhs: KeyValueNumber, _ rhs: KeyValueNumber) -> ComparisonResult {
    switch (lhs, rhs) {
    case (.signed(let l), .signed(let r)): return order(l, r)
    case (.unsigned(let l), .unsigned(let r)): return order(l, r)
    case (.signed, .unsigned): return .orderedAscending
    case (.unsigned, .signed): return .orderedDescending
    case (.double(let l), .double(let r)): return compareDoubles(l, r)
    case (.double(let l), .signed(let r)): return compareDouble(l, toInteger: r)
    case (.signed(let l), .double(let r)): return compareDouble(r, toInteger: l).reversed
    case (.decimal(let l), .double(let r)): return compareDecimal(l, toDouble: r)
    case (.double(let l), .decimal(let r)): return compareDecimal(r, toDouble: l).reversed
    case (.decimal(let l), .decimal(let r)): return order(l, r)
    case (.decimal(let l), .signed(let r)): return order(l, Decimal(r))
    case (.decimal(let l), .unsigned(let r)): return order(l, Decimal(r))
    case (.signed(let l), .decimal(let r)): return order(Decimal(l), r)
    case (.unsigned(let l), .decimal(let r)): return order(Decimal(l), r)
    case (.double(let l), .unsigned(let r)): return compareDoubles(l, Double(r))
    case (.unsigned(let l), .double(let r)): return compareDoubles(Double(l), r)
    }
}

/// Orders two doubles, NaN first.
@inline(__always)
private func compareDoubles(_ lhs: Double, _ rhs: Double) -> ComparisonResult {
    if lhs < rhs { return .orderedAscending }
    if lhs > rhs { return .orderedDescending }
    if lhs == rhs { return .orderedSame }
    return lhs.isNaN ? (rhs.isNaN ? .orderedSame : .orderedAscending) : .orderedDescending
}

/// Orders a double and an integer exactly, even past 2^53 where the integer has no exact
/// double; NaN first.
@inline(__always)
private func compareDouble(_ double: Double, toInteger integer: Int64) -> ComparisonResult {
    let converted = Double(integer)
    if double < converted { return .orderedAscending }
    if double > converted { return .orderedDescending }
    guard double.isFinite, double.magnitude >= 0x1p53 else {
        return double.isNaN ? .orderedAscending : .orderedSame
    }
    // Both are integral here; compare as integers when the double fits.
    guard let exact = Int64(exactly: double) else { return double < 0 ? .orderedAscending : .orderedDescending }
    return exact == integer ? .orderedSame : (exact < integer ? .orderedAscending : .orderedDescending)
}

/// Orders a decimal and a double without converting a double `Decimal` cannot hold.
private func compareDecimal(_ decimal: Decimal, toDouble double: Double) -> ComparisonResult {
    // `Decimal`'s own order puts NaN first, and a NaN double converts to `Decimal.nan`.
    if double.isInfinite { return decimal.isNaN || double > 0 ? .orderedAscending : .orderedDescending }
    if let converted = exactDecimal(double) { return order(decimal, converted) }
    // Beyond `Decimal`'s range (huge or tiny): the decimal rounded to a double orders the same.
    if decimal.isNaN { return .orderedAscending }
    return compareDoubles(NSDecimalNumber(decimal: decimal).doubleValue, double)
}
