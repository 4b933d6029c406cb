import Foundation

/// A graph of model objects as `Codable` sees it: decode one to get the root object and every
/// object it leads to, rebuilt with the same shared references and cycles.
///
/// ```swift
/// let data = try JSONEncoder().encode(department)            // ModelObject is Encodable
/// let graph = try JSONDecoder().decode(ModelGraph<Department>.self, from: data)
/// graph.root.employees.first?.department === graph.root       // true: the cycle is kept
/// ```
///
/// Each object is decoded through its class's declared keys: every stored attribute and
/// relationship key must be present, except optional attributes and to-one relationships
/// (which keep their initial value when missing); a key the class does not declare, a value of
/// the wrong type, a reference to a number no object of the payload carries, or an object of
/// the wrong class throws a `DecodingError` naming the coding path, and no object of the
/// payload is returned. Objects are made with `init()`; relationships are set once every
/// object exists, so references may point forward.
///
/// Corresponds to `NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(_:)` for a `Codable`
/// decoder; differences: any `Decoder`, declared keys only, classes limited to the declared
/// ones and their subclasses.
public struct ModelGraph<Root: ModelObject>: Codable {
    /// The root object of the graph.
    ///
    /// Corresponds to the archive's root object.
    public var root: Root

    /// Wraps a graph for encoding; encoding it writes what encoding `root` writes.
    ///
    /// Corresponds to nothing in Cocoa.
    public init(root: Root) {
        self.root = root
    }

    /// Decodes a graph written by ``ModelObject/encode(to:)``.
    ///
    /// - Throws: `DecodingError` for unknown or missing keys, values of the wrong type, unknown
    ///   references and classes that are not the declared one or a subclass of it.
    ///
    /// Corresponds to `-[NSKeyedUnarchiver decodeObjectForKey:]` of the root object.
    public init(from decoder: any Decoder) throws {
        let reader = GraphReader()
        let container = try decoder.container(keyedBy: GraphCodingKey.self)
        let object = try reader.read(container, declaredType: Root.self)
        try reader.connect()
        guard let root = object as? Root else {
            throw DecodingError.typeMismatch(
                Root.self, .init(codingPath: decoder.codingPath, debugDescription: "the root is a \(type(of: object))"))
        }
        self.root = root
    }

    /// Encodes the root's graph, as ``ModelObject/encode(to:)``.
    ///
    /// Corresponds to `-[NSKeyedArchiver encodeRootObject:]`.
    public func encode(to encoder: any Encoder) throws {
        try root.encode(to: encoder)
    }
}

/// Reads one object graph: makes each object as its full form is met, and keeps its
/// relationships until every object exists.
final class GraphReader {
    private enum Slot {
        case object(ModelObject)
        case reference(Int, codingPath: [any CodingKey])
    }

    private struct PendingRelationship {
        var object: ModelObject
        var descriptor: PropertyDescriptor
        var slots: [Slot]
        var codingPath: [any CodingKey]
    }

    private var objectsByNumber: [Int: ModelObject] = [:]
    private var pending: [PendingRelationship] = []

    /// Makes the object whose full form `container` holds, and decodes its attributes.
    func read(_ container: KeyedDecodingContainer<GraphCodingKey>, declaredType: ModelObject.Type) throws -> ModelObject {
        let type = try objectType(in: container, declaredType: declaredType)
        let object = type.init()
        if let number = try container.decodeIfPresent(Int.self, forKey: .identifier) {
            guard objectsByNumber.updateValue(object, forKey: number) == nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .identifier, in: container, debugDescription: "two objects carry the number \(number)")
            }
        }
        let descriptors = object.propertyTable.descriptors.filter { !$0.isReadOnly }
        let declared = Set(descriptors.map(\.key))
        for key in container.allKeys
        where !declared.contains(key.stringValue) && key != .identifier && key != .classKey {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(type) declares no key '\(key.stringValue)'")
        }
        for descriptor in descriptors {
            try read(descriptor, of: object, from: container)
        }
        return object
    }

    private func objectType(
        in container: KeyedDecodingContainer<GraphCodingKey>, declaredType: ModelObject.Type
    ) throws -> ModelObject.Type {
        guard let name = try container.decodeIfPresent(String.self, forKey: .classKey) else { return declaredType }
        guard let type = _typeByName(name) as? ModelObject.Type, isClass(type, kindOf: declaredType) else {
            throw DecodingError.dataCorruptedError(
                forKey: .classKey, in: container,
                debugDescription: "'\(name)' is not \(declaredType) or a subclass of it")
        }
        return type
    }

    private func read(
        _ descriptor: PropertyDescriptor, of object: ModelObject, from container: KeyedDecodingContainer<GraphCodingKey>
    ) throws {
        let key = GraphCodingKey(descriptor.key)
        let storedType = descriptor.storage.storedValueType
        let isOptional = storedType is any OptionalValue.Type
        if !container.contains(key) {
            if isOptional { return }
            // Raises keyNotFound with the coding path.
            _ = try container.decodeNil(forKey: key)
        }
        let path = container.codingPath + [key]
        switch descriptor.kind {
        case .attribute:
            guard let decodable = storedType as? any Decodable.Type else {
                throw DecodingError.typeMismatch(
                    storedType,
                    .init(codingPath: path, debugDescription: "\(storedType) is not Decodable"))
            }
            let value = try container.decode(decodable, forKey: key)
            do {
                try descriptor.setValue((value as? any OptionalValue)?.flattened ?? value, in: object)
            } catch {
                throw DecodingError.typeMismatch(
                    storedType, .init(codingPath: path, debugDescription: "\(error)", underlyingError: error))
            }
        case .toOne:
            if try container.decodeNil(forKey: key) { return }
            let nested = try container.nestedContainer(keyedBy: GraphCodingKey.self, forKey: key)
            let slot = try readSlot(nested, declaredType: destinationType(of: descriptor))
            pending.append(PendingRelationship(object: object, descriptor: descriptor, slots: [slot], codingPath: path))
        case .orderedToMany, .unorderedToMany:
            var elements = try container.nestedUnkeyedContainer(forKey: key)
            var slots: [Slot] = []
            while !elements.isAtEnd {
                let nested = try elements.nestedContainer(keyedBy: GraphCodingKey.self)
                slots.append(try readSlot(nested, declaredType: destinationType(of: descriptor)))
            }
            pending.append(PendingRelationship(object: object, descriptor: descriptor, slots: slots, codingPath: path))
        case .derived:
            return
        }
    }

    private func readSlot(
        _ container: KeyedDecodingContainer<GraphCodingKey>, declaredType: ModelObject.Type
    ) throws -> Slot {
        guard container.contains(.reference) else {
            return .object(try read(container, declaredType: declaredType))
        }
        if let other = container.allKeys.first(where: { $0 != .reference }) {
            throw DecodingError.dataCorruptedError(
                forKey: other, in: container, debugDescription: "a reference ({\"@ref\": n}) holds no other key")
        }
        return .reference(try container.decode(Int.self, forKey: .reference), codingPath: container.codingPath)
    }

    /// Sets every relationship, now that every object exists.
    func connect() throws {
        for relationship in pending {
            let destination = destinationType(of: relationship.descriptor)
            var objects: [ModelObject] = []
            for slot in relationship.slots {
                let object: ModelObject
                switch slot {
                case .object(let decoded):
                    object = decoded
                case .reference(let number, let codingPath):
                    guard let referenced = objectsByNumber[number] else {
                        throw DecodingError.dataCorrupted(
                            .init(codingPath: codingPath, debugDescription: "no object of the graph carries the number \(number)"))
                    }
                    object = referenced
                }
                guard isClass(type(of: object), kindOf: destination) else {
                    throw DecodingError.typeMismatch(
                        destination,
                        .init(codingPath: relationship.codingPath,
                              debugDescription: "the reference leads to a \(type(of: object)), not a \(destination)"))
                }
                objects.append(object)
            }
            let value: Any? =
                switch relationship.descriptor.kind {
                case .toOne: objects.first
                case .orderedToMany: objects
                default: Set(objects.map { AnyHashable($0) })
                }
            do {
                try relationship.descriptor.setValue(value, in: relationship.object)
            } catch {
                throw DecodingError.typeMismatch(
                    destination,
                    .init(codingPath: relationship.codingPath, debugDescription: "\(error)", underlyingError: error))
            }
        }
    }
}

/// Whether `type` is `ancestor` or one of its subclasses.
private func isClass(_ type: AnyClass, kindOf ancestor: AnyClass) -> Bool {
    var current: AnyClass? = type
    while let candidate = current {
        if candidate == ancestor { return true }
        current = _getSuperclass(candidate)
    }
    return false
}
