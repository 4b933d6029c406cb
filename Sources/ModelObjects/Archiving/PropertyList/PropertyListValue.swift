import Foundation

/// A property-list value, as archives are made of: the tree a property-list writer serializes
/// and a reader produces. Dictionaries keep their keys' order.
package indirect enum PropertyListValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([(key: String, value: PropertyListValue)])
    /// A keyed-archiver UID (`CF$UID`): an index into the archive's `$objects`.
    case uid(UInt64)

    package static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let l), .string(let r)): l == r
        case (.integer(let l), .integer(let r)): l == r
        case (.unsignedInteger(let l), .unsignedInteger(let r)): l == r
        case (.real(let l), .real(let r)): l == r || (l.isNaN && r.isNaN)
        case (.bool(let l), .bool(let r)): l == r
        case (.date(let l), .date(let r)): l == r
        case (.data(let l), .data(let r)): l == r
        case (.array(let l), .array(let r)): l == r
        case (.dictionary(let l), .dictionary(let r)):
            l.count == r.count && zip(l, r).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.uid(let l), .uid(let r)): l == r
        default: false
        }
    }

    /// The value for `key` in a dictionary, nil for a missing key or another kind of value.
    package subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }
}
