import Foundation

/// An error thrown by validation: a value a validator rejects, a combination of values an
/// object-level check rejects, or several such failures together.
///
/// Codes are Cocoa's (`NSKeyValueValidationError`, 1024, and Core Data's 1550-1680 range); the
/// error bridges to `NSError` in `NSCocoaErrorDomain` with Cocoa's userInfo keys, and several
/// failures become one error with code ``Code/multipleErrors`` whose ``underlyingErrors`` (and
/// `NSDetailedErrors` userInfo entry) hold them all.
///
/// ```swift
/// do { try employee.validateForUpdate() }
/// catch let error as ValidationError {
///     for failure in error.failures { print(failure.key ?? "-", failure.message) }
/// }
/// ```
public struct ValidationError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure, with Cocoa's numbers. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value, as Cocoa's.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A per-key validator rejected the value (`NSKeyValueValidationError`).
        public static let keyValueValidation = Code(rawValue: 1024)
        /// Any other validation failure of a model object (`NSManagedObjectValidationError`).
        public static let managedObjectValidation = Code(rawValue: 1550)
        /// Several failures; see ``ValidationError/underlyingErrors``
        /// (`NSValidationMultipleErrorsError`).
        public static let multipleErrors = Code(rawValue: 1560)
        /// A non-optional property has no value (`NSValidationMissingMandatoryPropertyError`).
        public static let missingMandatoryProperty = Code(rawValue: 1570)
        /// A to-many relationship has too few objects (`NSValidationRelationshipLacksMinimumCountError`).
        public static let relationshipLacksMinimumCount = Code(rawValue: 1580)
        /// A to-many relationship has too many objects (`NSValidationRelationshipExceedsMaximumCountError`).
        public static let relationshipExceedsMaximumCount = Code(rawValue: 1590)
        /// A deny delete rule forbids the deletion (`NSValidationRelationshipDeniedDeleteError`).
        public static let relationshipDeniedDelete = Code(rawValue: 1600)
        /// A number is above its maximum (`NSValidationNumberTooLargeError`).
        public static let numberTooLarge = Code(rawValue: 1610)
        /// A number is below its minimum (`NSValidationNumberTooSmallError`).
        public static let numberTooSmall = Code(rawValue: 1620)
        /// A date is after its maximum (`NSValidationDateTooLateError`).
        public static let dateTooLate = Code(rawValue: 1630)
        /// A date is before its minimum (`NSValidationDateTooSoonError`).
        public static let dateTooSoon = Code(rawValue: 1640)
        /// A date is invalid (`NSValidationInvalidDateError`).
        public static let invalidDate = Code(rawValue: 1650)
        /// A string is longer than its maximum (`NSValidationStringTooLongError`).
        public static let stringTooLong = Code(rawValue: 1660)
        /// A string is shorter than its minimum (`NSValidationStringTooShortError`).
        public static let stringTooShort = Code(rawValue: 1670)
        /// A string does not match its pattern (`NSValidationStringPatternMatchingError`).
        public static let stringPatternMatching = Code(rawValue: 1680)

        public var description: String { "\(rawValue)" }

        /// Matches a thrown error against a code: `catch ValidationError.Code.multipleErrors`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ValidationError)?.code == code
        }
    }

    /// Cocoa's userInfo key for the rejected key (`NSValidationKeyErrorKey`).
    public static let validationKeyErrorKey = "NSValidationErrorKey"
    /// Cocoa's userInfo key for the rejected value (`NSValidationValueErrorKey`).
    public static let validationValueErrorKey = "NSValidationErrorValue"
    /// Cocoa's userInfo key for the predicate that failed (`NSValidationPredicateErrorKey`).
    public static let validationPredicateErrorKey = "NSValidationErrorPredicate"
    /// Cocoa's userInfo key for the object that failed (`NSValidationObjectErrorKey`).
    public static let validationObjectErrorKey = "NSValidationErrorObject"
    /// Cocoa's userInfo key for the individual errors of a multiple-errors error
    /// (`NSDetailedErrorsKey`).
    public static let detailedErrorsKey = "NSDetailedErrors"

    /// What went wrong.
    public var code: Code
    /// The key whose value was rejected; nil for object-level failures.
    public var key: String?
    /// The rejected value, when it can cross isolation domains (attribute values can; model
    /// objects cannot, see ``rejectedValueDescription``).
    public var rejectedValue: (any Sendable)?
    /// A description of the rejected value.
    public var rejectedValueDescription: String?
    /// A description of the object that failed validation.
    public var objectDescription: String?
    /// The failed constraint, for constraint failures (`"age > 0"`, a regular expression).
    public var predicate: String?
    /// A readable explanation.
    public var message: String
    /// The individual failures of a ``Code/multipleErrors`` error.
    public var underlyingErrors: [ValidationError]

    /// Creates an error.
    public init(
        _ code: Code = .keyValueValidation, key: String? = nil, value: Any? = nil, object: AnyObject? = nil,
        predicate: String? = nil, message: String, underlyingErrors: [ValidationError] = []
    ) {
        self.code = code
        self.key = key
        if let value {
            rejectedValue = sendableKeyValue(value)
            rejectedValueDescription = describeKeyValue(value)
        }
        objectDescription = object.map { String(describing: $0) }
        self.predicate = predicate
        self.message = message
        self.underlyingErrors = underlyingErrors
    }

    /// The individual failures: the underlying errors of a multiple-errors error, or the error itself.
    public var failures: [ValidationError] {
        code == .multipleErrors ? underlyingErrors : [self]
    }

    /// Combines errors into one: nil for none, the error itself for one, a
    /// ``Code/multipleErrors`` error for several (nested multiple-errors errors are flattened).
    /// Errors that are not validation errors become ``Code/managedObjectValidation`` failures.
    ///
    /// Use it in an object-level validation that adds its own checks to `super`'s:
    /// ```swift
    /// override func validateForUpdate() throws {
    ///     var errors: [any Error] = []
    ///     do { try super.validateForUpdate() } catch { errors.append(error) }
    ///     if age ?? 0 < 16 && hasDriversLicense { errors.append(ValidationError(…)) }
    ///     if let error = ValidationError.combining(errors) { throw error }
    /// }
    /// ```
    public static func combining(_ errors: [any Error]) -> ValidationError? {
        let failures = errors.flatMap { error -> [ValidationError] in
            if let validation = error as? ValidationError { return validation.failures }
            return [ValidationError(.managedObjectValidation, message: String(describing: error))]
        }
        switch failures.count {
        case 0: return nil
        case 1: return failures[0]
        default:
            let summary = failures.map(\.message).joined(separator: "; ")
            return ValidationError(
                .multipleErrors, message: "\(failures.count) validation errors: \(summary)",
                underlyingErrors: failures)
        }
    }

    public var description: String {
        var text = "ValidationError \(code.rawValue)"
        if let key { text += " on '\(key)'" }
        text += ": \(message)"
        return text
    }
}

extension ValidationError: CustomNSError, LocalizedError {
    /// Cocoa's error domain, `NSCocoaErrorDomain`.
    public static var errorDomain: String { NSCocoaErrorDomain }

    public var errorCode: Int { code.rawValue }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let key { info[Self.validationKeyErrorKey] = key }
        if let value = rejectedValue ?? rejectedValueDescription { info[Self.validationValueErrorKey] = value }
        if let predicate { info[Self.validationPredicateErrorKey] = predicate }
        if let objectDescription { info[Self.validationObjectErrorKey] = objectDescription }
        if code == .multipleErrors {
            info[Self.detailedErrorsKey] = underlyingErrors.map { $0 as NSError }
        }
        return info
    }

    public var errorDescription: String? { message }
}
