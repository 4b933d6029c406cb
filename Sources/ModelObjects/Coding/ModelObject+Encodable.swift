import Foundation

extension ModelObject: Encodable {
    /// Encodes the object and the graph of objects it leads to through its declared keys.
    ///
    /// Attributes are written as their values (each must be `Encodable`), relationships as
    /// nested objects or references, per ``relationshipCoding(forKey:)``; an object of a subclass
    /// of a relationship's declared class records its class under `"@class"`, and an object the
    /// graph refers to more than once carries its number under `"@id"`. Derived keys are not
    /// written. Decode the graph with ``ModelGraph``.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(department)
    /// // {"name":"Research","employees":[{"@id":1,"firstName":"Ada","department":{"@ref":0}}], "@id":0}
    /// let copy = try JSONDecoder().decode(ModelGraph<Department>.self, from: data).root
    /// ```
    ///
    /// - Throws: `EncodingError.invalidValue` for an attribute whose value is not `Encodable`,
    ///   and what the encoder throws.
    ///
    /// Corresponds to `-[NSKeyedArchiver encodeRootObject:]` for a `Codable` encoder;
    /// differences: declared keys only, shared objects and cycles written as `"@ref"`s.
    public func encode(to encoder: any Encoder) throws {
        if let custom = self as? any CustomModelEncoding {
            try custom.encodeModel(to: encoder)
            return
        }
        let writer = GraphWriter(root: self)
        var container = encoder.container(keyedBy: GraphCodingKey.self)
        try writer.write(self, declaredType: type(of: self), into: &container)
    }
}

/// A model class that encodes itself its own way: managed objects, whose values are not
/// declared properties.
package protocol CustomModelEncoding {
    func encodeModel(to encoder: any Encoder) throws
}

/// Writes one object graph: first plans which objects are written where (so that every
/// reference knows its object's number), then writes.
final class GraphWriter {
    private let ownedClosure: Set<ObjectIdentifier>
    private var numbers: [ObjectIdentifier: Int] = [:]
    private var referenced: Set<ObjectIdentifier> = []
    private var written: Set<ObjectIdentifier> = []

    init(root: ModelObject) {
        ownedClosure = Self.nestedClosure(of: root)
        plan(root)
    }

    /// The objects reachable from `root` through `.nested` relationships only, root included.
    private static func nestedClosure(of root: ModelObject) -> Set<ObjectIdentifier> {
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
        var pending = [root]
        while let object = pending.popLast() {
            for descriptor in object.propertyTable.descriptors where descriptor.isRelationship {
                guard type(of: object).relationshipCoding(forKey: descriptor.key) == .nested else { continue }
                for related in relatedObjects(descriptor.value(in: object)) where seen.insert(ObjectIdentifier(related)).inserted {
                    pending.append(related)
                }
            }
        }
        return seen
    }

    /// Whether the relationship of `style` writes `object` in full here, given what is written.
    private func writesInFull(_ object: ModelObject, style: RelationshipCoding, isWritten: Bool) -> Bool {
        if isWritten { return false }
        return style == .nested || !ownedClosure.contains(ObjectIdentifier(object))
    }

    private func plan(_ object: ModelObject) {
        numbers[ObjectIdentifier(object)] = numbers.count
        for descriptor in object.propertyTable.descriptors where descriptor.isRelationship {
            let style = type(of: object).relationshipCoding(forKey: descriptor.key)
            for related in relatedObjects(descriptor.value(in: object)) {
                let identifier = ObjectIdentifier(related)
                if writesInFull(related, style: style, isWritten: numbers[identifier] != nil) {
                    plan(related)
                } else {
                    referenced.insert(identifier)
                }
            }
        }
    }

    /// Writes `object` in full into `container`.
    func write(
        _ object: ModelObject, declaredType: ModelObject.Type, into container: inout KeyedEncodingContainer<GraphCodingKey>
    ) throws {
        let identifier = ObjectIdentifier(object)
        written.insert(identifier)
        if type(of: object) != declaredType {
            try container.encode(String(reflecting: type(of: object)), forKey: .classKey)
        }
        if referenced.contains(identifier), let number = numbers[identifier] {
            try container.encode(number, forKey: .identifier)
        }
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            let key = GraphCodingKey(descriptor.key)
            let value = descriptor.value(in: object)
            switch descriptor.kind {
            case .attribute:
                guard let value else {
                    try container.encodeNil(forKey: key)
                    continue
                }
                guard let encodable = value as? any Encodable else {
                    throw EncodingError.invalidValue(
                        value,
                        EncodingError.Context(
                            codingPath: container.codingPath + [key],
                            debugDescription: "\(type(of: object)).\(descriptor.key) holds a \(type(of: value)), "
                                + "which is not Encodable"))
                }
                try container.encode(encodable, forKey: key)
            case .toOne:
                let style = type(of: object).relationshipCoding(forKey: descriptor.key)
                guard let value, let related = asModelObject(value) else {
                    try container.encodeNil(forKey: key)
                    continue
                }
                var nested = container.nestedContainer(keyedBy: GraphCodingKey.self, forKey: key)
                try writeRelated(related, style: style, declaredType: destinationType(of: descriptor), into: &nested)
            case .orderedToMany, .unorderedToMany:
                let style = type(of: object).relationshipCoding(forKey: descriptor.key)
                var elements = container.nestedUnkeyedContainer(forKey: key)
                for related in relatedObjects(value) {
                    var nested = elements.nestedContainer(keyedBy: GraphCodingKey.self)
                    try writeRelated(related, style: style, declaredType: destinationType(of: descriptor), into: &nested)
                }
            case .derived:
                continue
            }
        }
    }

    private func writeRelated(
        _ object: ModelObject, style: RelationshipCoding, declaredType: ModelObject.Type,
        into container: inout KeyedEncodingContainer<GraphCodingKey>
    ) throws {
        let identifier = ObjectIdentifier(object)
        if writesInFull(object, style: style, isWritten: written.contains(identifier)) {
            try write(object, declaredType: declaredType, into: &container)
        } else if let number = numbers[identifier] {
            try container.encode(number, forKey: .reference)
        }
    }
}

/// The declared class of the objects of a relationship.
func destinationType(of descriptor: PropertyDescriptor) -> ModelObject.Type {
    var type = descriptor.storage.storedValueType
    while let optional = type as? any OptionalValue.Type { type = optional.wrappedType }
    return (type as? any RelationshipValue.Type)?.destinationType ?? ModelObject.self
}

/// The objects a relationship value holds: none, one, or the collection's, in its order.
func relatedObjects(_ value: Any?) -> [ModelObject] {
    if let value, let object = asModelObject(value) { return [object] }
    guard let collection = value as? any KeyValueCollection else { return [] }
    var objects: [ModelObject] = []
    collection.forEachKeyValue { if let object = asModelObject($0) { objects.append(object) } }
    return objects
}
