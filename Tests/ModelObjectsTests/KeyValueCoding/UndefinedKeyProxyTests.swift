import Foundation
import ModelObjects
import Testing

/// Mutable collection proxies for keys served by the undefined-key hooks read through
/// `value(forUndefinedKey:)` and write whole new collections through `setValue(_:forUndefinedKey:)`.
@Suite struct UndefinedKeyProxyTests {
    @Test func anArrayProxyReadsAndWritesThroughTheHooks() throws {
        let scrapbook = Scrapbook()
        let notes = try scrapbook.mutableArrayValue(forKey: "notes")
        #expect(try notes.count() == 1)
        try notes.append("second")
        try notes.insert("zeroth", at: 0)
        #expect(scrapbook.extras["notes"] as? [Any] as? [String] == ["zeroth", "first", "second"])
        try notes.remove(at: 1)
        try notes.replace(at: 0, with: "start")
        #expect(try notes.elements() as? [String] == ["start", "second"])
        #expect(scrapbook.writes == ["notes", "notes", "notes", "notes"])
    }

    @Test func aSetProxyReadsAndWritesThroughTheHooks() throws {
        let scrapbook = Scrapbook()
        let tags = try scrapbook.mutableSetValue(forKey: "tags")
        try tags.insert("blue")
        try tags.formUnion(["green", "red"])
        #expect(try tags.elements() == ["red", "blue", "green"])
        try tags.remove("red")
        #expect(scrapbook.extras["tags"] as? Set<AnyHashable> == ["blue", "green"])
        #expect(try tags.contains("blue"))
        #expect(scrapbook.writes == ["tags", "tags", "tags"])
    }

    @Test func observersHearTheSettingsTheHooksAnnounce() throws {
        let scrapbook = Scrapbook()
        let log = KVOEventLog()
        let token = try scrapbook.observe("notes", options: [.old, .new], changeHandler: log.handler(for: "notes"))
        try scrapbook.mutableArrayValue(forKey: "notes").append("second")
        #expect(log.entries == ["notes setting old=[first] new=[first, second] prior=false"])
        token.invalidate()
    }

    @Test func aKeyNobodyServesStillThrowsAtOnce() {
        let scrapbook = Scrapbook()
        expectKVCError(.undefinedKey) { _ = try scrapbook.mutableArrayValue(forKey: "missing") }
        expectKVCError(.undefinedKey) { _ = try scrapbook.mutableSetValue(forKey: "missing") }
    }

    @Test func aHookValueOfTheWrongKindIsNotACollection() {
        let scrapbook = Scrapbook()
        scrapbook.extras["title"] = "Summer"
        expectKVCError(.notACollection) { _ = try scrapbook.mutableArrayValue(forKey: "title") }
        expectKVCError(.notACollection) { _ = try scrapbook.mutableSetValue(forKey: "notes") }
    }

    @Test func aNilHookValueIsAnEmptyCollection() throws {
        let scrapbook = Scrapbook()
        let drafts = try scrapbook.mutableArrayValue(forKey: "drafts")
        #expect(try drafts.count() == 0)
        try drafts.append("one")
        #expect(scrapbook.drafts == ["one"])
    }

    /// The hooks' answer may change between reads: each edit reads it once and checks its
    /// indexes against that read (a second, shorter read used to be indexed unchecked).
    @Test(arguments: ["element", "insert", "remove", "replace", "removeLast", "append"])
    func anEditByValueReadsTheValueOnce(edit: String) throws {
        let list = ShrinkingList()
        let items = try list.mutableArrayValue(forKey: "items")
        list.reads = 0
        list.items = ["a", "b", "c", "d"]
        switch edit {
        case "element": #expect(try items.element(at: 3) as? String == "d")
        case "insert": try items.insert("x", at: 4)
        case "remove": try items.remove(at: 3)
        case "replace": try items.replace(at: 3, with: "x")
        case "removeLast": try items.removeLast()
        default: try items.append("x")
        }
        #expect(list.reads == 1)
    }

    @Test func anEditByValuePastTheEndOfTheValueReadThrows() throws {
        let list = ShrinkingList()
        let items = try list.mutableArrayValue(forKey: "items")
        // This read has three elements.
        expectKVCError(.indexOutOfRange) { try items.remove(at: 3) }
        expectKVCError(.indexOutOfRange) { try items.replace(at: 2, with: "x") }
        expectKVCError(.indexOutOfRange) { _ = try items.element(at: 1) }
        #expect(list.items == ["a"])
        expectKVCError(.indexOutOfRange) { try items.insert("x", at: 1) }
        list.items = []
        expectKVCError(.indexOutOfRange) { try items.removeLast() }
    }

    @Test func anArrayProxyByValueChecksTheElementTypeWhenSetting() throws {
        let clerk = Clerk()
        let tags = try clerk.mutableArrayValue(forKey: "tags")
        expectKVCError(.typeMismatch) { try tags.append(3) }
        #expect(clerk.tags == [])
    }
}
