import Foundation
import ModelObjects

/// How one property's value is held in a ``PropertyValues`` buffer: the attribute's own Swift
/// type, an object reference for a to-one relationship, one word for a to-many relationship
/// (nil while it is a relationship fault whose IDs are not read, else a ``ToManyBox``), or an
/// `Any?` for what has no fixed type (transformable, undefined and object-ID attributes).
///
/// A slot holds the `Optional` of its type where nil is a spare bit pattern (strings, data,
/// URLs, references, `Any`), so that nil costs no byte; other types (numbers, dates, UUIDs)
/// are held bare, with a presence byte of their own (see ``PropertyLayout/Slot``).
package enum PropertySlotKind: UInt8, Sendable {
    case int16, int32, int64, double, float, boolean, date, decimal, uuid, string, data, url, object, any
    /// A to-many relationship, unordered (`Set<ManagedObject>`) or ordered (`[ManagedObject]`).
    case toMany, orderedToMany

    /// Whether the slot holds a to-many relationship.
    @inline(__always)
    package var isToMany: Bool { self == .toMany || self == .orderedToMany }

    /// The kind that holds `property`'s values.
    init(_ property: PropertyDescription) {
        if let relationship = property as? RelationshipDescription {
            self = relationship.isToMany ? (relationship.isOrdered ? .orderedToMany : .toMany) : .object
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

    /// How a slot of this kind holds its value: size, alignment, whether copying its bytes
    /// copies the value (no reference counting), and whether it is held bare with a presence
    /// byte of its own. A type whose optional needs a byte more (numbers, dates, UUIDs) is held
    /// bare, its nil in the presence byte, so that it does not pad to the next word; the others
    /// (strings, data, URLs, objects, `Any`) are held as their `Optional`, whose nil is a spare
    /// bit pattern and costs nothing.
    var memoryLayout: (size: Int, alignment: Int, isTrivial: Bool, isBare: Bool) {
        func of<T>(_: T.Type) -> (size: Int, alignment: Int, isTrivial: Bool, isBare: Bool) {
            if PropertyLayout.Slot.holdsBare(T.self) {
                return (MemoryLayout<T>.size, MemoryLayout<T>.alignment, true, true)
            }
            return (MemoryLayout<T?>.size, MemoryLayout<T?>.alignment, _isPOD(T?.self), false)
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
        case .toMany, .orderedToMany: return of(ToManyBox.self)
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
        /// The byte offset of the slot's presence byte (1: a value, 0: nil) when the slot holds
        /// its value bare; -1 when it holds the value's `Optional`.
        package var presence: Int

        /// Whether a slot of type `T` holds its value bare, with a presence byte: a trivial
        /// type whose optional needs a byte more. Decided by the type, so that an access
        /// specialized for it takes one path.
        @inline(__always)
        static func holdsBare<T>(_: T.Type) -> Bool {
            MemoryLayout<T?>.size > MemoryLayout<T>.size && _isPOD(T.self)
        }

        /// The value of type `T` (the kind's own Swift type, `ManagedObject` for an object
        /// slot) of the slot in the buffer at `base`.
        @inline(__always)
        package func load<T>(_: T.Type, in base: UnsafeMutableRawPointer) -> T? {
            if Self.holdsBare(T.self) {
                return base.load(fromByteOffset: presence, as: UInt8.self) == 0 ? nil : (base + offset).assumingMemoryBound(to: T.self).pointee
            }
            return (base + offset).assumingMemoryBound(to: T?.self).pointee
        }

        /// Stores `value`, of the kind's own Swift type, in the slot of the buffer at `base`,
        /// releasing the value it replaces.
        @inline(__always)
        package func store<T>(_ value: T?, in base: UnsafeMutableRawPointer) {
            if Self.holdsBare(T.self) {
                // Bare slots hold trivial values: a plain store, nothing to release.
                if let value {
                    (base + offset).assumingMemoryBound(to: T.self).pointee = value
                    base.storeBytes(of: 1, toByteOffset: presence, as: UInt8.self)
                } else {
                    base.storeBytes(of: 0, toByteOffset: presence, as: UInt8.self)
                }
                return
            }
            (base + offset).assumingMemoryBound(to: T?.self).pointee = value
        }
    }

    /// The slots by property index.
    package let slots: ContiguousArray<Slot>
    /// The indexes of the slots whose values need reference counting (strings, data, URLs,
    /// objects, `Any?`): the ones a buffer copies and destroys one by one.
    package let nontrivialIndexes: [Int]
    /// The bytes a buffer needs, rounded up to whole words.
    package let wordCount: Int
    /// The `wordCount` words of a buffer whose every slot is nil, which a new buffer copies.
    let nilWords: ContiguousArray<UInt64>
    /// The model's constraints on each property, by property index, in a form checked on the
    /// typed slot (see ``ValidationCheck``).
    package let validationChecks: ContiguousArray<ValidationCheck>

    /// The number of properties.
    package var count: Int { slots.count }

    /// The layout of `properties`: the slots placed by decreasing alignment (so that none
    /// pads), the presence bytes of the bare ones after them.
    init(properties: [PropertyDescription]) {
        let kinds = properties.map(PropertySlotKind.init)
        let layouts = kinds.map(\.memoryLayout)
        var slots = ContiguousArray(kinds.map { Slot(offset: 0, kind: $0, presence: -1) })
        var nontrivial: [Int] = []
        var offset = 0
        let order = properties.indices.sorted { first, second in
            let (one, other) = (layouts[first].alignment, layouts[second].alignment)
            return one != other ? one > other : first < second
        }
        for index in order {
            let layout = layouts[index]
            offset = (offset + layout.alignment - 1) / layout.alignment * layout.alignment
            slots[index].offset = offset
            offset += layout.size
        }
        for index in properties.indices {
            if layouts[index].isBare {
                slots[index].presence = offset
                offset += 1
            }
            if !layouts[index].isTrivial { nontrivial.append(index) }
        }
        self.slots = slots
        nontrivialIndexes = nontrivial
        wordCount = max(1, (offset + 7) / 8)
        nilWords = PropertyValueBuffer.nilWords(of: slots, wordCount: wordCount)
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
