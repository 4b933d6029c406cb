@_spi(Reflection) import Swift
import Foundation
import Synchronization

/// One declared key of a model class: where its wrapper lives and what it holds.
package final class PropertyDescriptor: Sendable {
    /// The key: the Swift property name.
    package let key: String
    /// The byte offset of the wrapper inside an instance.
    package let offset: Int
    /// Attribute, relationship or derived key.
    package let kind: PropertyKind
    /// The wrapper type, which reads and writes the storage.
    package let storage: any PropertyStorage.Type
    /// The key paths a derived key depends on (read from the first instance of the class);
    /// empty for stored properties.
    package var dependencies: [String] {
        recordedDependencies.withLock { $0 }
    }
    private let recordedDependencies = Mutex<[String]>([])
    /// The reader of an optional stored value, which unwraps it without a dynamic cast.
    private let optionalReader: (any OptionalKeyValueReading.Type)?
    /// The reader of a computed value whose type can never hold an `Optional`, which boxes it
    /// without looking inside (a dynamic cast per read otherwise).
    private let plainComputedReader: (any PlainComputedValueReading.Type)?
    /// How the stored value is laid out, when it is one of the types read and written directly.
    let layout: DirectLayout
    /// The class of the related object, for a to-one relationship stored as a plain reference.
    private let destinationType: ModelObject.Type?
    /// The stored collection of a to-many relationship held as an array or a set of model objects.
    let objectCollection: (any ModelObjectCollection.Type)?
    /// The class's answer to ``ModelObject/automaticallyNotifiesObservers(forKey:)`` for the
    /// key, with the ``AutomaticNotificationAnswers/generation`` it was given in: twice the
    /// generation, plus one for true; -1 before the first set that asks.
    private let automaticNotificationAnswer = Atomic<Int>(-1)

    /// Stored values that key-value coding reads and writes with plain loads and stores instead
    /// of the wrapper's generic code: a wrapper holding one of these has exactly its layout.
    enum DirectLayout {
        case double, int, bool, string
        /// A to-one relationship: a nullable class reference.
        case object
        case generic
    }

    init(key: String, offset: Int, storage: any PropertyStorage.Type) {
        self.key = key
        self.offset = offset
        self.storage = storage
        self.kind = storage.propertyKind
        optionalReader = storage as? any OptionalKeyValueReading.Type
        plainComputedReader = optionalReader == nil && cannotHoldOptional(storage.storedValueType)
            ? storage as? any PlainComputedValueReading.Type : nil
        layout = Self.directLayout(of: storage)
        destinationType = layout == .object
            ? (storage.storedValueType as? any RelationshipValue.Type)?.destinationType : nil
        objectCollection = kind == .orderedToMany || kind == .unorderedToMany
            ? storage.storedValueType as? any ModelObjectCollection.Type : nil
    }

    /// Whether `type`, the class whose table holds the descriptor, notifies observers of the
    /// key automatically: its ``ModelObject/automaticallyNotifiesObservers(forKey:)``, asked
    /// once per generation instead of on every set (a dynamic class-method call per set of an
    /// observed or tracked object).
    @inline(__always)
    func notifiesAutomatically(in type: ModelObject.Type) -> Bool {
        let generation = AutomaticNotificationAnswers.generation.load(ordering: .acquiring)
        let answer = automaticNotificationAnswer.load(ordering: .relaxed)
        if answer >> 1 == generation { return answer & 1 == 1 }
        let notifies = type.automaticallyNotifiesObservers(forKey: key)
        automaticNotificationAnswer.store(generation << 1 | (notifies ? 1 : 0), ordering: .relaxed)
        return notifies
    }

    private static func directLayout(of storage: any PropertyStorage.Type) -> DirectLayout {
        guard storage is any StoredPropertyStorage.Type else { return .generic }
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        let valueType = storage.storedValueType
        let wrapperSize = size(storage)
        switch valueType {
        case is Double.Type where wrapperSize == MemoryLayout<Double>.size: return .double
        case is Int.Type where wrapperSize == MemoryLayout<Int>.size: return .int
        case is Bool.Type where wrapperSize == MemoryLayout<Bool>.size: return .bool
        case is String.Type where wrapperSize == MemoryLayout<String>.size: return .string
        default:
            if storage.propertyKind == .toOne, wrapperSize == MemoryLayout<ModelObject?>.size,
               let optional = valueType as? any OptionalValue.Type, optional.wrappedType is ModelObject.Type {
                return .object
            }
            return .generic
        }
    }

    func setDependencies(_ dependencies: [String]) {
        recordedDependencies.withLock { $0 = dependencies }
    }

    /// The property's value in `object` as key-value coding returns it (nil for a nil optional).
    @inline(__always)
    package func value(in object: ModelObject) -> Any? {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        switch layout {
        case .double: return address.load(as: Double.self)
        case .int: return address.load(as: Int.self)
        case .bool: return address.load(as: Bool.self)
        case .string: return address.load(as: String.self)
        case .object:
            guard let related = address.load(as: ModelObject?.self) else { return nil }
            return related
        case .generic:
            if let optionalReader { return optionalReader.optionalKeyValue(in: object, at: offset) }
            if let plainComputedReader { return plainComputedReader.plainKeyValue(in: object, at: offset) }
            return storage.keyValue(in: object, at: offset)
        }
    }

    /// The related object of a to-one relationship, read without boxing; `.none` when the
    /// property is not a to-one relationship stored as a plain reference.
    @inline(__always)
    func relatedObject(in object: ModelObject) -> ModelObject?? {
        guard layout == .object else { return .none }
        return .some(load(ModelObject?.self, in: object))
    }

    /// The address of the property's stored value (the wrapper's only stored property) in `object`.
    @inline(__always)
    func address(in object: ModelObject) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
    }

    /// The raw stored value of a property whose layout is `layout`, as `T`.
    @inline(__always)
    func load<T>(_ type: T.Type, in object: ModelObject) -> T {
        (UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset).load(as: T.self)
    }

    /// The property's value in `object` as a `Double`, when it is stored as one.
    @inline(__always)
    func doubleValue(in object: ModelObject) -> Double? {
        layout == .double ? load(Double.self, in: object) : nil
    }

    /// Sets the property from a key-value-coding value, converting it and notifying observers.
    package func setValue(_ value: Any?, in object: ModelObject) throws {
        let address = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        switch layout {
        case .double:
            if let double = unboxTrivial(optional: value, as: Double.self) ?? value as? Double {
                object.changeValue(forKey: key, descriptor: self) { address.assumingMemoryBound(to: Double.self).pointee = double }
                return
            }
        case .int:
            if let int = unboxTrivial(optional: value, as: Int.self) ?? value as? Int {
                object.changeValue(forKey: key, descriptor: self) { address.assumingMemoryBound(to: Int.self).pointee = int }
                return
            }
        case .bool:
            if let bool = unboxTrivial(optional: value, as: Bool.self) ?? value as? Bool {
                object.changeValue(forKey: key, descriptor: self) { address.assumingMemoryBound(to: Bool.self).pointee = bool }
                return
            }
        case .string:
            if let string = value as? String {
                object.changeValue(forKey: key, descriptor: self) { address.assumingMemoryBound(to: String.self).pointee = string }
                return
            }
        case .object:
            // A related object (or nil) is stored as is, after a check of its class instead of
            // the generic conversion's dynamic cast to the property's type.
            if let destinationType, let related = Self.relatedObject(value, of: destinationType) {
                object.changeValue(forKey: key, descriptor: self) {
                    address.assumingMemoryBound(to: ModelObject?.self).pointee = related
                }
                return
            }
        case .generic:
            break
        }
        try storage.setKeyValue(value, in: object, descriptor: self)
    }

    /// Sets the property to a value of its stored type, `T`, notifying observers: for the
    /// direct layouts (`.double` with a `Double`, `.int` with an `Int`, `.bool`, `.string`), as
    /// ``setValue(_:in:)`` does with a value of that type.
    @inline(__always)
    func storeDirectly<T>(_ value: T, in object: ModelObject) {
        let address = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        object.changeValue(forKey: key, descriptor: self) { address.assumingMemoryBound(to: T.self).pointee = value }
    }

    /// `.some(nil)` for nil, `.some(object)` for a model object of `destinationType` or a
    /// subclass, `.none` for anything else.
    @inline(__always)
    private static func relatedObject(_ value: Any?, of destinationType: ModelObject.Type) -> ModelObject?? {
        guard let value else { return .some(nil) }
        guard let related = asModelObject(value) else { return .none }
        var current: AnyClass? = type(of: related)
        let destination = ObjectIdentifier(destinationType)
        while let cls = current {
            if ObjectIdentifier(cls) == destination { return .some(related) }
            current = _getSuperclass(cls)
        }
        return .none
    }

    /// Drops the objects a relationship holds (nil for a to-one, empty for a to-many), without
    /// notifying observers: how the unarchiver frees the objects of a failed decode, whose
    /// references to each other would otherwise keep them alive in a cycle.
    func dropRelatedObjects(in object: ModelObject) {
        let address = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        if layout == .object {
            address.assumingMemoryBound(to: ModelObject?.self).pointee = nil
        } else if let objectCollection {
            objectCollection.removeAllObjects(at: address)
        } else if kind == .toOne {
            try? storage.setKeyValue(nil, in: object, descriptor: self)
        }
    }

    /// True for keys that key-value coding cannot set.
    package var isReadOnly: Bool { kind == .derived }

    /// True for relationships of any kind.
    package var isRelationship: Bool {
        kind == .toOne || kind == .orderedToMany || kind == .unorderedToMany
    }
}

/// The keys of one model class, built once per class from its declared property wrappers.
///
/// The table is immutable once built and shared by every instance of the class, which holds a
/// reference to it so that key lookups take no lock.
@usableFromInline
package final class PropertyTable: Sendable {
    /// Every declared key, superclass keys first, each class's in declaration order.
    package let descriptors: [PropertyDescriptor]
    private let keyIndex: KeyIndex
    /// The descriptors again, for lookups that borrow them instead of retaining them.
    private let unmanagedDescriptors: [Unmanaged<PropertyDescriptor>]
    /// Keys found for typed key paths, filled as they are asked for.
    private let keysByKeyPath = Mutex<[KeyPathBox: String]>([:])

    /// Whether the class adopts ``ChangeTrackingObject``, so that its will/did-change
    /// notifications go to the tracker too.
    package let tracksChanges: Bool

    /// The class's ``ModelObject/tracksObservationAccess``: whether typed getters register with
    /// an Observation tracking scope.
    @usableFromInline package let tracksObservationAccess: Bool

    /// The class the table describes.
    private let classIdentifier: ObjectIdentifier

    private init(classIdentifier: ObjectIdentifier, descriptors: [PropertyDescriptor], tracksChanges: Bool, tracksObservationAccess: Bool) {
        self.classIdentifier = classIdentifier
        self.descriptors = descriptors
        self.tracksChanges = tracksChanges
        self.tracksObservationAccess = tracksObservationAccess
        keyIndex = KeyIndex(keys: descriptors.map(\.key))
        unmanagedDescriptors = descriptors.map { Unmanaged.passUnretained($0) }
    }

    /// The descriptor for a key, or nil when the class declares no such key.
    @inline(__always)
    package func descriptor(forKey key: String) -> PropertyDescriptor? {
        guard let index = keyIndex.index(of: key) else { return nil }
        return descriptors[index]
    }

    /// Calls `body` with the descriptor for `key` without retaining it (the table keeps its
    /// descriptors alive); nil when the class declares no such key.
    @inline(__always)
    func withDescriptor<Result>(forKey key: String, _ body: (PropertyDescriptor) throws -> Result) rethrows -> Result? {
        guard let index = keyIndex.index(of: key) else { return nil }
        return try unmanagedDescriptors[index]._withUnsafeGuaranteedRef(body)
    }

    /// The descriptor for a key given as UTF-8 bytes (a segment of a key path).
    @inline(__always)
    func descriptor(forUTF8Key key: UnsafeBufferPointer<UInt8>) -> PropertyDescriptor? {
        guard let index = keyIndex.index(ofUTF8: key) else { return nil }
        return descriptors[index]
    }

    /// The descriptor whose wrapper lives at `offset`. A class has few properties, so a scan
    /// beats hashing.
    package func descriptor(atOffset offset: Int) -> PropertyDescriptor? {
        for descriptor in descriptors where descriptor.offset == offset { return descriptor }
        return nil
    }

    /// Calls `body` with the descriptor whose wrapper lives at `offset`, without retaining it;
    /// nil when there is none.
    @inline(__always)
    func withDescriptor<Result>(atOffset offset: Int, _ body: (PropertyDescriptor) throws -> Result) rethrows -> Result? {
        for descriptor in unmanagedDescriptors {
            let found = descriptor._withUnsafeGuaranteedRef { $0.offset == offset }
            if found { return try descriptor._withUnsafeGuaranteedRef(body) }
        }
        return nil
    }

    /// The key previously found for a typed key path.
    func cachedKey(for keyPath: AnyKeyPath) -> String? {
        keysByKeyPath.withLock { $0[KeyPathBox(keyPath: keyPath)] }
    }

    /// Remembers the key found for a typed key path.
    func cacheKey(_ key: String, for keyPath: AnyKeyPath) {
        keysByKeyPath.withLock { $0[KeyPathBox(keyPath: keyPath)] = key }
    }

    /// Every table made, by class; never emptied, so a table lives as long as the process.
    private static let cache = Mutex<[ObjectIdentifier: PropertyTable]>([:])

    /// The table asked for last, read without the lock: making many objects of one class (a
    /// fetch of 100,000) finds it with one atomic load, no hashing and no lock.
    private static let last = Atomic<Unmanaged<PropertyTable>?>(nil)

    /// The table of a class, built on first use, unretained (`cache` keeps every table for the
    /// life of the process): what an object's initializer keeps without reference counting.
    static func unretainedTable(for type: ModelObject.Type) -> Unmanaged<PropertyTable> {
        let identifier = ObjectIdentifier(type)
        if let last = last.load(ordering: .acquiring), last._withUnsafeGuaranteedRef({ $0.classIdentifier == identifier }) {
            return last
        }
        let table: PropertyTable
        if let known = cache.withLock({ $0[identifier] }) {
            table = known
        } else {
            let built = build(for: type)
            table = cache.withLock { tables in
                if let existing = tables[identifier] { return existing }
                tables[identifier] = built
                return built
            }
        }
        let unretained = Unmanaged.passUnretained(table)
        last.store(unretained, ordering: .releasing)
        return unretained
    }

    /// The table of a class, built on first use.
    static func table(for type: ModelObject.Type) -> PropertyTable {
        unretainedTable(for: type).takeUnretainedValue()
    }

    /// Whether derived keys' dependencies have been read from an instance.
    private let dependenciesRecorded = Atomic<Bool>(false)

    /// Reads derived keys' dependencies from `object`, an instance of the table's class, the
    /// first time an instance finishes initializing: a `Derived` wrapper holds them as values.
    @inline(__always)
    func recordDependencies(from object: ModelObject) {
        guard !dependenciesRecorded.load(ordering: .acquiring) else { return }
        for descriptor in descriptors where descriptor.kind == .derived {
            let dependencies = descriptor.storage.dependencies(in: object, at: descriptor.offset)
            descriptor.setDependencies(dependencies)
        }
        dependenciesRecorded.store(true, ordering: .releasing)
    }

    /// The table of a class, if an instance of it was ever made.
    static func existingTable(for type: ModelObject.Type) -> PropertyTable? {
        cache.withLock { $0[ObjectIdentifier(type)] }
    }

    /// Reads the class's fields through the standard library's reflection metadata and keeps
    /// those whose type is one of this library's property wrappers. A wrapper's field is named
    /// `_key`; its offset lets key-value coding reach the storage without a key path.
    private static func build(for type: ModelObject.Type) -> PropertyTable {
        var descriptors: [PropertyDescriptor] = []
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _forEachField(of: type, options: classType) { name, offset, fieldType, _ in
            guard let storage = fieldType as? any PropertyStorage.Type else { return true }
            var key = String(cString: name)
            guard key.hasPrefix("_") else { return true }
            key.removeFirst()
            descriptors.append(PropertyDescriptor(key: key, offset: offset, storage: storage))
            return true
        }
        return PropertyTable(
            classIdentifier: ObjectIdentifier(type), descriptors: descriptors, tracksChanges: type is any ChangeTrackingObject.Type,
            tracksObservationAccess: type.tracksObservationAccess)
    }
}

/// The generation of the answers classes give to
/// ``ModelObject/automaticallyNotifiesObservers(forKey:)``, which descriptors keep: code that
/// changes what a class answers (a managed object model registering the keys its classes model)
/// moves it on, so that every descriptor asks again.
package enum AutomaticNotificationAnswers {
    package static let generation = Atomic<Int>(0)

    /// Makes every descriptor ask its class again at its next set.
    package static func invalidate() {
        generation.add(1, ordering: .releasing)
    }
}

/// A key path used as a dictionary key across threads.
// SAFETY: key path objects are immutable once created; hashing and equality only read them.
private struct KeyPathBox: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath
}

/// An open-addressing hash table from key to descriptor index, with a hash cheaper than
/// `Hasher`'s: keys are short identifiers, so their length and three of their bytes spread them
/// well enough, and a full comparison confirms the match. Lookups take a `String` or the UTF-8
/// bytes of a key inside a longer key path.
private struct KeyIndex: Sendable {
    private let slots: [Int32]
    private let keys: [String]
    /// Every key's UTF-8 bytes, one after another.
    private let keyBytes: [UInt8]
    private let keyRanges: [Range<Int>]
    private let mask: Int

    init(keys: [String]) {
        self.keys = keys
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for key in keys {
            let start = bytes.count
            bytes.append(contentsOf: key.utf8)
            ranges.append(start..<bytes.count)
        }
        keyBytes = bytes
        keyRanges = ranges
        var capacity = 4
        while capacity < keys.count * 2 { capacity *= 2 }
        mask = capacity - 1
        var slots = [Int32](repeating: -1, count: capacity)
        for (index, key) in keys.enumerated() {
            var slot = Self.hash(Array(key.utf8)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index)
        }
        self.slots = slots
    }

    @inline(__always)
    private static func hash<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let count = bytes.count
        guard count > 0 else { return 0 }
        let start = bytes.startIndex
        var hash = count &* 0x9E37_79B1
        hash = (hash ^ Int(bytes[start])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[start + count / 2])) &* 0x0100_0193
        hash = (hash ^ Int(bytes[start + count - 1])) &* 0x0100_0193
        return hash ^ (hash >> 15)
    }

    @inline(__always)
    func index(of key: String) -> Int? {
        var slot = Self.hash(key) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            if keys[index] == key { return index }
            slot = (slot + 1) & mask
        }
    }

    /// The same hash as for bytes, read through the string's UTF-8 view, which is cheap for the
    /// native and small strings keys are.
    @inline(__always)
    private static func hash(_ key: String) -> Int {
        let utf8 = key.utf8
        let count = utf8.count
        guard count > 0 else { return 0 }
        var hash = count &* 0x9E37_79B1
        hash = (hash ^ Int(utf8[utf8.startIndex])) &* 0x0100_0193
        hash = (hash ^ Int(utf8[utf8.index(utf8.startIndex, offsetBy: count / 2)])) &* 0x0100_0193
        hash = (hash ^ Int(utf8[utf8.index(before: utf8.endIndex)])) &* 0x0100_0193
        return hash ^ (hash >> 15)
    }

    func index(ofUTF8 key: UnsafeBufferPointer<UInt8>) -> Int? {
        var slot = Self.hash(key) & mask
        return keyBytes.withUnsafeBufferPointer { all in
            while true {
                let index = Int(slots[slot])
                if index < 0 { return nil }
                let range = keyRanges[index]
                if range.count == key.count {
                    guard let base = all.baseAddress, let keyBase = key.baseAddress else { return index }
                    if memcmp(base + range.lowerBound, keyBase, key.count) == 0 { return index }
                }
                slot = (slot + 1) & mask
            }
        }
    }
}

/// The value inside `value` when its dynamic type is exactly `T`, read straight from the
/// existential's inline buffer; `T` must be a trivial type of at most three words (`Double`,
/// `Int`, `Bool`), which `Any` always stores inline. Faster than `as?`, which goes through the
/// runtime's general cast.
@inline(__always)
func unboxTrivial<T>(_ value: Any, as type: T.Type) -> T? {
    guard Swift.type(of: value) == T.self else { return nil }
    return withUnsafeBytes(of: value) { $0.load(as: T.self) }
}

/// The value inside an optional `Any` when its dynamic type is exactly `T`, read in place without
/// copying the existential: an `Any` is three words of inline buffer followed by the type's
/// metadata pointer (Swift's stable existential layout), and `T` (`Double`, `Int`, `Bool`) is
/// always stored inline. A nil optional has a null metadata pointer.
@inlinable @inline(__always)
func unboxTrivial<T>(optional value: borrowing Any?, as type: T.Type) -> T? {
    guard MemoryLayout<Any?>.size == 4 * MemoryLayout<UnsafeRawPointer>.size,
          MemoryLayout<T>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size
    else { return nil }
    let metadata = unsafeBitCast(T.self as Any.Type, to: UnsafeRawPointer.self)
    return withUnsafeBytes(of: value) { bytes in
        guard bytes.load(fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer?.self) == metadata
        else { return nil }
        return bytes.load(as: T.self)
    }
}
