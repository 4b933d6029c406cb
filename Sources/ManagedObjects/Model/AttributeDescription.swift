import Foundation

/// An attribute of an entity: a named value of one ``AttributeType``, with its default value and
/// validation constraints.
///
/// Values are of the type's Swift value type (``AttributeType/valueType``): ``defaultValue``,
/// ``minimumValue`` and ``maximumValue`` of a `.double` attribute are `Double`s, of a `.date`
/// attribute `Date`s. Constraints are checked when objects are validated, not here.
///
/// ```swift
/// let salary = model.entity(named: "Employee")?.attributesByName["salary"]
/// salary?.attributeType      // .double
/// salary?.defaultValue       // Optional(0.0)
/// salary?.minimumValue       // Optional(0.0)
/// ```
///
/// Corresponds to Core Data's `NSAttributeDescription`; differences: immutable and made only by a
/// model; typed constraints (``minimumValue``, ``maximumValue``, ``minimumLength``,
/// ``maximumLength``, ``regularExpression``) instead of validation predicates; transformers are
/// ``ValueTransforming`` values found by name in ``ValueTransformerRegistry``; no
/// `attributeValueClassName` or `allowsExternalBinaryDataStorage`.
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    // SAFETY: adds only `let`s of `Sendable` types to PropertyDescription (see its SAFETY note).

    /// The kind of value the attribute holds.
    ///
    /// Corresponds to Core Data's `NSAttributeDescription.attributeType`.
    public let attributeType: AttributeType
    /// The value a new object starts with, of the type's Swift value type; nil for none.
    ///
    /// Corresponds to Core Data's `NSAttributeDescription.defaultValue`; differences: converted to
    /// the type's Swift value type.
    public let defaultValue: (any Sendable)?
    /// The smallest value allowed, for numbers and dates; nil for no minimum.
    ///
    /// Corresponds to the `>=` validation predicate Xcode writes for a minimum value; differences:
    /// a typed value.
    public let minimumValue: (any Sendable)?
    /// The largest value allowed, for numbers and dates; nil for no maximum.
    ///
    /// Corresponds to the `<=` validation predicate Xcode writes for a maximum value; differences:
    /// a typed value.
    public let maximumValue: (any Sendable)?
    /// The fewest characters a string, or bytes binary data, may have; nil for no minimum.
    ///
    /// Corresponds to the `length >=` validation predicate Xcode writes for a minimum length.
    public let minimumLength: Int?
    /// The most characters a string, or bytes binary data, may have; nil for no maximum.
    ///
    /// Corresponds to the `length <=` validation predicate Xcode writes for a maximum length.
    public let maximumLength: Int?
    /// A regular expression (`NSRegularExpression` syntax) a string must match; nil for none.
    ///
    /// Corresponds to the `SELF MATCHES` validation predicate Xcode writes for a regular expression.
    public let regularExpression: String?
    /// Whether a value can break a constraint besides a missing one: bounds, lengths or a
    /// pattern (validation skips the rest of the checks when not).
    package let hasValueConstraints: Bool
    /// The name of the transformer of a transformable attribute, as written in the model; nil
    /// means Core Data's default, ``ValueTransformerRegistry/secureUnarchiveFromDataName``.
    ///
    /// Corresponds to Core Data's `NSAttributeDescription.valueTransformerName`.
    public let valueTransformerName: String?
    /// Whether a deleted record's value of this attribute is kept in its persistent history
    /// tombstone (``PersistentHistoryChange/tombstone``), so that readers of history can tell
    /// which record went (by a UUID, say) after it is gone. False by default; set it with
    /// ``Property``'s `preservesValueInHistoryOnDeletion:`, or Xcode's "Preserve After
    /// Deletion" (`preserveAfterDeletion="YES"` in a model file). It does not change the
    /// attribute's version hash.
    ///
    /// Corresponds to Core Data's `NSAttributeDescription.preservesValueInHistoryOnDeletion`.
    public let preservesValueInHistoryOnDeletion: Bool

    /// The Swift type of the attribute's values; nil when any value is allowed.
    ///
    /// Corresponds to Core Data's `attributeValueClassName`; differences: a Swift type, not a class name.
    public var valueType: Any.Type? { attributeType.valueType }

    /// The transformer a transformable attribute converts its values with: the one registered
    /// under ``valueTransformerName`` (or the default name) in ``ValueTransformerRegistry``, looked
    /// up on each call. Nil for other attribute types, or when nothing is registered under the name.
    ///
    /// Corresponds to `ValueTransformer(forName: valueTransformerName)`; differences: a
    /// ``ValueTransforming`` value.
    public var valueTransformer: (any ValueTransforming)? {
        guard attributeType == .transformable else { return nil }
        return ValueTransformerRegistry.transformer(
            forName: valueTransformerName ?? ValueTransformerRegistry.secureUnarchiveFromDataName)
    }

    /// Makes the description, checking the default value and constraints against the type.
    init(entityName: String, common: Property.Common, fields: Property.AttributeFields) throws {
        let type = fields.type
        func failure(_ code: ModelError.Code, _ message: String) -> ModelError {
            ModelError(code, entity: entityName, property: common.name, message: message)
        }
        if type == .undefined && !common.isTransient {
            throw failure(
                .unsupportedAttributeType, "the undefined attribute type is allowed only for transient attributes")
        }
        if !AttributeType.allKnown.contains(type) {
            throw failure(.unsupportedAttributeType, "unknown attribute type \(type.rawValue)")
        }
        func convert(_ value: (any Sendable)?, _ what: String, code: ModelError.Code) throws -> (any Sendable)? {
            guard let value else { return nil }
            guard let converted = type.converting(value) else {
                throw failure(
                    code, "\(what) \(value) (\(Swift.type(of: value))) is not a value of type \(type)")
            }
            return converted
        }
        attributeType = type
        defaultValue = try convert(fields.defaultValue, "default value", code: .invalidDefaultValue)
        if (fields.minimumValue != nil || fields.maximumValue != nil) && !(type.isNumeric || type == .date) {
            throw failure(
                .invalidConstraint,
                "minimum and maximum values apply to numbers and dates, not to \(type) attributes"
                    + (type == .string || type == .binaryData ? "; use minimumLength and maximumLength" : ""))
        }
        minimumValue = try convert(fields.minimumValue, "minimum value", code: .invalidConstraint)
        maximumValue = try convert(fields.maximumValue, "maximum value", code: .invalidConstraint)
        if let minimumValue, let maximumValue, type.compare(minimumValue, maximumValue) == .orderedDescending {
            throw failure(.invalidConstraint, "minimum value \(minimumValue) is above maximum value \(maximumValue)")
        }
        if (fields.minimumLength != nil || fields.maximumLength != nil) && !(type == .string || type == .binaryData) {
            throw failure(
                .invalidConstraint,
                "minimum and maximum lengths apply to strings and binary data, not to \(type) attributes")
        }
        for length in [fields.minimumLength, fields.maximumLength].compactMap({ $0 }) where length < 0 {
            throw failure(.invalidConstraint, "a length cannot be negative (\(length))")
        }
        if let minimum = fields.minimumLength, let maximum = fields.maximumLength, minimum > maximum {
            throw failure(.invalidConstraint, "minimum length \(minimum) is above maximum length \(maximum)")
        }
        minimumLength = fields.minimumLength
        maximumLength = fields.maximumLength
        if let pattern = fields.regularExpression {
            guard type == .string else {
                throw failure(.invalidConstraint, "a regular expression applies to strings, not to \(type) attributes")
            }
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw ModelError(
                    .invalidConstraint, entity: entityName, property: common.name,
                    message: "regular expression '\(pattern)' does not compile", underlyingError: error)
            }
        }
        regularExpression = fields.regularExpression
        hasValueConstraints = minimumValue != nil || maximumValue != nil || minimumLength != nil || maximumLength != nil
            || regularExpression != nil
        valueTransformerName = fields.valueTransformerName
        preservesValueInHistoryOnDeletion = fields.preservesValueInHistoryOnDeletion

        var encoder = Self.hashEncoder(kind: "attribute", common: common)
        encoder.append(integer: UInt64(type.rawValue))
        super.init(common: common, versionHash: encoder.finalize())
    }

    /// The entity and attribute name with the type: `"AttributeDescription(Employee.salary: double)"`.
    ///
    /// Corresponds to `-[NSAttributeDescription description]`; differences: one short line.
    public override var description: String {
        "AttributeDescription(\(entity?.name ?? "?").\(name): \(attributeType))"
    }

    override var reflectedFields: [Mirror.Child] {
        super.reflectedFields + [
            ("attributeType", attributeType), ("defaultValue", defaultValue as Any),
            ("minimumValue", minimumValue as Any), ("maximumValue", maximumValue as Any),
            ("minimumLength", minimumLength as Any), ("maximumLength", maximumLength as Any),
            ("regularExpression", regularExpression as Any), ("valueTransformerName", valueTransformerName as Any),
            ("preservesValueInHistoryOnDeletion", preservesValueInHistoryOnDeletion),
        ]
    }
}
