import Foundation

extension KeyValuePredicate {
    /// Evaluates the predicate with an object: a model object, a dictionary with string keys,
    /// a collection, or any value (which `SELF` stands for).
    ///
    /// Key paths are read with key-value coding (`value(forKeyPath:)`), so they may go through
    /// relationships and use collection operators. `$variables` take their values from
    /// `substitutionVariables`.
    ///
    /// ```swift
    /// let predicate = try KeyValuePredicate(format: "department.name == $DEPT AND salary > 50000")
    /// try predicate.evaluate(with: employee, substitutionVariables: ["DEPT": "Engineering"])
    /// ```
    ///
    /// - Throws: The ``KeyValueCodingError`` key-value coding throws for a key path (an
    ///   unknown key is ``KeyValueCodingError/Code/undefinedKey``), unwrapped;
    ///   ``KeyValuePredicateError`` with ``KeyValuePredicateError/Code/unboundVariable`` for a
    ///   variable with no value, ``KeyValuePredicateError/Code/invalidOperand`` for an operator
    ///   applied to values it cannot work on,
    ///   ``KeyValuePredicateError/Code/invalidRegularExpression``, or
    ///   ``KeyValuePredicateError/Code/evaluationLimitExceeded`` for a `MATCHES` that backtracks
    ///   too much or nested `SUBQUERY`s that visit more than
    ///   ``KeyValuePredicate/maximumNestedElementVisits`` elements.
    /// - Complexity: Proportional to the size of the predicate and the values read; `AND` and
    ///   `OR` stop at the first subpredicate that decides.
    ///
    /// Corresponds to Cocoa's `-[NSPredicate evaluateWithObject:substitutionVariables:]`;
    /// differences: errors are thrown where Cocoa raises.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        var budget = EvaluationBudget()
        return try evaluate(PredicateTarget(object), substitutionVariables, &budget)
    }

    /// Evaluates the predicate with a model object.
    ///
    /// The same as ``evaluate(with:substitutionVariables:)-(Any?,_)``, without the dynamic cast
    /// to find the model object in an `Any`.
    ///
    /// - Throws: What ``evaluate(with:substitutionVariables:)-(Any?,_)`` throws.
    public func evaluate(with object: ModelObject, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        var budget = EvaluationBudget()
        return try evaluate(PredicateTarget(object: object), substitutionVariables, &budget)
    }

    func evaluate(_ object: PredicateTarget, _ variables: [String: Any?], _ budget: inout EvaluationBudget) throws -> Bool {
        switch self {
        case .truePredicate:
            return true
        case .falsePredicate:
            return false
        case .comparison(let comparison):
            return try comparison.evaluate(object, variables, &budget)
        case .and(let predicates):
            for predicate in predicates where try !predicate.evaluate(object, variables, &budget) { return false }
            return true
        case .or(let predicates):
            for predicate in predicates where try predicate.evaluate(object, variables, &budget) { return true }
            return false
        case .not(let predicate):
            return try !predicate.evaluate(object, variables, &budget)
        }
    }

    /// The elements of `sequence` for which the predicate is true, in order.
    ///
    /// - Throws: What ``evaluate(with:substitutionVariables:)-(Any?,_)`` throws for the first element
    ///   that fails.
    /// - Complexity: O(*n*) evaluations.
    public func filter<S: Sequence>(_ sequence: S, substitutionVariables: [String: Any?] = [:]) throws -> [S.Element] {
        var result: [S.Element] = []
        for element in sequence {
            var budget = EvaluationBudget()
            if try evaluate(PredicateTarget(element), substitutionVariables, &budget) { result.append(element) }
        }
        return result
    }
}

extension Array {
    /// The elements for which `predicate` is true, in order.
    ///
    /// ```swift
    /// let smiths = try employees.filtered(using: KeyValuePredicate(format: "lastName == %@", "Smith"))
    /// ```
    ///
    /// - Throws: What ``KeyValuePredicate/evaluate(with:substitutionVariables:)-(Any?,_)`` throws for the
    ///   first element that fails.
    /// - Complexity: O(*n*) evaluations.
    ///
    /// Corresponds to Cocoa's `-[NSArray filteredArrayUsingPredicate:]`.
    public func filtered(using predicate: KeyValuePredicate) throws -> [Element] {
        try predicate.filter(self)
    }

    /// Removes the elements for which `predicate` is false.
    ///
    /// - Throws: What ``KeyValuePredicate/evaluate(with:substitutionVariables:)-(Any?,_)`` throws; the
    ///   array is then left unchanged.
    ///
    /// Corresponds to Cocoa's `-[NSMutableArray filterUsingPredicate:]`.
    public mutating func filter(using predicate: KeyValuePredicate) throws {
        self = try predicate.filter(self)
    }
}

extension Set {
    /// The elements for which `predicate` is true.
    ///
    /// - Throws: What ``KeyValuePredicate/evaluate(with:substitutionVariables:)-(Any?,_)`` throws for the
    ///   first element that fails.
    /// - Complexity: O(*n*) evaluations.
    ///
    /// Corresponds to Cocoa's `-[NSSet filteredSetUsingPredicate:]`.
    public func filtered(using predicate: KeyValuePredicate) throws -> Set<Element> {
        var result: Set<Element> = []
        for element in self {
            var budget = EvaluationBudget()
            if try predicate.evaluate(PredicateTarget(element), [:], &budget) { result.insert(element) }
        }
        return result
    }
}

extension KeyValueExpression {
    /// The value of the expression for an object: what a comparison compares.
    ///
    /// - Throws: What ``KeyValuePredicate/evaluate(with:substitutionVariables:)-(Any?,_)`` throws.
    ///
    /// Corresponds to Cocoa's `-[NSExpression expressionValueWithObject:context:]`.
    public func value(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Any? {
        var budget = EvaluationBudget()
        return try value(PredicateTarget(object), substitutionVariables, &budget)
    }

    func value(_ object: PredicateTarget, _ variables: [String: Any?], _ budget: inout EvaluationBudget) throws -> Any? {
        switch self {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object.value
        case .keyPath(let path):
            if let model = object.model { return try model.value(forKeyPath: path) }
            if case .standIn(let standIn) = object { return try standIn.value(forKeyPath: path) }
            return try readKeyPath(path, of: object.value)
        case .variable(let name):
            guard let value = variables[name] else {
                throw KeyValuePredicateError(
                    .unboundVariable, message: "the variable $\(name) has no value", variable: name)
            }
            return value
        case .keyPathOn(let base, let path):
            return try readKeyPath(path, of: base.value(object, variables, &budget))
        case .aggregate(let elements):
            var values: [Any] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try element.value(object, variables, &budget) ?? NSNull()) }
            return values
        case .subquery(let collectionExpression, let variable, let predicate):
            guard let collectionValue = nilForNull(try collectionExpression.value(object, variables, &budget)) else { return [Any]() }
            guard let collection = collectionValue as? any KeyValueCollection else {
                throw KeyValuePredicateError(
                    .invalidOperand,
                    message: "the collection of a SUBQUERY must be an array or a set, not \(type(of: collectionValue))")
            }
            var inner = variables
            var result: [Any] = []
            try collection.forEachKeyValue { element in
                try budget.visitElement()
                inner[variable] = .some(element)
                budget.nesting += 1
                defer { budget.nesting -= 1 }
                if try predicate.evaluate(object, inner, &budget) { result.append(element) }
            }
            return result
        }
    }
}

/// The object a predicate is evaluated with, and the same object as a model object when it is
/// one: found once per evaluation, not once per key path.
enum PredicateTarget {
    case model(ModelObject)
    case value(Any?)
    case standIn(any KeyValuePredicateStandIn)

    @inline(__always)
    init(_ value: Any?) {
        if let value, let model = asModelObject(value) {
            self = .model(model)
        } else {
            self = .value(value)
        }
    }

    @inline(__always)
    init<T>(_ element: T) {
        if let model = element as? ModelObject {
            self = .model(model)
        } else {
            self = .value(element as Any?)
        }
    }

    @inline(__always)
    init(object: ModelObject) {
        self = .model(object)
    }

    /// The object as a model object, when it is one.
    var model: ModelObject? {
        if case .model(let model) = self { return model }
        return nil
    }

    /// The object as `SELF` sees it.
    var value: Any? {
        switch self {
        case .model(let model): model
        case .value(let value): value
        case .standIn(let standIn): standIn.standInObject
        }
    }
}

/// Something predicate evaluation reads keys from in place of an object, while `SELF` still
/// evaluates to that object: the managed layer's faults answer from their fetched rows this
/// way, without firing.
package protocol KeyValuePredicateStandIn {
    /// What `SELF` evaluates to.
    var standInObject: Any { get }
    /// The value at `keyPath`, as the object itself would answer it (throwing as it would).
    func value(forKeyPath keyPath: String) throws -> Any?
}

extension KeyValuePredicate {
    /// Evaluates the predicate with a stand-in for an object: keys are read from the stand-in,
    /// `SELF` is the object it stands for.
    package func evaluate(standIn: any KeyValuePredicateStandIn, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        var budget = EvaluationBudget()
        return try evaluate(.standIn(standIn), substitutionVariables, &budget)
    }
}

/// Reads a key path from a value with key-value coding; nil from nil.
@inline(__always)
func readKeyPath(_ path: String, of target: Any?) throws -> Any? {
    guard let target = nilForNull(target) else { return nil }
    if let object = asModelObject(target) { return try object.value(forKeyPath: path) }
    return try KeyValuePath.value(of: target, forKeyPath: Substring(path), fullPath: path)
}

extension KeyValuePredicate.Comparison {
    /// Evaluates the comparison with an object.
    ///
    /// - Throws: What ``KeyValuePredicate/evaluate(with:substitutionVariables:)-(Any?,_)`` throws.
    ///
    /// Corresponds to Cocoa's `-[NSPredicate evaluateWithObject:]` on an `NSComparisonPredicate`.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        var budget = EvaluationBudget()
        return try evaluate(PredicateTarget(object), substitutionVariables, &budget)
    }

    func evaluate(_ object: PredicateTarget, _ variables: [String: Any?], _ budget: inout EvaluationBudget) throws -> Bool {
        if let model = object.model, let answer = try prepared.evaluateDirectly(self, on: model) { return answer }
        let left = try leftExpression.value(object, variables, &budget)
        let right = try rightExpression.value(object, variables, &budget)
        if modifier == .direct { return try compare(left, right) }
        guard let left = nilForNull(left) else { return modifier == .all }
        guard let collection = left as? any KeyValueCollection else {
            throw KeyValuePredicateError(
                .invalidOperand,
                message: "the left side of \(modifier == .any ? "ANY" : "ALL") must be an array or a set, not \(type(of: left))")
        }
        let wanted = modifier == .any
        var decided = false
        try collection.forEachKeyValue { element in
            guard !decided else { return }
            try budget.visitElement()
            if try compare(element, right) == wanted { decided = true }
        }
        return decided == wanted
    }

    /// Evaluates a comparison without modifier whose right side is a constant, with `leftValue`
    /// as the value of its left side: for a store that read that value itself (a column).
    ///
    /// - Throws: What ``evaluate(with:substitutionVariables:)-(Any?,_)`` throws for the same values.
    package func evaluate(leftValue: Any?) throws -> Bool {
        var budget = EvaluationBudget()
        return try compare(leftValue, try rightExpression.value(.value(nil), [:], &budget))
    }

    /// Compares two values with the operator.
    func compare(_ lhs: Any?, _ rhs: Any?) throws -> Bool {
        switch operatorType {
        case .equalTo:
            return predicateValuesEqual(lhs, rhs, options: options)
        case .notEqualTo:
            return !predicateValuesEqual(lhs, rhs, options: options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let lhs = nilForNull(lhs), let rhs = nilForNull(rhs) else { return false }
            let order = try self.order(lhs, rhs, rightIsConstant: true)
            switch operatorType {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard let lhs = nilForNull(lhs), let rhs = nilForNull(rhs) else { return false }
            let string = try self.string(lhs, side: "left")
            let pattern = try self.string(rhs, side: "right")
            switch operatorType {
            case .beginsWith:
                if let folded = prepared.foldedString {
                    return stringHasPrefix(string, folded: folded, prefixIsASCII: prepared.foldedStringIsASCII, options)
                }
                let folded = foldString(pattern, options)
                return stringHasPrefix(string, folded: folded, prefixIsASCII: isASCII(folded), options)
            case .endsWith:
                return stringHasSuffix(string, folded: prepared.foldedString ?? foldString(pattern, options), options)
            case .like:
                let like = prepared.likePattern ?? LikePattern(foldString(pattern, options))
                return like.matches(foldString(string, options))
            default:
                let expression: NSRegularExpression
                switch prepared.regularExpression {
                case .success(let compiled): expression = compiled
                case .failure(let error): throw error
                case nil: expression = try compileRegularExpression(pattern, options)
                }
                return try regularExpression(expression, matches: string, options)
            }
        case .contains:
            guard let lhs = nilForNull(lhs) else { return false }
            if let string = stringValue(lhs) {
                guard let rhs = nilForNull(rhs) else { return false }
                let substring = try self.string(rhs, side: "right")
                return stringContains(string, folded: prepared.foldedString ?? foldString(substring, options), options)
            }
            return try collection(lhs, side: "left", contains: rhs)
        case .in:
            guard let rhs = nilForNull(rhs) else { return false }
            if let string = stringValue(rhs) {
                guard let lhs = nilForNull(lhs) else { return false }
                let substring = try self.string(lhs, side: "left")
                return stringContains(string, folded: foldString(substring, options), options)
            }
            return try collection(rhs, side: "right", contains: lhs)
        case .between:
            guard let lhs = nilForNull(lhs) else { return false }
            guard let bounds = nilForNull(rhs).flatMap({ $0 as? any KeyValueCollection }),
                  bounds.isOrderedKeyValueCollection, bounds.keyValueCount == 2 else {
                throw KeyValuePredicateError(
                    .invalidOperand, message: "the right side of BETWEEN must be an array of two values, as in {1, 10}")
            }
            let elements = collectionElements(bounds)
            guard let lower = nilForNull(elements[0]), let upper = nilForNull(elements[1]) else { return false }
            return try order(lhs, lower, rightIsConstant: false) != .orderedAscending
                && order(lhs, upper, rightIsConstant: false) != .orderedDescending
        }
    }

    /// Orders two non-nil values, with the right-hand constant prepared when there is one.
    @inline(__always)
    private func order(_ lhs: Any, _ rhs: Any, rightIsConstant: Bool) throws -> ComparisonResult {
        if rightIsConstant, let right = prepared.number, let left = KeyValueNumber(lhs) {
            return compareKeyValueNumbers(left, right)
        }
        guard let order = orderPredicateValues(lhs, rhs, options: options) else {
            throw KeyValuePredicateError(
                .invalidOperand,
                message: "cannot order \(describeKeyValue(lhs)) (\(type(of: lhs))) and \(describeKeyValue(rhs)) (\(type(of: rhs))) with \(operatorType.symbol)")
        }
        return order
    }

    private func string(_ value: Any, side: String) throws -> String {
        guard let string = stringValue(value) else {
            throw KeyValuePredicateError(
                .invalidOperand,
                message: "\(operatorType.symbol) needs strings; the \(side) side is \(describeKeyValue(value)) (\(type(of: value)))")
        }
        return string
    }

    /// Whether a collection (or the values of a dictionary) holds a value equal to `element`.
    private func collection(_ value: Any, side: String, contains element: Any?) throws -> Bool {
        if let collection = value as? any KeyValueCollection {
            var found = false
            collection.forEachKeyValue { member in
                if !found, predicateValuesEqual(member, element, options: options) { found = true }
            }
            return found
        }
        if let dictionary = value as? [AnyHashable: Any] {
            return dictionary.values.contains { predicateValuesEqual($0, element, options: options) }
        }
        throw KeyValuePredicateError(
            .invalidOperand,
            message: "\(operatorType.symbol) needs a collection or a string on the \(side) side, not \(type(of: value))")
    }
}
