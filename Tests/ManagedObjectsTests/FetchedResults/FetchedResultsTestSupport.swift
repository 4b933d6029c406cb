import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// A section of results as the tests compare them: its name and its objects' IDs.
struct SectionSnapshot: Equatable, CustomStringConvertible {
    var name: String
    var ids: [ManagedObjectID]
    var description: String { "\(name): \(ids.map { $0.description.split(separator: "/").last ?? "" })" }
}

extension FetchedResultsController {
    /// The results as names and IDs.
    var snapshot: [SectionSnapshot] {
        (sections ?? []).map { SectionSnapshot(name: $0.name, ids: $0.objects.map(\.objectID)) }
    }
}

/// Employees sorted by last name then first name, in sections by last name.
func employeeController(
    _ stack: ManagedTestStack, predicate: String? = nil, sectioned: Bool = true
) throws -> FetchedResultsController<TestEmployee> {
    var request = FetchRequest<TestEmployee>(entityName: "Employee")
    request.predicate = try predicate.map { try KeyValuePredicate(format: $0) }
    request.sortDescriptors = [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "firstName")]
    let controller = try FetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: sectioned ? "lastName" : nil)
    try controller.performFetch()
    return controller
}

extension ManagedTestStack {
    @discardableResult
    func employee(_ firstName: String, _ lastName: String, salary: Double = 100) -> TestEmployee {
        let employee = employee(firstName, salary: salary)
        employee.lastName = lastName
        return employee
    }
}

/// Applies a change set to a copy of the old results the way `UITableView.performBatchUpdates`
/// does, written apart from the library's own code: deletions (rows, moved-away rows, sections)
/// against the old results, insertions (sections, rows, moved-in rows) against the new, and
/// the rows that stay filling the other places in their order. Checks each change against what
/// it names (the ID at a deleted or updated index path) and returns nil when the change set
/// cannot be applied.
func apply(_ changes: FetchedResultsChangeSet, to old: [SectionSnapshot]) -> [SectionSnapshot]? {
    var removedRows = Set<IndexPath>()
    for change in changes.objectChanges where change.type == .delete || change.type == .move {
        guard let path = change.indexPath, path.count == 2, old.indices.contains(path[0]), old[path[0]].ids.indices.contains(path[1]),
              old[path[0]].ids[path[1]] == change.objectID, removedRows.insert(path).inserted
        else { return nil }
    }
    for change in changes.objectChanges where change.type == .update {
        guard let path = change.indexPath, path.count == 2, old.indices.contains(path[0]), old[path[0]].ids.indices.contains(path[1]),
              old[path[0]].ids[path[1]] == change.objectID, !removedRows.contains(path)
        else { return nil }
    }
    let deletedSections = changes.deletedSections
    guard deletedSections.allSatisfy({ old.indices.contains($0) }) else { return nil }
    // What stays, section by section, in order.
    var staying: [SectionSnapshot] = []
    for (index, section) in old.enumerated() where !deletedSections.contains(index) {
        let ids = section.ids.indices.filter { !removedRows.contains(IndexPath(indexes: [index, $0])) }.map { section.ids[$0] }
        staying.append(SectionSnapshot(name: section.name, ids: ids))
    }
    // Sections: inserted ones at their new indexes, the staying ones in the other places.
    let insertedSections = changes.sectionChanges.filter { $0.type == .insert }
    let sectionCount = staying.count + insertedSections.count
    var result: [SectionSnapshot?] = Array(repeating: nil, count: sectionCount)
    var insertedIndexes = Set<Int>()
    for section in insertedSections {
        guard result.indices.contains(section.index), result[section.index] == nil else { return nil }
        result[section.index] = SectionSnapshot(name: section.name, ids: [])
        insertedIndexes.insert(section.index)
    }
    var nextStaying = 0
    for index in result.indices where result[index] == nil {
        result[index] = staying[nextStaying]
        nextStaying += 1
    }
    var sections = result.compactMap { $0 }
    // Rows: inserted and moved-in rows at their new index paths, ascending; staying rows fill in.
    var incoming: [Int: [(row: Int, id: ManagedObjectID)]] = [:]
    for change in changes.objectChanges where change.type == .insert || change.type == .move {
        guard let path = change.newIndexPath, path.count == 2, sections.indices.contains(path[0]) else { return nil }
        incoming[path[0], default: []].append((path[1], change.objectID))
    }
    for (section, rows) in incoming {
        let count = sections[section].ids.count + rows.count
        var ids: [ManagedObjectID?] = Array(repeating: nil, count: count)
        for row in rows {
            guard ids.indices.contains(row.row), ids[row.row] == nil else { return nil }
            ids[row.row] = row.id
        }
        var stayingIDs = sections[section].ids.makeIterator()
        for index in ids.indices where ids[index] == nil { ids[index] = stayingIDs.next() }
        sections[section].ids = ids.compactMap { $0 }
    }
    for change in changes.objectChanges where change.type == .update {
        guard let path = change.newIndexPath, sections.indices.contains(path[0]), sections[path[0]].ids.indices.contains(path[1]),
              sections[path[0]].ids[path[1]] == change.objectID
        else { return nil }
    }
    return sections
}

/// Records what a controller tells its delegate, one line per call.
final class DelegateLog: FetchedResultsControllerDelegate {
    typealias Object = TestEmployee
    var lines: [String] = []
    var changeSets: [FetchedResultsChangeSet] = []
    var failures: [FetchedResultsError] = []
    var titles: ((String) -> String?)?

    func controllerWillChangeContent(_ controller: FetchedResultsController<TestEmployee>) {
        lines.append("will")
    }

    func controller(
        _ controller: FetchedResultsController<TestEmployee>, didChange sectionInfo: FetchedResultsSectionInfo<TestEmployee>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {
        lines.append("\(type) section \(sectionIndex) \(sectionInfo.name) (\(sectionInfo.numberOfObjects))")
    }

    func controller(
        _ controller: FetchedResultsController<TestEmployee>, didChange object: TestEmployee, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        let from = indexPath.map { "\(Array($0))" } ?? "nil", to = newIndexPath.map { "\(Array($0))" } ?? "nil"
        lines.append("\(type) \(object.firstName ?? "?") \(from) -> \(to)")
    }

    func controller(_ controller: FetchedResultsController<TestEmployee>, didChangeContentWith changes: FetchedResultsChangeSet) {
        lines.append("changes")
        changeSets.append(changes)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<TestEmployee>) {
        lines.append("did")
    }

    func controller(_ controller: FetchedResultsController<TestEmployee>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        titles.map { $0(sectionName) } ?? FetchedResultsController<TestEmployee>.defaultSectionIndexTitle(forSectionName: sectionName)
    }

    func controller(_ controller: FetchedResultsController<TestEmployee>, didFailWith error: FetchedResultsError) {
        lines.append("failed \(error.code)")
        failures.append(error)
    }

    /// The object lines only (no will/did/changes).
    var changes: [String] { lines.filter { !["will", "did", "changes"].contains($0) } }
}
