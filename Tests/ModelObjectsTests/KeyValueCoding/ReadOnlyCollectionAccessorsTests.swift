import Foundation
import ModelObjects
import Testing

/// Keys served by `countOf<Key>` + `objectIn<Key>AtIndex:` or `countOf<Key>` +
/// `enumeratorOf<Key>` + `memberOf<Key>:` alone: read everywhere, refused when edited.
@Suite struct ReadOnlyCollectionAccessorsTests {
    @Test func valueForKeyReadsAnOrderedKeyThroughTheAccessors() throws {
        let almanac = Almanac()
        #expect(try almanac.value(forKey: "months") as? [Any] as? [String] == ["Jan", "Feb", "Mar"])
        #expect(almanac.calls == ["countOfMonths", "objectInMonthsAtIndex(0)", "objectInMonthsAtIndex(1)", "objectInMonthsAtIndex(2)"])
    }

    @Test func valueForKeyReadsAnUnorderedKeyThroughTheEnumerator() throws {
        let almanac = Almanac()
        #expect(try almanac.value(forKey: "seasons") as? Set<AnyHashable> == ["spring", "summer"])
        #expect(almanac.calls == ["enumeratorOfSeasons"])
    }

    @Test func keyPathsAndCollectionOperatorsGoThroughTheAccessors() throws {
        let almanac = Almanac()
        #expect(try almanac.value(forKeyPath: "months.@count") as? Int == 3)
        #expect(try almanac.value(forKeyPath: "seasons.@count") as? Int == 2)
        #expect(try almanac.value(forKeyPath: "projects.name") as? [Any] as? [String] == ["A", "B"])
        #expect(try almanac.value(forKeyPath: "projects.@sum.budget") as? Double == 42)
        #expect(try almanac.value(forKeyPath: "projects.@max.name") as? String == "B")
        #expect(try KeyValuePredicate(format: "ANY months == 'Feb'").evaluate(with: almanac))
    }

    @Test func anOrderedProxyReadsThroughTheAccessors() throws {
        let almanac = Almanac()
        let months = try almanac.mutableArrayValue(forKey: "months")
        #expect(try months.count() == 3)
        #expect(try months.element(at: 1) as? String == "Feb")
        #expect(try months.elements() as? [String] == ["Jan", "Feb", "Mar"])
        expectKVCError(.indexOutOfRange) { _ = try months.element(at: 3) }
    }

    @Test func editingAnOrderedKeyThroughItsProxyThrowsReadOnlyKey() throws {
        let almanac = Almanac()
        let months = try almanac.mutableArrayValue(forKey: "months")
        let error = expectKVCError(.readOnlyKey) { try months.append("Apr") }
        #expect(error?.key == "months")
        expectKVCError(.readOnlyKey) { try months.remove(at: 0) }
        expectKVCError(.readOnlyKey) { try months.replace(at: 0, with: "Dec") }
        expectKVCError(.readOnlyKey) { try months.insert(["x"], at: IndexSet(integer: 0)) }
        #expect(almanac.monthStorage == ["Jan", "Feb", "Mar"])
    }

    @Test func anUnorderedProxyCountsAndTestsMembershipThroughTheAccessors() throws {
        let almanac = Almanac()
        let seasons = try almanac.mutableSetValue(forKey: "seasons")
        #expect(try seasons.count() == 2)
        #expect(try seasons.contains("spring"))
        #expect(try !seasons.contains("winter"))
        #expect(almanac.calls == ["countOfSeasons", "memberOfSeasons(spring)", "memberOfSeasons(winter)"])
        #expect(try seasons.elements() == ["spring", "summer"])
    }

    @Test func anElementOfTheWrongTypeIsNotAMemberAndReachesNoAccessor() throws {
        let almanac = Almanac()
        let seasons = try almanac.mutableSetValue(forKey: "seasons")
        #expect(try !seasons.contains(3))
        #expect(almanac.calls.isEmpty)
    }

    @Test func editingAnUnorderedKeyThroughItsProxyThrowsReadOnlyKey() throws {
        let almanac = Almanac()
        let seasons = try almanac.mutableSetValue(forKey: "seasons")
        expectKVCError(.readOnlyKey) { try seasons.insert("winter") }
        expectKVCError(.readOnlyKey) { try seasons.remove("spring") }
        expectKVCError(.readOnlyKey) { try seasons.formIntersection(["spring"]) }
        expectKVCError(.readOnlyKey) { try seasons.setElements([]) }
        #expect(almanac.seasonStorage == ["spring", "summer"])
    }

    @Test func settingAReadOnlyKeyThrowsReadOnlyKey() {
        let almanac = Almanac()
        expectKVCError(.readOnlyKey) { try almanac.setValue(["Apr"], forKey: "months") }
        expectKVCError(.readOnlyKey) { try almanac.setValue(Set(["winter"]), forKey: "seasons") }
        #expect(almanac.monthStorage == ["Jan", "Feb", "Mar"])
    }

    @Test func aProxyOfTheOtherKindIsRefused() {
        let almanac = Almanac()
        expectKVCError(.notACollection) { _ = try almanac.mutableSetValue(forKey: "months") }
        expectKVCError(.notACollection) { _ = try almanac.mutableArrayValue(forKey: "seasons") }
    }
}
