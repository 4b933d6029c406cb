import Foundation

extension Sequence {
    /// The elements ordered by a chain of sort descriptors: by the first, then by the second
    /// among elements the first finds equal, and so on. The sort is stable: elements every
    /// descriptor finds equal keep their order.
    ///
    /// ```swift
    /// let roster = try employees.sorted(using: [
    ///     KeyPathSortDescriptor(key: "department.name"),
    ///     KeyPathSortDescriptor(key: "salary", ascending: false),
    /// ])
    /// ```
    ///
    /// Each element's values are read once per descriptor, before sorting.
    ///
    /// - Throws: What ``KeyPathSortDescriptor/compare(_:_:)`` throws.
    /// - Complexity: O(*n* log *n*) comparisons and *n* key-path reads per descriptor.
    ///
    /// Corresponds to Cocoa's `-[NSArray sortedArrayUsingDescriptors:]`; the parameter type
    /// keeps it apart from Foundation's `sorted(using:)` for `SortComparator`s.
    public func sorted(using descriptors: [KeyPathSortDescriptor]) throws -> [Element] {
        let elements = Array(self)
        guard !descriptors.isEmpty, elements.count > 1 else { return elements }
        let keys: [[Any?]] = try descriptors.map { descriptor in
            try elements.map { try descriptor.value(of: $0) }
        }
        var order = Array(elements.indices)
        try order.sort { left, right in
            for (index, descriptor) in descriptors.enumerated() {
                let result = try descriptor.compareValues(keys[index][left], keys[index][right])
                if result != .orderedSame { return result == .orderedAscending }
            }
            return left < right
        }
        return order.map { elements[$0] }
    }

    /// The elements ordered by one sort descriptor; stable.
    ///
    /// - Throws: What ``KeyPathSortDescriptor/compare(_:_:)`` throws.
    /// - Complexity: O(*n* log *n*).
    public func sorted(using descriptor: KeyPathSortDescriptor) throws -> [Element] {
        try sorted(using: [descriptor])
    }
}

extension Array {
    /// Sorts the array in place by a chain of sort descriptors; stable.
    ///
    /// - Throws: What ``KeyPathSortDescriptor/compare(_:_:)`` throws; the array is then left
    ///   unchanged.
    ///
    /// Corresponds to Cocoa's `-[NSMutableArray sortUsingDescriptors:]`.
    public mutating func sort(using descriptors: [KeyPathSortDescriptor]) throws {
        self = try sorted(using: descriptors)
    }
}
