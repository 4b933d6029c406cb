import Foundation

// How predicates compare key-value-coding values, as Cocoa's `NSComparisonPredicate` does:
// numbers by value across Swift and Foundation types (`Bool` as 0 or 1), strings with the
// `[c]`/`[d]` options, dates by time, nil equal only to nil, other values with `==` (objects by
// identity).

typealias ComparisonOptions = KeyValuePredicate.Comparison.Options

/// `value` as a string: a Swift `String`, `Substring` or an `NSString`.
@inline(__always)
func stringValue(_ value: Any) -> String? {
    if let string = value as? String { return string }
    if let substring = value as? Substring { return String(substring) }
    return nil
}

/// The value with `NSNull` taken for nil.
@inline(__always)
func nilForNull(_ value: Any?) -> Any? {
    guard let value, !isNull(value) else { return nil }
    return value
}

@inline(__always)
func isASCII(_ string: String) -> Bool {
    string.utf8.allSatisfy { $0 < 0x80 }
}

/// The string folded for the options: ASCII lowercased by hand for `[c]`, anything else by
/// Foundation's `folding(options:locale:)`.
func foldString(_ string: String, _ options: ComparisonOptions) -> String {
    let caseInsensitive = options.contains(.caseInsensitive)
    let diacriticInsensitive = options.contains(.diacriticInsensitive)
    guard caseInsensitive || diacriticInsensitive else { return string }
    if isASCII(string) {
        guard caseInsensitive else { return string }
        return String(decoding: string.utf8.map(asciiLowercase), as: UTF8.self)
    }
    var folding: String.CompareOptions = []
    if caseInsensitive { folding.insert(.caseInsensitive) }
    if diacriticInsensitive { folding.insert(.diacriticInsensitive) }
    return string.folding(options: folding, locale: nil)
}

@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
}

// MARK: - Equality and order

/// Whether two values are equal as `==` in a predicate sees them.
func predicateValuesEqual(_ lhs: Any?, _ rhs: Any?, options: ComparisonOptions) -> Bool {
    guard let lhs = nilForNull(lhs), let rhs = nilForNull(rhs) else {
        return nilForNull(lhs) == nil && nilForNull(rhs) == nil
    }
    if let left = stringValue(lhs) {
        guard let right = stringValue(rhs) else { return false }
        return stringsEqual(left, right, options)
    }
    if let left = KeyValueNumber(lhs) {
        guard let right = KeyValueNumber(rhs) else { return false }
        return compareKeyValueNumbers(left, right) == .orderedSame
    }
    if let left = lhs as? Date {
        guard let right = rhs as? Date else { return false }
        return left == right
    }
    if type(of: lhs) is AnyObject.Type, type(of: rhs) is AnyObject.Type,
       (lhs as AnyObject) === (rhs as AnyObject) {
        return true
    }
    if let left = lhs as? any KeyValueCollection, let right = rhs as? any KeyValueCollection {
        return collectionsEqual(left, right, options)
    }
    if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable { return left == right }
    return false
}

private func collectionsEqual(_ lhs: any KeyValueCollection, _ rhs: any KeyValueCollection, _ options: ComparisonOptions) -> Bool {
    guard lhs.keyValueCount == rhs.keyValueCount,
          lhs.isOrderedKeyValueCollection == rhs.isOrderedKeyValueCollection else { return false }
    let left = collectionElements(lhs), right = collectionElements(rhs)
    if lhs.isOrderedKeyValueCollection {
        return zip(left, right).allSatisfy { predicateValuesEqual($0, $1, options: options) }
    }
    return left.allSatisfy { element in right.contains { predicateValuesEqual(element, $0, options: options) } }
}

func collectionElements(_ collection: any KeyValueCollection) -> [Any] {
    var elements: [Any] = []
    elements.reserveCapacity(collection.keyValueCount)
    collection.forEachKeyValue { elements.append($0) }
    return elements
}

/// Orders two non-nil values; nil when they cannot be ordered (a string and a number).
func orderPredicateValues(_ lhs: Any, _ rhs: Any, options: ComparisonOptions) -> ComparisonResult? {
    if let left = stringValue(lhs), let right = stringValue(rhs) {
        return orderStrings(foldString(left, options), foldString(right, options))
    }
    if let left = KeyValueNumber(lhs), let right = KeyValueNumber(rhs) {
        return compareKeyValueNumbers(left, right)
    }
    return compareKeyValues(lhs, rhs)
}

func orderStrings(_ lhs: String, _ rhs: String) -> ComparisonResult {
    lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending)
}

extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}

// MARK: - Strings

func stringsEqual(_ lhs: String, _ rhs: String, _ options: ComparisonOptions) -> Bool {
    guard options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive) else { return lhs == rhs }
    return foldString(lhs, options) == foldString(rhs, options)
}

/// `BEGINSWITH`: whether `string`, folded for `options`, begins with `prefix`, already folded.
/// An empty prefix never matches, as with Cocoa's `rangeOfString:`.
func stringHasPrefix(_ string: String, folded prefix: String, prefixIsASCII: Bool, _ options: ComparisonOptions) -> Bool {
    guard !prefix.isEmpty else { return false }
    if prefixIsASCII {
        if let answer = asciiPrefixMatch(string, prefix, caseInsensitive: options.contains(.caseInsensitive)) {
            return answer
        }
        if !options.contains(.diacriticInsensitive), let first = string.unicodeScalars.first,
           !first.isASCII, !caseFoldsToASCII(first) {
            // The folded string starts with a character that is not ASCII: no ASCII prefix.
            return false
        }
    }
    return foldString(string, options).hasPrefix(prefix)
}

/// Whether the case folding of a non-ASCII scalar starts with an ASCII letter (from Unicode's
/// CaseFolding.txt): `ß` and `ẞ` fold to "ss", `ſ` to "s", the Kelvin sign to "k", `İ` to "i̇",
/// `ǰ` and `ẖ`…`ẚ` to a letter and a mark, the ligatures `ﬀ`…`ﬆ` to their letters.
private func caseFoldsToASCII(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00DF, 0x0130, 0x017F, 0x01F0, 0x1E96...0x1E9A, 0x1E9E, 0x212A, 0xFB00...0xFB06: true
    default: false
    }
}

/// Compares the bytes of an ASCII prefix with the start of `string`, lowercasing for `[c]`;
/// nil when the answer depends on Unicode (a non-ASCII byte in the way, or a `\r\n` split).
private func asciiPrefixMatch(_ string: String, _ prefix: String, caseInsensitive: Bool) -> Bool? {
    var stringBytes = string.utf8.makeIterator()
    var last: UInt8 = 0
    for expected in prefix.utf8 {
        guard var byte = stringBytes.next() else { return false }
        if byte >= 0x80 { return nil }
        if caseInsensitive { byte = asciiLowercase(byte) }
        if byte != expected { return false }
        last = byte
    }
    guard let next = stringBytes.next() else { return true }
    // A combining mark (non-ASCII) or "\n" after "\r" would join the last character.
    if next >= 0x80 || (last == 0x0D && next == 0x0A) { return nil }
    return true
}

/// `ENDSWITH`, folded as ``stringHasPrefix(_:folded:prefixIsASCII:_:)``.
func stringHasSuffix(_ string: String, folded suffix: String, _ options: ComparisonOptions) -> Bool {
    guard !suffix.isEmpty else { return false }
    return foldString(string, options).hasSuffix(suffix)
}

/// `CONTAINS` on strings, folded as ``stringHasPrefix(_:folded:prefixIsASCII:_:)``.
func stringContains(_ string: String, folded substring: String, _ options: ComparisonOptions) -> Bool {
    guard !substring.isEmpty else { return false }
    return foldString(string, options).contains(substring)
}

// MARK: - LIKE

/// A `LIKE` pattern: `*` matches any run of characters, `?` one character, a backslash makes
/// the next character literal.
struct LikePattern {
    enum Element: Equatable {
        case character(Character)
        case any
        case anyRun
    }

    let elements: [Element]

    init(_ pattern: String) {
        var elements: [Element] = []
        var escaped = false
        for character in pattern {
            if escaped {
                elements.append(.character(character))
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "*": if elements.last != .anyRun { elements.append(.anyRun) }
            case "?": elements.append(.any)
            default: elements.append(.character(character))
            }
        }
        if escaped { elements.append(.character("\\")) }
        self.elements = elements
    }

    /// Whether the whole of `string` matches. Greedy with one backtracking point per `*`, so
    /// O(*n*·*m*) at worst: no pattern makes it exponential.
    func matches(_ string: String) -> Bool {
        let characters = Array(string)
        var p = 0, s = 0
        var starPattern = -1, starString = 0
        while s < characters.count {
            if p < elements.count {
                switch elements[p] {
                case .anyRun:
                    starPattern = p
                    starString = s
                    p += 1
                    continue
                case .any:
                    p += 1
                    s += 1
                    continue
                case .character(let character) where character == characters[s]:
                    p += 1
                    s += 1
                    continue
                case .character:
                    break
                }
            }
            guard starPattern >= 0 else { return false }
            p = starPattern + 1
            starString += 1
            s = starString
        }
        while p < elements.count, elements[p] == .anyRun { p += 1 }
        return p == elements.count
    }
}

// MARK: - MATCHES

/// Compiles a `MATCHES` pattern to match whole strings.
///
/// The pattern must be valid on its own; it is then wrapped in one group between `\A` and `\z`,
/// so that an alternation in it (`x)|(.*`, or plain `a|b`) cannot escape the anchors: the whole
/// string must match the whole pattern, as with Cocoa's `MATCHES`.
func compileRegularExpression(_ pattern: String, _ options: ComparisonOptions) throws(KeyValuePredicateError) -> NSRegularExpression {
    var regexOptions: NSRegularExpression.Options = []
    if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
    do {
        _ = try NSRegularExpression(pattern: pattern, options: regexOptions)
    } catch {
        throw KeyValuePredicateError(
            .invalidRegularExpression, message: "'\(pattern)' is not a valid regular expression")
    }
    do {
        return try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: regexOptions)
    } catch {
        // Valid alone, but it swallows the closing parenthesis: an unterminated `\Q` quote or a
        // `#` comment under `(?x)`.
        throw KeyValuePredicateError(
            .invalidRegularExpression,
            message: "'\(pattern)' cannot be matched as a whole: it ends inside a \\Q quote or a comment")
    }
}

/// How many progress reports ICU may make during one `MATCHES` (one about every 10,000 steps
/// of its matching engine, so about 5 million steps; a fraction of a second) before the match
/// is abandoned with ``KeyValuePredicateError/Code/evaluationLimitExceeded``: a pattern that
/// backtracks catastrophically (`(a+)+c`) would otherwise run for hours.
let maximumRegularExpressionProgressReports = 500

/// Whether the whole of `string` matches the compiled expression.
///
/// - Throws: ``KeyValuePredicateError/Code/evaluationLimitExceeded`` when matching takes more
///   than ``maximumRegularExpressionProgressReports`` progress reports or ICU gives up (its
///   backtracking stack is full): never a guessed answer.
func regularExpression(
    _ expression: NSRegularExpression, matches string: String, _ options: ComparisonOptions
) throws(KeyValuePredicateError) -> Bool {
    let subject = options.contains(.diacriticInsensitive) ? string.folding(options: .diacriticInsensitive, locale: nil) : string
    let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
    var matched = false
    var reports = 0
    var failed = false
    expression.enumerateMatches(in: subject, options: [.reportProgress, .reportCompletion], range: range) { match, flags, stop in
        if match != nil {
            matched = true
            stop.pointee = true
        } else if flags.contains(.internalError) {
            failed = true
        } else if flags.contains(.progress) {
            reports += 1
            if reports > maximumRegularExpressionProgressReports {
                failed = true
                stop.pointee = true
            }
        }
    }
    if failed {
        throw KeyValuePredicateError(
            .evaluationLimitExceeded,
            message: "MATCHES '\(expression.pattern)' gave up on a string of \(range.length) UTF-16 units: "
                + "the pattern backtracks too much")
    }
    return matched
}
