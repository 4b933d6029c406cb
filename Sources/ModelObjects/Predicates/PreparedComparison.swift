import Foundation

/// What a comparison computes once from a constant right-hand side, for every evaluation, and
/// the direct path for the most common comparison: one declared key of a model object against
/// a constant (`salary > 50000`, `lastName BEGINSWITH[c] "s"`).
///
/// The direct path reads the property with a plain load when it is stored as a `Double`, an
/// `Int`, a `Bool` or a `String` (no boxing in `Any`, no key-path walk), and remembers the
/// property descriptor of the last class it met.
///
/// Not `Sendable`, like the predicate that owns it: the descriptor cache changes during
/// evaluation.
final class PreparedComparison {
    /// A constant number on the right.
    let number: KeyValueNumber?
    /// A constant string on the right, folded for the comparison's options.
    let foldedString: String?
    /// Whether `foldedString` is all ASCII, for the byte-wise fast paths.
    let foldedStringIsASCII: Bool
    /// A constant `LIKE` pattern on the right, folded and split into characters.
    let likePattern: LikePattern?
    /// A constant `MATCHES` pattern on the right, compiled; or why it could not be.
    let regularExpression: Result<NSRegularExpression, KeyValuePredicateError>?

    /// The key of a left-hand key path of one key, when the right-hand side is a constant and
    /// there is no modifier: the comparisons the direct path handles.
    private let directKey: String?
    /// The constant on the right, for the direct path.
    private let constant: Any?
    /// The property table the cached descriptor belongs to (kept alive, so that its identity
    /// stays unique), and the descriptor of `directKey` in it (nil when the class does not
    /// declare the key).
    private var cachedTable: PropertyTable?
    private var cachedDescriptor: PropertyDescriptor?
    /// The same two, unretained, for the hot path (the two properties above keep them alive).
    private var cachedTableReference: Unmanaged<PropertyTable>?
    private var cachedDescriptorReference: Unmanaged<PropertyDescriptor>?

    init(operatorType: KeyValuePredicate.Comparison.Operator, left: KeyValueExpression, right: KeyValueExpression,
         modifier: KeyValuePredicate.Comparison.Modifier, options: KeyValuePredicate.Comparison.Options) {
        let constant: Any? = if case .constant(let value?) = right { value } else { nil }
        number = constant.flatMap { KeyValueNumber($0) }
        let string = constant.flatMap(stringValue)
        foldedString = string.map { foldString($0, options) }
        foldedStringIsASCII = foldedString.map(isASCII) ?? false
        likePattern = operatorType == .like ? foldedString.map(LikePattern.init) : nil
        if operatorType == .matches, let string {
            do {
                regularExpression = .success(try compileRegularExpression(string, options))
            } catch {
                regularExpression = .failure(error)
            }
        } else {
            regularExpression = nil
        }
        self.constant = constant
        if modifier == .direct, case .constant = right, case .keyPath(let key) = left,
           !key.isEmpty, !key.utf8.contains(UInt8(ascii: ".")), !key.utf8.contains(UInt8(ascii: "@")) {
            directKey = key
        } else {
            directKey = nil
        }
    }

    /// Evaluates `comparison` on a model object by reading its one-key left side straight from
    /// the object; nil when the direct path does not apply (the general path then runs).
    @inline(__always)
    func evaluateDirectly(_ comparison: KeyValuePredicate.Comparison, on object: ModelObject) throws -> Bool? {
        guard let directKey else { return nil }
        let table = object.withPropertyTable(Unmanaged.passUnretained)
        if table.toOpaque() != cachedTableReference?.toOpaque() {
            let descriptor = table.takeUnretainedValue().descriptor(forKey: directKey)
            cachedTable = table.takeUnretainedValue()
            cachedDescriptor = descriptor
            cachedTableReference = table
            cachedDescriptorReference = descriptor.map { Unmanaged.passUnretained($0) }
        }
        guard let descriptor = cachedDescriptorReference else { return nil }
        return try descriptor._withUnsafeGuaranteedRef { try evaluateDirectly(comparison, on: object, descriptor: $0) }
    }

    @inline(__always)
    private func evaluateDirectly(
        _ comparison: KeyValuePredicate.Comparison, on object: ModelObject, descriptor: PropertyDescriptor
    ) throws -> Bool? {
        let number = comparison.operatorType.ordersOperands ? self.number : nil
        switch descriptor.layout {
        case .double:
            if let number { return comparison.answer(for: compareKeyValueNumbers(.double(descriptor.load(Double.self, in: object)), number)) }
        case .int:
            if let number { return comparison.answer(for: compareKeyValueNumbers(.signed(Int64(descriptor.load(Int.self, in: object))), number)) }
        case .bool:
            if let number { return comparison.answer(for: compareKeyValueNumbers(.signed(descriptor.load(Bool.self, in: object) ? 1 : 0), number)) }
        case .string:
            if let answer = try compareDirectly(descriptor.load(String.self, in: object), comparison) { return answer }
        case .object, .generic:
            break
        }
        return try comparison.compare(descriptor.value(in: object), constant)
    }

    /// A string property against the constant string on the right; nil for the operators left
    /// to the general path.
    @inline(__always)
    private func compareDirectly(_ string: String, _ comparison: KeyValuePredicate.Comparison) throws -> Bool? {
        guard let foldedString else { return nil }
        let options = comparison.options
        switch comparison.operatorType {
        case .equalTo: return foldString(string, options) == foldedString
        case .notEqualTo: return foldString(string, options) != foldedString
        case .beginsWith: return stringHasPrefix(string, folded: foldedString, prefixIsASCII: foldedStringIsASCII, options)
        case .endsWith: return stringHasSuffix(string, folded: foldedString, options)
        case .contains: return stringContains(string, folded: foldedString, options)
        case .like: return likePattern?.matches(foldString(string, options))
        default: return nil
        }
    }
}

extension KeyValuePredicate.Comparison.Operator {
    /// True for `==`, `!=`, `<`, `<=`, `>`, `>=`: the operators that only need the order of
    /// their operands.
    var ordersOperands: Bool {
        switch self {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: true
        default: false
        }
    }
}

extension KeyValuePredicate.Comparison {
    /// The result of an ordering or equality operator for the order of its operands; false for
    /// the other operators (which the direct path never asks about).
    @inline(__always)
    func answer(for order: ComparisonResult) -> Bool {
        switch operatorType {
        case .equalTo: order == .orderedSame
        case .notEqualTo: order != .orderedSame
        case .lessThan: order == .orderedAscending
        case .lessThanOrEqualTo: order != .orderedDescending
        case .greaterThan: order == .orderedDescending
        case .greaterThanOrEqualTo: order != .orderedAscending
        default: false
        }
    }
}
