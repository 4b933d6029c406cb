extension Array where Element: AnyObject {
    /// Calls `body` with each element and its index, without retaining and releasing the
    /// element: a save walks tens of thousands of objects several times, and each retain is an
    /// atomic write to a header that is usually out of the cache, which the processor cannot
    /// overlap with the next object's.
    ///
    /// The array holds every element for the walk: it is not mutated during it (`self` is a
    /// copy the walk keeps), and `body` takes any reference it keeps, as for any borrowed value.
    @inline(__always)
    func forEachUnretained(_ body: (_ index: Int, _ element: Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { elements in
            for index in elements.indices {
                // SAFETY: `elements` keeps the element alive for the call.
                try Unmanaged.passUnretained(elements[index])._withUnsafeGuaranteedRef { try body(index, $0) }
            }
        }
    }

    /// Calls `body` with each element of `range` and its index, as `forEachUnretained(_:)`
    /// does for every element.
    @inline(__always)
    func forEachUnretained(in range: Range<Int>, _ body: (_ index: Int, _ element: Element) throws -> Void) rethrows {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) outside 0..<\(count)")
        try withUnsafeBufferPointer { elements in
            for index in range {
                // SAFETY: `elements` keeps the element alive for the call.
                try Unmanaged.passUnretained(elements[index])._withUnsafeGuaranteedRef { try body(index, $0) }
            }
        }
    }
}
