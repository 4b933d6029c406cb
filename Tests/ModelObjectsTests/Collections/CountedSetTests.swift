import Testing
@testable import ModelObjects

/// `CountedSet` counts each member and never traps on a count near `Int.max`.
@Suite struct CountedSetTests {
    @Test func countsAddRemoveAndSaturate() {
        var set = CountedSet<String>()
        set.insert("a")
        set.insert("a", count: 2)
        set.insert("b", count: 0)
        #expect(set.count(for: "a") == 3 && !set.contains("b") && set.count == 1)
        #expect(set.remove("a") == 2)
        #expect(set.remove("zzz") == 0)
        set.insert("a", count: Int.max)
        #expect(set.count(for: "a") == Int.max)
    }
}
