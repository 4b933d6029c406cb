import Foundation

/// Checks a list of ``Entity`` values and turns it into connected descriptions.
///
/// The checks run in a fixed order, so that a model with several problems always reports the
/// same one first: names and duplicates, superentities and cycles, redeclared properties,
/// attribute values and relationship counts, destinations, then inverses. Everything is
/// iterative, so hostile model files (deep inheritance chains) cannot exhaust the stack.
struct ModelAssembler {
    var resolver: ClassResolver
    /// The lifetime token of the model being assembled, given to every description.
    let lifetime = ModelLifetime()

    func assemble(_ specs: [Entity]) throws -> [EntityDescription] {
        let specByName = try checkNames(specs)
        try checkInheritance(specs, specByName: specByName)
        var subentityNames: [String: [String]] = [:]
        for spec in specs {
            if let parent = spec.superentityName { subentityNames[parent, default: []].append(spec.name) }
        }

        // Superentities first: sort by depth in the inheritance tree, keeping model order otherwise.
        let depths = specs.map { ancestors(of: $0, specByName: specByName).count }
        let buildOrder = specs.indices.sorted { depths[$0] != depths[$1] ? depths[$0] < depths[$1] : $0 < $1 }
        var built: [String: EntityDescription] = [:]
        for index in buildOrder {
            let spec = specs[index]
            var ownProperties: [PropertyDescription] = []
            for property in spec.properties {
                switch property.kind {
                case .attribute(let fields):
                    ownProperties.append(
                        try AttributeDescription(entityName: spec.name, common: property.common, fields: fields))
                case .relationship(let fields):
                    ownProperties.append(
                        try RelationshipDescription(entityName: spec.name, common: property.common, fields: fields))
                }
            }
            let managedObjectClass =
                spec.managedObjectClass ?? spec.managedObjectClassName.flatMap(resolver.resolve) ?? ManagedObject.self
            let entity = EntityDescription(
                spec: spec, managedObjectClass: managedObjectClass,
                superentity: spec.superentityName.flatMap { built[$0] },
                subentityNames: subentityNames[spec.name] ?? [], ownProperties: ownProperties)
            for property in ownProperties {
                property.entity = entity
                property.lifetime = lifetime
            }
            try UniquenessConstraint.check(entity)
            try FetchIndexDescription.check(entity)
            built[spec.name] = entity
        }
        let entities = specs.compactMap { built[$0.name] }
        try resolveRelationships(entities, entitiesByName: built)
        return entities
    }

    // MARK: - Names

    private func checkNames(_ specs: [Entity]) throws -> [String: Entity] {
        var specByName: [String: Entity] = [:]
        for spec in specs {
            try Self.checkName(spec.name, entity: spec.name, property: nil, kind: "entity")
            if specByName[spec.name] != nil {
                throw ModelError(
                    .duplicateEntity, entity: spec.name, message: "the model has two entities named '\(spec.name)'")
            }
            specByName[spec.name] = spec
            var seen = Set<String>()
            for property in spec.properties {
                try Self.checkName(property.name, entity: spec.name, property: property.name, kind: "property")
                if !seen.insert(property.name).inserted {
                    throw ModelError(
                        .duplicateProperty, entity: spec.name, property: property.name,
                        message: "the entity declares '\(property.name)' twice")
                }
            }
        }
        return specByName
    }

    private static func checkName(_ name: String, entity: String?, property: String?, kind: String) throws {
        if name.isEmpty {
            throw ModelError(.invalidName, entity: entity, property: property, message: "an \(kind) has an empty name")
        }
        let forbidden = CharacterSet.whitespacesAndNewlines.union(.controlCharacters)
            .union(CharacterSet(charactersIn: ".@"))
        if let scalar = name.unicodeScalars.first(where: { forbidden.contains($0) }) {
            throw ModelError(
                .invalidName, entity: entity, property: property,
                message: "\(kind) name '\(name)' contains \(scalar.debugDescription), which a key cannot hold")
        }
    }

    // MARK: - Inheritance

    /// The names of `spec`'s superentities, nearest first. Stops at an unknown name or a repeat.
    private func ancestors(of spec: Entity, specByName: [String: Entity]) -> [String] {
        var names: [String] = []
        var seen: Set<String> = [spec.name]
        var current = spec
        while let parent = current.superentityName, seen.insert(parent).inserted, let next = specByName[parent] {
            names.append(parent)
            current = next
        }
        return names
    }

    private func checkInheritance(_ specs: [Entity], specByName: [String: Entity]) throws {
        for spec in specs {
            guard let parent = spec.superentityName else { continue }
            if specByName[parent] == nil {
                throw ModelError(
                    .unknownSuperentity, entity: spec.name,
                    message: "superentity '\(parent)' is not an entity of the model")
            }
        }
        for spec in specs {
            var chain = [spec.name]
            var current = spec
            while let parent = current.superentityName, let next = specByName[parent] {
                if let start = chain.firstIndex(of: parent) {
                    let cycle = (chain[start...] + [parent]).joined(separator: " -> ")
                    throw ModelError(
                        .inheritanceCycle, entity: spec.name,
                        message: "entities inherit from each other in a cycle: \(cycle)")
                }
                chain.append(parent)
                current = next
            }
        }
        for spec in specs {
            var inherited: [String: String] = [:]
            for ancestor in ancestors(of: spec, specByName: specByName) {
                for property in specByName[ancestor]?.properties ?? [] where inherited[property.name] == nil {
                    inherited[property.name] = ancestor
                }
            }
            for property in spec.properties {
                if let ancestor = inherited[property.name] {
                    throw ModelError(
                        .duplicateProperty, entity: spec.name, property: property.name,
                        message: "the entity redeclares '\(property.name)', which it inherits from '\(ancestor)'")
                }
            }
        }
    }

    // MARK: - Relationships

    private func resolveRelationships(
        _ entities: [EntityDescription], entitiesByName: [String: EntityDescription]
    ) throws {
        for entity in entities {
            for relationship in entity.relationships where relationship.entity === entity {
                guard let destination = entitiesByName[relationship.destinationEntityName] else {
                    throw ModelError(
                        .unknownDestination, entity: entity.name, property: relationship.name,
                        message: "destination entity '\(relationship.destinationEntityName)' is not an entity of the "
                            + "model (it has \(entities.map(\.name).sorted().joined(separator: ", ")))")
                }
                relationship.destinationEntity = destination
            }
        }
        for entity in entities {
            for relationship in entity.relationships where relationship.entity === entity {
                guard let inverseName = relationship.inverseRelationshipName,
                    let destination = relationship.destinationEntity
                else { continue }
                let here = "\(entity.name).\(relationship.name)"
                let there = "\(destination.name).\(inverseName)"
                guard let inverse = destination.relationshipsByName[inverseName] else {
                    let what = destination.attributesByName[inverseName] != nil ? "an attribute" : "not a property"
                    throw ModelError(
                        .unknownInverse, entity: entity.name, property: relationship.name,
                        message: "\(here) names \(there) as its inverse, but \(there) is \(what) of "
                            + "'\(destination.name)'; the inverse must be a relationship")
                }
                let pointsBack =
                    inverse.inverseRelationshipName == relationship.name
                    && inverse.destinationEntity?.relationshipsByName[relationship.name] === relationship
                if !pointsBack {
                    let reason =
                        if let back = inverse.inverseRelationshipName, back != relationship.name {
                            "names \(inverse.destinationEntityName).\(back) as its inverse instead"
                        } else if inverse.inverseRelationshipName == nil {
                            "names no inverse"
                        } else {
                            "leads to '\(inverse.destinationEntityName)', whose '\(relationship.name)' is not \(here)"
                        }
                    throw ModelError(
                        .inverseMismatch, entity: entity.name, property: relationship.name,
                        message: "\(here) names \(there) as its inverse, but \(there) \(reason); "
                            + "an inverse must point back")
                }
                relationship.inverseRelationship = inverse
            }
        }
    }
}
