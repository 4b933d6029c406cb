import Foundation

/// An error thrown by key-value coding: an unknown key, a value of the wrong type, nil for a
/// non-optional property, a malformed key path or a collection operator that cannot apply.
///
/// Cocoa raises `NSUnknownKeyException` or `NSInvalidArgumentException` in these cases; this
/// library throws instead and leaves the object unchanged.
///
/// Match errors by code:
/// ```swift
/// do { try employee.setValue("ten", forKey: "salary") }
/// catch KeyValueCodingError.Code.typeMismatch { … }
/// ```
public struct KeyValueCodingError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The key names no property of the class (Cocoa's `NSUnknownKeyException`).
        public static let undefinedKey = Code(rawValue: 1)
        /// The value's type cannot be converted losslessly to the property's type.
        public static let typeMismatch = Code(rawValue: 2)
        /// Nil was given for a property that cannot hold nil, and `setNilValueForKey(_:)` did
        /// not handle it.
        public static let nilValueForNonOptional = Code(rawValue: 3)
        /// The key names a read-only property: a derived key, or one served by read-only
        /// collection accessors (also when edited through a mutable collection proxy).
        public static let readOnlyKey = Code(rawValue: 4)
        /// The key path is empty or has an empty segment (`"department..name"`).
        public static let malformedKeyPath = Code(rawValue: 5)
        /// A segment starting with `@` names no collection operator.
        public static let unknownCollectionOperator = Code(rawValue: 6)
        /// A collection operator was applied to a value that is not a collection.
        public static let operatorOnNonCollection = Code(rawValue: 7)
        /// A collection operator that needs a right key path (`@sum.salary`) has none.
        public static let missingOperatorKeyPath = Code(rawValue: 8)
        /// `@sum` or `@avg` met a value that is not a number, or `@max`/`@min` met values
        /// that cannot be compared with each other.
        public static let nonNumericValue = Code(rawValue: 9)
        /// A key path continues past a value that has no keys (a `String`, a number, …).
        public static let notKeyValueCodingCompliant = Code(rawValue: 10)
        /// A mutable collection proxy was used with an index outside the collection.
        public static let indexOutOfRange = Code(rawValue: 11)
        /// The key's property is not a collection of the kind the operation needs
        /// (`mutableArrayValue(forKey:)` on a set, a to-one relationship or a scalar).
        public static let notACollection = Code(rawValue: 12)
        /// A typed key path could not be mapped to a key: it does not name a declared property.
        public static let unmappableKeyPath = Code(rawValue: 13)
        /// A number has no value of the type it must become: `@sum` or `@avg` of decimals and
        /// an infinite double (a `Decimal` holds no infinity).
        public static let unrepresentableNumber = Code(rawValue: 14)
        /// The key path holds more than 32 collection operators: each one nests an evaluation of
        /// the rest of the path, so their number is limited (plain keys are not). Observing
        /// also throws it for a key path of more than
        /// ``ModelObject/maximumObservedKeyPathLength`` keys.
        public static let keyPathTooComplex = Code(rawValue: 15)

        public var description: String {
            switch self {
            case .undefinedKey: "undefinedKey"
            case .typeMismatch: "typeMismatch"
            case .nilValueForNonOptional: "nilValueForNonOptional"
            case .readOnlyKey: "readOnlyKey"
            case .malformedKeyPath: "malformedKeyPath"
            case .unknownCollectionOperator: "unknownCollectionOperator"
            case .operatorOnNonCollection: "operatorOnNonCollection"
            case .missingOperatorKeyPath: "missingOperatorKeyPath"
            case .nonNumericValue: "nonNumericValue"
            case .notKeyValueCodingCompliant: "notKeyValueCodingCompliant"
            case .indexOutOfRange: "indexOutOfRange"
            case .notACollection: "notACollection"
            case .unmappableKeyPath: "unmappableKeyPath"
            case .unrepresentableNumber: "unrepresentableNumber"
            case .keyPathTooComplex: "keyPathTooComplex"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch KeyValueCodingError.Code.undefinedKey`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? KeyValueCodingError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The name of the class whose key was involved, when there is one.
    public var className: String?
    /// The key or key path involved.
    public var key: String
    /// The type the property holds, for type mismatches.
    public var expectedType: String?
    /// The type of the value given, for type mismatches.
    public var givenType: String?
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(
        _ code: Code, key: String, className: String? = nil,
        expectedType: String? = nil, givenType: String? = nil, message: String
    ) {
        self.code = code
        self.key = key
        self.className = className
        self.expectedType = expectedType
        self.givenType = givenType
        self.message = message
    }

    public var description: String {
        var text = "KeyValueCodingError.\(code)"
        if let className { text += " [\(className)]" }
        text += " key '\(key)': \(message)"
        return text
    }
}

extension KeyValueCodingError: LocalizedError {
    public var errorDescription: String? { description }
}

extension KeyValueCodingError {
    static func undefined(_ key: String, in object: AnyObject) -> KeyValueCodingError {
        let className = String(reflecting: type(of: object))
        return KeyValueCodingError(
            .undefinedKey, key: key, className: className,
            message: "\(className) is not key value coding-compliant for the key '\(key)'")
    }

    static func mismatch(
        _ key: String, in object: AnyObject?, expected: Any.Type, given value: Any
    ) -> KeyValueCodingError {
        let className = object.map { String(reflecting: type(of: $0)) }
        let givenType = String(reflecting: type(of: value))
        let expectedType = String(reflecting: expected)
        return KeyValueCodingError(
            .typeMismatch, key: key, className: className,
            expectedType: expectedType, givenType: givenType,
            message: "expected a value of type \(expectedType), got \(givenType) (\(describeKeyValue(value)))")
    }
}
