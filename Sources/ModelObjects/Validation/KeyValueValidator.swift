import Foundation
import Synchronization

/// A per-key validator: the Swift form of a `validate<Key>:error:` method. It receives the
/// object and the proposed value, typed, and may replace the value (coercion) or throw.
///
/// Return one from ``ModelObject/validator(forKey:)``.
public struct KeyValueValidator {
    let validate: (ModelObject, inout Any?) throws -> Void

    /// A validator for a value of type `Value` on objects of class `Object`.
    ///
    /// A proposed value that is not of type `Value` (after key-value coding's lossless
    /// conversions) fails with ``ValidationError/Code/keyValueValidation`` before `body` runs.
    public init<Object: ModelObject, Value>(_ body: @escaping (Object, inout Value) throws -> Void) {
        validate = { object, value in
            guard let object = object as? Object else { return }
            var typed: Value
            if let given = value {
                guard let converted = convertKeyValue(given, to: Value.self) else {
                    throw ValidationError(
                        .keyValueValidation, value: given, object: object,
                        message: "expected a value of type \(Value.self), got \(type(of: given))")
                }
                typed = converted
            } else if let none = noneValue(of: Value.self) {
                typed = none
            } else {
                throw ValidationError(
                    .keyValueValidation, object: object, message: "nil is not a valid \(Value.self)")
            }
            try body(object, &typed)
            value = flattenOptional(typed)
        }
    }
}

/// The (object, key) pairs whose validators are running, so that a validator calling
/// `validateValue` for its own key does not recurse forever.
private let validatorsRunning = Mutex<Set<ValidatorFrame>>([])

private struct ValidatorFrame: Hashable, Sendable {
    let object: ObjectIdentifier
    let key: String
}

extension ModelObject {
    /// Runs `validator` once per (object, key) at a time and gives its errors the key and value.
    func runValidator(_ validator: KeyValueValidator, value: inout Any?, forKey key: String) throws {
        let frame = ValidatorFrame(object: ObjectIdentifier(self), key: key)
        guard validatorsRunning.withLock({ $0.insert(frame).inserted }) else { return }
        defer { _ = validatorsRunning.withLock { $0.remove(frame) } }
        do {
            try validator.validate(self, &value)
        } catch var error as ValidationError {
            if error.key == nil { error.key = key }
            if error.rejectedValueDescription == nil, let value {
                error.rejectedValue = sendableKeyValue(value)
                error.rejectedValueDescription = describeKeyValue(value)
            }
            if error.objectDescription == nil { error.objectDescription = description }
            throw error
        } catch {
            throw ValidationError(
                .keyValueValidation, key: key, value: value, object: self, message: String(describing: error))
        }
    }

    /// Validates every declared stored property's current value and throws all failures at once.
    func validateAllProperties() throws {
        var errors: [any Error] = []
        for descriptor in propertyTable.descriptors where !descriptor.isReadOnly {
            var value = descriptor.value(in: self)
            do {
                try validateValue(&value, forKey: descriptor.key)
            } catch {
                errors.append(error)
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }
}

extension ModelObject {
    /// Validates a proposed value for the last key of a dot-separated key path, on the object
    /// the rest of the path leads to: `validateValue(&name, forKeyPath: "department.name")`
    /// runs the department's validator for `name`, which may replace the value or throw.
    ///
    /// When a key on the way holds nil there is no object to validate on, and the value is
    /// invalid, as in Cocoa (whose message to nil answers `NO`).
    ///
    /// - Throws: What ``validateValue(_:forKey:)`` throws on that object;
    ///   ``ValidationError/Code/keyValueValidation`` naming the key on the way that holds nil;
    ///   ``KeyValueCodingError/Code/malformedKeyPath`` for an empty key,
    ///   ``KeyValueCodingError/Code/notKeyValueCodingCompliant`` when the path goes through a
    ///   value that is not a model object (a to-many collection included), or what reading a
    ///   key on the way throws.
    ///
    /// Corresponds to `-[NSObject validateValue:forKeyPath:error:]`; differences: a path through
    /// a collection throws (Cocoa's array or set answers `YES` without validating anything), and
    /// a nil on the way gives an error where Cocoa gives none.
    public func validateValue(_ value: inout Any?, forKeyPath keyPath: String) throws {
        let proposed = value
        let leads = try KeyValuePath.lastTarget(of: self, forKeyPath: keyPath) { key, holder in
            throw ValidationError(
                .keyValueValidation, key: key, value: proposed, object: holder,
                message: "'\(key)' holds nil on the way to '\(keyPath)': there is no object to validate on")
        }
        guard let (target, key) = leads else { return }
        try target.validateValue(&value, forKey: key)
    }
}
