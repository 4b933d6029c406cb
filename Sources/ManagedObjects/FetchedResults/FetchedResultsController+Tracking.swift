import Foundation
import ModelObjects

/// A changed object the results had or have: where it was, where it goes.
struct FetchedResultsCandidate<Object: ManagedObject> {
    let object: Object
    var oldKey: FetchedResultsRowKey?
    var newKey: FetchedResultsRowKey?
    var oldRow: Int?
    var newRow: Int?
}

extension FetchedResultsController: ContextChangeObserver {
    /// Brings the results up to date with a change set of the context and reports the
    /// difference. A delegate that changes the context while being told (and so announces
    /// more changes) has them processed after the current report, in order.
    func contextDidAnnounce(_ changes: ContextChangeSet) {
        guard rows != nil else { return }
        deferredChanges.append(changes)
        guard !isReporting else { return }
        isReporting = true
        defer { isReporting = false }
        while !deferredChanges.isEmpty, rows != nil {
            let next = deferredChanges.removeFirst()
            do {
                if let report = try update(with: next) { self.report(report) }
            } catch {
                fail(error)
            }
        }
        deferredChanges = []
    }

    /// Updates the results with the objects of one change set, without fetching: each changed
    /// object is taken out of its place (found by binary search on its cached keys) and put
    /// back where its new keys go, when it still belongs; one pass copies the rows.
    ///
    /// - Returns: The old and new results and the difference, or nil when the results did not change.
    func update(with changes: ContextChangeSet) throws -> FetchedResultsReport<Object>? {
        guard let old = rows, let entity else { return nil }
        var candidates: [FetchedResultsCandidate<Object>] = []
        var seen = Set<ObjectIdentifier>()
        for set in [changes.inserted, changes.updated, changes.deleted, changes.refreshed] {
            for changed in set {
                guard let object = changed as? Object, seen.insert(ObjectIdentifier(object)).inserted else { continue }
                let oldKey = keyByObject[ObjectIdentifier(object)]
                let newKey = try currentKey(of: object, entity: entity)
                guard oldKey != nil || newKey != nil else { continue }
                candidates.append(FetchedResultsCandidate(object: object, oldKey: oldKey, newKey: newKey))
            }
        }
        guard !candidates.isEmpty else { return nil }

        var removed: [Int] = []
        for index in candidates.indices {
            guard let key = candidates[index].oldKey, let row = position(of: candidates[index].object, key: key, in: old) else { continue }
            candidates[index].oldRow = row
            removed.append(row)
        }
        removed.sort()
        var keptObjects: [Object] = [], keptKeys: [FetchedResultsRowKey] = []
        keptObjects.reserveCapacity(old.objects.count)
        keptKeys.reserveCapacity(old.objects.count)
        var nextRemoved = 0
        for row in old.objects.indices {
            if nextRemoved < removed.count && removed[nextRemoved] == row {
                nextRemoved += 1
                continue
            }
            keptObjects.append(old.objects[row])
            keptKeys.append(old.keys[row])
        }

        var insertions: [(candidate: Int, position: Int)] = []
        for index in candidates.indices {
            guard let key = candidates[index].newKey else { continue }
            insertions.append((index, try upperBound(key, in: keptKeys)))
        }
        try insertions.sort { left, right in
            if left.position != right.position { return left.position < right.position }
            guard let leftKey = candidates[left.candidate].newKey, let rightKey = candidates[right.candidate].newKey else { return false }
            return try order(leftKey, rightKey) == .orderedAscending
        }
        var objects: [Object] = [], keys: [FetchedResultsRowKey] = []
        objects.reserveCapacity(keptObjects.count + insertions.count)
        keys.reserveCapacity(keptObjects.count + insertions.count)
        var nextInsertion = 0
        for position in 0...keptObjects.count {
            while nextInsertion < insertions.count && insertions[nextInsertion].position == position {
                let index = insertions[nextInsertion].candidate
                if let key = candidates[index].newKey {
                    candidates[index].newRow = objects.count
                    objects.append(candidates[index].object)
                    keys.append(key)
                }
                nextInsertion += 1
            }
            if position < keptObjects.count {
                objects.append(keptObjects[position])
                keys.append(keptKeys[position])
            }
        }

        let sections: [FetchedResultsRows<Object>.Section]
        do {
            sections = try sectionBounds(of: keys)
        } catch {
            throw FetchedResultsError(
                .trackingFailed, message: "a change put the objects of a section apart in the sorted results", underlyingError: error)
        }
        let new = FetchedResultsRows(objects: objects, keys: keys, sections: sections)
        for candidate in candidates { keyByObject[ObjectIdentifier(candidate.object)] = candidate.newKey }
        rows = new
        cachedSections = nil
        let (changeSet, changedObjects) = FetchedResultsChangeSet.difference(from: old, to: new, changing: candidates)
        guard !changeSet.isEmpty else { return nil }
        return FetchedResultsReport(old: old, new: new, changes: changeSet, objects: changedObjects)
    }

    /// The keys of `object` when it belongs to the results now, nil when it does not: it left
    /// the context, is deleted, is of another entity, fails the predicate, or its record is
    /// gone (a fault whose record another context deleted).
    func currentKey(of object: Object, entity: EntityDescription) throws -> FetchedResultsRowKey? {
        guard object.managedObjectContext === managedObjectContext, !object.isDeleted else { return nil }
        let matchesEntity = fetchRequest.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity.name == entity.name
        guard matchesEntity else { return nil }
        do {
            if let predicate = fetchRequest.predicate, try !predicate.evaluate(with: object) { return nil }
            return try rowKey(for: object)
        } catch PersistenceError.Code.objectNotFound {
            return nil
        } catch {
            throw FetchedResultsError(
                .trackingFailed, message: "could not read the changed \(object.entity.name) \(object.objectID): \(error)", underlyingError: error)
        }
    }

    /// Tells the change-set sequences, then the delegate, in the documented order.
    func report(_ report: FetchedResultsReport<Object>) {
        buffers.removeAll { $0.buffer.map(\.isFinished) ?? true }
        for entry in buffers { entry.buffer?.deliver(report.changes) }
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in report.changes.sectionChanges {
            let rows = change.type == .delete ? report.old : report.new
            let bounds = rows.sections[change.index]
            let info = FetchedResultsSectionInfo(
                name: bounds.name, indexTitle: sectionIndexTitle(forSectionName: bounds.name),
                objects: rows.objects[bounds.start..<bounds.start + bounds.count])
            delegate.controller(self, didChange: info, atSectionIndex: change.index, for: change.type)
        }
        for (change, object) in zip(report.changes.objectChanges, report.objects) {
            delegate.controller(self, didChange: object, at: change.indexPath, for: change.type, newIndexPath: change.newIndexPath)
        }
        delegate.controller(self, didChangeContentWith: report.changes)
        delegate.controllerDidChangeContent(self)
    }

    /// Drops the results after a change the controller could not follow, ends the sequences
    /// with the error and tells the delegate.
    func fail(_ error: any Error) {
        let failure = (error as? FetchedResultsError).flatMap { $0.code == .trackingFailed ? $0 : nil }
            ?? FetchedResultsError(.trackingFailed, message: "could not follow a change of the context: \(error)", underlyingError: error)
        rows = nil
        keyByObject = [:]
        cachedSections = nil
        deferredChanges = []
        for entry in buffers { entry.buffer?.finish(throwing: failure) }
        buffers = []
        delegate?.controller(self, didFailWith: failure)
    }
}

/// One change of a controller's results: before, after, and the difference with its objects.
struct FetchedResultsReport<Object: ManagedObject> {
    let old: FetchedResultsRows<Object>
    let new: FetchedResultsRows<Object>
    let changes: FetchedResultsChangeSet
    /// The object of each of `changes.objectChanges`.
    let objects: [Object]
}
