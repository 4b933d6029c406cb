@_spi(Reflection) import Swift
import Foundation
import ModelObjects
import Synchronization

/// Declares a modeled property of a ``ManagedObject`` subclass whose value lives in the object's
/// managed storage: the Swift form of Objective-C's `@dynamic`. The Swift name is the key and
/// must name a property of the object's entity.
///
/// ```swift
/// final class Department: ManagedObject {
///     @Managed var name: String?
///     @Managed var budget: Decimal
///     @Managed var employees: Set<Employee>
/// }
/// department.name = "Engineering"                 // change notification, undo, tracking
/// department.employees.insert(employee)           // employee.department becomes department
/// ```
///
/// Reading fires the object's fault and converts the stored value to the declared type; writing
/// announces the change (`willChangeValue`/`didChangeValue`), so observers hear it, the context
/// records it and inverse relationships follow. Declare the Swift type of the attribute
/// (`Int16`, `Int32`, `Int64` or `Int` for integers, `Double`, `Float`, `Decimal`, `String`,
/// `Bool`, `Date`, `Data`, `UUID`, `URL`), optional or not; a to-one as `Destination?`, a
/// to-many as `Set<Destination>` (or `[Destination]` when ordered).
///
/// A non-optional property whose stored value is nil reads as zero, `false`, an empty string or
/// an empty collection, and a non-optional `Date`, `UUID` or `URL` reads a placeholder (the
/// reference date, the zero UUID, `about:blank`): whether the attribute is optional in the model
/// and NULL in the file, a new object's value was never set, or the object is a fault that
/// cannot load (its record is gone, or the store refuses it because it breaks the model; then
/// ``ManagedObject/fireFault()`` and key-value coding throw the error). The getter cannot throw.
/// Misdeclarations stop the program with a message naming the entity and key: a name the entity
/// does not model, a type values cannot convert to (an `Int` outside an `Int16` attribute's
/// range), a non-optional type with neither an empty value nor a placeholder holding nil,
/// relating objects of two contexts. Key-value coding reports the same problems as thrown errors.
///
/// Arguments describe the property for a model made from the classes
/// (``ManagedObjectModel/init(classes:fetchRequestTemplates:configurations:)``):
/// `@Managed(.required, minimum: 0, defaultValue: 0) var salary: Double`,
/// `@Managed(inverse: \Employee.department, deleteRule: .cascade) var employees: Set<Employee>`.
/// Other models ignore them.
///
/// Corresponds to Core Data's `@NSManaged` / `@dynamic` properties.
@propertyWrapper
public struct Managed<Value>: ManagedStorage {
    /// One more than the property's index in the entity; 0 or less until found (on first use,
    /// or when the object is made). One byte, not a word: every object carries one per
    /// property; a property whose index is past 126 finds it on every access instead.
    @usableFromInline var slot: Int8 = 0

    /// The property's index, negative until found; a prototype's wrapper holds its
    /// declaration's number here (see `ManagedDeclarationRecorder`).
    var index: Int {
        get { Int(slot) - 1 }
        set { slot = Int8(exactly: newValue + 1) ?? 0 }
    }

    /// Declares the property; it starts at the attribute's default value.
    @inlinable
    public init() {}

    /// Unavailable: `@Managed` works only on properties of a ``ManagedObject`` subclass.
    @available(*, unavailable, message: "@Managed is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// Reads and writes the property of its enclosing object through the managed storage.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed>
    ) -> Value {
        // Always inlined into the class's accessor, where both key paths are literals the
        // optimizer turns into field accesses: a copy left out of line (the compiler merges the
        // accessors of one value type) projects them through the key-path runtime instead.
        // Neither key path may reach a call that is not inlined (the slow path passes the
        // wrapper's offset, the observation path an autoclosure): a key path that does is made
        // (`swift_getKeyPath`, a retain and a release) and the wrapper's field is accessed with
        // a dynamic exclusivity check (`swift_beginAccess`) on every access.
        @inline(__always)
        get {
            var index = Int(object[keyPath: storageKeyPath].slot) - 1
            if index < 0 { index = resolveIndex(in: object, atOffset: ModelObject.storageOffset(of: storageKeyPath, in: object)) }
            if ObservationTrackingScope.mayBeActive, object.withPropertyTable(\.tracksObservationAccess) {
                object.trackObservationAccess(at: index, keyPath: wrappedKeyPath)
            }
            return managedValue(in: object, at: index)
        }
        @inline(__always)
        set {
            var index = Int(object[keyPath: storageKeyPath].slot) - 1
            if index < 0 {
                index = resolveIndex(in: object, atOffset: ModelObject.storageOffset(of: storageKeyPath, in: object))
                // A prototype read by `ManagedObjectModel(classes:)` keeps no values.
                if index == Int.max { return }
            }
            assignManagedValue(newValue, to: object, at: index)
        }
    }

    /// Reads the stored value at `index` as `Value`, firing the fault first; the general path
    /// of `managedValue(in:at:)` (see `Managed+TypedAccess.swift`).
    @usableFromInline
    static func readValue(in object: ManagedObject, at index: Int) -> Value {
        if object.flags.contains(.fault) {
            // A partial fault holding the property answers without firing.
            if object.flags.contains(.mayHoldPartialRow), let row = object.partialRow(holding: index) {
                if let value = row.value(as: Value.self, at: index) { return value }
                // Another type than the slot's (a subclass for a to-one's object): converted as
                // a loaded object's value is. A nil value fires the fault instead, which then
                // reads as a loaded object's nil does.
                if let stored = row[index] { return typedValue(stored, object: object, index: index) }
            }
            object.willAccessValue(forKey: nil)
        }
        // `Value` is the slot's own type or its optional: read in place, no box, no cast.
        if let value = object.storedValue(as: Value.self, at: index) { return value }
        object.resolveRelationshipFault(at: index)
        let stored = object.storedValue(at: index) ?? nil
        return typedValue(stored, object: object, index: index)
    }

    /// Finds the property's index from the name of the wrapper's field, at byte `offset` in
    /// `object`, and writes it into the wrapper: once per object and property, when the object
    /// was not made with its slots bound (`bindManagedProperties()`).
    @usableFromInline
    static func resolveIndex<Object: ManagedObject>(in object: Object, atOffset offset: Int) -> Int {
        guard let key = ManagedFieldTable.key(atOffset: offset, in: Object.self) else {
            preconditionFailure("@Managed property of \(Object.self) at offset \(offset) not found in its fields")
        }
        guard let property = object.entity.propertiesByName[key] else {
            if ManagedPrototype.isPrototype(object) {
                // Reading a key path on a prototype tells which property the key path names.
                ManagedPrototype.noteAccess(key)
                return Int.max
            }
            preconditionFailure(
                "@Managed var \(key) of \(Object.self): the entity \(object.entity.name) has no property '\(key)'")
        }
        if let slot = Int8(exactly: property.index + 1), MemoryLayout<Managed<Int>>.size == MemoryLayout<Int8>.size {
            // The wrapper is its slot alone, whatever its `Value` (see `bindManagedProperties()`).
            let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            (base + offset).storeBytes(of: slot, as: Int8.self)
        }
        return property.index
    }

    private static func typedValue(_ stored: Any?, object: ManagedObject, index: Int) -> Value {
        if let stored {
            if let value = stored as? Value { return value }
            if let value = convertKeyValue(stored, to: Value.self) { return value }
            if let objects = stored as? Set<ManagedObject>, let value = Set(objects) as Any as? Value { return value }
        }
        if let empty = (Value.self as? any ManagedEmptyValue.Type)?.managedEmptyValue as? Value { return empty }
        // Nil in a type with no empty value: a fault that could not load (its record is gone, or
        // breaks the model), an optional attribute that is NULL in the file, or a new object's
        // unset value. The getter cannot throw, so it reads a placeholder, loaded or not.
        if stored == nil || object.isFault,
            let placeholder = (Value.self as? any ManagedPlaceholderValue.Type)?.managedPlaceholder as? Value
        {
            return placeholder
        }
        if ManagedPrototype.isPrototype(object), let value = ManagedPrototype.value(of: Value.self) as? Value {
            return value
        }
        let property = object.entity.properties[index]
        if object.isFault {
            preconditionFailure(
                "@Managed var \(property.name): \(Value.self) of \(object.entity.name) \(object.objectID): the fault could not be "
                    + "loaded (its record is gone, or its context is); read it through value(forKey:), which throws")
        }
        preconditionFailure(
            "@Managed var \(property.name): \(Value.self) of \(object.entity.name) cannot hold "
                + (stored.map { "\($0) (\(type(of: $0)))" } ?? "nil") + "; declare it optional or of the attribute's type")
    }
}

/// Marks the storage of ``Managed`` properties, so that the field table finds them.
package protocol ManagedStorage {}

extension ManagedObject {
    /// Writes each ``Managed`` property's slot (its index plus one) into its wrapper, so typed
    /// accessors never look their key up. A wrapper holds exactly one `Int8`, its slot.
    final func bindManagedProperties() {
        let bindings = ManagedFieldTable.bindings(for: type(of: self), entity: entity)
        guard !bindings.isEmpty, MemoryLayout<Managed<Int>>.size == MemoryLayout<Int8>.size else { return }
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        for binding in bindings { (base + binding.offset).storeBytes(of: binding.slot, as: Int8.self) }
    }

    /// Registers a typed read of the property at `index` with the current Observation tracking
    /// scope, if there is one.
    @usableFromInline
    final func trackObservationAccess<Object: ManagedObject, Value>(
        at index: Int, keyPath: @autoclosure () -> KeyPath<Object, Value>
    ) {
        guard entity.properties.indices.contains(index),
              isTrackedByObservation || observationTrackedKeysIfTrackingScope() != nil
        else { return }
        trackObservationAccess(forKey: entity.properties[index].name, keyPath: keyPath)
    }

    /// Sets a modeled property from a typed accessor: converts, announces and records.
    @usableFromInline
    final func setManagedValue<Value>(_ newValue: Value, at index: Int) {
        if setUnobservedMatchingValue(newValue, at: index) { return }
        let property = entity.properties[index]
        if Self.slotMatch(Value.self, entity.layout.slots[index].kind) != .mismatch {
            // `Value` is the slot's own type or its optional: written in place, nothing to
            // convert or check.
            try? fireFaultIfNeeded()
            if valueCount <= index { values = entity.initialValues }
            if !hasObservationState {
                // The old value is boxed only for the undo manager, the one user of the reversal.
                let old: Any? = changeRecordingDepth == 0 && context?.undoManager != nil ? values[index] : nil
                storeMatching(newValue, at: index)
                completeChange(of: property, reversal: .value(old))
                return
            }
            willChangeValue(forKey: property.name)
            storeMatching(newValue, at: index)
            didChangeValue(forKey: property.name)
            return
        }
        let stored: Any?
        if entity.storedValueTypes[index] == ObjectIdentifier(Value.self) {
            // Already the attribute's own type: nothing to convert or check.
            stored = newValue
        } else if let object = newValue as? ManagedObject, let relationship = property as? RelationshipDescription,
                  !relationship.isToMany {
            // An object for a to-one relationship: one class cast instead of unwrapping the
            // optional through a protocol.
            do {
                stored = try relatedManagedObject(object, for: relationship)
            } catch {
                preconditionFailure("@Managed var \(property.name) of \(entity.name): \(error)")
            }
            try? fireFaultIfNeeded()
            if valueCount <= index { values = entity.initialValues }
            if !hasObservationState && valueKind(at: index) == .object {
                setUnobservedToOne(object, of: relationship)
                return
            }
        } else {
            do {
                let value: Any? = (newValue as? any FlattenableOptional).map { $0.flattenedValue } ?? newValue
                stored = try storedValue(value, for: property)
            } catch {
                preconditionFailure("@Managed var \(property.name) of \(entity.name): \(error)")
            }
        }
        try? fireFaultIfNeeded()
        // A fault that could not load (no context, record gone or unreadable) takes the value on
        // its entity's initial values; its context's next save refuses it (`checkSavable`).
        if valueCount <= index { values = entity.initialValues }
        if !hasObservationState {
            setUnobservedValue(stored, of: property)
            return
        }
        willChangeValue(forKey: property.name)
        values[index] = stored
        didChangeValue(forKey: property.name)
    }

    /// Sets the to-one relationship at `index` to `object` from a typed accessor, as
    /// `setManagedValue(_:at:)` does for an object: converts nothing, announces and records.
    /// False, with nothing done, when the property is not a to-one relationship (the caller then
    /// takes `setManagedValue(_:at:)`).
    @usableFromInline
    final func setManagedRelatedObject(_ object: ManagedObject, at index: Int) -> Bool {
        guard index < entity.properties.count, let relationship = entity.properties[index] as? RelationshipDescription,
              !relationship.isToMany
        else { return false }
        let stored: ManagedObject
        do {
            stored = try relatedManagedObject(object, for: relationship)
        } catch {
            preconditionFailure("@Managed var \(relationship.name) of \(entity.name): \(error)")
        }
        try? fireFaultIfNeeded()
        // As in `setManagedValue(_:at:)`: a fault that could not load takes the value on its
        // entity's initial values, and its context's next save refuses it.
        if valueCount <= index { values = entity.initialValues }
        if !hasObservationState && valueKind(at: index) == .object {
            setUnobservedToOne(stored, of: relationship)
            return true
        }
        if !hasObservationState {
            setUnobservedValue(stored, of: relationship)
            return true
        }
        willChangeValue(forKey: relationship.name)
        values[index] = stored
        didChangeValue(forKey: relationship.name)
        return true
    }

    /// `relatedObject(_:for:)` for a value known to be a managed object: the same checks, without
    /// boxing it and casting it back; an object they refuse takes `relatedObject(_:for:)`, which
    /// throws its error.
    private final func relatedManagedObject(_ object: ManagedObject, for relationship: RelationshipDescription) throws -> ManagedObject {
        if let destination = relationship.destinationEntity, object.entity.isKindOf(entity: destination) {
            guard let context = managedObjectContext, let other = object.managedObjectContext, context !== other else { return object }
        }
        return try relatedObject(object, for: relationship)
    }

    /// Stores `value` at `index`, whose slot's type `Value` is, or the optional of, through the
    /// slot's concrete type: `PropertyValues.setValue(_:at:)` does the same through `Value?`,
    /// whose metadata this unspecialized generic code would look up on every write.
    private final func storeMatching<Value>(_ value: Value, at index: Int) {
        let stored = values.withUniqueSlotUnretained(at: index) { slot, base in Self.assignMatching(value, to: slot, in: base) }
        // Another layout than the entity's (never made today): the general path.
        if stored != true { storeThroughOptional(value, at: index) }
    }

    /// Writes `value` into `slot` of the buffer at `base` through the slot's concrete type, when
    /// `Value` is that type or its optional; whether it did.
    @inline(__always)
    private static func assignMatching<Value>(_ value: Value, to slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer) -> Bool {
        let match = slotMatch(Value.self, slot.kind)
        return withUnsafePointer(to: value) { source in
            let source = UnsafeRawPointer(source)
            switch slot.kind {
            case .int16: return assign(Int16.self, from: source, match, to: slot, in: base)
            case .int32: return assign(Int32.self, from: source, match, to: slot, in: base)
            case .int64: return assign(Int64.self, from: source, match, to: slot, in: base)
            case .double: return assign(Double.self, from: source, match, to: slot, in: base)
            case .float: return assign(Float.self, from: source, match, to: slot, in: base)
            case .boolean: return assign(Bool.self, from: source, match, to: slot, in: base)
            case .date: return assign(Date.self, from: source, match, to: slot, in: base)
            case .decimal: return assign(Decimal.self, from: source, match, to: slot, in: base)
            case .uuid: return assign(UUID.self, from: source, match, to: slot, in: base)
            case .string: return assign(String.self, from: source, match, to: slot, in: base)
            case .data: return assign(Data.self, from: source, match, to: slot, in: base)
            case .url: return assign(URL.self, from: source, match, to: slot, in: base)
            case .object, .any, .toMany, .orderedToMany: return false
            }
        }
    }

    /// The usual typed set, of a loaded object nobody observes, with `Value` the slot's own type
    /// or its optional: written in place and recorded (with the old value, boxed, when the
    /// context has an undo manager), taking no reference to the entity, the property, the
    /// layout, the buffer or the context (see `PropertyValues.withUniqueSlotUnretained(at:_:)`).
    /// False, with nothing written, when the set must take the general path.
    @inline(__always)
    private final func setUnobservedMatchingValue<Value>(_ value: Value, at index: Int) -> Bool {
        guard !hasObservationState, !flags.contains(.fault), hasValues else { return false }
        let recordingContext = changeRecordingDepth == 0 ? unmanagedContext : nil
        // The undo manager's reversal puts the old value back: boxed, for it alone.
        let undoes = recordingContext?._withUnsafeGuaranteedRef { $0.undoManager != nil } ?? false
        let old: Any? = undoes && holdsValue(at: index) ? values[index] : nil
        guard values.withUniqueSlotUnretained(at: index, { slot, base in Self.assignMatching(value, to: slot, in: base) }) == true else {
            return false
        }
        guard let recordingContext else { return true }
        // SAFETY: the object holds its ID, the ID its entity, and the entity its properties; the
        // property is read as its reference's bits, which a read of the element would retain.
        Unmanaged.passUnretained(objectID.entity)._withUnsafeGuaranteedRef { entity in
            entity.properties.withUnsafeBufferPointer { properties in
                guard properties.indices.contains(index), let base = properties.baseAddress else { return }
                let property = UnsafeRawPointer(base + index).load(as: Unmanaged<PropertyDescription>.self)
                property._withUnsafeGuaranteedRef { property in
                    recordingContext._withUnsafeGuaranteedRef { $0.recordChange(of: self, property: property, reversal: .value(old)) }
                }
            }
        }
        return true
    }

    /// `PropertyValues.setValue(_:at:)`, out of line: inlined, its request for `Value?`'s
    /// metadata is hoisted to the start of `storeMatching`, and made on every write.
    @inline(never)
    private final func storeThroughOptional<Value>(_ value: Value, at index: Int) {
        _ = values.setValue(value, at: index)
    }

    /// How `Value` relates to the type of a slot of `kind`: what `PropertySlotKind.match(_:)`
    /// tells, with the optionals' metatypes looked up once for the process instead of on
    /// every call (`T?.self` in generic code asks the runtime's metadata cache each time).
    @inline(__always)
    static func slotMatch<Value>(_: Value.Type, _ kind: PropertySlotKind) -> SlotMatch {
        @inline(__always)
        func compare<T>(_: T.Type, _ optional: ObjectIdentifier) -> SlotMatch {
            if Value.self == T.self { return .exact }
            if ObjectIdentifier(Value.self) == optional { return .optional }
            return .mismatch
        }
        switch kind {
        case .int16: return compare(Int16.self, OptionalSlotTypes.int16)
        case .int32: return compare(Int32.self, OptionalSlotTypes.int32)
        case .int64:
            let match = compare(Int64.self, OptionalSlotTypes.int64)
            // `Int` and `Int64` (and their optionals) share one representation on 64-bit platforms.
            if case .mismatch = match, MemoryLayout<Int>.size == MemoryLayout<Int64>.size { return compare(Int.self, OptionalSlotTypes.int) }
            return match
        case .double: return compare(Double.self, OptionalSlotTypes.double)
        case .float: return compare(Float.self, OptionalSlotTypes.float)
        case .boolean: return compare(Bool.self, OptionalSlotTypes.boolean)
        case .date: return compare(Date.self, OptionalSlotTypes.date)
        case .decimal: return compare(Decimal.self, OptionalSlotTypes.decimal)
        case .uuid: return compare(UUID.self, OptionalSlotTypes.uuid)
        case .string: return compare(String.self, OptionalSlotTypes.string)
        case .data: return compare(Data.self, OptionalSlotTypes.data)
        case .url: return compare(URL.self, OptionalSlotTypes.url)
        case .object, .any, .toMany, .orderedToMany: return .mismatch
        }
    }

    /// Assigns the `T` (`match` exact) or `T?` (`match` optional) at `source` to the slot of
    /// type `T` of the buffer at `base`; false, with nothing written, when `match` is a mismatch.
    @inline(__always)
    private static func assign<T>(
        _: T.Type, from source: UnsafeRawPointer, _ match: SlotMatch, to slot: PropertyLayout.Slot, in base: UnsafeMutableRawPointer
    ) -> Bool {
        switch match {
        case .exact: slot.store(source.load(as: T.self), in: base)
        case .optional: slot.store(source.load(as: T?.self), in: base)
        case .mismatch: return false
        }
        return true
    }

    /// Sets a to-one relationship (whose slot holds an object) of an object nobody observes:
    /// `setUnobservedValue(_:of:)` with the slot read and written typed, without boxes.
    private final func setUnobservedToOne(_ object: ManagedObject, of relationship: RelationshipDescription) {
        let index = relationship.index
        let old = values.load(ManagedObject.self, at: index)
        values.store(object, at: index)
        if old === object { return }
        // `completeRelationshipChange` without its arrays of one object.
        if inverseMaintenanceDepth == 0, let inverse = relationship.inverseRelationship {
            if let old { Self.unlink(old, through: inverse, from: self) }
            Self.link(object, through: inverse, to: self)
        }
        completeChange(of: relationship, reversal: .value(old))
    }

    /// Sets a modeled value of an object nobody observes: what `willChangeValue`, the store
    /// and `didChangeValue` do together, without looking the key up or queueing the change.
    final func setUnobservedValue(_ stored: Any?, of property: PropertyDescription) {
        resolveRelationshipFault(at: property.index)
        let old = values[property.index]
        values[property.index] = stored
        guard let relationship = property as? RelationshipDescription else {
            completeChange(of: property, reversal: .value(old))
            return
        }
        if relationship.isToMany {
            let oldObjects = Self.objects(inCollection: old), newObjects = toManyObjects(at: property.index)
            let oldIDs = Set(oldObjects.map(ObjectIdentifier.init)), newIDs = Set(newObjects.map(ObjectIdentifier.init))
            completeRelationshipChange(
                relationship, added: newObjects.filter { !oldIDs.contains(ObjectIdentifier($0)) },
                removed: oldObjects.filter { !newIDs.contains(ObjectIdentifier($0)) }, reversal: .value(old))
            return
        }
        let oldObject = old.flatMap { asModelObject($0) as? ManagedObject }
        let newObject = stored.flatMap { asModelObject($0) as? ManagedObject }
        if oldObject === newObject { return }
        completeRelationshipChange(
            relationship, added: newObject.map { [$0] } ?? [], removed: oldObject.map { [$0] } ?? [], reversal: .value(old))
    }
}

/// The metatypes of the optionals of the slots' types, as identifiers, made once.
private enum OptionalSlotTypes {
    static let int16 = ObjectIdentifier(Int16?.self)
    static let int32 = ObjectIdentifier(Int32?.self)
    static let int64 = ObjectIdentifier(Int64?.self)
    static let int = ObjectIdentifier(Int?.self)
    static let double = ObjectIdentifier(Double?.self)
    static let float = ObjectIdentifier(Float?.self)
    static let boolean = ObjectIdentifier(Bool?.self)
    static let date = ObjectIdentifier(Date?.self)
    static let decimal = ObjectIdentifier(Decimal?.self)
    static let uuid = ObjectIdentifier(UUID?.self)
    static let string = ObjectIdentifier(String?.self)
    static let data = ObjectIdentifier(Data?.self)
    static let url = ObjectIdentifier(URL?.self)
}

/// Lets generic code see through `Optional`, so that a nil `Value?` is stored as nil.
protocol FlattenableOptional {
    var flattenedValue: Any? { get }
}

extension Optional: FlattenableOptional {
    var flattenedValue: Any? {
        guard case .some(let wrapped) = self else { return nil }
        return (wrapped as? any FlattenableOptional).map { $0.flattenedValue } ?? wrapped
    }
}

/// The value a non-optional ``Managed`` property reads when its storage holds nil.
protocol ManagedEmptyValue {
    static var managedEmptyValue: Self { get }
}

extension Optional: ManagedEmptyValue { static var managedEmptyValue: Self { nil } }
extension Int: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int16: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int32: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Int64: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Double: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Float: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Decimal: ManagedEmptyValue { static var managedEmptyValue: Self { 0 } }
extension Bool: ManagedEmptyValue { static var managedEmptyValue: Self { false } }
extension String: ManagedEmptyValue { static var managedEmptyValue: Self { "" } }
extension Data: ManagedEmptyValue { static var managedEmptyValue: Self { Data() } }
extension Set: ManagedEmptyValue { static var managedEmptyValue: Self { [] } }
extension Array: ManagedEmptyValue { static var managedEmptyValue: Self { [] } }

/// The value a non-optional ``Managed`` property of a type with no empty value reads when its
/// storage holds nil or its object is a fault that could not load.
protocol ManagedPlaceholderValue {
    static var managedPlaceholder: Self { get }
}

extension Date: ManagedPlaceholderValue { static var managedPlaceholder: Self { Date(timeIntervalSinceReferenceDate: 0) } }
extension UUID: ManagedPlaceholderValue {
    static var managedPlaceholder: Self { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}
extension URL: ManagedPlaceholderValue {
    static var managedPlaceholder: Self { URL(string: "about:blank") ?? URL(fileURLWithPath: "/") }
}

/// The names of each class's ``Managed`` fields by offset, read once per class from the
/// standard library's reflection metadata.
enum ManagedFieldTable {
    private static let tables = Mutex<[ObjectIdentifier: [Int: String]]>([:])

    private static let bindings = ClassEntityCache<[Binding]>()

    /// Where a ``Managed`` field lives in an object, and the slot (index plus one) of its
    /// property.
    struct Binding: Sendable {
        var offset: Int
        var slot: Int8
    }

    /// Where each ``Managed`` field of `type` lives and the slot of its property in `entity`;
    /// fields the entity does not model are left out (their accessors stop with a message), and
    /// so are properties whose index does not fit a slot (their accessors find it each time).
    static func bindings(for type: ManagedObject.Type, entity: EntityDescription) -> [Binding] {
        bindings.value(for: type, entity: entity) {
            _ = self.key(atOffset: -1, in: type)
            let table = tables.withLock { $0[ObjectIdentifier(type)] } ?? [:]
            return table.compactMap { offset, name in
                entity.propertiesByName[name].flatMap { Int8(exactly: $0.index + 1) }.map { Binding(offset: offset, slot: $0) }
            }
        }
    }

    /// `bindings(for:entity:)` in memory that lives as long as `entity` (one small buffer per
    /// class and entity met), for a caller that keeps a pointer to it with no reference to count
    /// while it holds the entity.
    static func bindingBuffer(for type: ManagedObject.Type, entity: EntityDescription) -> UnsafeBufferPointer<Binding> {
        bindingBuffers.value(for: type, entity: entity) {
            BindingBuffer(self.bindings(for: type, entity: entity))
        }.bindings
    }

    private static let bindingBuffers = ClassEntityCache<BindingBuffer>()

    /// A buffer of bindings, never written once made, freed with the entity that caches it.
    private final class BindingBuffer: Sendable {
        // SAFETY: `Sendable` by construction: the memory is written once, in `init`, and only
        // read after; `UnsafeBufferPointer` is not `Sendable` itself, hence the wrapper below.
        private let storage: UnsafeBindings

        var bindings: UnsafeBufferPointer<Binding> { storage.bindings }

        init(_ bindings: [Binding]) {
            let buffer = UnsafeMutableBufferPointer<Binding>.allocate(capacity: bindings.count)
            _ = buffer.initialize(from: bindings)
            storage = UnsafeBindings(bindings: UnsafeBufferPointer(buffer))
        }

        deinit { storage.bindings.deallocate() }
    }

    /// A read-only buffer of plain values. SAFETY (`@unchecked Sendable`): written once before
    /// it is shared and never again, so reads from several threads need no lock.
    private struct UnsafeBindings: @unchecked Sendable {
        let bindings: UnsafeBufferPointer<Binding>
    }

    static func key(atOffset offset: Int, in type: ManagedObject.Type) -> String? {
        let identifier = ObjectIdentifier(type)
        if let table = tables.withLock({ $0[identifier] }) { return table[offset] }
        var table: [Int: String] = [:]
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _forEachField(of: type, options: classType) { name, fieldOffset, fieldType, _ in
            guard fieldType is any ManagedStorage.Type else { return true }
            var key = String(cString: name)
            if key.hasPrefix("_") { key.removeFirst() }
            table[fieldOffset] = key
            return true
        }
        tables.withLock { $0[identifier] = table }
        return table[offset]
    }
}
