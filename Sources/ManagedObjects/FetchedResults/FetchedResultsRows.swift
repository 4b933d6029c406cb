import Foundation

/// A result's cached sort keys (one value per sort descriptor) and section name, as read when
/// it joined the results or last changed: binary searches compare these, never the objects.
struct FetchedResultsRowKey {
    var values: [Any?]
    var sectionName: String
}

/// A controller's results: the objects in order with their cached keys, cut into sections.
struct FetchedResultsRows<Object: ManagedObject> {
    /// A run of rows sharing a section name.
    struct Section {
        var name: String
        var start: Int
        var count: Int
    }

    var objects: [Object]
    var keys: [FetchedResultsRowKey]
    var sections: [Section]

    /// The section holding row `flat`: the last section starting at or before it.
    func section(ofRow flat: Int) -> Int {
        var low = 0, high = sections.count
        while low < high {
            let middle = low + (high - low) / 2
            if sections[middle].start <= flat { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }

    /// `[section, row]` of row `flat`.
    func indexPath(forRow flat: Int) -> IndexPath {
        let section = section(ofRow: flat)
        return IndexPath(indexes: [section, flat - sections[section].start])
    }
}
