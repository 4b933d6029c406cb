import Foundation
import ModelObjects

extension ManagedObject: CustomModelEncoding {
    /// Writes the object's entity name under `"@entity"`, its object ID's URI under `"@id"`, each
    /// persistent attribute as its value and each persistent relationship as the URIs of the
    /// related objects' IDs (in order for an ordered relationship, sorted otherwise); transient
    /// properties are left out. Fires the fault.
    package func encodeModel(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GraphCodingKey.self)
        try container.encode(entity.name, forKey: .entityKey)
        try container.encode(objectID.uriRepresentation().absoluteString, forKey: .identifier)
        for property in entity.properties where !property.isTransient {
            let key = GraphCodingKey(property.name)
            let value: Any?
            do {
                value = try self.value(forKey: property.name)
            } catch {
                throw EncodingError.invalidValue(
                    self,
                    .init(codingPath: container.codingPath + [key],
                          debugDescription: "\(entity.name) \(objectID) cannot be read: \(error)", underlyingError: error))
            }
            guard let relationship = property as? RelationshipDescription else {
                guard let value else {
                    try container.encodeNil(forKey: key)
                    continue
                }
                guard let encodable = value as? any Encodable else {
                    throw EncodingError.invalidValue(
                        value,
                        .init(codingPath: container.codingPath + [key],
                              debugDescription: "\(entity.name).\(property.name) holds a \(type(of: value)), which is not Encodable"))
                }
                try container.encode(encodable, forKey: key)
                continue
            }
            let related = value.flatMap { asModelObject($0) as? ManagedObject }.map { [$0] } ?? Self.objects(inCollection: value)
            let uris = related.map { $0.objectID.uriRepresentation().absoluteString }
            if relationship.isToMany {
                try container.encode(relationship.isOrdered ? uris : uris.sorted(), forKey: key)
            } else if let uri = uris.first {
                try container.encode(uri, forKey: key)
            } else {
                try container.encodeNil(forKey: key)
            }
        }
    }
}

extension GraphCodingKey {
    /// The entity of an encoded managed object.
    static let entityKey = GraphCodingKey("@entity")
}

extension CodingUserInfoKey {
    /// The key under which a decoder's `userInfo` holds the ``ManagedObjectModel`` that
    /// ``ManagedObjectPayload`` checks a payload against.
    ///
    /// Corresponds to nothing in Core Data.
    public static var managedObjectModel: CodingUserInfoKey {
        guard let key = CodingUserInfoKey(rawValue: "ManagedObjects.managedObjectModel") else {
            preconditionFailure("CodingUserInfoKey(rawValue:) returned nil")
        }
        return key
    }
}

/// A managed object decoded from a payload (a JSON API's response, a file) and checked against
/// the model, ready to be inserted into a context: the import path of ``ManagedObject``'s
/// `Codable` support.
///
/// Decoding touches no context: it checks every key against the entity (a key the entity does
/// not model, a value of the wrong type, or a missing key of a property that is neither optional
/// nor defaulted throws a `DecodingError`) and keeps the values. ``insert(into:)`` then makes the
/// objects, all of them or, when one reference cannot be resolved, none.
///
/// A payload is the object's persistent keys (a transient property's key is refused, as
/// encoding leaves it out): attributes as values of their types, relationships as the
/// URI of an existing object's ID (what encoding a managed object writes) or as a nested object
/// to insert too, an array of these for a to-many relationship. `"@entity"` names a subentity;
/// `"@id"` is ignored, so a payload encoded from a managed object imports as a new object.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo[.managedObjectModel] = model
/// let payload = try decoder.decode(ManagedObjectPayload<Employee>.self, from: data)
/// let employee = try payload.insert(into: context)
/// // or: try context.insertObject(Employee.self, from: data)
/// ```
///
/// Corresponds to nothing in Core Data, where importing JSON is the app's own code.
public struct ManagedObjectPayload<Object: ManagedObject>: Decodable {
    let root: StagedObject

    /// Decodes the payload of an object of the entity the decoder's model gives `Object`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `userInfo[.managedObjectModel]` holds no
    ///   model, the model gives `Object` no single entity, or a key is not modeled or names a
    ///   transient property; `keyNotFound`, `typeMismatch` and `valueNotFound` for missing and mistyped values.
    ///
    /// Corresponds to nothing in Core Data.
    public init(from decoder: any Decoder) throws {
        guard let model = decoder.userInfo[.managedObjectModel] as? ManagedObjectModel else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath,
                      debugDescription: "the decoder's userInfo[.managedObjectModel] holds no ManagedObjectModel"))
        }
        let candidates = model.entities.filter { $0.managedObjectClass == Object.self }
        let entity: EntityDescription
        if candidates.count == 1 {
            entity = candidates[0]
        } else if Object.self == ManagedObject.self, let root = model.entities.first(where: { $0.superentity == nil }) {
            // Plain managed objects: the payload must name its entity.
            entity = root
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath,
                      debugDescription: "the model gives \(Object.self) \(candidates.count) entities; it needs exactly one"))
        }
        let container = try decoder.container(keyedBy: GraphCodingKey.self)
        root = try StagedObject(
            container, expected: entity, model: model, requireEntityName: Object.self == ManagedObject.self)
    }

    /// Inserts the payload's objects into `context`: the root object and every nested one,
    /// related to each other and to the existing objects the payload names.
    ///
    /// Every reference is resolved before any object is made, so a payload that names an object
    /// the context cannot find inserts nothing. Validation runs when the context is saved.
    ///
    /// - Returns: The root object.
    /// - Throws: `DecodingError.dataCorrupted` for a URI that names no object of the context's
    ///   stores (the ``PersistenceError`` as its underlying error), `DecodingError.typeMismatch`
    ///   for an object of an entity the relationship does not lead to.
    ///
    /// Corresponds to nothing in Core Data.
    public func insert(into context: ManagedObjectContext) throws -> Object {
        var existing: [URL: ManagedObject] = [:]
        try root.resolve(in: context, into: &existing)
        var inserted: [ManagedObject] = []
        do {
            let object = try root.insert(into: context, existing: existing, inserted: &inserted)
            guard let typed = object as? Object else {
                throw DecodingError.typeMismatch(
                    Object.self, .init(codingPath: [], debugDescription: "the payload is a \(type(of: object))"))
            }
            return typed
        } catch {
            for object in inserted.reversed() { context.delete(object) }
            throw error
        }
    }
}

extension ManagedObjectContext {
    /// Decodes `data` with `decoder` as the payload of an `Object` and inserts it; see
    /// ``ManagedObjectPayload``. Sets the decoder's `userInfo[.managedObjectModel]` to the
    /// context's model.
    ///
    /// - Throws: `DecodingError`, as ``ManagedObjectPayload/init(from:)`` and
    ///   ``ManagedObjectPayload/insert(into:)``; nothing is inserted when it throws.
    ///
    /// Corresponds to nothing in Core Data.
    public func insertObject<Object: ManagedObject>(
        _ type: Object.Type, from data: Data, decoder: JSONDecoder = JSONDecoder()
    ) throws -> Object {
        decoder.userInfo[.managedObjectModel] = persistentStoreCoordinator.managedObjectModel
        return try decoder.decode(ManagedObjectPayload<Object>.self, from: data).insert(into: self)
    }
}

/// One object of a payload, checked against its entity: values converted, references kept.
struct StagedObject {
    enum Reference {
        case existing(URL, codingPath: [any CodingKey])
        case new(StagedObject)
    }

    enum Value {
        case attribute(Any?)
        case toOne(Reference?)
        case toMany([Reference])
    }

    let entity: EntityDescription
    let values: [(key: String, value: Value, codingPath: [any CodingKey])]

    init(
        _ container: KeyedDecodingContainer<GraphCodingKey>, expected: EntityDescription, model: ManagedObjectModel,
        requireEntityName: Bool = false
    ) throws {
        var entity = expected
        if let name = try container.decodeIfPresent(String.self, forKey: .entityKey) {
            guard let named = model.entity(named: name), named.isKindOf(entity: expected) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .entityKey, in: container, debugDescription: "'\(name)' is not \(expected.name) or a subentity of it")
            }
            entity = named
        } else if requireEntityName {
            throw DecodingError.keyNotFound(
                GraphCodingKey.entityKey, .init(codingPath: container.codingPath, debugDescription: "the payload names no entity"))
        }
        if entity.isAbstract {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "\(entity.name) is abstract; name a subentity with \"@entity\""))
        }
        for key in container.allKeys where key != .entityKey && key != .identifier {
            guard let property = entity.propertiesByName[key.stringValue] else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "\(entity.name) models no property '\(key.stringValue)'")
            }
            // Encoding leaves transient properties out; a payload that sets one is not what an
            // object encodes to, and setting in-memory state from outside is refused, not dropped.
            if property.isTransient {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "\(entity.name).\(key.stringValue) is transient: it is neither encoded nor decoded")
            }
        }
        var values: [(key: String, value: Value, codingPath: [any CodingKey])] = []
        for property in entity.properties where !property.isTransient {
            let key = GraphCodingKey(property.name)
            let path = container.codingPath + [key]
            guard container.contains(key) else {
                let defaulted = (property as? AttributeDescription)?.defaultValue != nil
                if property.isOptional || defaulted { continue }
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: container.codingPath, debugDescription: "\(entity.name).\(property.name) is required"))
            }
            if let attribute = property as? AttributeDescription {
                values.append((property.name, .attribute(try Self.decode(attribute, key: key, from: container)), path))
                continue
            }
            guard let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity
            else { continue }
            if relationship.isToMany {
                var elements = try container.nestedUnkeyedContainer(forKey: key)
                var references: [Reference] = []
                while !elements.isAtEnd {
                    let elementPath = elements.codingPath + [GraphCodingKey("Index \(elements.currentIndex)")]
                    if let uri = try? elements.decode(String.self) {
                        references.append(try Self.reference(uri, codingPath: elementPath))
                    } else {
                        let nested = try elements.nestedContainer(keyedBy: GraphCodingKey.self)
                        references.append(.new(try StagedObject(nested, expected: destination, model: model)))
                    }
                }
                values.append((property.name, .toMany(references), path))
            } else if try container.decodeNil(forKey: key) {
                values.append((property.name, .toOne(nil), path))
            } else if let uri = try? container.decode(String.self, forKey: key) {
                values.append((property.name, .toOne(try Self.reference(uri, codingPath: path)), path))
            } else {
                let nested = try container.nestedContainer(keyedBy: GraphCodingKey.self, forKey: key)
                values.append((property.name, .toOne(.new(try StagedObject(nested, expected: destination, model: model))), path))
            }
        }
        self.entity = entity
        self.values = values
    }

    private static func reference(_ uri: String, codingPath: [any CodingKey]) throws -> Reference {
        guard let url = URL(string: uri), url.scheme == "x-coredata" else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "'\(uri)' is not an object ID's URI (x-coredata://…)"))
        }
        return .existing(url, codingPath: codingPath)
    }

    private static func decode(
        _ attribute: AttributeDescription, key: GraphCodingKey, from container: KeyedDecodingContainer<GraphCodingKey>
    ) throws -> Any? {
        if try container.decodeNil(forKey: key) {
            guard attribute.isOptional else {
                throw DecodingError.valueNotFound(
                    attribute.valueType ?? Any.self,
                    .init(codingPath: container.codingPath + [key], debugDescription: "\(attribute.name) is not optional"))
            }
            return nil
        }
        guard let type = attribute.valueType as? any Decodable.Type else {
            throw DecodingError.typeMismatch(
                Any.self,
                .init(codingPath: container.codingPath + [key],
                      debugDescription: "\(attribute.attributeType) attributes cannot be decoded"))
        }
        return try container.decode(type, forKey: key)
    }

    /// Finds every existing object the payload names, keyed by URI.
    func resolve(in context: ManagedObjectContext, into existing: inout [URL: ManagedObject]) throws {
        for (_, value, _) in values {
            let references: [Reference]
            switch value {
            case .attribute: continue
            case .toOne(let reference): references = reference.map { [$0] } ?? []
            case .toMany(let list): references = list
            }
            for reference in references {
                switch reference {
                case .new(let object):
                    try object.resolve(in: context, into: &existing)
                case .existing(let uri, let codingPath):
                    if existing[uri] != nil { continue }
                    do {
                        guard let id = context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) else {
                            throw PersistenceError(.objectNotFound, message: "\(uri) names no object of the context's stores")
                        }
                        existing[uri] = try context.existingObject(with: id)
                    } catch {
                        throw DecodingError.dataCorrupted(
                            .init(codingPath: codingPath, debugDescription: "\(uri) names no object of the context",
                                  underlyingError: error))
                    }
                }
            }
        }
    }

    /// Makes the object and its nested ones in `context`, appending each to `inserted`.
    func insert(
        into context: ManagedObjectContext, existing: [URL: ManagedObject], inserted: inout [ManagedObject]
    ) throws -> ManagedObject {
        let object = entity.managedObjectClass.init(entity: entity, insertInto: context)
        inserted.append(object)
        for (key, value, codingPath) in values {
            let stored: Any?
            switch value {
            case .attribute(let attribute):
                stored = attribute
            case .toOne(let reference):
                stored = try reference.map { try self.object($0, for: key, codingPath: codingPath, in: context, existing, &inserted) }
            case .toMany(let references):
                let objects = try references.map { try self.object($0, for: key, codingPath: codingPath, in: context, existing, &inserted) }
                let isOrdered = (entity.propertiesByName[key] as? RelationshipDescription)?.isOrdered == true
                stored = isOrdered ? objects as Any : Set(objects) as Any
            }
            do {
                try object.setValue(stored, forKey: key)
            } catch {
                throw DecodingError.typeMismatch(
                    Any.self, .init(codingPath: codingPath, debugDescription: "\(error)", underlyingError: error))
            }
        }
        return object
    }

    private func object(
        _ reference: Reference, for key: String, codingPath: [any CodingKey], in context: ManagedObjectContext,
        _ existing: [URL: ManagedObject], _ inserted: inout [ManagedObject]
    ) throws -> ManagedObject {
        let object: ManagedObject
        switch reference {
        case .new(let staged):
            object = try staged.insert(into: context, existing: existing, inserted: &inserted)
        case .existing(let uri, _):
            guard let found = existing[uri] else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(uri) was not resolved"))
            }
            object = found
        }
        if let destination = (entity.propertiesByName[key] as? RelationshipDescription)?.destinationEntity,
            !object.entity.isKindOf(entity: destination)
        {
            throw DecodingError.typeMismatch(
                ManagedObject.self,
                .init(codingPath: codingPath,
                      debugDescription: "\(key) leads to \(destination.name), not to \(object.entity.name)"))
        }
        return object
    }
}
