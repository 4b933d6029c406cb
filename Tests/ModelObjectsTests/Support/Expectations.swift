import Foundation
import ModelObjects
import Testing

/// Expects `body` to throw a ``KeyValueCodingError`` with `code`; returns the error so that its
/// other fields can be checked.
@discardableResult
func expectKVCError(
    _ code: KeyValueCodingError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> KeyValueCodingError? {
    let error = #expect(throws: KeyValueCodingError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "expected \(code), got \(error.map { "\($0.code)" } ?? "no error")", sourceLocation: sourceLocation)
    return error
}

/// True when both values are nil, or have the same dynamic type and are equal.
func sameValue(_ lhs: Any?, _ rhs: Any?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil):
        return true
    case let (lhs?, rhs?):
        guard type(of: lhs) == type(of: rhs) else { return false }
        if let lhs = lhs as? AnyHashable, let rhs = rhs as? AnyHashable { return lhs == rhs }
        return false
    default:
        return false
    }
}

/// The dynamic type of a value, as key-value coding errors name types.
func typeName(_ value: Any?) -> String {
    guard let value else { return "nil" }
    return String(reflecting: type(of: value))
}

/// Expects `body` to throw a ``KeyValuePredicateError`` with `code`; returns the error.
@discardableResult
func expectPredicateError(
    _ code: KeyValuePredicateError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> KeyValuePredicateError? {
    let error = #expect(throws: KeyValuePredicateError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "expected \(code), got \(error.map { "\($0.code)" } ?? "no error")", sourceLocation: sourceLocation)
    return error
}
