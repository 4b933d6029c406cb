import Foundation

/// A parent context as its child sees it: a store whose records are the parent's objects as
/// they are now, unsaved changes included (inserted objects are there, deleted ones are not),
/// over the records of the parent's own store (the grandparent context, or the coordinator's
/// stores at the root of the chain).
///
/// It answers the reads a child makes where a context of a coordinator asks its store: a
/// fault's record, a relationship's IDs, a fetch. A parent object that is still a fault, or not
/// registered, is read from the parent's own store without loading it into the parent.
///
/// Not `Sendable`: it holds the parent, which belongs to the child's isolation domain.
final class ParentContextStore {
    /// The parent; a child keeps it alive.
    let context: ManagedObjectContext

    init(context: ManagedObjectContext) {
        self.context = context
    }

    /// Whether the parent or one of its ancestors has unsaved changes: only then do the
    /// records a child reads differ from the root store's.
    var chainHasChanges: Bool {
        var next: ManagedObjectContext? = context
        while let current = next {
            if current.hasChanges { return true }
            next = current.chain.parentStore?.context
        }
        return false
    }

    /// The record of `id` as the parent has it: nil when the parent deleted the object or no
    /// record has the ID.
    ///
    /// - Throws: What the root store throws.
    func record(for id: ManagedObjectID) throws -> StoreRecord? {
        let id = context.chain.currentID(for: id)
        if let object = context.registered[id] {
            if object.isDeleted { return nil }
            if !object.isFault { return try context.chainRecord(of: object) }
        }
        return try context.sourceFaultRecord(for: id)
    }

    /// Whether the parent knows a record with the temporary ID `id` (an object it inserted,
    /// or one inserted further up the chain).
    func hasRecord(for id: ManagedObjectID) -> Bool {
        (try? record(for: id)) != nil
    }

    /// The IDs `relationship`, a to-many relationship of the record of `id`, relates it to, as
    /// the parent has them.
    ///
    /// - Throws: What the root store throws.
    func relatedObjectIDs(of id: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        let id = context.chain.currentID(for: id)
        if let object = context.registered[id] {
            if object.isDeleted { return [] }
            if !object.isFault, relationship.index < object.values.count {
                let value = object.values[relationship.index]
                if let fault = value as? RelationshipFault { return try object.relationshipFaultIDs(fault, at: relationship.index) }
                return ManagedObject.objects(inCollection: value).filter { !$0.isDeleted }.map(\.objectID)
            }
        }
        return try context.sourceRelatedObjectIDs(of: id, through: relationship)
    }

    /// The records a child's fetch asks for: the parent's store's, with the parent's unsaved
    /// changes laid over them. While the chain has unsaved changes, the offset and limit are
    /// left to the child (they apply to the merged results), and so is a predicate that reads
    /// through relationships (the store would match saved related records).
    ///
    /// - Throws: What the root store throws.
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var request = request
        if chainHasChanges {
            request.fetchLimit = 0
            request.fetchOffset = 0
            if let predicate = request.predicate, ManagedObjectContext.readsThroughRelationships(predicate) { request.predicate = nil }
        }
        let result = try context.sourceFetchResult(request)
        guard context.hasChanges else { return result }
        let entity = request.entity
        func matchesEntity(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity.name == entity.name
        }
        var records: [StoreRecord] = []
        records.reserveCapacity(result.records.count)
        var seen = Set<ManagedObjectID>()
        for record in result.records {
            seen.insert(record.objectID)
            guard let object = context.registered[record.objectID], object.isDeleted || object.isUpdated else {
                records.append(record)
                continue
            }
            if object.isDeleted { continue }
            records.append(object.isFault ? record : try context.chainRecord(of: object))
        }
        // Changed objects the store did not match may match now; the child filters them all.
        for object in context.inserted.union(context.updated)
        where !object.isDeleted && matchesEntity(object) && !seen.contains(object.objectID) {
            records.append(try context.chainRecord(of: object))
        }
        return StoreFetchResult(records: records, appliedPredicate: false, appliedSortAndLimit: false)
    }
}
