import Foundation
import ModelObjects

/// The results of a fetch request, kept current as the context changes, in sections, with
/// each change reported as a diff a table view can apply.
///
/// ```swift
/// var request = FetchRequest<Employee>(entityName: "Employee")
/// request.sortDescriptors = [KeyPathSortDescriptor(key: "department.name"), KeyPathSortDescriptor(key: "lastName")]
/// let controller = try FetchedResultsController(
///     fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "department.name")
/// controller.delegate = list                      // or: for try await changes in controller.changeSets()
/// try controller.performFetch()
/// let first = try controller.object(at: [0, 0])   // IndexPath [section, row]
/// ```
///
/// After ``performFetch()``, every change set the context announces (its
/// ``ManagedObjectContext/objectsDidChangeNotification``: at each
/// ``ManagedObjectContext/processPendingChanges()`` and save, and after `rollback()`,
/// `refresh(_:mergeChanges:)` and `mergeChanges(fromContextDidSave:)`) updates the results
/// before the notification is posted: objects inserted or changed into the predicate's match
/// join at their place in the order, deleted objects and objects changed out of the match
/// leave, changed objects move to their new place (and section). The result is reported to the
/// ``delegate`` and to every ``changeSets()`` sequence as a ``FetchedResultsChangeSet``.
///
/// What the controller follows: the changed objects the context announces, their sort keys,
/// section name and predicate read again. A key path through a relationship
/// (`department.name`) is read again when the object itself changes, not when only the
/// related object does (as in Core Data: touch the object, or fetch again). After the
/// context's `reset()`, call ``performFetch()`` again. Objects whose sort keys are all equal
/// keep no particular order among themselves.
///
/// A controller belongs to its context's isolation domain (not `Sendable`); its change sets
/// are `Sendable` values that may go elsewhere.
///
/// - Complexity: A change set of *k* objects among *n* results costs *O*(*k* log *n*)
///   comparisons of cached sort keys (binary search), key reads of the *k* objects only, and
///   *O*(*n*) copying; no fetch, except to refill a window (see ``init(fetchRequest:managedObjectContext:sectionNameKeyPath:)``).
///
/// Corresponds to Core Data's `NSFetchedResultsController`; differences: errors are thrown
/// (``FetchedResultsError``) where Core Data raises; no `cacheName` (the results are kept in
/// memory only); a fetch limit and offset are kept as a live window (Core Data applies them to
/// the first fetch only, and its results then grow past the limit); an `AsyncSequence` of change sets
/// besides the delegate; moves into or out of a new or gone section are reported as deletions
/// and insertions.
public final class FetchedResultsController<Object: ManagedObject> {
    /// The request whose results the controller keeps: its entity, predicate and sort descriptors.
    ///
    /// Corresponds to `NSFetchedResultsController.fetchRequest`.
    public let fetchRequest: FetchRequest<Object>
    /// The context whose objects the controller fetches and follows.
    ///
    /// Corresponds to `NSFetchedResultsController.managedObjectContext`.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; nil for one section holding
    /// every result. The first sort descriptor must keep each section's objects together.
    ///
    /// Corresponds to `NSFetchedResultsController.sectionNameKeyPath`.
    public let sectionNameKeyPath: String?
    /// Told of each change of the results; held weakly.
    ///
    /// Corresponds to `NSFetchedResultsController.delegate`.
    public weak var delegate: (any FetchedResultsControllerDelegate<Object>)? {
        didSet { cachedSections = nil }  // index titles are the delegate's to choose
    }

    /// The rows the controller follows: every result, or with a fetch limit the first
    /// `fetchOffset + fetchLimit` of them; nil before ``performFetch()`` and after a change the
    /// controller could not follow.
    var rows: FetchedResultsRows<Object>?
    /// With a fetch limit or offset, the results shown: the rows from `fetchOffset` on, at most
    /// `fetchLimit` of them, with their own sections. Nil without a limit or offset.
    var window: FetchedResultsRows<Object>?
    /// With a fetch limit, whether `rows` holds every object that belongs to the results
    /// (the last fetch found fewer than the rows can hold), so that no fetch can add one.
    var rowsAreComplete = true
    /// Each result's sort keys and section name, by object.
    var keyByObject: [ObjectIdentifier: FetchedResultsRowKey] = [:]
    /// The fetched entity, for matching changed objects.
    var entity: EntityDescription?
    var cachedSections: [FetchedResultsSectionInfo<Object>]?
    /// The buffers of the change-set sequences, held weakly.
    var buffers: [WeakChangeBuffer] = []
    /// Change sets announced while the controller was reporting one (by a delegate that changed
    /// the context): processed after it, in order.
    var deferredChanges: [ContextChangeSet] = []
    var isReporting = false

    /// Creates a controller over `fetchRequest`'s results in `managedObjectContext`; call
    /// ``performFetch()`` to fetch them.
    ///
    /// - Parameters:
    ///   - fetchRequest: The entity, predicate and sort descriptors of the results.
    ///   - managedObjectContext: The context to fetch from and follow.
    ///   - sectionNameKeyPath: The key path whose value names each object's section; nil for
    ///     one section. The first sort descriptor must order the objects by section.
    /// - Throws: ``FetchedResultsError/Code/missingSortDescriptors`` when the request has no
    ///   sort descriptor; ``FetchedResultsError/Code/unsupportedFetchRequest`` when its fetch
    ///   limit or offset is negative.
    ///
    /// A fetch limit and offset make the results a window that stays true as the context
    /// changes: the objects from `fetchOffset` on in the sorted results, at most `fetchLimit` of
    /// them. An object pushed out of the window by a change elsewhere is reported deleted,
    /// one pulled in inserted. The controller follows the first `fetchOffset + fetchLimit`
    /// results; when changes leave it fewer while the context may hold more, it fetches them
    /// again (one fetch with that limit) to refill the window.
    ///
    /// Corresponds to `NSFetchedResultsController(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:)`;
    /// differences: no cache name; the limit and offset hold after the first fetch.
    public init(fetchRequest: FetchRequest<Object>, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil) throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw FetchedResultsError(
                .missingSortDescriptors,
                message: "a FetchedResultsController needs a fetch request with sort descriptors (\(fetchRequest.entityName) has none)")
        }
        guard fetchRequest.fetchLimit >= 0 && fetchRequest.fetchOffset >= 0 else {
            throw FetchedResultsError(
                .unsupportedFetchRequest,
                message: "a FetchedResultsController needs a fetch limit (\(fetchRequest.fetchLimit)) "
                    + "and offset (\(fetchRequest.fetchOffset)) of 0 or more")
        }
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        for entry in buffers { entry.buffer?.finish() }
        managedObjectContext.changeObservers.removeAll { $0.observer == nil }
    }

    // MARK: - Fetching

    /// Fetches the results, replacing any the controller had, and follows the context's
    /// changes from now on. Reads every result's sort keys and section name (so faults among
    /// them fire). Reports nothing to the delegate.
    ///
    /// - Throws: What ``ManagedObjectContext/fetch(_:)`` throws; what reading a sort key or a
    ///   section name throws; ``FetchedResultsError/Code/sectionsOutOfOrder`` when objects of one
    ///   section are not together in the sorted results. The controller then keeps the
    ///   results it had.
    ///
    /// Corresponds to `-[NSFetchedResultsController performFetch:]`.
    public func performFetch() throws {
        let model = managedObjectContext.persistentStoreCoordinator.managedObjectModel
        guard let entity = model.entity(named: fetchRequest.entityName) else {
            throw ModelError(.unknownEntity, entity: fetchRequest.entityName, message: "the model has no entity named '\(fetchRequest.entityName)'")
        }
        var objects = try managedObjectContext.fetch(trackedRowsRequest)
        var keys = try objects.map(rowKey)
        // The store may order strings by its own rules: the controller's binary searches need
        // its own order, so the rows are sorted again (stably) when they are not in it.
        var sorted = true
        for index in keys.indices.dropFirst() where try order(keys[index - 1], keys[index]) == .orderedDescending {
            sorted = false
            break
        }
        if !sorted {
            var permutation = Array(keys.indices)
            try permutation.sort { left, right in
                let result = try order(keys[left], keys[right])
                return result == .orderedSame ? left < right : result == .orderedAscending
            }
            objects = permutation.map { objects[$0] }
            keys = permutation.map { keys[$0] }
        }
        let sections = try sectionBounds(of: keys)
        let tracked = FetchedResultsRows(objects: objects, keys: keys, sections: sections)
        let shown = isWindowed ? try windowRows(of: tracked) : nil
        var byObject = [ObjectIdentifier: FetchedResultsRowKey](minimumCapacity: objects.count)
        for (object, key) in zip(objects, keys) { byObject[ObjectIdentifier(object)] = key }
        rows = tracked
        window = shown
        rowsAreComplete = trackedRowCapacity.map { objects.count < $0 } ?? true
        keyByObject = byObject
        self.entity = entity
        cachedSections = nil
        deferredChanges = []
        managedObjectContext.addChangeObserver(self)
    }

    // MARK: - Results

    /// The results in order (every section's objects, one after the other); nil before
    /// ``performFetch()``.
    ///
    /// Corresponds to `NSFetchedResultsController.fetchedObjects`.
    public var fetchedObjects: [Object]? { results?.objects }

    /// The results shown: the window of a limited request, else every row.
    var results: FetchedResultsRows<Object>? { window ?? rows }

    /// The sections of the results, in order; nil before ``performFetch()``. Without a
    /// ``sectionNameKeyPath``, one section (named `""`) holds every result, even none.
    ///
    /// Corresponds to `NSFetchedResultsController.sections`.
    public var sections: [FetchedResultsSectionInfo<Object>]? {
        guard let rows = results else { return nil }
        if let cachedSections { return cachedSections }
        let made = rows.sections.map { bounds in
            FetchedResultsSectionInfo(
                name: bounds.name, indexTitle: sectionIndexTitle(forSectionName: bounds.name),
                objects: rows.objects[bounds.start..<bounds.start + bounds.count])
        }
        cachedSections = made
        return made
    }

    /// The index titles of the sections, in order, each once (sections without a title add none).
    ///
    /// Corresponds to `NSFetchedResultsController.sectionIndexTitles`.
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The index title of the section named `sectionName`: the delegate's choice, or by
    /// default its first letter, uppercased (nil for an empty name).
    ///
    /// Corresponds to `-[NSFetchedResultsController sectionIndexTitleForSectionName:]`.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let delegate { return delegate.controller(self, sectionIndexTitleForSectionName: sectionName) }
        return Self.defaultSectionIndexTitle(forSectionName: sectionName)
    }

    static func defaultSectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The index of the first section whose index title is `title`, for a table view's
    /// section index.
    ///
    /// - Parameters:
    ///   - title: A title of ``sectionIndexTitles``.
    ///   - sectionIndex: The title's place in ``sectionIndexTitles`` (unused: titles are unique
    ///     there).
    /// - Throws: ``FetchedResultsError/Code/unknownSectionIndexTitle`` when no section has it.
    ///
    /// Corresponds to `-[NSFetchedResultsController sectionForSectionIndexTitle:atIndex:]`.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) throws -> Int {
        guard let index = (sections ?? []).firstIndex(where: { $0.indexTitle == title }) else {
            throw FetchedResultsError(.unknownSectionIndexTitle, message: "no section has the index title '\(title)'")
        }
        return index
    }

    /// The object at `indexPath` (`[section, row]`).
    ///
    /// - Throws: ``FetchedResultsError/Code/indexPathOutOfRange`` when the index path names no
    ///   object (or the controller has not fetched).
    ///
    /// Corresponds to `-[NSFetchedResultsController objectAtIndexPath:]`.
    public func object(at indexPath: IndexPath) throws -> Object {
        guard let rows = results, indexPath.count == 2, rows.sections.indices.contains(indexPath[0]),
              indexPath[1] >= 0, indexPath[1] < rows.sections[indexPath[0]].count
        else {
            let sections = results.map { "\($0.sections.count) sections" } ?? "no results (performFetch() not called?)"
            throw FetchedResultsError(.indexPathOutOfRange, message: "no object at \(Array(indexPath)): the controller has \(sections)")
        }
        return rows.objects[rows.sections[indexPath[0]].start + indexPath[1]]
    }

    /// Where `object` is in the results, or nil when it is not among them.
    ///
    /// - Complexity: *O*(log *n*) comparisons of cached sort keys.
    ///
    /// Corresponds to `-[NSFetchedResultsController indexPathForObject:]`.
    public func indexPath(forObject object: Object) -> IndexPath? {
        guard let rows = results, let key = keyByObject[ObjectIdentifier(object)],
              let flat = position(of: object, key: key, in: rows)
        else {
            return nil
        }
        return rows.indexPath(forRow: flat)
    }

    // MARK: - Change sets

    /// An asynchronous sequence of the change sets made from now on; see
    /// ``FetchedResultsChangeSequence`` for its buffering and its end.
    ///
    /// ```swift
    /// Task { @MainActor in
    ///     for try await changes in controller.changeSets() { tableView.apply(changes) }
    /// }
    /// ```
    ///
    /// Corresponds to nothing in Core Data.
    public func changeSets() -> FetchedResultsChangeSequence {
        let buffer = FetchedResultsChangeBuffer()
        buffers.removeAll { $0.buffer == nil }
        buffers.append(WeakChangeBuffer(buffer: buffer))
        return FetchedResultsChangeSequence(buffer: buffer)
    }

    // MARK: - Windows

    /// Whether the request has a fetch limit or offset, which make the results a window.
    var isWindowed: Bool { fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0 }

    /// How many rows the controller follows with a fetch limit (`fetchOffset + fetchLimit`);
    /// nil without one (every result).
    var trackedRowCapacity: Int? {
        fetchRequest.fetchLimit > 0 ? fetchRequest.fetchOffset + fetchRequest.fetchLimit : nil
    }

    /// The request that fetches the rows the controller follows: from the first result, as
    /// many as ``trackedRowCapacity``.
    var trackedRowsRequest: FetchRequest<Object> {
        guard isWindowed else { return fetchRequest }
        var request = fetchRequest
        request.fetchOffset = 0
        request.fetchLimit = trackedRowCapacity ?? 0
        return request
    }

    /// The range of `rows` a window shows.
    func windowRange(inRowCount count: Int) -> Range<Int> {
        let start = min(fetchRequest.fetchOffset, count)
        let end = fetchRequest.fetchLimit > 0 ? min(start + fetchRequest.fetchLimit, count) : count
        return start..<end
    }

    /// The window of `rows`, with its own sections.
    func windowRows(of rows: FetchedResultsRows<Object>) throws -> FetchedResultsRows<Object> {
        let range = windowRange(inRowCount: rows.objects.count)
        let keys = Array(rows.keys[range])
        return FetchedResultsRows(objects: Array(rows.objects[range]), keys: keys, sections: try sectionBounds(of: keys))
    }

    // MARK: - Keys and order

    /// The sort keys and section name of an object, read now.
    func rowKey(for object: Object) throws -> FetchedResultsRowKey {
        let values = try fetchRequest.sortDescriptors.map { try $0.value(of: object) }
        guard let sectionNameKeyPath else { return FetchedResultsRowKey(values: values, sectionName: "") }
        return FetchedResultsRowKey(values: values, sectionName: Self.sectionName(try object.value(forKeyPath: sectionNameKeyPath)))
    }

    /// A section key's value as a section name: strings as they are, nil as `""`, others as
    /// they describe themselves.
    static func sectionName(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "" }
        if let string = value as? String { return string }
        return String(describing: value)
    }

    /// The order of two rows by the sort descriptors.
    func order(_ left: FetchedResultsRowKey, _ right: FetchedResultsRowKey) throws -> ComparisonResult {
        for (index, descriptor) in fetchRequest.sortDescriptors.enumerated() {
            let result = try descriptor.compareValues(left.values[index], right.values[index])
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// The first row of `keys` not ordered before `key`.
    func lowerBound(_ key: FetchedResultsRowKey, in keys: [FetchedResultsRowKey]) throws -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            if try order(keys[middle], key) == .orderedAscending { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first row of `keys` ordered after `key`: where a new row with it goes.
    func upperBound(_ key: FetchedResultsRowKey, in keys: [FetchedResultsRowKey]) throws -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            if try order(keys[middle], key) == .orderedDescending { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The row of `object`, whose cached key is `key`: found by binary search among the rows
    /// with equal keys, or (should the order ever fail) by a scan.
    func position(of object: Object, key: FetchedResultsRowKey, in rows: FetchedResultsRows<Object>) -> Int? {
        if var index = try? lowerBound(key, in: rows.keys) {
            while index < rows.keys.count, (try? order(rows.keys[index], key)) == .orderedSame {
                if rows.objects[index] === object { return index }
                index += 1
            }
        }
        return rows.objects.firstIndex { $0 === object }
    }

    /// The sections of sorted rows: runs of one section name.
    ///
    /// - Throws: ``FetchedResultsError/Code/sectionsOutOfOrder`` when a name comes back after another.
    func sectionBounds(of keys: [FetchedResultsRowKey]) throws -> [FetchedResultsRows<Object>.Section] {
        guard sectionNameKeyPath != nil else { return [.init(name: "", start: 0, count: keys.count)] }
        var sections: [FetchedResultsRows<Object>.Section] = []
        var names = Set<String>()
        for (index, key) in keys.enumerated() {
            if let last = sections.indices.last, sections[last].name == key.sectionName {
                sections[last].count += 1
                continue
            }
            guard names.insert(key.sectionName).inserted else {
                throw FetchedResultsError(
                    .sectionsOutOfOrder,
                    message: "the fetched object at index \(index) has an out of order section name '\(key.sectionName)': "
                        + "objects must be sorted by section name (make the first sort descriptor order by '\(sectionNameKeyPath ?? "")')")
            }
            sections.append(.init(name: key.sectionName, start: index, count: 1))
        }
        return sections
    }
}

@available(*, unavailable, message: "a controller belongs to its context's isolation domain; send its change sets instead")
extension FetchedResultsController: Sendable {}

/// A change-set sequence's buffer, held without keeping the sequence alive.
struct WeakChangeBuffer {
    weak var buffer: FetchedResultsChangeBuffer?
}
