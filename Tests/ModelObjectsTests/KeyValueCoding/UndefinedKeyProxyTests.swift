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
        let token = scrapbook.observe("notes", options: [.old, .new], changeHandler: log.handler(for: "notes"))
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
}
