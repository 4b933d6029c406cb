import Foundation

/// A value as SQLite stores it: what crosses the C boundary in both directions.
enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// How SQLite stores one value: what a column holds, read without converting it.
enum SQLiteStorageClass: Sendable {
    case null, integer, real, text, blob
}
