import Foundation

/// What differs between the SQL of the stores that share ``SQLSchema`` and
/// ``SQLPredicateTranslator``: placeholders, column types, literals, null-safe equality, the
/// functions a condition may call.
///
/// Both dialects quote every identifier the same way (double quotes, see ``quoted(_:)``), so
/// table and column names are the same in both.
enum SQLDialect: Sendable {
    /// SQLite, with the `mo_compare` function the SQLite store defines on its connection.
    case sqlite
    /// PostgreSQL: numbered placeholders with explicit types, `boolean`, `bytea`, `uuid`,
    /// `numeric`; no custom functions (string comparisons SQL cannot make exactly stay in
    /// memory).
    case postgreSQL

    /// The placeholder of the parameter numbered `number` (from 1), which will be bound to
    /// `value`: `?`, or `$3::bigint` (PostgreSQL infers nothing from a comparison with an
    /// expression, so each placeholder says its type).
    func placeholder(_ number: Int, for value: SQLValue?) -> String {
        switch self {
        case .sqlite: return "?"
        case .postgreSQL:
            switch value {
            case .integer: return "$\(number)::bigint"
            case .real: return "$\(number)::double precision"
            case .text: return "$\(number)::text"
            case .blob: return "$\(number)::bytea"
            case .null, nil: return "$\(number)"
            }
        }
    }

    /// A condition that is always true, or always false.
    func literal(_ value: Bool) -> String {
        switch self {
        case .sqlite: value ? "1" : "0"
        case .postgreSQL: value ? "TRUE" : "FALSE"
        }
    }

    /// `lhs` equal to `rhs` (or not, with `negated`), NULL being equal to NULL only.
    func isSame(_ lhs: String, _ rhs: String, negated: Bool = false) -> String {
        switch self {
        case .sqlite: "\(lhs) IS \(negated ? "NOT " : "")\(rhs)"
        case .postgreSQL: "\(lhs) IS \(negated ? "" : "NOT ")DISTINCT FROM \(rhs)"
        }
    }

    /// The name of the function evaluating comparisons SQL cannot make exactly (see
    /// `SQLiteComparisonFunction`); nil when the dialect has none, and such comparisons stay
    /// with in-memory evaluation.
    var comparisonFunction: String? {
        switch self {
        case .sqlite: "mo_compare"
        case .postgreSQL: nil
        }
    }

    /// The position of `needle` in `haystack` (1 for a prefix, 0 when absent), comparing bytes.
    func position(of needle: String, in haystack: String) -> String {
        switch self {
        case .sqlite: "instr(\(haystack), \(needle))"
        case .postgreSQL: "strpos(\(haystack), \(needle))"
        }
    }

    /// The last `length(needle)` characters of `text`.
    func suffix(of text: String, matching needle: String) -> String {
        switch self {
        case .sqlite: "substr(\(text), -length(\(needle)))"
        case .postgreSQL: "right(\(text), char_length(\(needle)))"
        }
    }

    /// `text` in Unicode normalization form C (PostgreSQL's `normalize`; the text as it is in
    /// SQLite, whose string comparisons that need it go through the comparison function).
    func normalized(_ text: String) -> String {
        switch self {
        case .sqlite: text
        case .postgreSQL: "normalize(\(text), NFC)"
        }
    }

    /// The floating-point type a cast produces.
    var realType: String {
        switch self {
        case .sqlite: "REAL"
        case .postgreSQL: "double precision"
        }
    }

    /// `expression`, a boolean column, as a number that compares with numeric constants as the
    /// predicate module compares a Boolean with numbers (false 0, true 1).
    func booleanAsNumber(_ expression: String) -> String {
        switch self {
        case .sqlite: expression
        case .postgreSQL: "CAST(\(expression) AS integer)"
        }
    }

    /// The direction of an ORDER BY term, with NULL first in ascending order as nil sorts in
    /// memory (SQLite's default; PostgreSQL puts NULL last unless told).
    func direction(ascending: Bool) -> String {
        switch self {
        case .sqlite: ascending ? " ASC" : " DESC"
        case .postgreSQL: ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"
        }
    }

    /// `LIMIT … OFFSET …` for a limit (0: none) and an offset.
    func limit(_ limit: Int, offset: Int) -> String {
        switch self {
        case .sqlite: " LIMIT \(limit > 0 ? limit : -1) OFFSET \(max(0, offset))"
        case .postgreSQL: " LIMIT \(limit > 0 ? String(limit) : "ALL") OFFSET \(max(0, offset))"
        }
    }

    // MARK: - Schema

    /// The column type of an attribute type; nil for types the stores do not keep.
    ///
    /// SQLite: `INTEGER`, `REAL` (doubles, floats, dates as seconds since 2001), `TEXT`
    /// (strings, URIs, decimals: TEXT keeps a decimal's digits, NUMERIC would round it to a
    /// double), `BLOB` (data, transformables, UUIDs).
    ///
    /// PostgreSQL: `smallint`, `integer`, `bigint`, `boolean`, `double precision` (doubles,
    /// floats, and dates as seconds since 2001 as in SQLite: exact to the bit, where
    /// `timestamptz` keeps microseconds), `numeric` (decimals), `text COLLATE "C"` (strings and
    /// URIs, ordered by code point as the predicate module and SQLite's BINARY order them, not
    /// by the database's locale), `bytea` (data, transformables), `uuid`.
    func columnType(_ type: AttributeType) -> String? {
        switch self {
        case .sqlite:
            switch type {
            case .integer16, .integer32, .integer64, .boolean: "INTEGER"
            case .double, .float, .date: "REAL"
            case .decimal, .string, .uri: "TEXT"
            case .binaryData, .transformable, .uuid: "BLOB"
            default: nil
            }
        case .postgreSQL:
            switch type {
            case .integer16: "smallint"
            case .integer32: "integer"
            case .integer64: "bigint"
            case .boolean: "boolean"
            case .double, .float, .date: "double precision"
            case .decimal: "numeric"
            case .string, .uri: "text COLLATE \"C\""
            case .binaryData, .transformable: "bytea"
            case .uuid: "uuid"
            default: nil
            }
        }
    }

    /// The type a column of an attribute of `type` has as the database reports it (SQLite's
    /// `PRAGMA table_info`, PostgreSQL's `information_schema.columns.data_type`), uppercased:
    /// ``columnType(_:)`` without its collation.
    func declaredType(_ type: AttributeType) -> String? {
        columnType(type).map { ($0.components(separatedBy: " COLLATE ").first ?? $0).uppercased() }
    }

    /// The type of primary keys, foreign keys and positions.
    var keyType: String {
        switch self {
        case .sqlite: "INTEGER"
        case .postgreSQL: "bigint"
        }
    }

    /// The type of entity names (`Z_ENT`, a to-one's entity column).
    var nameType: String {
        switch self {
        case .sqlite: "TEXT"
        case .postgreSQL: "text"
        }
    }
}
