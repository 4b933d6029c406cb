import Foundation
import Testing
import ModelObjects
import SampleModels

/// The observing options: `.new`, `.old`, `.initial` and `.prior`.
@Suite struct OptionsTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    @Test func noOptionsDeliverNeitherOldNorNew() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary") }

        ada.salary = 200

        #expect(observer.entries == ["salary setting old=nil new=nil prior=false"])
    }

    @Test func newOptionDeliversOnlyTheNewValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: .new) }

        ada.salary = 200

        #expect(observer.entries == ["salary setting old=nil new=200.0 prior=false"])
    }

    @Test func oldOptionDeliversOnlyTheOldValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: .old) }

        ada.salary = 200

        #expect(observer.entries == ["salary setting old=100.0 new=nil prior=false"])
    }

    @Test func oldAndNewOptionsDeliverBothValuesForEachChange() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "lastName", options: [.old, .new]) }

        ada.lastName = "King"
        ada.lastName = "Byron"

        #expect(observer.entries == [
            "lastName setting old=Lovelace new=King prior=false",
            "lastName setting old=King new=Byron prior=false",
        ])
    }

    @Test func nilValuesOfOptionalPropertiesAreDeliveredAsNil() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "age", options: [.old, .new]) }

        ada.age = 36
        ada.age = nil

        #expect(observer.entries == [
            "age setting old=nil new=36 prior=false",
            "age setting old=36 new=nil prior=false",
        ])
        // Delivered nil is a plain nil, not an Optional boxed in Any.
        #expect(observer.changes.first.map { $0.oldValue == nil } == true)
        #expect(observer.changes.last.map { $0.newValue == nil } == true)
    }

    @Test func initialOptionNotifiesOnceBeforeAddObserverReturns() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.initial, .new]) }

        #expect(observer.entries == ["salary setting old=nil new=100.0 prior=false"])
        #expect(observer.objects == [ObjectIdentifier(ada)])
    }

    @Test func initialNotificationNeverCarriesAnOldValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.initial, .old, .new]) }
        ada.salary = 200

        #expect(observer.entries == [
            "salary setting old=nil new=100.0 prior=false",
            "salary setting old=100.0 new=200.0 prior=false",
        ])
    }

    @Test func initialWithoutNewCarriesNoValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.initial]) }

        #expect(observer.entries == ["salary setting old=nil new=nil prior=false"])
    }

    @Test func initialPassesTheRegistrationContext() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.initial], context: KVOContext.third) }

        #expect(observer.contexts == [KVOContext.third])
    }

    @Test func initialForAToManyKeyIsASettingOfTheWholeCollection() throws {
        let engineering = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        engineering.employees = [ada, grace]
        let observer = ChangeLog()

        #expect(throws: Never.self) { try engineering.addObserver(observer, forKeyPath: "employees", options: [.initial, .new]) }

        #expect(observer.entries == ["employees setting old=nil new=[Ada, Grace] prior=false"])
    }

    @Test func initialForAKeyPathEvaluatesTheWholePath() throws {
        let ada = makeAda()
        ada.department = Department(name: "Engineering")
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.initial, .new]) }

        #expect(observer.entries == ["department.name setting old=nil new=Engineering prior=false"])
    }

    @Test func initialForAKeyPathWithANilIntermediateDeliversNil() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.initial, .new]) }

        #expect(observer.entries == ["department.name setting old=nil new=nil prior=false"])
    }

    @Test func initialIsSentForKeysThatDoNotNotifyAutomatically() throws {
        let account = KVOAccount()
        account.balance = 10
        let observer = ChangeLog()

        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.initial, .new]) }

        #expect(observer.entries == ["balance setting old=nil new=10 prior=false"])
    }

    @Test func initialForADerivedKeyDeliversItsComputedValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.initial, .new]) }

        #expect(observer.entries == ["fullName setting old=nil new=Ada Lovelace prior=false"])
    }

    @Test func initialHandlerIsCalledBeforeObserveReturns() throws {
        let ada = makeAda()
        let log = KVOEventLog()

        let token = try ada.observe("salary", options: [.initial, .new], changeHandler: log.handler(for: "salary"))
        defer { token.invalidate() }

        #expect(log.entries == ["salary setting old=nil new=100.0 prior=false"])
    }

    @Test func priorOptionSendsANotificationBeforeTheChangeWithoutANewValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.prior, .old, .new]) }

        ada.salary = 200

        #expect(observer.entries == [
            "salary setting old=100.0 new=nil prior=true",
            "salary setting old=100.0 new=200.0 prior=false",
        ])
    }

    @Test func priorNotificationHappensBeforeTheValueChanges() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        var salariesSeen: [Double] = []
        observer.onChange = { _, _, object, _ in
            salariesSeen.append((object as? Employee)?.salary ?? -1)
        }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.prior]) }

        ada.salary = 200

        #expect(salariesSeen == [100, 200])
        #expect(observer.changes.map(\.isPrior) == [true, false])
    }

    @Test func priorWithoutOldCarriesNoValues() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.prior, .new]) }

        ada.salary = 200

        #expect(observer.entries == [
            "salary setting old=nil new=nil prior=true",
            "salary setting old=nil new=200.0 prior=false",
        ])
    }

    @Test func priorOldValueOfANilOptionalIsNil() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "age", options: [.prior, .old, .new]) }

        ada.age = 40

        #expect(observer.entries == [
            "age setting old=nil new=nil prior=true",
            "age setting old=nil new=40 prior=false",
        ])
    }

    @Test func priorForAnOrderedInsertionHasKindAndIndexesButNoValues() throws {
        let engineering = Department(name: "Engineering")
        let ada = makeAda()
        let observer = ChangeLog()
        try engineering.addObserver(observer, forKeyPath: "employees", options: [.prior, .old, .new])

        try engineering.mutableArrayValue(forKey: "employees").insert(ada, at: 0)

        #expect(observer.entries == [
            "employees insertion old=nil new=nil indexes=[0] prior=true",
            "employees insertion old=nil new=[Ada] indexes=[0] prior=false",
        ])
    }

    @Test func priorForAnOrderedRemovalCarriesTheRemovedObjects() throws {
        let engineering = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        engineering.employees = [ada, grace]
        let observer = ChangeLog()
        try engineering.addObserver(observer, forKeyPath: "employees", options: [.prior, .old, .new])

        try engineering.mutableArrayValue(forKey: "employees").remove(at: 1)

        #expect(observer.entries == [
            "employees removal old=[Grace] new=nil indexes=[1] prior=true",
            "employees removal old=[Grace] new=nil indexes=[1] prior=false",
        ])
    }

    @Test func priorForASetUnionNeverCarriesTheNewObjects() throws {
        let team = KVOTeam()
        let ada = makeAda()
        let observer = ChangeLog()
        try team.addObserver(observer, forKeyPath: "members", options: [.prior, .old, .new])

        try team.mutableSetValue(forKey: "members").insert(ada)

        #expect(observer.entries == [
            "members insertion old=nil new=nil prior=true",
            "members insertion old=nil new={Ada} prior=false",
        ])
    }

    @Test func allOptionsTogether() throws {
        let ada = makeAda()
        let observer = ChangeLog()

        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "firstName", options: [.initial, .prior, .old, .new]) }
        ada.firstName = "Augusta"

        #expect(observer.entries == [
            "firstName setting old=nil new=Ada prior=false",
            "firstName setting old=Ada new=nil prior=true",
            "firstName setting old=Ada new=Augusta prior=false",
        ])
    }

    @Test func optionRawValuesMatchCocoa() {
        #expect(KeyValueObservingOptions.new.rawValue == 0x01)
        #expect(KeyValueObservingOptions.old.rawValue == 0x02)
        #expect(KeyValueObservingOptions.initial.rawValue == 0x04)
        #expect(KeyValueObservingOptions.prior.rawValue == 0x08)
        #expect(KeyValueChange.Kind.setting.rawValue == 1)
        #expect(KeyValueChange.Kind.insertion.rawValue == 2)
        #expect(KeyValueChange.Kind.removal.rawValue == 3)
        #expect(KeyValueChange.Kind.replacement.rawValue == 4)
        #expect(KeyValueSetMutation.union.rawValue == 1)
        #expect(KeyValueSetMutation.minus.rawValue == 2)
        #expect(KeyValueSetMutation.intersect.rawValue == 3)
        #expect(KeyValueSetMutation.set.rawValue == 4)
    }
}
