import Foundation

extension FetchedResultsChangeSet {
    /// The change set that turns `old` into `new`, given the objects that changed (every
    /// other object is in both, keeps its section, and keeps its order among the others).
    ///
    /// Sections are matched by name; those that keep their order among the matched ones (a
    /// longest increasing run) stay, the others are deleted and inserted. A changed object in
    /// both results is an update when it keeps its section and its place among the objects
    /// that stay (the same number of unchanged objects before it, and the same order as the
    /// other updates there); a move otherwise; a deletion and an insertion when its old section
    /// is deleted or its new one inserted.
    ///
    /// - Returns: The change set, and the object of each of its object changes.
    /// - Complexity: *O*(*k* log *k* + *s* log *s*) for *k* changed objects and *s* sections, plus
    ///   the rows of sections deleted or inserted.
    static func difference<Object>(
        from old: FetchedResultsRows<Object>, to new: FetchedResultsRows<Object>, changing candidates: [FetchedResultsCandidate<Object>]
    ) -> (FetchedResultsChangeSet, [Object]) {
        var newSectionByName: [String: Int] = [:]
        for (index, section) in new.sections.enumerated() { newSectionByName[section.name] = index }
        let matched: [(old: Int, new: Int)] = old.sections.indices.compactMap { index in
            newSectionByName[old.sections[index].name].map { (index, $0) }
        }
        var oldGone = [Bool](repeating: true, count: old.sections.count)
        var newFresh = [Bool](repeating: true, count: new.sections.count)
        for position in longestIncreasingSubsequence(matched.map(\.new)) {
            oldGone[matched[position].old] = false
            newFresh[matched[position].new] = false
        }
        var sectionChanges: [SectionChange] = []
        for index in old.sections.indices.reversed() where oldGone[index] {
            sectionChanges.append(SectionChange(type: .delete, index: index, name: old.sections[index].name))
        }
        for index in new.sections.indices where newFresh[index] {
            sectionChanges.append(SectionChange(type: .insert, index: index, name: new.sections[index].name))
        }

        // Rows that do not stay for sure: the changed objects, and every row of a section
        // deleted or inserted. The others (unchanged, in a section that stays) keep their order.
        let changed = Set(candidates.map { ObjectIdentifier($0.object) })
        var oldMoving = candidates.compactMap(\.oldRow), newMoving = candidates.compactMap(\.newRow)
        var deletions: [(row: Int, object: Object)] = [], insertions: [(row: Int, object: Object)] = []
        for (index, section) in old.sections.enumerated() where oldGone[index] {
            for row in section.start..<section.start + section.count where !changed.contains(ObjectIdentifier(old.objects[row])) {
                oldMoving.append(row)
                deletions.append((row, old.objects[row]))
            }
        }
        for (index, section) in new.sections.enumerated() where newFresh[index] {
            for row in section.start..<section.start + section.count where !changed.contains(ObjectIdentifier(new.objects[row])) {
                newMoving.append(row)
                insertions.append((row, new.objects[row]))
            }
        }
        oldMoving.sort()
        newMoving.sort()
        /// How many rows that stay come before `row`.
        func rank(_ row: Int, among moving: [Int]) -> Int {
            var low = 0, high = moving.count
            while low < high {
                let middle = low + (high - low) / 2
                if moving[middle] < row { low = middle + 1 } else { high = middle }
            }
            return row - low
        }

        var moves: [(from: Int, to: Int, object: Object)] = []
        var inPlace: [Int: [(from: Int, to: Int, object: Object)]] = [:]
        for candidate in candidates {
            switch (candidate.oldRow, candidate.newRow) {
            case let (from?, nil):
                deletions.append((from, candidate.object))
            case let (nil, to?):
                insertions.append((to, candidate.object))
            case let (from?, to?):
                let oldSection = old.section(ofRow: from), newSection = new.section(ofRow: to)
                if oldGone[oldSection] || newFresh[newSection] {
                    deletions.append((from, candidate.object))
                    insertions.append((to, candidate.object))
                } else if old.sections[oldSection].name == new.sections[newSection].name,
                          case let place = rank(from, among: oldMoving), place == rank(to, among: newMoving) {
                    inPlace[place, default: []].append((from, to, candidate.object))
                } else {
                    moves.append((from, to, candidate.object))
                }
            case (nil, nil):
                break
            }
        }
        // Changed objects between the same two staying rows are updates only if they keep
        // their order among themselves; otherwise they all move.
        var updates: [(from: Int, to: Int, object: Object)] = []
        for group in inPlace.values {
            let byOld = group.sorted { $0.from < $1.from }
            if zip(byOld, byOld.dropFirst()).allSatisfy({ $0.to < $1.to }) { updates += group } else { moves += group }
        }

        deletions.sort { $0.row > $1.row }
        insertions.sort { $0.row < $1.row }
        moves.sort { $0.to < $1.to }
        updates.sort { $0.from < $1.from }
        var objectChanges: [ObjectChange] = []
        var objects: [Object] = []
        objectChanges.reserveCapacity(deletions.count + insertions.count + moves.count + updates.count)
        objects.reserveCapacity(objectChanges.capacity)
        for deletion in deletions {
            objectChanges.append(ObjectChange(
                type: .delete, objectID: deletion.object.objectID, indexPath: old.indexPath(forRow: deletion.row), newIndexPath: nil))
            objects.append(deletion.object)
        }
        for insertion in insertions {
            objectChanges.append(ObjectChange(
                type: .insert, objectID: insertion.object.objectID, indexPath: nil, newIndexPath: new.indexPath(forRow: insertion.row)))
            objects.append(insertion.object)
        }
        for (type, list) in [(FetchedResultsChangeType.move, moves), (.update, updates)] {
            for change in list {
                objectChanges.append(ObjectChange(
                    type: type, objectID: change.object.objectID, indexPath: old.indexPath(forRow: change.from),
                    newIndexPath: new.indexPath(forRow: change.to)))
                objects.append(change.object)
            }
        }
        return (FetchedResultsChangeSet(sectionChanges: sectionChanges, objectChanges: objectChanges), objects)
    }

    /// The positions of a longest strictly increasing subsequence of `values`.
    ///
    /// - Complexity: *O*(*n* log *n*).
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        // tails[k]: the position of the smallest value ending an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = low + (high - low) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }
}
