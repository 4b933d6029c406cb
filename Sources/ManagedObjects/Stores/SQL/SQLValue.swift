import Foundation

/// A value a condition of ``SQLPredicateTranslator`` binds to a placeholder; each store turns
/// it into what its C library binds.
enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
