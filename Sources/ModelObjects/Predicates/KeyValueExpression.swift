import Foundation

/// One side of a predicate's comparison: a constant, the evaluated object, a key path, a
/// `$variable`, an array of expressions or a subquery.
///
/// Expressions are a public tree for code that translates predicates (to SQL, for instance):
///
/// | Case | Format string | Value |
/// | --- | --- | --- |
/// | ``constant(_:)`` | `"Smith"`, `42`, `3.5`, `TRUE`, `nil`, `{1, 2}`, `%@` | the value |
/// | ``evaluatedObject`` | `SELF` | the object the predicate is evaluated with |
/// | ``keyPath(_:)`` | `lastName`, `department.name`, `employees.@avg.salary` | `value(forKeyPath:)` of the evaluated object |
/// | ``variable(_:)`` | `$NAME` | the variable's value |
/// | ``keyPathOn(_:_:)`` | `$e.salary`, `SUBQUERY(…).@count` | the key path of another expression's value |
/// | ``aggregate(_:)`` | `{$low, $high}` | an array of the values (nil becomes `NSNull`) |
/// | ``subquery(collection:variable:predicate:)`` | `SUBQUERY(employees, $e, $e.salary > 10)` | the elements of the collection for which the predicate is true, as an array |
///
/// The parser turns arrays whose elements are all constants into one constant array, and
/// `SELF.lastName` into the key path `lastName`.
///
/// Not `Sendable`: constants may hold model objects and other values of any type.
///
/// Corresponds to Cocoa's `NSExpression` (the constant-value, evaluated-object, key-path,
/// variable, function `valueForKeyPath:`, aggregate and subquery types); differences: no
/// arithmetic, functions, set expressions or blocks; the name avoids Foundation's
/// `NSExpression`, `Expression` and `PredicateExpression`.
public indirect enum KeyValueExpression {
    /// A constant value: a string, a number, a `Bool`, a `Date`, a `Decimal`, nil, an array of
    /// constants, or any other value given for `%@` (such as a model object).
    case constant(Any?)
    /// `SELF`: the object the predicate is evaluated with.
    case evaluatedObject
    /// A key path read from the evaluated object with key-value coding; it may contain
    /// collection operators (`employees.@count`).
    case keyPath(String)
    /// A `$variable`, given when the predicate is evaluated or substituted, or bound by a
    /// subquery.
    case variable(String)
    /// A key path read from the value of another expression: `$e.salary` is
    /// `.keyPathOn(.variable("e"), "salary")`.
    case keyPathOn(KeyValueExpression, String)
    /// An array of the values of expressions that are not all constants: `{$low, $high}`.
    case aggregate([KeyValueExpression])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection for which
    /// the predicate, with `$variable` bound to the element, is true.
    case subquery(collection: KeyValueExpression, variable: String, predicate: KeyValuePredicate)

    /// The key path of a ``keyPath(_:)`` or ``keyPathOn(_:_:)`` expression; nil for the others.
    ///
    /// Corresponds to Cocoa's `-[NSExpression keyPath]`.
    public var keyPathString: String? {
        switch self {
        case .keyPath(let path), .keyPathOn(_, let path): path
        default: nil
        }
    }

    /// The value of a ``constant(_:)`` expression; nil for the others and for the constant nil.
    ///
    /// Corresponds to Cocoa's `-[NSExpression constantValue]`.
    public var constantValue: Any? {
        if case .constant(let value) = self { return value }
        return nil
    }

    /// True for ``constant(_:)`` expressions.
    public var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }

    /// The expression with `$variables` replaced by constants, except those in `shadowed`
    /// (bound by an enclosing subquery).
    func substituting(_ variables: [String: Any?], shadowed: Set<String>) -> KeyValueExpression {
        switch self {
        case .constant, .evaluatedObject, .keyPath:
            return self
        case .variable(let name):
            guard !shadowed.contains(name), let value = variables[name] else { return self }
            return .constant(value.flatMap(flattenOptional))
        case .keyPathOn(let base, let path):
            return .keyPathOn(base.substituting(variables, shadowed: shadowed), path)
        case .aggregate(let elements):
            let substituted = elements.map { $0.substituting(variables, shadowed: shadowed) }
            return KeyValueExpression.folding(substituted)
        case .subquery(let collection, let variable, let predicate):
            var inner = shadowed
            inner.insert(variable)
            return .subquery(
                collection: collection.substituting(variables, shadowed: shadowed), variable: variable,
                predicate: predicate.substituting(variables, shadowed: inner))
        }
    }

    /// An aggregate of `elements`, folded into one constant array when every element is a
    /// constant.
    static func folding(_ elements: [KeyValueExpression]) -> KeyValueExpression {
        var values: [Any] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard case .constant(let value) = element else { return .aggregate(elements) }
            values.append(value ?? NSNull())
        }
        return .constant(values)
    }
}

/// Constants may hold model objects, which belong to one isolation domain.
@available(*, unavailable)
extension KeyValueExpression: Sendable {}
