import Foundation
import ModelObjects

/// The SQL function `mo_compare(slot, value, key)`: evaluates a string comparison that SQL
/// cannot write exactly (`[c]`, `[d]` and `[n]` options, `LIKE`, `MATCHES`, `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS`, and any comparison of a value or constant that is not ASCII) with the
/// predicate module's own comparison, so that the store filters rows in SQL with the results
/// in-memory evaluation gives.
///
/// The translator puts each such comparison in a slot of the plan it makes; the store sets
/// ``comparisons`` to the plan's while its statements run, under its lock. `key` is the primary
/// key of the row the value is read from: a value that is not text (another writer's number or
/// blob, or bytes that are not UTF-8) fails the statement, and ``refused`` names the row, so
/// that the store reports the record as reading it would (the store never compares a value it
/// would refuse to read).
final class SQLiteComparisonFunction {
    /// One comparison of a plan, and the table of the rows whose values it compares.
    typealias Slot = SQLPredicateTranslator.EvaluatedComparison

    /// The function's name in SQL (``SQLDialect/comparisonFunction`` of ``SQLDialect/sqlite``).
    static let name = "mo_compare"

    /// The comparisons of the statements running, by slot, each with a constant on the right;
    /// a slot compares one value (one member's, for `ANY` and `ALL`), whatever the modifier.
    var comparisons: [Slot] = []

    /// The row whose value the last statement stopped at because it is not text.
    var refused: (table: String, key: Int64)?

    /// Defines the function on `connection`, which keeps this object until it closes.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the definition.
    func define(on connection: SQLiteConnection) throws {
        try connection.defineFunction(Self.name, argumentCount: 3) { arguments in
            guard arguments.count == 3, case .integer(let slot) = arguments[0], self.comparisons.indices.contains(Int(slot)) else {
                throw PersistenceError(.operationFailed, message: "\(Self.name) was called without a comparison to evaluate")
            }
            let value: String?
            switch arguments[1] {
            case .null: value = nil
            case .text(let text): value = text
            case .integer, .real, .blob:
                if let table = self.comparisons[Int(slot)].table, case .integer(let key) = arguments[2] { self.refused = (table, key) }
                throw PersistenceError(.operationFailed, message: "a string column holds a value that is not UTF-8 text")
            }
            return .integer(try self.comparisons[Int(slot)].comparison.evaluate(leftValue: value) ? 1 : 0)
        }
    }
}
