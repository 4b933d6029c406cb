import Testing
@testable import ManagedObjects

/// The save's walks over its objects (`forEachUnretained`) visit every element once, in
/// order, with its index, and stop at the first error a visit throws.
@Suite struct UnretainedWalkTests {
    private final class Box {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    private struct Stop: Error, Equatable {
        let index: Int
    }

    @Test func everyElementIsVisitedOnceInOrderWithItsIndex() {
        let boxes = (0..<1_000).map(Box.init)
        var visited: [(Int, Int)] = []
        boxes.forEachUnretained { index, box in visited.append((index, box.number)) }
        #expect(visited.map(\.0) == Array(0..<1_000))
        #expect(visited.map(\.1) == Array(0..<1_000))
    }

    @Test func theWalkNeitherKeepsNorReleasesTheElements() {
        weak var first: Box?, last: Box?
        do {
            let boxes = (0..<100).map(Box.init)
            first = boxes.first
            last = boxes.last
            var kept: [Box] = []
            boxes.forEachUnretained { index, box in if index == 99 { kept.append(box) } }
            // Alive after the walk (nothing released), and a reference the visit kept is its own.
            #expect(first?.number == 0)
            kept.removeAll()
            #expect(last?.number == 99)
        }
        // Freed with the array (nothing retained).
        #expect(first == nil)
        #expect(last == nil)
    }

    @Test func aThrowingVisitStopsTheWalkAndTheErrorReachesTheCaller() {
        let boxes = (0..<10).map(Box.init)
        var visited: [Int] = []
        let error = #expect(throws: Stop.self) {
            try boxes.forEachUnretained { index, box in
                if box.number == 4 { throw Stop(index: index) }
                visited.append(index)
            }
        }
        #expect(error == Stop(index: 4))
        #expect(visited == [0, 1, 2, 3])
    }

    @Test func aRangeWalkVisitsExactlyTheRangeInOrderWithTheArraysIndexes() {
        let boxes = (0..<20).map(Box.init)
        var visited: [(Int, Int)] = []
        boxes.forEachUnretained(in: 5..<12) { index, box in visited.append((index, box.number)) }
        #expect(visited.map(\.0) == Array(5..<12))
        #expect(visited.map(\.1) == Array(5..<12))
        var visits = 0
        boxes.forEachUnretained(in: 20..<20) { _, _ in visits += 1 }
        boxes.forEachUnretained(in: 0..<0) { _, _ in visits += 1 }
        #expect(visits == 0)
    }

    @Test func aThrowingVisitStopsARangeWalk() {
        let boxes = (0..<10).map(Box.init)
        var visited: [Int] = []
        let error = #expect(throws: Stop.self) {
            try boxes.forEachUnretained(in: 2..<10) { index, box in
                if box.number == 6 { throw Stop(index: index) }
                visited.append(index)
            }
        }
        #expect(error == Stop(index: 6))
        #expect(visited == [2, 3, 4, 5])
    }

    @Test func anEmptyArrayVisitsNothing() {
        var visits = 0
        [Box]().forEachUnretained { _, _ in visits += 1 }
        #expect(visits == 0)
    }
}
