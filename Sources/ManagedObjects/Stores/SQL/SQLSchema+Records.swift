import Foundation

extension SQLSchema {
    /// The mapping of the entity of `id` and the record's primary key, for an object ID of the
    /// store `storeIdentifier`.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` for an ID of another store, without a
    ///   key, or of an entity the schema does not map.
    func mapping(of id: ManagedObjectID, storeIdentifier: String) throws -> (EntityMapping, Int64) {
        guard let mapping = entities[id.entity.name], let key = id.primaryKey, id.storeIdentifier == storeIdentifier else {
            throw PersistenceError(.saveFailed, message: "\(id) is not an object ID of this store", objectID: id)
        }
        return (mapping, key)
    }
}

extension SQLSchema.EntityMapping {
    /// Whether a new `record` relates any object through a relationship kept beyond its row
    /// (a join table, or an ordered one-to-many's positions): when not, inserting it writes
    /// nothing but its row, and `relationshipWrites(of:)` need not be built.
    func hasRelationshipWrites(of record: StoreRecord) -> Bool {
        guard writesRelationships else { return false }
        for index in storage.indices where index < record.values.count {
            switch storage[index] {
            case .toManyByJoin, .toManyByInverse(_, _, _?): break
            default: continue
            }
            if case .toMany(let ids) = record.values[index], !ids.isEmpty { return true }
        }
        return false
    }

    /// The to-many relationships of `record` a save writes beyond its row (join-table rows, or
    /// the positions of an ordered one-to-many), each with the related IDs. Relationships the
    /// record leaves out (not read since it was) are skipped, so their rows keep what they have.
    func relationshipWrites(of record: StoreRecord) -> [(storage: SQLSchema.Storage, related: [ManagedObjectID])] {
        guard writesRelationships else { return [] }
        var writes: [(storage: SQLSchema.Storage, related: [ManagedObjectID])] = []
        for (index, storage) in storage.enumerated() {
            guard index < record.values.count, !record.omittedRelationships.contains(index) else { continue }
            switch storage {
            case .toManyByJoin, .toManyByInverse(_, _, _?): break
            default: continue
            }
            var related: [ManagedObjectID] = []
            if case .toMany(let ids) = record.values[index] { related = ids }
            writes.append((storage, related))
        }
        return writes
    }
}
