import Foundation
import ModelObjects

/// How one property's value is held in a ``PropertyValues`` buffer: the attribute's own Swift
/// type, an object reference for a to-one relationship, or an `Any?` for what has no fixed type
/// (to-many relationships, which also hold relationship faults; transformable, undefined and
/// object-ID attributes).
///
/// Every slot holds an `Optional` of its type: the optional's own tag is the null bit (a spare
/// bit pattern, for strings, data, URLs and references, so their nil costs no byte at all).
package enum PropertySlotKind: UInt8, Sendable {
    case int16, int32, int64, double, float, boolean, date, decimal, uuid, string, data, url, object, any

    /// The kind that holds `property`'s values.
    init(_ property: PropertyDescription) {
        if let relationship = property as? RelationshipDescription {
            self = relationship.isToMany ? .any : .object
            return
        }
        switch (property as? AttributeDescription)?.attributeType {
        case .integer16: self = .int16
        case .integer32: self = .int32
        case .integer64: self = .int64
        case .double: self = .double
        case .float: self = .float
        case .boolean: self = .boolean
        case .date: self = .date
        case .decimal: self = .decimal
        case .uuid: self = .uuid
        case .string: self = .string
        case .binaryData: self = .data
        case .uri: self = .url
        default: self = .any
        }
    }

    /// Size, alignment and whether copying the slot's bytes copies its value (no reference
    /// counting): the `Optional` of the kind's type.
    var memoryLayout: (size: Int, alignment: Int, isTrivial: Bool) {
        func of<T>(_: T.Type) -> (size: Int, alignment: Int, isTrivial: Bool) {
            (MemoryLayout<T?>.size, MemoryLayout<T?>.alignment, _isPOD(T?.self))
        }
        switch self {
        case .int16: return of(Int16.self)
        case .int32: return of(Int32.self)
        case .int64: return of(Int64.self)
        case .double: return of(Double.self)
        case .float: return of(Float.self)
        case .boolean: return of(Bool.self)
        case .date: return of(Date.self)
        case .decimal: return of(Decimal.self)
        case .uuid: return of(UUID.self)
        case .string: return of(String.self)
        case .data: return of(Data.self)
        case .url: return of(URL.self)
        case .object: return of(ManagedObject.self)
        case .any: return of(Any.self)
        }
    }
}

/// Where each property of an entity lives in a ``PropertyValues`` buffer: its slot kind and byte
/// offset, by property index. Worked out once per entity, when the model is made.
package final class PropertyLayout: Sendable {
    /// One property's slot.
    package struct Slot: Sendable {
        /// The byte offset of the slot in the buffer.
        package var offset: Int
        /// What the slot holds.
        package var kind: PropertySlotKind
    }

    /// The slots by property index.
    package let slots: ContiguousArray<Slot>
    /// The indexes of the slots whose values need reference counting (strings, data, URLs,
    /// objects, `Any?`): the ones a buffer copies and destroys one by one.
    package let nontrivialIndexes: [Int]
    /// The bytes a buffer needs, rounded up to whole words.
    package let wordCount: Int
    /// The model's constraints on each property, by property index, in a form checked on the
    /// typed slot (see ``ValidationCheck``).
    package let validationChecks: ContiguousArray<ValidationCheck>

    /// The number of properties.
    package var count: Int { slots.count }

    /// The layout of `properties`, in index order, each slot at its type's natural alignment.
    init(properties: [PropertyDescription]) {
        var slots = ContiguousArray<Slot>()
        slots.reserveCapacity(properties.count)
        var nontrivial: [Int] = []
        var offset = 0
        for (index, property) in properties.enumerated() {
            let kind = PropertySlotKind(property)
            let layout = kind.memoryLayout
            offset = (offset + layout.alignment - 1) / layout.alignment * layout.alignment
            slots.append(Slot(offset: offset, kind: kind))
            if !layout.isTrivial { nontrivial.append(index) }
            offset += layout.size
        }
        self.slots = slots
        nontrivialIndexes = nontrivial
        wordCount = max(1, (offset + 7) / 8)
        validationChecks = ContiguousArray(zip(properties, slots).map { ValidationCheck($0, kind: $1.kind) })
    }
}

/// The model's constraints on one property, compiled once per entity into a check of its typed
/// slot: validation passes a value that meets it without boxing it or looking anything up.
/// A check only ever says "passes"; a value it does not pass (a missing mandatory value, a
/// number out of bounds), and every constraint it does not cover, go through the general
/// check, which reports the failure with Core Data's code.
package enum ValidationCheck: Sendable {
    /// Every value passes: an optional attribute without bounds, lengths or pattern, an optional
    /// to-one, a to-many relationship without counts, a transient property.
    case none
    /// A value passes: a mandatory attribute without bounds, lengths or pattern (of a typed
    /// slot), a mandatory to-one.
    case required
    /// An integer attribute with bounds (and neither lengths nor pattern): a value within them
    /// passes, and nil when the attribute is optional.
    case integer(minimum: Int64?, maximum: Int64?, isOptional: Bool)
    /// A `Double` attribute with bounds: as ``integer(minimum:maximum:isOptional:)``.
    case double(minimum: Double?, maximum: Double?, isOptional: Bool)
    /// The general check decides (lengths, patterns, counts, other types with bounds, `Any?` slots).
    case general

    /// The check of `property`, whose slot is of `kind`.
    init(_ property: PropertyDescription, kind: PropertySlotKind) {
        if property.isTransient {
            self = .none
        } else if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                self = relationship.constrainsCount ? .general : .none
            } else {
                self = relationship.isOptional ? .none : .required
            }
        } else if let attribute = property as? AttributeDescription {
            self = Self.check(of: attribute, kind: kind)
        } else {
            self = .general
        }
    }

    private static func check(of attribute: AttributeDescription, kind: PropertySlotKind) -> ValidationCheck {
        if !attribute.hasValueConstraints {
            if attribute.isOptional { return .none }
            return kind == .any ? .general : .required
        }
        guard attribute.minimumLength == nil, attribute.maximumLength == nil, attribute.regularExpression == nil else {
            return .general
        }
        switch kind {
        case .int16, .int32, .int64:
            // Bounds are of the attribute's own type, which widens to `Int64` without loss.
            func widened(_ bound: (any Sendable)?) -> Int64?? {
                guard let bound else { return .some(nil) }
                return convertKeyValue(bound, to: Int64.self).map { .some($0) }
            }
            guard let minimum = widened(attribute.minimumValue), let maximum = widened(attribute.maximumValue) else { return .general }
            return .integer(minimum: minimum, maximum: maximum, isOptional: attribute.isOptional)
        case .double:
            func bound(_ value: (any Sendable)?) -> Double?? {
                guard let value else { return .some(nil) }
                return (value as? Double).map { .some($0) }
            }
            guard let minimum = bound(attribute.minimumValue), let maximum = bound(attribute.maximumValue) else { return .general }
            return .double(minimum: minimum, maximum: maximum, isOptional: attribute.isOptional)
        default:
            return .general
        }
    }
}
