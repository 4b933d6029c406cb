import Foundation

extension ManagedObjectContext {
    /// Completes the changes made since the last call: applies the delete rules of deleted
    /// objects (cascading through chains), posts ``objectsDidChangeNotification``, and closes
    /// the undo manager's event group, so the changes since the last call form one undoable
    /// step. ``save()`` calls it first.
    ///
    /// Delete rules: *nullify* removes the deleted object from the related objects'
    /// inverse relationships; *cascade* deletes the related objects too; *deny* leaves both
    /// (the save then fails if related objects remain); *no action* does nothing to the related
    /// objects, which may keep pointing at the deleted one.
    ///
    /// Corresponds to `-[NSManagedObjectContext processPendingChanges]`.
    public func processPendingChanges() {
        guard !isProcessingPendingChanges else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        while !pendingDeletions.isEmpty {
            let batch = pendingDeletions
            pendingDeletions = []
            for object in batch where object.isDeleted { applyDeleteRules(to: object) }
        }
        // Objects inserted and deleted before any save leave nothing behind.
        for object in unannouncedDeleted where object.isDeleted && object.objectID.isTemporaryID {
            unregister(object)
            forgetUnannouncedInsertion(of: object)
        }
        postObjectsDidChange()
        mergeArrivedRemoteChanges()
        _ = undoManager?.endEventGroup()
    }

    /// A deleted fault that cannot fire (its record is gone or unreadable) has no relationships
    /// to apply rules to, and is not prepared: the save then meets its record's absence (a
    /// merge conflict, which the merge policy may resolve) or the store's error.
    private func applyDeleteRules(to object: ManagedObject) {
        guard object.loadsValues() else { return }
        object.prepareForDeletion()
        for relationship in object.entity.relationships {
            let related: [ManagedObject]
            if relationship.isToMany {
                related = object.toManyObjects(at: relationship.index)
            } else {
                related = (object.values[relationship.index] as? ManagedObject).map { [$0] } ?? []
            }
            guard !related.isEmpty else { continue }
            switch relationship.deleteRule {
            case .cascade:
                for target in related where target.managedObjectContext === self { delete(target) }
                nullify(relationship, of: object)
            case .nullify:
                nullify(relationship, of: object)
            default:
                break  // deny is checked when saving; no action leaves the related objects as they are
            }
        }
    }

    /// Takes the deleted object out of its related objects' inverse relationships.
    private func nullify(_ relationship: RelationshipDescription, of object: ManagedObject) {
        guard let inverse = relationship.inverseRelationship else { return }
        let related = relationship.isToMany
            ? object.toManyObjects(at: relationship.index)
            : (object.values[relationship.index] as? ManagedObject).map { [$0] } ?? []
        for target in related { ManagedObject.unlink(target, through: inverse, from: object) }
    }
}
