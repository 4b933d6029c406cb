import Foundation
import ModelObjects
import Synchronization

/// Turns `ManagedObject` subclasses into ``Entity`` values by reading their ``Managed``
/// declarations: names and Swift types by reflection over a prototype of each class, the rest
/// from the declarations' arguments. Each class is read once; the model assembler then checks
/// the entities as it checks a model written with the builder.
enum ClassModelReader {
    /// One `@Managed` field of a class, as declared.
    struct Field: Sendable {
        var name: String
        var valueType: Any.Type
        var declaration: ManagedDeclaration?
        /// The name of the property the declaration's inverse key path reads, and its root class.
        var inverseName: String?
        var inverseRoot: ManagedObject.Type?
    }

    /// The fields of one class of an inheritance chain, declared in that class's body.
    struct Level: Sendable {
        var type: ManagedObject.Type
        var fields: [Field]
    }

    private static let levelsByClass = Mutex<[ObjectIdentifier: [Level]]>([:])

    /// The entities of `classes`: one per class, named by its ``ManagedObject/entityDeclaration``,
    /// a subentity of the entity of its nearest listed superclass.
    static func entities(for classes: [ManagedObject.Type]) throws -> [Entity] {
        let listed = Set(classes.map(ObjectIdentifier.init))
        var names: [ObjectIdentifier: String] = [:]
        for type in classes {
            names[ObjectIdentifier(type)] = type.entityDeclaration.name ?? String(describing: type)
        }
        var drafts: [Draft] = []
        for type in classes {
            let levels = try self.levels(of: type)
            // Fields of unlisted superclasses belong to this entity; a listed one is its parent.
            var own: [Field] = []
            var parent: String?
            for level in levels.dropFirst() {
                if listed.contains(ObjectIdentifier(level.type)) {
                    parent = names[ObjectIdentifier(level.type)]
                    break
                }
                own.insert(contentsOf: level.fields, at: 0)
            }
            if let first = levels.first { own.append(contentsOf: first.fields) }
            let name = names[ObjectIdentifier(type)] ?? String(describing: type)
            var properties: [Draft.Property] = []
            for field in own {
                properties.append(try property(field, entity: name, classes: classes, names: names))
            }
            let constraints = try uniquenessConstraints(of: type, fields: own, entity: name)
            var indexes = type.entityDeclaration.indexes
            for field in own where field.declaration?.options.contains(.indexed) == true
                && !indexes.contains(where: { $0.name == field.name + "Index" }) {
                indexes.append(FetchIndexDescription(
                    name: field.name + "Index", elements: [FetchIndexElementDescription(propertyName: field.name)]))
            }
            drafts.append(
                Draft(
                    type: type, name: name, parent: parent, properties: properties, uniquenessConstraints: constraints,
                    indexes: indexes))
        }
        try pairInverses(&drafts)
        return drafts.map(\.entity)
    }

    // MARK: - Reading classes

    /// The fields of `type` and of each superclass up to ``ManagedObject``, `type`'s first.
    static func levels(of type: ManagedObject.Type) throws -> [Level] {
        if let known = levelsByClass.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        // Each pass makes a prototype and reads the declarations it numbered (see
        // `ManagedDeclarationRecorder`: a pass numbers at most `window` of them).
        var levels: [Level] = []
        var first = 0
        while true {
            let (passLevels, skipped) = try ManagedDeclarationRecorder.recording(from: first) {
                try declaredLevels(of: type)
            }
            if levels.isEmpty {
                levels = passLevels
            } else {
                for (level, passLevel) in zip(levels.indices, passLevels) {
                    for (field, passField) in zip(levels[level].fields.indices, passLevel.fields) {
                        levels[level].fields[field].declaration = levels[level].fields[field].declaration ?? passField.declaration
                    }
                }
            }
            guard skipped else { break }
            first += ManagedDeclarationRecorder.window
        }
        for level in levels.indices {
            for index in levels[level].fields.indices {
                let field = levels[level].fields[index]
                guard case .relationship(var arguments)? = field.declaration?.kind, let inverse = arguments.inverse else { continue }
                (levels[level].fields[index].inverseName, levels[level].fields[index].inverseRoot) =
                    try inverseName(of: inverse, field: field.name, in: levels[level].type)
                arguments.inverse = nil
                levels[level].fields[index].declaration?.kind = .relationship(arguments)
            }
        }
        levelsByClass.withLock { $0[ObjectIdentifier(type)] = levels }
        return levels
    }

    /// The fields of a prototype of `type` and of each superclass up to ``ManagedObject``,
    /// `type`'s first, with the declarations the recording pass numbered.
    private static func declaredLevels(of type: ManagedObject.Type) throws -> [Level] {
        let prototype = try ManagedPrototype.make(type)
        var levels: [Level] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        var current: AnyClass? = type
        while let level = mirror, let levelType = current as? ManagedObject.Type, levelType != ManagedObject.self {
            var fields: [Field] = []
            for child in level.children {
                guard let wrapper = child.value as? any ManagedFieldReading, var name = child.label else { continue }
                if name.hasPrefix("_") { name.removeFirst() }
                fields.append(
                    Field(
                        name: name, valueType: Swift.type(of: wrapper).declaredValueType,
                        declaration: ManagedDeclarationRecorder.declaration(atIndex: wrapper.declarationIndex)))
            }
            levels.append(Level(type: levelType, fields: fields))
            mirror = level.superclassMirror
            current = _getSuperclass(levelType)
        }
        return levels
    }

    /// The name of the `@Managed` property an inverse key path reads, found by reading it on a
    /// prototype of its root class.
    private static func inverseName(
        of keyPath: AnyKeyPath, field: String, in type: ManagedObject.Type
    ) throws -> (String, ManagedObject.Type) {
        let entityName = type.entityDeclaration.name ?? String(describing: type)
        guard let root = Swift.type(of: keyPath).rootType as? ManagedObject.Type else {
            throw ModelError(
                .unknownInverse, entity: entityName, property: field,
                message: "the inverse key path's root is not a ManagedObject subclass")
        }
        let prototype = try ManagedPrototype.make(root)
        let keys = ManagedPrototype.accessedKeys { _ = prototype[keyPath: keyPath] }
        guard let key = keys.first, keys.allSatisfy({ $0 == key }) else {
            throw ModelError(
                .unknownInverse, entity: entityName, property: field,
                message: keys.isEmpty
                    ? "the inverse key path names no @Managed property of \(root)"
                    : "the inverse key path reads several @Managed properties of \(root) (\(keys.joined(separator: ", ")))")
        }
        return (key, root)
    }

    /// The uniqueness constraints of `type`'s entity: those its declaration names, then those
    /// its key paths name, then one per field declared unique; each once.
    private static func uniquenessConstraints(
        of type: ManagedObject.Type, fields: [Field], entity: String
    ) throws -> [[String]] {
        let declaration = type.entityDeclaration
        var constraints: [[String]] = []
        func add(_ names: [String]) {
            if !constraints.contains(names) { constraints.append(names) }
        }
        declaration.uniquenessConstraints.forEach(add)
        if !declaration.uniquenessKeyPaths.isEmpty {
            if let property = try ManagedPrototype.propertyWithoutStandIn(of: type) {
                throw ModelError(
                    .invalidConstraint, entity: entity,
                    message: "uniqueness constraints cannot be named by key paths of \(type): its @Managed var "
                        + "\(property.name): \(property.type) cannot be read on a prototype; name them by property names")
            }
            let prototype = try ManagedPrototype.make(type)
            for keyPaths in declaration.uniquenessKeyPaths {
                var names: [String] = []
                for sendableKeyPath in keyPaths {
                    let keyPath: AnyKeyPath = sendableKeyPath
                    let keys = ManagedPrototype.accessedKeys { _ = prototype[keyPath: keyPath] }
                    guard let key = keys.first, keys.allSatisfy({ $0 == key }) else {
                        throw ModelError(
                            .invalidConstraint, entity: entity,
                            message: keys.isEmpty
                                ? "a uniqueness constraint's key path (\(keyPath)) names no @Managed property of \(type)"
                                : "a uniqueness constraint's key path (\(keyPath)) reads several @Managed properties of "
                                    + "\(type) (\(keys.joined(separator: ", ")))")
                    }
                    guard ManagedPrototype.managedKey(of: keyPath, in: type) == key else {
                        throw ModelError(
                            .invalidConstraint, entity: entity,
                            message: "a uniqueness constraint's key path (\(keyPath)) reads the @Managed property \(key) of "
                                + "\(type) but is not it; name the property itself")
                    }
                    names.append(key)
                }
                add(names)
            }
        }
        for field in fields where field.declaration?.options.contains(.unique) == true { add([field.name]) }
        return constraints
    }

    // MARK: - Properties

    /// A property being made, with what pairing inverses needs.
    struct Draft {
        struct Property {
            var property: ManagedObjects.Property
            /// For relationships: the destination entity, the inverse named, whether it was named
            /// by the declaration.
            var destination: String?
            var inverse: String?
            /// Whether the relationship was declared without an inverse.
            var noInverse = false
        }

        var type: ManagedObject.Type
        var name: String
        var parent: String?
        var properties: [Property]
        var uniquenessConstraints: [[String]]
        var indexes: [FetchIndexDescription]

        var entity: Entity {
            let declaration = type.entityDeclaration
            return Entity(
                name, class: type, parent: parent, abstract: declaration.isAbstract,
                renamingIdentifier: declaration.renamingIdentifier, versionHashModifier: declaration.versionHashModifier,
                userInfo: declaration.userInfo, uniquenessConstraints: uniquenessConstraints, indexes: indexes,
                properties: properties.map(\.property))
        }
    }

    private static func property(
        _ field: Field, entity: String, classes: [ManagedObject.Type], names: [ObjectIdentifier: String]
    ) throws -> Draft.Property {
        let declaration = field.declaration
        let options = declaration?.options ?? []
        let optional = !options.contains(.required)
        let transient = options.contains(.transient)
        let kind = ManagedValueKind(field.valueType)
        if let (destinationClass, toMany, ordered) = kind.relationship {
            if case .attribute? = declaration?.kind {
                throw ModelError(
                    .unsupportedPropertyType, entity: entity, property: field.name,
                    message: "\(field.valueType) is a relationship; declare it without attribute arguments")
            }
            let destination = try destinationName(
                of: destinationClass, entity: entity, property: field.name, classes: classes, names: names)
            if let root = field.inverseRoot, !isClass(destinationClass, kindOf: root) {
                throw ModelError(
                    .inverseMismatch, entity: entity, property: field.name,
                    message: "the inverse key path is of \(root), but the relationship leads to \(destinationClass)")
            }
            var arguments = ManagedDeclaration.RelationshipArguments(
                inverse: nil, deleteRule: .nullify, minCount: 0, maxCount: nil)
            if case .relationship(let declared)? = declaration?.kind { arguments = declared }
            let noInverse = options.contains(.noInverse)
            if noInverse, let inverse = field.inverseName {
                throw ModelError(
                    .inverseMismatch, entity: entity, property: field.name,
                    message: "\(entity).\(field.name) is declared .noInverse but names \(inverse) as its inverse")
            }
            return Draft.Property(
                property: Property(
                    field.name, to: destination, inverse: field.inverseName, toMany: toMany, ordered: ordered,
                    deleteRule: arguments.deleteRule, minCount: arguments.minCount,
                    maxCount: toMany ? arguments.maxCount : nil, optional: optional && kind.isOptional,
                    transient: transient, renamingIdentifier: declaration?.renamingIdentifier,
                    versionHashModifier: declaration?.versionHashModifier, userInfo: declaration?.userInfo ?? [:]),
                destination: destination, inverse: field.inverseName, noInverse: noInverse)
        }
        if options.contains(.noInverse) {
            throw ModelError(
                .unsupportedPropertyType, entity: entity, property: field.name,
                message: ".noInverse is for relationships, and \(field.valueType) is an attribute")
        }
        var arguments = ManagedDeclaration.AttributeArguments()
        if case .attribute(let declared)? = declaration?.kind { arguments = declared }
        let type: AttributeType
        if let declared = arguments.type {
            type = declared
        } else if arguments.transformer != nil {
            type = .transformable
        } else if let mapped = kind.attributeType {
            type = mapped
        } else if transient {
            type = .undefined
        } else {
            throw ModelError(
                .unsupportedPropertyType, entity: entity, property: field.name,
                message: "no attribute type stores \(field.valueType): declare it with a transformer, "
                    + "make it transient, or use a supported type (integers, Double, Float, Decimal, String, Bool, "
                    + "Date, Data, UUID, URL, a ManagedObject subclass, or a Set or Array of one)")
        }
        return Draft.Property(
            property: Property(
                field.name, type, optional: optional, transient: transient, defaultValue: arguments.defaultValue,
                minimum: arguments.minimum, maximum: arguments.maximum, minimumLength: arguments.minimumLength,
                maximumLength: arguments.maximumLength, pattern: arguments.pattern, transformer: arguments.transformer,
                renamingIdentifier: declaration?.renamingIdentifier, versionHashModifier: declaration?.versionHashModifier,
                userInfo: declaration?.userInfo ?? [:]))
    }

    /// The entity of the listed class `type`; a class not listed is unknown, or ambiguous when
    /// several listed classes descend from it.
    private static func destinationName(
        of type: ManagedObject.Type, entity: String, property: String, classes: [ManagedObject.Type],
        names: [ObjectIdentifier: String]
    ) throws -> String {
        if let name = names[ObjectIdentifier(type)] { return name }
        let descendants = classes.filter { isClass($0, kindOf: type) }
        if type == ManagedObject.self || descendants.count > 1 {
            throw ModelError(
                .ambiguousDestination, entity: entity, property: property,
                message: "the relationship leads to \(type), which is not among the model's classes; "
                    + "\(descendants.count) of them descend from it "
                    + "(\(descendants.map { String(describing: $0) }.joined(separator: ", "))): declare it with one")
        }
        throw ModelError(
            .unknownDestination, entity: entity, property: property,
            message: "the relationship leads to \(type), which is not among the model's classes; add it to them")
    }

    private static func isClass(_ type: AnyClass, kindOf ancestor: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let candidate = current {
            if candidate == ancestor { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }

    // MARK: - Inverses

    /// Gives each relationship whose declaration names no inverse the relationship of its
    /// destination that names it; throws when none or several do.
    private static func pairInverses(_ drafts: inout [Draft]) throws {
        let byName = Dictionary(drafts.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        func lineage(_ name: String) -> [Int] {
            var chain: [Int] = []
            var current: String? = name
            while let next = current, let index = byName[next], !chain.contains(index) {
                chain.append(index)
                current = drafts[index].parent
            }
            return chain
        }
        for entityIndex in drafts.indices {
            for propertyIndex in drafts[entityIndex].properties.indices {
                let draft = drafts[entityIndex].properties[propertyIndex]
                guard let destination = draft.destination, !draft.noInverse else { continue }
                let name = drafts[entityIndex].name, key = draft.property.name
                // Relationships of the destination (own or inherited) that name this one.
                let naming = lineage(destination).flatMap { drafts[$0].properties }.filter {
                    $0.destination == name && $0.inverse == key
                }.map(\.property.name)
                if let inverse = draft.inverse {
                    if let other = naming.first(where: { $0 != inverse }) {
                        throw ModelError(
                            .inverseMismatch, entity: name, property: key,
                            message: "\(name).\(key) names \(destination).\(inverse) as its inverse, but "
                                + "\(destination).\(other) names \(name).\(key) as its own")
                    }
                    continue
                }
                guard let inverse = naming.first else {
                    throw ModelError(
                        .missingInverse, entity: name, property: key,
                        message: "neither \(name).\(key) nor a relationship of \(destination) names the other as its "
                            + "inverse; declare inverse: on one side, or .noInverse")
                }
                if naming.count > 1 {
                    throw ModelError(
                        .inverseMismatch, entity: name, property: key,
                        message: "\(destination).\(naming.joined(separator: " and \(destination).")) all name "
                            + "\(name).\(key) as their inverse; a relationship has one inverse")
                }
                drafts[entityIndex].properties[propertyIndex].property.setInverse(inverse)
            }
        }
    }
}

/// What a `@Managed` field's Swift type says: an attribute type, or a relationship.
struct ManagedValueKind {
    var isOptional = false
    var attributeType: AttributeType?
    var relationship: (destination: ManagedObject.Type, toMany: Bool, ordered: Bool)?

    private static let attributeTypes: [ObjectIdentifier: AttributeType] = [
        ObjectIdentifier(Int16.self): .integer16, ObjectIdentifier(Int32.self): .integer32,
        ObjectIdentifier(Int64.self): .integer64, ObjectIdentifier(Int.self): .integer64,
        ObjectIdentifier(Decimal.self): .decimal, ObjectIdentifier(Double.self): .double,
        ObjectIdentifier(Float.self): .float, ObjectIdentifier(String.self): .string,
        ObjectIdentifier(Bool.self): .boolean, ObjectIdentifier(Date.self): .date,
        ObjectIdentifier(Data.self): .binaryData, ObjectIdentifier(UUID.self): .uuid,
        ObjectIdentifier(URL.self): .uri,
    ]

    init(_ declared: Any.Type) {
        var type = declared
        while let optional = type as? any ManagedOptionalType.Type {
            isOptional = true
            type = optional.wrappedType
        }
        if let destination = type as? ManagedObject.Type {
            relationship = (destination, false, false)
        } else if let collection = type as? any ManagedToManyType.Type {
            relationship = (collection.destinationClass, true, collection.isOrdered)
            isOptional = true
        } else {
            attributeType = Self.attributeTypes[ObjectIdentifier(type)]
        }
    }
}

/// `Optional`, seen from code that has only its metatype.
protocol ManagedOptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: ManagedOptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// A collection of managed objects: a to-many relationship, ordered when an array.
protocol ManagedToManyType {
    static var destinationClass: ManagedObject.Type { get }
    static var isOrdered: Bool { get }
}

extension Set: ManagedToManyType where Element: ManagedObject {
    static var destinationClass: ManagedObject.Type { Element.self }
    static var isOrdered: Bool { false }
}

extension Array: ManagedToManyType where Element: ManagedObject {
    static var destinationClass: ManagedObject.Type { Element.self }
    static var isOrdered: Bool { true }
}

/// A ``Managed`` wrapper seen through reflection: its value type and what its initializer left
/// in it.
protocol ManagedFieldReading {
    static var declaredValueType: Any.Type { get }
    var declarationIndex: Int { get }
}

extension Managed: ManagedFieldReading {
    static var declaredValueType: Any.Type { Value.self }
    var declarationIndex: Int { index }
}

extension Property {
    /// Names the inverse of a relationship; does nothing to an attribute.
    mutating func setInverse(_ inverse: String) {
        guard case .relationship(var fields) = kind else { return }
        fields.inverse = inverse
        kind = .relationship(fields)
    }
}
