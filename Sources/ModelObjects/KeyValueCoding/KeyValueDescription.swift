import Foundation

/// A readable description of a key-value-coding value for error messages and descriptions,
/// which never traps.
///
/// Foundation's `Date.description` traps for a date whose time is NaN (and `NSDate`'s for any
/// time that is not finite); such a date prints as `Date(timeIntervalSinceReferenceDate: nan)`,
/// also inside arrays, sets and dictionaries, which are described element by element (to a
/// depth of ``maximumDescriptionDepth``, past which they print as `…`).
package func describeKeyValue(_ value: Any?) -> String {
    describeKeyValue(value, depth: 0)
}

/// How deep ``describeKeyValue(_:)`` goes into nested collections.
private let maximumDescriptionDepth = 8

private func describeKeyValue(_ value: Any?, depth: Int) -> String {
    guard let value = value.flatMap(flattenOptional) else { return "nil" }
    if value is String || value is Substring || isNull(value) || KeyValueNumber(value) != nil {
        return String(describing: value)
    }
    if let date = value as? Date {
        let time = date.timeIntervalSinceReferenceDate
        return time.isFinite ? date.description : "Date(timeIntervalSinceReferenceDate: \(time))"
    }
    if asModelObject(value) != nil { return String(describing: value) }
    let isCollection = value is any KeyValueCollection
    guard isCollection || value is [AnyHashable: Any] else { return String(describing: value) }
    guard depth < maximumDescriptionDepth else { return "…" }
    if let collection = value as? any KeyValueCollection {
        var elements: [String] = []
        collection.forEachKeyValue { elements.append(describeKeyValue($0, depth: depth + 1)) }
        let joined = elements.joined(separator: ", ")
        return collection.isOrderedKeyValueCollection ? "[\(joined)]" : "{(\(joined))}"
    }
    guard let dictionary = value as? [AnyHashable: Any] else { return String(describing: value) }
    let entries = dictionary.map {
        "\(describeKeyValue($0.key.base, depth: depth + 1)): \(describeKeyValue($0.value, depth: depth + 1))"
    }
    return "[\(entries.joined(separator: ", "))]"
}
