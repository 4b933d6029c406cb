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
    ///
    /// A property whose value passes its entity's compiled check (``ValidationCheck``) is not
    /// boxed and sent through `validateValue(_:forKey:)` when that call could do nothing more:
    /// the class does not override `validateValue(_:forKey:)`, has no validator for the key and
    /// no primitive accessor of its own for it (see ``validationPlan()``). Every other property,
    /// and every value the check does not pass, takes the call, which reports failures.
    final func validateAllModeledProperties() throws {
        var errors: [any Error] = []
        try? fireFaultIfNeeded()
        guard !isFault else { return }
        let plan = validationPlan()
        let overrides = plan.customPrimitiveAccessors
        let isToMany = entity.isToManyByIndex
        let checks = entity.layout.validationChecks
        defer { validatingProperty = nil }
        for property in entity.properties where !property.isTransient {
            if !plan.callsValidateValue[property.index], passes(checks[property.index], at: property.index) { continue }
            var value = attributeValue(property, overrides: overrides)
            if isToMany[property.index], let fault = value as? RelationshipFault {
                // Not read since it was loaded, so unchanged: the model's counts are checked on
                // its IDs (read when not yet, if the model constrains them); it is loaded only
                // for a class validator of the key.
                guard plan.hasValidator[property.index] else {
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
        for key in plan.unmodeledKeys {
            do {
                var value = try self.value(forKey: key)
                try validateValue(&value, forKey: key)
            } catch {
                errors.append(error)
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Whether the value in the slot at `index` passes `check` for sure; false when the
    /// general check must decide (it may still pass there).
    @inline(__always)
    private func passes(_ check: ValidationCheck, at index: Int) -> Bool {
        switch check {
        case .none:
            return true
        case .required:
            return slotHoldsValue(at: index)
        case .integer(let minimum, let maximum, let isOptional):
            let value: Int64?
            switch values.kind(at: index) {
            case .int16: value = values.load(Int16.self, at: index).map(Int64.init)
            case .int32: value = values.load(Int32.self, at: index).map(Int64.init)
            case .int64: value = values.load(Int64.self, at: index)
            default: return false
            }
            guard let value else { return isOptional }
            // As the general check orders them: a value below the minimum or above the maximum fails.
            return !(minimum.map { value < $0 } ?? false) && !(maximum.map { value > $0 } ?? false)
        case .double(let minimum, let maximum, let isOptional):
            guard values.kind(at: index) == .double else { return false }
            guard let value = values.load(Double.self, at: index) else { return isOptional }
            return !(minimum.map { value < $0 } ?? false) && !(maximum.map { value > $0 } ?? false)
        case .general:
            return false
        }
    }

    /// Whether the typed slot at `index` holds a value; false for `Any?` slots and missing ones.
    private func slotHoldsValue(at index: Int) -> Bool {
        guard let kind = values.kind(at: index) else { return false }
        switch kind {
        case .int16: return values.load(Int16.self, at: index) != nil
        case .int32: return values.load(Int32.self, at: index) != nil
        case .int64: return values.load(Int64.self, at: index) != nil
        case .double: return values.load(Double.self, at: index) != nil
        case .float: return values.load(Float.self, at: index) != nil
        case .boolean: return values.load(Bool.self, at: index) != nil
        case .date: return values.load(Date.self, at: index) != nil
        case .decimal: return values.load(Decimal.self, at: index) != nil
        case .uuid: return values.load(UUID.self, at: index) != nil
        case .string: return values.load(String.self, at: index) != nil
        case .data: return values.load(Data.self, at: index) != nil
        case .url: return values.load(URL.self, at: index) != nil
        case .object: return values.load(ManagedObject.self, at: index) != nil
        case .any, .toMany, .orderedToMany: return false
        }
    }

    private static let validationPlans = ClassEntityCache<ValidationPlan>()

    /// What validating this object's properties involves beyond the model's constraints,
    /// worked out once per class and entity (on this object, which must not be a fault: the
    /// primitive accessors are probed on it).
    final func validationPlan() -> ValidationPlan {
        Self.validationPlans.value(for: type(of: self), entity: entity) {
            let objectClass = type(of: self)
            let overrides = attributesWithCustomPrimitiveAccessors()
            let overridesValidateValue = ValidateValueOverrides.overridesValidateValue(objectClass)
            let hasValidator = entity.properties.map { objectClass.validator(forKey: $0.name) != nil }
            return ValidationPlan(
                customPrimitiveAccessors: overrides, hasValidator: hasValidator,
                callsValidateValue: entity.properties.map {
                    overridesValidateValue || hasValidator[$0.index] || overrides[$0.index]
                },
                unmodeledKeys: propertyTable.descriptors.map(\.key).filter { entity.propertiesByName[$0] == nil })
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

/// What validating an object of one class and entity involves beyond the model's constraints.
struct ValidationPlan: Sendable {
    /// By property index: whether the class keeps the attribute in its own primitive accessor
    /// (see `ManagedObject.attributesWithCustomPrimitiveAccessors()`).
    var customPrimitiveAccessors: [Bool]
    /// By property index: whether the class has a validator for the key (`validate<Key>`).
    var hasValidator: [Bool]
    /// By property index: whether `validateValue(_:forKey:)` is called whatever the value (the
    /// class overrides it, has a validator for the key, or a primitive accessor of its own),
    /// not only for values the compiled check does not pass.
    var callsValidateValue: [Bool]
    /// The keys of the properties the class declares itself (not through `Managed`) that the
    /// entity does not model: validated by key after the modeled ones.
    var unmodeledKeys: [String]
}

/// Whether a class overrides `validateValue(_:forKey:)`, as Cocoa compares a class's method
/// with `NSManagedObject`'s before it skips calling it. Swift has no call that answers this, so
/// the answer is read from the method table in each class's metadata: a subclass's table
/// starts with a copy of its superclass's, in which an override replaces the entry it
/// overrides. Which entry is `validateValue(_:forKey:)`'s is found once, from two probe classes
/// that differ only in overriding it. When the metadata does not look as expected, every class
/// counts as overriding it, and validation takes the general path.
enum ValidateValueOverrides {
    private final class Inheriting: ManagedObject {}

    private final class Overriding: ManagedObject {
        override func validateValue(_ value: inout Any?, forKey key: String) throws {
            try super.validateValue(&value, forKey: key)
        }
    }

    /// The byte offset, from the metadata's address point, of the method-table entry of
    /// `validateValue(_:forKey:)`; nil when it could not be found.
    static let entryOffset: Int? = findEntryOffset()

    /// Whether `type` (or a superclass below `ManagedObject`) overrides `validateValue(_:forKey:)`;
    /// true when that cannot be told.
    static func overridesValidateValue(_ type: ManagedObject.Type) -> Bool {
        guard let entryOffset else { return true }
        if type == ManagedObject.self { return false }
        // SAFETY: a subclass's metadata holds every entry of its superclasses' method tables at
        // the same offsets, so an offset inside `ManagedObject`'s metadata (checked when it was
        // found) is inside every subclass's.
        return entry(of: type, at: entryOffset) != entry(of: ManagedObject.self, at: entryOffset)
    }

    private static func metadata(_ type: AnyClass) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    private static func entry(of type: AnyClass, at offset: Int) -> UInt {
        metadata(type).load(fromByteOffset: offset, as: UInt.self)
    }

    /// The offset of the only word of `ManagedObject`'s metadata that `Overriding` changes and
    /// `Inheriting` does not, after checking the header fields it reads (class metadata: kind,
    /// superclass, flags and instance address point, instance size and alignment, then the
    /// class's size and address point, each a 64- or 32-bit field).
    private static func findEntryOffset() -> Int? {
        guard MemoryLayout<UInt>.size == 8 else { return nil }
        let base = metadata(ManagedObject.self), inheriting = metadata(Inheriting.self), overriding = metadata(Overriding.self)
        // SAFETY: the reads below stay within the metadata of the three classes: the header
        // words are read only after checking that the second one of each probe is its
        // superclass (`ManagedObject`), and the rest within `ManagedObject`'s size (a subclass's
        // metadata is at least as large, checked too).
        guard inheriting.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) == base,
              overriding.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) == base
        else { return nil }
        func extent(_ pointer: UnsafeRawPointer) -> Int? {
            let size = Int(pointer.load(fromByteOffset: 32, as: UInt32.self))
            let addressPoint = Int(pointer.load(fromByteOffset: 36, as: UInt32.self))
            guard addressPoint >= 0, addressPoint < size, size < 1 << 20, addressPoint % 8 == 0 else { return nil }
            return size - addressPoint
        }
        guard let baseExtent = extent(base), let inheritingExtent = extent(inheriting), let overridingExtent = extent(overriding),
              inheritingExtent >= baseExtent, overridingExtent >= baseExtent
        else { return nil }
        var found: [Int] = []
        // The header takes the first 56 bytes (seven words); the method tables follow.
        for offset in stride(from: 56, to: baseExtent - 7, by: 8) {
            let original = base.load(fromByteOffset: offset, as: UInt.self)
            if inheriting.load(fromByteOffset: offset, as: UInt.self) == original,
               overriding.load(fromByteOffset: offset, as: UInt.self) != original
            {
                found.append(offset)
            }
        }
        return found.count == 1 ? found[0] : nil
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
