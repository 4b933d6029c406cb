import Foundation

/// The metadata table both SQL stores keep, `Z_METADATA` (a row per key: `Z_KEY`, `Z_VALUE`),
/// and how an existing store's rows are compared with the model it is opened with.
///
/// The rows: the schema layout version, the store identifier, the model's version hash, then
/// each entity's version hash and each property's version hash and shape, so that opening a
/// store with another model names what changed and lightweight migration can tell a changed
/// property type from a changed optionality.
enum SQLMetadata {
    /// The keys of the rows.
    enum Key {
        static let schemaVersion = "schemaVersion"
        static let storeIdentifier = "storeIdentifier"
        static let modelVersionHash = "modelVersionHash"
        /// Followed by an entity name: that entity's version hash, in hex.
        static let entityPrefix = "entity."
        /// Followed by `Entity.property`: that property's version hash, in hex (stores written
        /// before this key existed lack it; their mismatches name entities only).
        static let propertyPrefix = "property."
        /// Followed by `Entity.property`: that property's shape (see ``propertyShape(_:destinationName:)``).
        static let shapePrefix = "shape."
    }

    /// What a stored property is, as migration compares it: its kind with the attribute type or
    /// the destination and cardinality, then `|optional` or `|required`, or `transient`.
    /// `destinationName` replaces the destination entity's name (its name before a rename).
    static func propertyShape(_ property: PropertyDescription, destinationName: String? = nil) -> String {
        if property.isTransient { return "transient" }
        let kind: String
        if let attribute = property as? AttributeDescription {
            kind = "attribute \(attribute.attributeType.rawValue)"
        } else if let relationship = property as? RelationshipDescription {
            kind = "relationship \(destinationName ?? relationship.destinationEntity?.name ?? "?") "
                + (relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one")
        } else {
            kind = "property"
        }
        return kind + (property.isOptional ? "|optional" : "|required")
    }

    /// The rows that describe the model: its version hash, each entity's and each of its
    /// properties' (with the property's shape), compared when the store is opened again.
    static func modelRows(_ model: ManagedObjectModel) -> [(String, String)] {
        var rows: [(String, String)] = [(Key.modelVersionHash, SHA256.hex(model.versionHash))]
        for entity in model.entities {
            rows.append((Key.entityPrefix + entity.name, SHA256.hex(entity.versionHash)))
            for property in entity.properties {
                rows.append((Key.propertyPrefix + entity.name + "." + property.name, SHA256.hex(property.versionHash)))
                rows.append((Key.shapePrefix + entity.name + "." + property.name, propertyShape(property)))
            }
        }
        return rows
    }

    /// Every row of a new store: the layout version, the identifier, then ``modelRows(_:)``.
    static func newStoreRows(identifier: String, schemaVersion: Int, model: ManagedObjectModel) -> [(String, String)] {
        [(Key.schemaVersion, String(schemaVersion)), (Key.storeIdentifier, identifier)] + modelRows(model)
    }

    /// A condition on `"Z_KEY"` selecting the rows ``modelRows(_:)`` writes, which migration
    /// replaces.
    static let modelRowsCondition =
        "\"Z_KEY\" LIKE 'entity.%' OR \"Z_KEY\" LIKE 'property.%' OR \"Z_KEY\" LIKE 'shape.%' OR \"Z_KEY\" = 'modelVersionHash'"

    /// What an existing store's metadata says about the model it is opened with.
    struct Comparison {
        /// The store identifier.
        var identifier: String
        /// The entity names the store was written with.
        var storedEntities: Set<String>
        /// What differs (`entities added: Pet; entities changed: Person (changed: name)`); nil
        /// when the store was written with this model.
        var difference: String?
    }

    /// Compares the metadata rows of an existing store (`store` names it in errors) with
    /// `model`: the entities' version hashes, whose properties' hashes name what changed.
    ///
    /// - Throws: ``PersistenceError/Code/invalidStore`` for metadata without identifier or
    ///   layout version; ``PersistenceError/Code/incompatibleModel`` for another layout version.
    static func compare(
        _ metadata: [String: String], with model: ManagedObjectModel, schemaVersion: Int, store: String
    ) throws -> Comparison {
        guard let identifier = metadata[Key.storeIdentifier], !identifier.isEmpty,
              let version = metadata[Key.schemaVersion].flatMap(Int.init)
        else {
            throw PersistenceError(.invalidStore, message: "\(store) has no store identifier or schema version in Z_METADATA")
        }
        guard version == schemaVersion else {
            throw PersistenceError(
                .incompatibleModel, message: "\(store) uses schema layout \(version); this build reads layout \(schemaVersion)")
        }
        let stored = rows(withPrefix: Key.entityPrefix, in: metadata)
        let current = Dictionary(model.entities.map { ($0.name, SHA256.hex($0.versionHash)) }, uniquingKeysWith: { first, _ in first })
        let (added, removed, changed) = differences(stored, current)
        var parts: [String] = []
        if !added.isEmpty { parts.append("entities added: " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("entities removed: " + removed.joined(separator: ", ")) }
        if !changed.isEmpty {
            parts.append("entities changed: " + changed.map { describeChange(of: $0, model: model, metadata: metadata) }.joined(separator: ", "))
        }
        return Comparison(
            identifier: identifier, storedEntities: Set(stored.keys), difference: parts.isEmpty ? nil : parts.joined(separator: "; "))
    }

    /// A changed entity's name, with the properties that differ when the store recorded them:
    /// `Employee (added: email; removed: nickname; changed: salary)`.
    private static func describeChange(of name: String, model: ManagedObjectModel, metadata: [String: String]) -> String {
        let stored = rows(withPrefix: Key.propertyPrefix + name + ".", in: metadata)
        guard !stored.isEmpty, let entity = model.entity(named: name) else { return name }
        let current = Dictionary(entity.properties.map { ($0.name, SHA256.hex($0.versionHash)) }, uniquingKeysWith: { first, _ in first })
        let (added, removed, changed) = differences(stored, current)
        var parts: [String] = []
        if !added.isEmpty { parts.append("added: " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed: " + removed.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed: " + changed.joined(separator: ", ")) }
        return parts.isEmpty ? name : "\(name) (" + parts.joined(separator: "; ") + ")"
    }

    /// The rows whose key starts with `prefix`, by the rest of the key.
    private static func rows(withPrefix prefix: String, in metadata: [String: String]) -> [String: String] {
        var rows: [String: String] = [:]
        for (key, value) in metadata where key.hasPrefix(prefix) { rows[String(key.dropFirst(prefix.count))] = value }
        return rows
    }

    /// The names only `current` has, those only `stored` has, and those whose hashes differ, sorted.
    private static func differences(
        _ stored: [String: String], _ current: [String: String]
    ) -> (added: [String], removed: [String], changed: [String]) {
        (current.keys.filter { stored[$0] == nil }.sorted(),
         stored.keys.filter { current[$0] == nil }.sorted(),
         current.keys.filter { stored[$0] != nil && stored[$0] != current[$0] }.sorted())
    }
}
