/// An unordered collection of distinct members, each with the number of times it was added.
///
/// Unarchiving Foundation's `NSCountedSet` gives a `CountedSet<AnyHashable>` that keeps every
/// member's count, and archiving a `CountedSet` writes an `NSCountedSet` that Foundation reads
/// back with its counts.
///
/// ```swift
/// var words: CountedSet = ["to", "be", "or", "not", "to", "be"]
/// words.count(for: "to")   // 2
/// words.count              // 4 distinct members
/// words.remove("to")       // one "to" left
/// ```
///
/// Iteration visits each distinct member once, in no particular order.
///
/// Corresponds to Cocoa's `NSCountedSet`; differences: a value type, generic over its members,
/// and counts saturate at `Int.max` instead of wrapping.
public struct CountedSet<Element: Hashable>: Sequence, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Each member and how many times it is in the set, always at least 1.
    public private(set) var counts: [Element: Int]

    /// Creates an empty counted set.
    public init() {
        counts = [:]
    }

    /// Creates a counted set holding each element as often as the sequence gives it.
    ///
    /// Corresponds to `-[NSCountedSet initWithArray:]`.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        counts = [:]
        for element in elements { insert(element) }
    }

    /// Creates a counted set from a literal; repeated members are counted.
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }

    /// The number of distinct members (not the sum of their counts).
    ///
    /// Corresponds to `-[NSCountedSet count]`.
    public var count: Int { counts.count }

    /// Whether the set has no members.
    ///
    /// Corresponds to `-[NSCountedSet count]` being 0.
    public var isEmpty: Bool { counts.isEmpty }

    /// How many times `element` is in the set; 0 when it is not a member.
    ///
    /// Corresponds to `-[NSCountedSet countForObject:]`.
    public func count(for element: Element) -> Int {
        counts[element] ?? 0
    }

    /// Whether `element` is a member.
    ///
    /// Corresponds to `-[NSSet containsObject:]`.
    public func contains(_ element: Element) -> Bool {
        counts[element] != nil
    }

    /// Adds `element` `count` times (once by default); a count of 0 or less adds nothing.
    ///
    /// Corresponds to `-[NSCountedSet addObject:]`.
    public mutating func insert(_ element: Element, count: Int = 1) {
        guard count > 0 else { return }
        let (sum, overflow) = self.count(for: element).addingReportingOverflow(count)
        counts[element] = overflow ? Int.max : sum
    }

    /// Removes one occurrence of `element`; the member goes when its count reaches 0.
    ///
    /// - Returns: The count left for `element`.
    ///
    /// Corresponds to `-[NSCountedSet removeObject:]`.
    @discardableResult
    public mutating func remove(_ element: Element) -> Int {
        let left = count(for: element) - 1
        counts[element] = left > 0 ? left : nil
        return Swift.max(left, 0)
    }

    /// Iterates over the distinct members.
    ///
    /// Corresponds to `-[NSCountedSet objectEnumerator]`.
    public func makeIterator() -> Dictionary<Element, Int>.Keys.Iterator {
        counts.keys.makeIterator()
    }

    /// `CountedSet(["a": 2, "b": 1])`, in no particular order.
    public var description: String {
        "CountedSet(\(counts))"
    }
}

/// A counted set the archive writer can write as Foundation's `NSCountedSet`, whatever its
/// element type.
protocol ArchivableCountedSet {
    /// Calls `body` with each member and its count.
    func forEachMemberAndCount(_ body: (Any, Int) -> Void)
}

extension CountedSet: ArchivableCountedSet {
    func forEachMemberAndCount(_ body: (Any, Int) -> Void) {
        for (member, count) in counts { body(member, count) }
    }
}

extension CountedSet: Sendable where Element: Sendable {}
