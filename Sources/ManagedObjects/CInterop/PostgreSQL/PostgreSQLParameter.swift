import Foundation

/// A statement parameter as it crosses to libpq: NULL, text the server parses for the
/// parameter's type, or raw bytes (binary format, for `bytea`).
enum PostgreSQLParameter: Hashable, Sendable {
    case null
    case text(String)
    case binary(Data)
}
