import Foundation

extension KeyValuePredicate: Equatable {
    /// Whether two predicates have equal trees: same structure, operators, modifiers and
    /// options, equal expressions.
    ///
    /// Corresponds to Cocoa's `-[NSPredicate isEqual:]`.
    public static func == (lhs: KeyValuePredicate, rhs: KeyValuePredicate) -> Bool {
        switch (lhs, rhs) {
        case (.truePredicate, .truePredicate), (.falsePredicate, .falsePredicate): true
        case (.comparison(let l), .comparison(let r)): l == r
        case (.and(let l), .and(let r)), (.or(let l), .or(let r)): l == r
        case (.not(let l), .not(let r)): l == r
        default: false
        }
    }
}

extension KeyValuePredicate.Comparison: Equatable {
    /// Whether two comparisons have the same operator, modifier and options and equal
    /// expressions.
    public static func == (lhs: KeyValuePredicate.Comparison, rhs: KeyValuePredicate.Comparison) -> Bool {
        lhs.operatorType == rhs.operatorType && lhs.modifier == rhs.modifier && lhs.options == rhs.options
            && lhs.leftExpression == rhs.leftExpression && lhs.rightExpression == rhs.rightExpression
    }
}

extension KeyValueExpression: Equatable {
    /// Whether two expressions are equal: same kind, equal key paths, variables and
    /// subexpressions, and equal constants.
    ///
    /// Constants are equal when both are nil (or `NSNull`); both `Bool`s and equal; both
    /// strings and equal; both numbers of the same kind (integer, floating-point or decimal)
    /// and equal value; both dates and equal; both arrays of equal constants; both sets of equal
    /// constants; the same object; or equal `AnyHashable` values.
    ///
    /// Corresponds to Cocoa's `-[NSExpression isEqual:]`.
    public static func == (lhs: KeyValueExpression, rhs: KeyValueExpression) -> Bool {
        switch (lhs, rhs) {
        case (.constant(let l), .constant(let r)): constantsEqual(l, r)
        case (.evaluatedObject, .evaluatedObject): true
        case (.keyPath(let l), .keyPath(let r)): l == r
        case (.variable(let l), .variable(let r)): l == r
        case (.keyPathOn(let lBase, let lPath), .keyPathOn(let rBase, let rPath)): lPath == rPath && lBase == rBase
        case (.aggregate(let l), .aggregate(let r)): l == r
        case (.subquery(let lCollection, let lVariable, let lPredicate), .subquery(let rCollection, let rVariable, let rPredicate)):
            lVariable == rVariable && lCollection == rCollection && lPredicate == rPredicate
        default: false
        }
    }
}

/// Equality of constants in predicate trees: stricter than evaluation's `==` (which takes 1 and
/// `TRUE` for equal, and applies `[c]`), so that equal trees print the same.
private func constantsEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
    guard let lhs = nilForNull(lhs), let rhs = nilForNull(rhs) else {
        return nilForNull(lhs) == nil && nilForNull(rhs) == nil
    }
    let leftIsBool = type(of: lhs) == Bool.self, rightIsBool = type(of: rhs) == Bool.self
    if leftIsBool || rightIsBool {
        return leftIsBool && rightIsBool && (lhs as? Bool) == (rhs as? Bool)
    }
    if let left = stringValue(lhs) { return stringValue(rhs) == left }
    if let left = KeyValueNumber(lhs) {
        guard let right = KeyValueNumber(rhs) else { return false }
        switch (left, right) {
        // Before the general case, which orders NaN with nothing: NaN constants print the same.
        case (.double(let l), .double(let r)) where l.isNaN || r.isNaN:
            return l.isNaN && r.isNaN
        case (.signed, .signed), (.signed, .unsigned), (.unsigned, .signed), (.unsigned, .unsigned),
             (.double, .double), (.decimal, .decimal):
            // NaN is the same as NaN in this order.
            return compareKeyValueNumbers(left, right) == .orderedSame
        default:
            return false
        }
    }
    if let left = lhs as? Date { return (rhs as? Date) == left }
    if let left = lhs as? any KeyValueCollection, let right = rhs as? any KeyValueCollection {
        guard left.isOrderedKeyValueCollection == right.isOrderedKeyValueCollection,
              left.keyValueCount == right.keyValueCount else { return false }
        let leftElements = collectionElements(left), rightElements = collectionElements(right)
        if left.isOrderedKeyValueCollection {
            return zip(leftElements, rightElements).allSatisfy { constantsEqual($0, $1) }
        }
        return leftElements.allSatisfy { element in rightElements.contains { constantsEqual(element, $0) } }
    }
    if type(of: lhs) is AnyObject.Type, type(of: rhs) is AnyObject.Type, (lhs as AnyObject) === (rhs as AnyObject) {
        return true
    }
    if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable { return left == right }
    return false
}
