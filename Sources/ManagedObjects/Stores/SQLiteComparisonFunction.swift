import Foundation
import ModelObjects

/// The SQL function `mo_compare(slot, value)`: evaluates a string comparison that SQL cannot
/// write exactly (`[c]`, `[d]` and `[n]` options, `LIKE`, `MATCHES`, `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, and any comparison of a value or constant that is not ASCII) with the predicate
/// module's own comparison, so that the store filters rows in SQL with the results in-memory
/// evaluation gives.
///
/// The translator puts each such comparison in a slot of the plan it makes; the store sets
/// ``comparisons`` to the plan's while its statements run, under its lock.
final class SQLiteComparisonFunction {
    /// The function's name in SQL.
    static let name = "mo_compare"

    /// The comparisons of the statements running, by slot, each with a constant on the right;
    /// a slot compares one value (one member's, for `ANY` and `ALL`), whatever the modifier.
    var comparisons: [KeyValuePredicate.Comparison] = []

    /// Defines the function on `connection`, which keeps this object until it closes.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the definition.
    func define(on connection: SQLiteConnection) throws {
        // The value is read as text, as the store reads a string column (`decode`).
        try connection.defineFunction(Self.name, argumentCount: 2, textArguments: [1]) { arguments in
            guard arguments.count == 2, case .integer(let slot) = arguments[0], self.comparisons.indices.contains(Int(slot)) else {
                throw PersistenceError(.operationFailed, message: "\(Self.name) was called without a comparison to evaluate")
            }
            let value: Any?
            switch arguments[1] {
            case .null: value = nil
            case .integer(let integer): value = integer
            case .real(let real): value = real
            case .text(let text): value = text
            case .blob(let data): value = data
            }
            return .integer(try self.comparisons[Int(slot)].evaluate(leftValue: value) ? 1 : 0)
        }
    }
}
