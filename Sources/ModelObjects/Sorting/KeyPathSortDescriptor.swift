import Foundation

/// How to order objects by the value at a key path: ascending or descending, with a choice of
/// string comparison.
///
/// ```swift
/// let byName = [
///     KeyPathSortDescriptor(key: "lastName", comparison: .localizedCaseInsensitive),
///     KeyPathSortDescriptor(key: "salary", ascending: false),
/// ]
/// let sorted = try employees.sorted(using: byName)
/// ```
///
/// Values are read with key-value coding (`value(forKeyPath:)`), so the key may be a key path
/// through relationships or with a collection operator (`"employees.@count"`); the key `self`
/// (any case) orders the objects themselves. Numbers order by value across Swift and Foundation
/// types, strings by the chosen ``Comparison``, dates by time; nil (and `NSNull`) orders before
/// every value when ascending, as in Cocoa.
///
/// Corresponds to Cocoa's `NSSortDescriptor` with `sortDescriptorWithKey:ascending:selector:`;
/// differences: the comparison is one of five string methods rather than any selector; values
/// that cannot be ordered (a string and a number) throw where Cocoa raises; the name avoids
/// Foundation's `SortDescriptor` and `NSSortDescriptor`.
public struct KeyPathSortDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// How strings compare; other values compare by their natural order whatever the choice.
    ///
    /// Corresponds to the selectors Cocoa's `NSSortDescriptor` is most used with.
    public enum Comparison: String, CaseIterable, Hashable, Sendable {
        /// `compare:`: by Unicode canonical ordering, case-sensitive (Swift's `<` on strings).
        case `default`
        /// `caseInsensitiveCompare:`.
        case caseInsensitive
        /// `localizedCompare:`.
        case localized
        /// `localizedCaseInsensitiveCompare:`.
        case localizedCaseInsensitive
        /// `localizedStandardCompare:`: as the Finder sorts file names (digits by numeric value).
        case localizedStandard

        /// The Objective-C selector name the comparison stands for.
        public var selectorName: String {
            switch self {
            case .default: "compare:"
            case .caseInsensitive: "caseInsensitiveCompare:"
            case .localized: "localizedCompare:"
            case .localizedCaseInsensitive: "localizedCaseInsensitiveCompare:"
            case .localizedStandard: "localizedStandardCompare:"
            }
        }
    }

    /// The key path whose values are ordered.
    public let key: String
    /// True for ascending order (nil first), false for descending (nil last).
    public let ascending: Bool
    /// How strings compare.
    public let comparison: Comparison

    /// Creates a sort descriptor.
    ///
    /// Corresponds to Cocoa's `+[NSSortDescriptor sortDescriptorWithKey:ascending:selector:]`.
    public init(key: String, ascending: Bool = true, comparison: Comparison = .default) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The same descriptor with the opposite order.
    ///
    /// Corresponds to Cocoa's `-[NSSortDescriptor reversedSortDescriptor]`.
    public var reversed: KeyPathSortDescriptor {
        KeyPathSortDescriptor(key: key, ascending: !ascending, comparison: comparison)
    }

    /// Orders two objects by the values at ``key``, in the descriptor's direction.
    ///
    /// ```swift
    /// try KeyPathSortDescriptor(key: "salary").compare(ada, grace)   // .orderedDescending
    /// ```
    ///
    /// - Throws: What key-value coding throws for the key path (such as
    ///   ``KeyValueCodingError/Code/undefinedKey``), or ``KeyValuePredicateError`` with
    ///   ``KeyValuePredicateError/Code/invalidOperand`` for values that cannot be ordered.
    ///
    /// Corresponds to Cocoa's `-[NSSortDescriptor compareObject:toObject:]`.
    public func compare(_ lhs: Any?, _ rhs: Any?) throws -> ComparisonResult {
        try compareValues(value(of: lhs), value(of: rhs))
    }

    /// The value the descriptor orders an object by.
    package func value(of object: Any?) throws -> Any? {
        if key.utf8.count == 4, key.lowercased() == "self" { return object }
        return try readKeyPath(key, of: object)
    }

    /// Orders two values read from objects, in the descriptor's direction.
    package func compareValues(_ lhs: Any?, _ rhs: Any?) throws -> ComparisonResult {
        let order = try ascendingOrder(nilForNull(lhs), nilForNull(rhs))
        return ascending ? order : order.reversed
    }

    private func ascendingOrder(_ lhs: Any?, _ rhs: Any?) throws -> ComparisonResult {
        guard let lhs else { return rhs == nil ? .orderedSame : .orderedAscending }
        guard let rhs else { return .orderedDescending }
        if let left = stringValue(lhs), let right = stringValue(rhs) {
            switch comparison {
            case .default: return orderStrings(left, right)
            case .caseInsensitive: return left.caseInsensitiveCompare(right)
            case .localized: return left.localizedCompare(right)
            case .localizedCaseInsensitive: return left.localizedCaseInsensitiveCompare(right)
            case .localizedStandard: return left.localizedStandardCompare(right)
            }
        }
        if let order = orderPredicateValues(lhs, rhs, options: []) { return order }
        throw KeyValuePredicateError(
            .invalidOperand,
            message: "cannot order \(describeKeyValue(lhs)) (\(type(of: lhs))) and \(describeKeyValue(rhs)) (\(type(of: rhs))) for the key '\(key)'")
    }

    /// Cocoa's description: `(lastName, ascending, caseInsensitiveCompare:)`.
    public var description: String {
        "(\(key), \(ascending ? "ascending" : "descending"), \(comparison.selectorName))"
    }
}
