import Foundation
import ModelObjects
import Synchronization

// Validation against the model: mandatory values, bounds, lengths, patterns, relationship
// counts and deny delete rules, with Core Data's error codes.

extension ManagedObject {
    /// Checks `value` against the model's constraints for `property`.
    ///
    /// - Throws: `ValidationError` with the code of the first constraint it breaks.
    final func validateModelConstraints(of property: PropertyDescription, value: Any?) throws {
        try Self.checkModelConstraints(of: property, value: value, entityName: entity.name, object: self)
    }

    /// Checks `value` against the model's constraints for `property` of an entity named
    /// `entityName`; `object` is named in the error when there is one.
    ///
    /// - Throws: `ValidationError` with the code of the first constraint it breaks.
    static func checkModelConstraints(of property: PropertyDescription, value: Any?, entityName: String, object: AnyObject?) throws {
        let key = property.name
        func failure(_ code: ValidationError.Code, _ message: String) -> ValidationError {
            ValidationError(code, key: key, value: value, object: object, message: "\(entityName).\(key): \(message)")
        }
        if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                let count = (value as? RelationshipFault)?.ids?.count ?? Self.count(inCollection: value)
                if count == 0 && !relationship.isOptional {
                    throw failure(.missingMandatoryProperty, "at least one related object is required")
                }
                if count > 0 || !relationship.isOptional {
                    if relationship.minCount > 0 && count < relationship.minCount {
                        throw failure(.relationshipLacksMinimumCount, "\(count) related objects, at least \(relationship.minCount) required")
                    }
                    if relationship.maxCount > 0 && count > relationship.maxCount {
                        throw failure(.relationshipExceedsMaximumCount, "\(count) related objects, at most \(relationship.maxCount) allowed")
                    }
                }
            } else if value == nil && !relationship.isOptional {
                throw failure(.missingMandatoryProperty, "a related object is required")
            }
            return
        }
        guard let attribute = property as? AttributeDescription else { return }
        // Worked out once per attribute: an optional attribute without bounds, lengths or a
        // pattern takes every value, and a value of the attribute's own type is never null.
        if !attribute.hasValueConstraints {
            if attribute.isOptional { return }
            if let value, let type = attribute.valueType, Swift.type(of: value) == type { return }
        }
        guard let value, !isNull(value) else {
            if !attribute.isOptional { throw failure(.missingMandatoryProperty, "a value is required") }
            return
        }
        if !attribute.hasValueConstraints { return }
        let type = attribute.attributeType
        // Stored values already have the attribute's type; only others need converting.
        let converted: Any? = attribute.valueType.map { Swift.type(of: value) == $0 } == true ? value : Self.convert(value, to: attribute)
        if let minimum = attribute.minimumValue, let converted, Self.compare(converted, minimum, as: type) == .orderedAscending {
            throw failure(
                type == .date ? .dateTooSoon : .numberTooSmall, "\(describeKeyValue(value)) is less than the minimum \(describeKeyValue(minimum))")
        }
        if let maximum = attribute.maximumValue, let converted, Self.compare(converted, maximum, as: type) == .orderedDescending {
            throw failure(
                type == .date ? .dateTooLate : .numberTooLarge, "\(describeKeyValue(value)) is greater than the maximum \(describeKeyValue(maximum))")
        }
        let length: Int? = (value as? String).map(\.count) ?? (value as? Data).map(\.count)
        if let length {
            if let minimum = attribute.minimumLength, length < minimum {
                throw failure(.stringTooShort, "length \(length) is less than the minimum \(minimum)")
            }
            if let maximum = attribute.maximumLength, length > maximum {
                throw failure(.stringTooLong, "length \(length) is greater than the maximum \(maximum)")
            }
        }
        if let pattern = attribute.regularExpression, let string = value as? String {
            let expression = RegularExpressionCache.expression(matchingWhole: pattern)
            let range = NSRange(string.startIndex..., in: string)
            if expression?.firstMatch(in: string, range: range) == nil {
                throw failure(.stringPatternMatching, "\"\(string)\" does not match \(pattern)")
            }
        }
    }

    /// Orders two values of an attribute type: numbers and dates; nil for other types.
    static func compare(_ lhs: Any, _ rhs: Any, as type: AttributeType) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T?, _ b: T?) -> ComparisonResult? {
            guard let a, let b else { return nil }
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
        switch type {
        case .integer16, .integer32, .integer64:
            return order(convertKeyValue(lhs, to: Int64.self), convertKeyValue(rhs, to: Int64.self))
        case .double:
            if let a = lhs as? Double, let b = rhs as? Double { return order(a, b) }
            return order(convertKeyValue(lhs, to: Double.self), convertKeyValue(rhs, to: Double.self))
        case .float: return order(convertKeyValue(lhs, to: Double.self), convertKeyValue(rhs, to: Double.self))
        case .decimal: return order(convertKeyValue(lhs, to: Decimal.self), convertKeyValue(rhs, to: Decimal.self))
        case .date: return order(lhs as? Date, rhs as? Date)
        default: return nil
        }
    }

    /// Runs `ModelObject/validateValue(_:forKey:)` on every modeled persistent property and
    /// the class's declared properties, collecting every failure.
    final func validateAllModeledProperties() throws {
        var errors: [any Error] = []
        try? fireFaultIfNeeded()
        guard !isFault else { return }
        let overrides = attributesWithCustomPrimitiveAccessors()
        let isToMany = entity.isToManyByIndex
        defer { validatingProperty = nil }
        for property in entity.properties where !property.isTransient {
            var value = attributeValue(property, overrides: overrides)
            if isToMany[property.index], let fault = value as? RelationshipFault {
                // Not read since it was loaded, so unchanged: the model's counts are checked on
                // its IDs (read when not yet, if the model constrains them); it is loaded only
                // for a class validator of the key.
                guard type(of: self).validator(forKey: property.name) != nil else {
                    guard fault.ids != nil || (property as? RelationshipDescription)?.constrainsCount == true else { continue }
                    do {
                        let ids = try relationshipFaultIDs(fault, at: property.index)
                        try validateModelConstraints(of: property, value: RelationshipFault(ids: ids, isOrdered: fault.isOrdered))
                    } catch {
                        errors.append(error)
                    }
                    continue
                }
                do {
                    _ = try relationshipFaultIDs(fault, at: property.index)
                } catch {
                    errors.append(error)
                    continue
                }
                resolveRelationshipFault(at: property.index)
                value = values[property.index]
            }
            validatingProperty = property
            do { try validateValue(&value, forKey: property.name) } catch { errors.append(error) }
        }
        validatingProperty = nil
        for key in declaredUnmodeledKeys() {
            do {
                var value = try self.value(forKey: key)
                try validateValue(&value, forKey: key)
            } catch {
                errors.append(error)
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    private static let unmodeledKeys = ClassEntityCache<[String]>()

    /// The keys of the properties the class declares itself (not through ``Managed``) that the
    /// entity does not model; found once per class and entity.
    private func declaredUnmodeledKeys() -> [String] {
        Self.unmodeledKeys.value(for: type(of: self), entity: entity) {
            propertyTable.descriptors.map(\.key).filter { entity.propertiesByName[$0] == nil }
        }
    }

    /// Fails when a relationship with the deny rule still has related objects.
    final func validateDeleteRules() throws {
        var errors: [any Error] = []
        for relationship in entity.relationships where relationship.deleteRule == .deny {
            let value = values.indices.contains(relationship.index) ? values[relationship.index] : nil
            let count: Int
            if let fault = value as? RelationshipFault {
                count = try relationshipFaultIDs(fault, at: relationship.index).count
            } else {
                count = relationship.isToMany ? Self.count(inCollection: value) : (value == nil ? 0 : 1)
            }
            if count > 0 {
                errors.append(
                    ValidationError(
                        .relationshipDeniedDelete, key: relationship.name, object: self,
                        message: "\(entity.name).\(relationship.name): cannot delete while \(count) related object"
                            + (count == 1 ? " exists" : "s exist") + " (deny rule)"))
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }
}

/// Compiled patterns of attributes, shared by every validation.
enum RegularExpressionCache {
    // SAFETY: NSRegularExpression is immutable once made and safe to use from any thread.
    private struct Box: @unchecked Sendable { let expression: NSRegularExpression }
    private static let expressions = Mutex<[String: Box]>([:])

    /// The expression matching a whole string against `pattern`; nil when it does not compile.
    static func expression(matchingWhole pattern: String) -> NSRegularExpression? {
        if let box = expressions.withLock({ $0[pattern] }) { return box.expression }
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return nil }
        expressions.withLock { $0[pattern] = Box(expression: expression) }
        return expression
    }
}
