@_spi(Reflection) import Swift
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
    /// The key paths a derived key depends on; empty for stored properties.
    package let dependencies: [String]

    init(key: String, offset: Int, storage: any PropertyStorage.Type, dependencies: [String]) {
        self.key = key
        self.offset = offset
        self.storage = storage
        self.kind = storage.propertyKind
        self.dependencies = dependencies
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
package final class PropertyTable: Sendable {
    /// Every declared key, superclass keys first, each class's in declaration order.
    package let descriptors: [PropertyDescriptor]
    private let descriptorsByKey: [String: PropertyDescriptor]
    private let descriptorsByOffset: [Int: PropertyDescriptor]
    /// Keys found for typed key paths, filled as they are asked for.
    private let keysByKeyPath = Mutex<[KeyPathBox: String]>([:])

    private init(descriptors: [PropertyDescriptor]) {
        self.descriptors = descriptors
        var byKey: [String: PropertyDescriptor] = [:]
        var byOffset: [Int: PropertyDescriptor] = [:]
        for descriptor in descriptors {
            byKey[descriptor.key] = descriptor
            byOffset[descriptor.offset] = descriptor
        }
        descriptorsByKey = byKey
        descriptorsByOffset = byOffset
    }

    /// The descriptor for a key, or nil when the class declares no such key.
    @inline(__always)
    package func descriptor(forKey key: String) -> PropertyDescriptor? {
        descriptorsByKey[key]
    }

    /// The descriptor whose wrapper lives at `offset`.
    package func descriptor(atOffset offset: Int) -> PropertyDescriptor? {
        descriptorsByOffset[offset]
    }

    /// The key previously found for a typed key path.
    func cachedKey(for keyPath: AnyKeyPath) -> String? {
        keysByKeyPath.withLock { $0[KeyPathBox(keyPath: keyPath)] }
    }

    /// Remembers the key found for a typed key path.
    func cacheKey(_ key: String, for keyPath: AnyKeyPath) {
        keysByKeyPath.withLock { $0[KeyPathBox(keyPath: keyPath)] = key }
    }

    /// An empty table, held by an object between the start and the end of its initialization.
    static let placeholder = PropertyTable(descriptors: [])

    private static let cache = Mutex<[ObjectIdentifier: PropertyTable]>([:])

    /// The table of the object's class, built on first use with the object as the prototype
    /// from which derived keys' dependencies are read.
    static func table(for object: ModelObject) -> PropertyTable {
        let identifier = ObjectIdentifier(type(of: object))
        if let table = cache.withLock({ $0[identifier] }) { return table }
        let table = build(for: type(of: object), prototype: object)
        return cache.withLock { tables in
            if let existing = tables[identifier] { return existing }
            tables[identifier] = table
            return table
        }
    }

    /// The table of a class, if an instance of it was ever made.
    static func existingTable(for type: ModelObject.Type) -> PropertyTable? {
        cache.withLock { $0[ObjectIdentifier(type)] }
    }

    /// Reads the class's fields through the standard library's reflection metadata and keeps
    /// those whose type is one of this library's property wrappers. A wrapper's field is named
    /// `_key`; its offset lets key-value coding reach the storage without a key path.
    private static func build(for type: ModelObject.Type, prototype: ModelObject) -> PropertyTable {
        var descriptors: [PropertyDescriptor] = []
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _forEachField(of: type, options: classType) { name, offset, fieldType, _ in
            guard let storage = fieldType as? any PropertyStorage.Type else { return true }
            var key = String(cString: name)
            guard key.hasPrefix("_") else { return true }
            key.removeFirst()
            let dependencies = storage.dependencies(in: prototype, at: offset)
            descriptors.append(
                PropertyDescriptor(key: key, offset: offset, storage: storage, dependencies: dependencies))
            return true
        }
        return PropertyTable(descriptors: descriptors)
    }
}

/// A key path used as a dictionary key across threads.
// SAFETY: key path objects are immutable once created; hashing and equality only read them.
private struct KeyPathBox: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath
}
