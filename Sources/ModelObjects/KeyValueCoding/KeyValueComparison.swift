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
        return compareNumbers(left, right)
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

private func compareNumbers(_ lhs: KeyValueNumber, _ rhs: KeyValueNumber) -> ComparisonResult {
    switch (lhs, rhs) {
    case (.signed(let l), .signed(let r)): return order(l, r)
    case (.unsigned(let l), .unsigned(let r)): return order(l, r)
    case (.signed, .unsigned): return .orderedAscending
    case (.unsigned, .signed): return .orderedDescending
    case (.decimal, _), (_, .decimal): return order(lhs.decimalValue, rhs.decimalValue)
    default: return order(lhs.doubleValue, rhs.doubleValue)
    }
}
