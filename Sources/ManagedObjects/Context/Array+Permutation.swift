extension Array {
    /// Puts the elements in the order `positions` gives: afterwards the element at `i` is the
    /// one that was at `positions[i]`. `positions` must hold each index of the array once.
    ///
    /// The elements move by swaps along the permutation's cycles, never copied: for elements
    /// that hold references, each copy would be an atomic retain and release.
    ///
    /// - Complexity: O(*n*), at most *n* swaps.
    mutating func permute(taking positions: [Int]) {
        var source = positions
        for start in source.indices where source[start] != start {
            var current = start
            // Along the cycle through `start`: each position takes the element it names and
            // hands the element it held on, until the cycle closes at `start`'s element.
            while source[current] != start {
                let next = source[current]
                swapAt(current, next)
                source[current] = current
                current = next
            }
            source[current] = current
        }
    }
}
