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
    /// With a fetch limit, the rows followed are the first `fetchOffset + fetchLimit`: when a
    /// change leaves fewer while the context may hold more, they are fetched again and the
    /// objects new to them join as insertions; rows pushed past the limit are dropped.
    ///
    /// - Returns: The old and new results and the difference, or nil when the results did not change.
    func update(with changes: ContextChangeSet) throws -> FetchedResultsReport<Object>? {
        guard let old = rows, let entity else { return nil }
        let oldWindow = window
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

        if let capacity = trackedRowCapacity, !rowsAreComplete, keptObjects.count < capacity {
            try refill(&candidates, capacity: capacity)
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

        // Rows pushed past the limit leave the followed rows.
        var dropped: ArraySlice<Object> = []
        if let capacity = trackedRowCapacity, objects.count > capacity {
            dropped = objects[capacity...]
            objects.removeSubrange(capacity...)
            keys.removeSubrange(capacity...)
            rowsAreComplete = false
            for index in candidates.indices where (candidates[index].newRow ?? 0) >= capacity {
                candidates[index].newRow = nil
                candidates[index].newKey = nil
            }
        }

        let sections: [FetchedResultsRows<Object>.Section]
        let newWindow: FetchedResultsRows<Object>?
        do {
            sections = try sectionBounds(of: keys)
            newWindow = isWindowed ? try windowRows(of: FetchedResultsRows(objects: objects, keys: keys, sections: [])) : nil
        } catch {
            throw FetchedResultsError(
                .trackingFailed, message: "a change put the objects of a section apart in the sorted results", underlyingError: error)
        }
        let new = FetchedResultsRows(objects: objects, keys: keys, sections: sections)
        for object in dropped { keyByObject[ObjectIdentifier(object)] = nil }
        for candidate in candidates { keyByObject[ObjectIdentifier(candidate.object)] = candidate.newKey }
        rows = new
        window = newWindow
        cachedSections = nil
        if let oldWindow, let newWindow {
            let windowCandidates = self.windowCandidates(
                candidates, from: oldWindow, in: old.objects.count, to: newWindow, in: new.objects.count)
            guard !windowCandidates.isEmpty else { return nil }
            let (changeSet, changedObjects) = FetchedResultsChangeSet.difference(from: oldWindow, to: newWindow, changing: windowCandidates)
            guard !changeSet.isEmpty else { return nil }
            return FetchedResultsReport(old: oldWindow, new: newWindow, changes: changeSet, objects: changedObjects)
        }
        let (changeSet, changedObjects) = FetchedResultsChangeSet.difference(from: old, to: new, changing: candidates)
        guard !changeSet.isEmpty else { return nil }
        return FetchedResultsReport(old: old, new: new, changes: changeSet, objects: changedObjects)
    }

    /// Fetches the first `capacity` results again and adds those the rows do not hold to
    /// `candidates`, as objects joining the results.
    private func refill(_ candidates: inout [FetchedResultsCandidate<Object>], capacity: Int) throws {
        let fetched: [Object]
        do {
            fetched = try managedObjectContext.fetch(trackedRowsRequest)
        } catch {
            throw FetchedResultsError(
                .trackingFailed, message: "could not fetch the rows that refill the window: \(error)", underlyingError: error)
        }
        var known = Set(candidates.map { ObjectIdentifier($0.object) })
        for object in fetched where keyByObject[ObjectIdentifier(object)] == nil {
            guard known.insert(ObjectIdentifier(object)).inserted else { continue }
            let key: FetchedResultsRowKey
            do {
                key = try rowKey(for: object)
            } catch {
                throw FetchedResultsError(
                    .trackingFailed, message: "could not read the fetched \(object.entity.name) \(object.objectID): \(error)", underlyingError: error)
            }
            candidates.append(FetchedResultsCandidate(object: object, oldKey: nil, newKey: key))
        }
        rowsAreComplete = fetched.count < capacity
    }

    /// The changes of a window: the changed objects with their rows in the old and new
    /// windows (nil outside), and the objects that did not change but entered the window
    /// (shifted in by a change before them) or left it (shifted out).
    private func windowCandidates(
        _ candidates: [FetchedResultsCandidate<Object>],
        from oldWindow: FetchedResultsRows<Object>, in oldCount: Int,
        to newWindow: FetchedResultsRows<Object>, in newCount: Int
    ) -> [FetchedResultsCandidate<Object>] {
        let oldRange = windowRange(inRowCount: oldCount), newRange = windowRange(inRowCount: newCount)
        var result: [FetchedResultsCandidate<Object>] = []
        var changed = Set<ObjectIdentifier>()
        for candidate in candidates {
            changed.insert(ObjectIdentifier(candidate.object))
            var moved = candidate
            moved.oldRow = candidate.oldRow.flatMap { oldRange.contains($0) ? $0 - oldRange.lowerBound : nil }
            moved.newRow = candidate.newRow.flatMap { newRange.contains($0) ? $0 - newRange.lowerBound : nil }
            if moved.oldRow != nil || moved.newRow != nil { result.append(moved) }
        }
        let oldMembers = Set(oldWindow.objects.map(ObjectIdentifier.init))
        let newMembers = Set(newWindow.objects.map(ObjectIdentifier.init))
        for (row, object) in oldWindow.objects.enumerated() {
            let identifier = ObjectIdentifier(object)
            guard !changed.contains(identifier), !newMembers.contains(identifier) else { continue }
            result.append(FetchedResultsCandidate(object: object, oldKey: oldWindow.keys[row], newKey: nil, oldRow: row, newRow: nil))
        }
        for (row, object) in newWindow.objects.enumerated() {
            let identifier = ObjectIdentifier(object)
            guard !changed.contains(identifier), !oldMembers.contains(identifier) else { continue }
            result.append(FetchedResultsCandidate(object: object, oldKey: nil, newKey: newWindow.keys[row], oldRow: nil, newRow: row))
        }
        return result
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
        window = nil
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
