import Foundation
import ModelObjects
import Testing

/// A custom attribute whose class notifies observers of it by hand.
final class QuietClerk: ModelObject {
    @Attribute var salaryChanges = 0
    @CustomAttribute(
        set: { (_: QuietClerk, newValue: Double) in max(0, newValue) },
        didSet: { clerk, _ in clerk.salaryChanges += 1 })
    var salary = 0.0

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "salary" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }
}

/// `@CustomAttribute`: every route to a property goes through its getter, setter and `didSet`.
@Suite struct CustomAttributeTests {
    // MARK: - Setting

    @Test func typedSetCallsTheSetterAndDidSet() {
        let clerk = Clerk()
        clerk.salary = -5
        #expect(clerk.salary == 0)
        #expect(clerk.salaryChanges == 1)
        clerk.salary = 12
        #expect(clerk.salary == 12)
        #expect(clerk.salaryChanges == 2)
    }

    @Test func setValueForKeyCallsTheSetterAndDidSet() throws {
        let clerk = Clerk()
        try clerk.setValue(-5, forKey: "salary")
        #expect(clerk.salary == 0)
        #expect(clerk.salaryChanges == 1)
        try clerk.setValue("  Ada ", forKey: "name")
        #expect(clerk.name == "Ada")
    }

    @Test func setValuesForKeysCallsTheSetters() throws {
        let clerk = Clerk()
        try clerk.setValuesForKeys(["name": "  Grace  ", "salary": -1.0, "tags": ["b", "a"]])
        #expect(clerk.name == "Grace")
        #expect(clerk.salary == 0)
        #expect(clerk.salaryChanges == 1)
        #expect(clerk.tags == ["a", "b"])
    }

    @Test func setValueForKeyPathCallsTheSetter() throws {
        let desk = Desk()
        desk.clerk = Clerk()
        try desk.setValue("  Ada ", forKeyPath: "clerk.name")
        try desk.setValue(-3, forKeyPath: "clerk.salary")
        #expect(desk.clerk?.name == "Ada")
        #expect(desk.clerk?.salary == 0)
        #expect(desk.clerk?.salaryChanges == 1)
    }

    @Test func aFailedConversionCallsNoAccessor() {
        let clerk = Clerk()
        clerk.salary = 7
        expectKVCError(.typeMismatch) { try clerk.setValue("seven", forKey: "salary") }
        expectKVCError(.nilValueForNonOptional) { try clerk.setValue(nil, forKey: "salary") }
        #expect(clerk.salary == 7)
        #expect(clerk.salaryChanges == 1)
    }

    /// The documented memory cost: the three optional hooks beside the value.
    @Test func theHooksCostFortyEightBytesPerProperty() {
        #expect(MemoryLayout<CustomAttribute<Clerk, Double>>.size - MemoryLayout<Double>.size == 48)
    }

    @Test func anInitialValueIsStoredWithoutTheSetter() {
        #expect(Clerk().salaryChanges == 0)
    }

    // MARK: - Getting

    @Test func theGetterPresentsTheValueOnEveryRoute() throws {
        let clerk = Clerk()
        clerk.code = "ab-1"
        #expect(clerk.code == "AB-1")
        #expect(try clerk.value(forKey: "code") as? String == "AB-1")
        let desk = Desk()
        desk.clerk = clerk
        #expect(try desk.value(forKeyPath: "clerk.code") as? String == "AB-1")
        #expect(try KeyValuePredicate(format: "clerk.code == 'AB-1'").evaluate(with: desk))
        clerk.code = nil
        #expect(try clerk.value(forKey: "code") == nil)
    }

    @Test func theKeyOfATypedKeyPathIsFoundWithoutCallingTheAccessors() throws {
        let clerk = Clerk()
        #expect(try clerk.key(for: \.salary) == "salary")
        #expect(try clerk.key(for: \.code) == "code")
        #expect(clerk.salaryChanges == 0)
    }

    // MARK: - Archiving and copying

    @Test func unarchivingCallsTheSetters() throws {
        let plain = PlainClerk()
        plain.name = "  Ada  "
        plain.salary = -40
        let archiver = KeyedArchiver()
        archiver.setClassName("Clerk", for: PlainClerk.self)
        archiver.encode(plain, forKey: "root")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.finishEncoding())
        unarchiver.setClass(Clerk.self, forClassName: "Clerk")
        let clerk = try #require(try unarchiver.decodeObject(forKey: "root") as? Clerk)
        #expect(clerk.name == "Ada")
        #expect(clerk.salary == 0)
        #expect(clerk.salaryChanges == 1)
    }

    @Test func archivingRoundTripsThePresentedValues() throws {
        let clerk = Clerk()
        clerk.name = "Ada"
        clerk.salary = 50
        clerk.tags = ["x", "a"]
        let data = try KeyedArchiver.archivedData(withRootObject: clerk)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Clerk.self, from: data))
        #expect(decoded.name == "Ada" && decoded.salary == 50 && decoded.tags == ["a", "x"])
    }

    @Test func sequentialUnarchivingCallsTheSetters() throws {
        let clerk = Clerk()
        clerk.name = "Ada"
        clerk.salary = 50
        let data = try SequentialArchiver.archivedData(withRootObject: clerk)
        let decoded = try #require(try SequentialUnarchiver.unarchivedObject(ofClass: Clerk.self, from: data))
        #expect(decoded.name == "Ada" && decoded.salary == 50)
        // The archived count (1), then setting the salary while decoding counted once more.
        #expect(decoded.salaryChanges == 2)
    }

    @Test func copyingCallsTheSetters() {
        let clerk = Clerk()
        clerk.salary = 10
        let copy = clerk.copy()
        #expect(copy.salary == 10)
        // The count was copied (1), then setting the salary in the copy counted once more.
        #expect(copy.salaryChanges == 2)
    }

    // MARK: - Observing

    @Test func automaticNotificationBracketsTheWholeSetter() throws {
        let clerk = Clerk()
        clerk.salary = 10
        let log = KVOEventLog()
        let salary = try clerk.observe("salary", options: [.old, .new, .prior], changeHandler: log.handler(for: "salary"))
        let changes = try clerk.observe("salaryChanges", options: [.old, .new], changeHandler: log.handler(for: "salaryChanges"))
        clerk.salary = -5
        try clerk.setValue(20, forKey: "salary")
        #expect(log.entries == [
            "salary setting old=10.0 new=nil prior=true",
            "salaryChanges setting old=1 new=2 prior=false",
            "salary setting old=10.0 new=0.0 prior=false",
            "salary setting old=0.0 new=nil prior=true",
            "salaryChanges setting old=2 new=3 prior=false",
            "salary setting old=0.0 new=20.0 prior=false",
        ])
        salary.invalidate()
        changes.invalidate()
    }

    @Test func observersSeeThePresentedValues() throws {
        let clerk = Clerk()
        let log = KVOEventLog()
        let token = try clerk.observe("code", options: [.old, .new], changeHandler: log.handler(for: "code"))
        clerk.code = "x"
        #expect(log.entries == ["code setting old=nil new=X prior=false"])
        token.invalidate()
    }

    @Test func typedObservationOfACustomAttribute() throws {
        let clerk = Clerk()
        let log = KVOTypedLog<Double>()
        let token = try clerk.observe(\.salary, options: [.old, .new]) { clerk, change in log.append(change, of: clerk) }
        clerk.salary = -1
        clerk.salary = 3
        #expect(log.changes.map(\.oldValue) == [0, 0])
        #expect(log.changes.map(\.newValue) == [0, 3])
        token.invalidate()
    }

    // MARK: - Collection proxies

    @Test func anArrayProxyReplacesTheWholeArrayThroughTheSetter() throws {
        let clerk = Clerk()
        let log = KVOEventLog()
        let token = try clerk.observe("tags", options: [.old, .new], changeHandler: log.handler(for: "tags"))
        let tags = try clerk.mutableArrayValue(forKey: "tags")
        try tags.append("b")
        try tags.insert("c", at: 0)
        #expect(clerk.tags == ["b", "c"])
        try tags.remove(at: 0)
        #expect(clerk.tags == ["c"])
        #expect(log.entries == [
            "tags setting old=[] new=[b] prior=false",
            "tags setting old=[b] new=[b, c] prior=false",
            "tags setting old=[b, c] new=[c] prior=false",
        ])
        expectKVCError(.indexOutOfRange) { try tags.remove(at: 4) }
        token.invalidate()
    }

    @Test func aSetProxyReplacesTheWholeSetThroughTheSetter() throws {
        let clerk = Clerk()
        let labels = try clerk.mutableSetValue(forKey: "labels")
        try labels.insert("Red")
        try labels.formUnion(["BLUE", "green"])
        #expect(clerk.labels == ["red", "blue", "green"])
        try labels.remove("blue")
        #expect(clerk.labels == ["red", "green"])
        #expect(try labels.count() == 2)
        expectKVCError(.typeMismatch) { try labels.insert(3) }
        #expect(clerk.labels == ["red", "green"])
    }

    @Test func anArrayProxyCallsTheClassCollectionAccessorsOfACustomAttribute() throws {
        let roster = Roster()
        let log = KVOEventLog()
        let token = try roster.observe("names", options: [.old, .new], changeHandler: log.handler(for: "names"))
        let names = try roster.mutableArrayValue(forKey: "names")
        try names.append("C")
        try names.insert("X", at: 0)
        try names.replace(at: 1, with: "Y")
        try names.remove(at: 0)
        #expect(roster.names == ["Y", "B", "C"])
        #expect(roster.calls == ["insert(C, 2)", "insert(X, 0)", "replace(1, Y)", "remove(0)"])
        #expect(log.entries == [
            "names insertion old=nil new=[C] indexes=[2] prior=false",
            "names insertion old=nil new=[X] indexes=[0] prior=false",
            "names replacement old=[A] new=[Y] indexes=[1] prior=false",
            "names removal old=[X] new=nil indexes=[0] prior=false",
        ])
        expectKVCError(.typeMismatch) { try names.append(3) }
        #expect(roster.names == ["Y", "B", "C"])
        token.invalidate()
    }

    @Test func aSetProxyCallsTheClassCollectionAccessorsOfACustomAttribute() throws {
        let roster = Roster()
        let log = KVOEventLog()
        let token = try roster.observe("badges", options: [.old, .new], changeHandler: log.handler(for: "badges"))
        let badges = try roster.mutableSetValue(forKey: "badges")
        try badges.insert("silver")
        try badges.remove("gold")
        #expect(roster.badges == ["silver"])
        #expect(roster.calls == ["addBadgesObject(silver)", "removeBadgesObject(gold)"])
        #expect(log.entries == [
            "badges insertion old=nil new={silver} prior=false",
            "badges removal old={gold} new=nil prior=false",
        ])
        token.invalidate()
    }

    @Test func aProxyForANonCollectionCustomAttributeIsRefused() {
        let clerk = Clerk()
        expectKVCError(.notACollection) { _ = try clerk.mutableArrayValue(forKey: "name") }
        expectKVCError(.notACollection) { _ = try clerk.mutableSetValue(forKey: "tags") }
    }

    @Test func nilSetOnAnOptionalCustomAttributeGoesThroughTheSetter() throws {
        let clerk = Clerk()
        clerk.code = "a"
        try clerk.setValue(nil, forKey: "code")
        #expect(clerk.code == nil)
        #expect(try clerk.value(forKey: "code") == nil)
    }

    @Test func manualNotificationOfACustomAttributeLeavesTheSetterSilent() throws {
        let clerk = QuietClerk()
        let log = KVOEventLog()
        let token = try clerk.observe("salary", options: [.new], changeHandler: log.handler(for: "salary"))
        clerk.salary = 5
        try clerk.setValue(-1, forKey: "salary")
        #expect(log.entries.isEmpty)
        #expect(clerk.salary == 0)
        #expect(clerk.salaryChanges == 2)
        clerk.willChangeValue(forKey: "salary")
        clerk.didChangeValue(forKey: "salary")
        #expect(log.entries == ["salary setting old=nil new=0.0 prior=false"])
        token.invalidate()
    }
}
