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
        // Which values pass their compiled checks, found in one read of the buffer before any
        // call that could write it (a class's validator, `validateValue(_:forKey:)`).
        var passing = passingProperties(checks, skipping: plan.callsValidateValue)
        // Every persistent value passes (the common case): nothing to box, call or collect.
        if plan.unmodeledKeys.isEmpty && passing.isSuperset(of: plan.persistentProperties) { return }
        defer { validatingProperty = nil }
        for property in entity.properties where !property.isTransient {
            if passing.contains(property.index) { continue }
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
            // A class's own validator may have set other values: read the checks again.
            if plan.callsValidateValue[property.index] { passing = passingProperties(checks, skipping: plan.callsValidateValue) }
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

    /// The indexes of the properties whose values pass their compiled checks for sure (see
    /// ``ValidationCheck``), leaving out those `skipping` marks (they take
    /// `validateValue(_:forKey:)` whatever their value): one access to the buffer for all of
    /// them, each slot read through its kind's own type, nothing retained per property.
    private func passingProperties(_ checks: ContiguousArray<ValidationCheck>, skipping: [Bool]) -> PassingProperties {
        // The values borrowed, not retained: the checks only read them.
        withValuesUnretained { values in
            guard let buffer = values.storage else { return PassingProperties() }
            return buffer.withUnsafeMutablePointers { header, words in
                let slots = header.pointee.layout.slots
                let base = UnsafeMutableRawPointer(words)
                var passing = PassingProperties(count: slots.count)
                for index in 0..<min(checks.count, slots.count, skipping.count) where !skipping[index] {
                    if Self.passes(checks[index], slots[index], in: base) { passing.insert(index) }
                }
                return passing
            }
        }
    }

    /// Whether the value of `slot`, in the buffer at `base`, passes `check` for sure; false
    /// when the general check must decide (it may still pass there).
    @inline(__always)
    private static func passes(_ check: ValidationCheck, _ slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer) -> Bool {
        switch check {
        case .none:
            return true
        case .required:
            return holdsValue(slot, in: base)
        case .integer(let minimum, let maximum, let isOptional):
            let value: Int64?
            switch slot.kind {
            case .int16: value = slot.load(Int16.self, in: base).map(Int64.init)
            case .int32: value = slot.load(Int32.self, in: base).map(Int64.init)
            case .int64: value = slot.load(Int64.self, in: base)
            default: return false
            }
            guard let value else { return isOptional }
            // As the general check orders them: a value below the minimum or above the maximum fails.
            return !(minimum.map { value < $0 } ?? false) && !(maximum.map { value > $0 } ?? false)
        case .double(let minimum, let maximum, let isOptional):
            guard slot.kind == .double else { return false }
            guard let value = slot.load(Double.self, in: base) else { return isOptional }
            return !(minimum.map { value < $0 } ?? false) && !(maximum.map { value > $0 } ?? false)
        case .general:
            return false
        }
    }

    /// Whether `slot`, in the buffer at `base`, holds a value; false for `Any?` slots.
    private static func holdsValue(_ slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer) -> Bool {
        // A bare slot's presence byte tells; the others hold an optional whose nil is a spare
        // bit pattern, read without copying (or retaining) the value.
        if slot.presence >= 0 { return base.load(fromByteOffset: slot.presence, as: UInt8.self) != 0 }
        func isSome<T>(_: T.Type) -> Bool { (base + slot.offset).assumingMemoryBound(to: T?.self).pointee != nil }
        switch slot.kind {
        case .string: return isSome(String.self)
        case .data: return isSome(Data.self)
        case .url: return isSome(URL.self)
        case .object: return isSome(ManagedObject.self)
        case .int16: return slot.load(Int16.self, in: base) != nil
        case .int32: return slot.load(Int32.self, in: base) != nil
        case .int64: return slot.load(Int64.self, in: base) != nil
        case .double: return slot.load(Double.self, in: base) != nil
        case .float: return slot.load(Float.self, in: base) != nil
        case .boolean: return slot.load(Bool.self, in: base) != nil
        case .date: return slot.load(Date.self, in: base) != nil
        case .decimal: return slot.load(Decimal.self, in: base) != nil
        case .uuid: return slot.load(UUID.self, in: base) != nil
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
                unmodeledKeys: propertyTable.descriptors.map(\.key).filter { entity.propertiesByName[$0] == nil },
                persistentProperties: entity.properties.reduce(into: PassingProperties(count: entity.properties.count)) { set, property in
                    if !property.isTransient { set.insert(property.index) }
                })
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

/// A set of property indexes: a bit each for the first 64, an array beyond (entities that
/// large are rare).
struct PassingProperties {
    private var bits: UInt64 = 0
    private var more: [Bool] = []

    init() {}

    /// An empty set for `count` properties.
    init(count: Int) {
        if count > UInt64.bitWidth { more = [Bool](repeating: false, count: count - UInt64.bitWidth) }
    }

    mutating func insert(_ index: Int) {
        if index < UInt64.bitWidth { bits |= 1 << UInt64(index) } else { more[index - UInt64.bitWidth] = true }
    }

    func contains(_ index: Int) -> Bool {
        if index < UInt64.bitWidth { return bits & (1 << UInt64(index)) != 0 }
        return index - UInt64.bitWidth < more.count && more[index - UInt64.bitWidth]
    }

    /// Whether every index of `other` is in the set.
    func isSuperset(of other: PassingProperties) -> Bool {
        guard bits & other.bits == other.bits else { return false }
        if other.more.isEmpty { return true }
        return other.more.indices.allSatisfy { !other.more[$0] || ($0 < more.count && more[$0]) }
    }
}

/// What validating an object of one class and entity involves beyond the model's constraints.
/// A class: each validation takes it from the cache with one retain, not one per array.
final class ValidationPlan: Sendable {
    /// By property index: whether the class keeps the attribute in its own primitive accessor
    /// (see `ManagedObject.attributesWithCustomPrimitiveAccessors()`).
    let customPrimitiveAccessors: [Bool]
    /// By property index: whether the class has a validator for the key (`validate<Key>`).
    let hasValidator: [Bool]
    /// By property index: whether `validateValue(_:forKey:)` is called whatever the value (the
    /// class overrides it, has a validator for the key, or a primitive accessor of its own),
    /// not only for values the compiled check does not pass.
    let callsValidateValue: [Bool]
    /// The keys of the properties the class declares itself (not through `Managed`) that the
    /// entity does not model: validated by key after the modeled ones.
    let unmodeledKeys: [String]
    /// The indexes of the persistent (not transient) properties: those validated.
    let persistentProperties: PassingProperties

    init(
        customPrimitiveAccessors: [Bool], hasValidator: [Bool], callsValidateValue: [Bool], unmodeledKeys: [String],
        persistentProperties: PassingProperties
    ) {
        self.customPrimitiveAccessors = customPrimitiveAccessors
        self.hasValidator = hasValidator
        self.callsValidateValue = callsValidateValue
        self.unmodeledKeys = unmodeledKeys
        self.persistentProperties = persistentProperties
    }
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
