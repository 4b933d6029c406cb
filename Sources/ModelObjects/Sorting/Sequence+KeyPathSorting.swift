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
        let columns = try descriptors.map { descriptor in
            SortColumn(try elements.map { try descriptor.value(of: $0) }, descriptor)
        }
        var order = Array(elements.indices)
        try order.sort { left, right in
            for column in columns {
                let result = try column.compare(left, right)
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

/// The values of one sort descriptor for every element, unboxed when they are all strings or
/// all numbers, so that comparisons during the sort need no dynamic casts.
private enum SortColumn {
    case strings([String?], KeyPathSortDescriptor)
    case numbers([KeyValueNumber?], KeyPathSortDescriptor)
    case values([Any?], KeyPathSortDescriptor)

    init(_ values: [Any?], _ descriptor: KeyPathSortDescriptor) {
        let values = values.map(nilForNull)
        if descriptor.comparison == .default {
            var strings: [String?] = []
            strings.reserveCapacity(values.count)
            for value in values {
                guard let value else { strings.append(nil); continue }
                guard let string = stringValue(value) else { break }
                strings.append(string)
            }
            if strings.count == values.count {
                self = .strings(strings, descriptor)
                return
            }
        }
        var numbers: [KeyValueNumber?] = []
        numbers.reserveCapacity(values.count)
        for value in values {
            guard let value else { numbers.append(nil); continue }
            guard let number = KeyValueNumber(value) else { break }
            numbers.append(number)
        }
        self = numbers.count == values.count ? .numbers(numbers, descriptor) : .values(values, descriptor)
    }

    @inline(__always)
    func compare(_ left: Int, _ right: Int) throws -> ComparisonResult {
        switch self {
        case .strings(let strings, let descriptor):
            return directed(nilFirst(strings[left], strings[right]) { orderStrings($0, $1) }, descriptor)
        case .numbers(let numbers, let descriptor):
            return directed(nilFirst(numbers[left], numbers[right]) { compareKeyValueNumbers($0, $1) }, descriptor)
        case .values(let values, let descriptor):
            return try descriptor.compareValues(values[left], values[right])
        }
    }

    @inline(__always)
    private func nilFirst<T>(_ lhs: T?, _ rhs: T?, _ compare: (T, T) -> ComparisonResult) -> ComparisonResult {
        switch (lhs, rhs) {
        case (nil, nil): .orderedSame
        case (nil, _): .orderedAscending
        case (_, nil): .orderedDescending
        case let (lhs?, rhs?): compare(lhs, rhs)
        }
    }

    @inline(__always)
    private func directed(_ order: ComparisonResult, _ descriptor: KeyPathSortDescriptor) -> ComparisonResult {
        descriptor.ascending ? order : order.reversed
    }
}
