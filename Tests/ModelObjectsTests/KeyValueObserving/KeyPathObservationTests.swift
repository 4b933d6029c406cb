import Foundation
import Testing
import ModelObjects
import SampleModels

/// Observing key paths through to-one relationships (`department.name`,
/// `manager.department.name`): notifications come to the root with the whole path's old and new
/// values, and follow the path when an intermediate object is replaced.
@Suite struct KeyPathObservationTests {
    private let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    private let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
    private let engineering = Department(name: "Engineering")
    private let sales = Department(name: "Sales")

    @Test func changeOfTheLastKeyIsReportedToTheRootWithTheFullPath() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new], context: KVOContext.first) }

        engineering.name = "R&D"

        #expect(observer.entries == ["department.name setting old=Engineering new=R&D prior=false"])
        #expect(observer.objects == [ObjectIdentifier(ada)])
        #expect(observer.contexts == [KVOContext.first])
    }

    @Test func replacingTheIntermediateIsOneNotificationWithOldAndNewOfTheWholePath() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = sales

        #expect(observer.entries == ["department.name setting old=Engineering new=Sales prior=false"])
    }

    @Test func replacedIntermediateNoLongerReportsAndTheNewOneDoes() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = sales
        engineering.name = "Old Engineering"
        sales.name = "Sales & Marketing"

        #expect(observer.entries == [
            "department.name setting old=Engineering new=Sales prior=false",
            "department.name setting old=Sales new=Sales & Marketing prior=false",
        ])
    }

    @Test func replacingWithAnIntermediateOfEqualValueStillNotifies() throws {
        ada.department = engineering
        let twin = Department(name: "Engineering")
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = twin
        ada.department = twin

        #expect(observer.entries == [
            "department.name setting old=Engineering new=Engineering prior=false",
            "department.name setting old=Engineering new=Engineering prior=false",
        ])
    }

    @Test func nilIntermediateGivesNilAtEitherEnd() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = nil
        engineering.name = "Detached"
        ada.department = sales

        #expect(observer.entries == [
            "department.name setting old=Engineering new=nil prior=false",
            "department.name setting old=nil new=Sales prior=false",
        ])
    }

    @Test func observationRegisteredThroughANilIntermediateStartsReportingOnceItIsSet() throws {
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        engineering.name = "Unrelated"
        ada.department = engineering
        engineering.name = "R&D"

        #expect(observer.entries == [
            "department.name setting old=nil new=Unrelated prior=false",
            "department.name setting old=Unrelated new=R&D prior=false",
        ])
    }

    @Test func priorNotificationOfAKeyPathCarriesTheOldValueOfTheWholePath() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.prior, .old, .new]) }

        ada.department = sales

        #expect(observer.entries == [
            "department.name setting old=Engineering new=nil prior=true",
            "department.name setting old=Engineering new=Sales prior=false",
        ])
    }

    @Test func sharedIntermediateNotifiesEveryRoot() throws {
        ada.department = engineering
        grace.department = engineering
        let log = KVOEventLog()
        let adaObserver = ChangeLog("ada", log: log)
        let graceObserver = ChangeLog("grace", log: log)
        #expect(throws: Never.self) { try ada.addObserver(adaObserver, forKeyPath: "department.name", options: [.new]) }
        #expect(throws: Never.self) { try grace.addObserver(graceObserver, forKeyPath: "department.name", options: [.new]) }

        engineering.name = "R&D"

        #expect(log.entries == [
            "grace: department.name setting old=nil new=R&D prior=false",
            "ada: department.name setting old=nil new=R&D prior=false",
        ])
        #expect(adaObserver.objects == [ObjectIdentifier(ada)])
        #expect(graceObserver.objects == [ObjectIdentifier(grace)])
    }

    @Test func otherKeysOfTheIntermediateDoNotNotify() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.new]) }

        engineering.budget = 10
        engineering.employees = [grace]

        #expect(observer.entries == [])
    }

    // MARK: Three levels

    @Test func threeLevelPathReportsChangesOfTheLeaf() throws {
        grace.department = engineering
        ada.manager = grace
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "manager.department.name", options: [.old, .new]) }

        engineering.name = "R&D"

        #expect(observer.entries == ["manager.department.name setting old=Engineering new=R&D prior=false"])
        #expect(observer.objects == [ObjectIdentifier(ada)])
    }

    @Test func threeLevelPathFollowsAReplacedMiddleObject() throws {
        grace.department = engineering
        ada.manager = grace
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "manager.department.name", options: [.old, .new]) }

        grace.department = sales
        engineering.name = "Old Engineering"
        sales.name = "New Sales"

        #expect(observer.entries == [
            "manager.department.name setting old=Engineering new=Sales prior=false",
            "manager.department.name setting old=Sales new=New Sales prior=false",
        ])
    }

    @Test func threeLevelPathFollowsAReplacedFirstObject() throws {
        grace.department = engineering
        let alan = Employee(firstName: "Alan", lastName: "Turing", employeeID: 3, salary: 300)
        alan.department = sales
        ada.manager = grace
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "manager.department.name", options: [.old, .new]) }

        ada.manager = alan
        grace.department = Department(name: "Ignored")
        engineering.name = "Ignored too"
        sales.name = "Sales 2"
        alan.department = engineering

        #expect(observer.entries == [
            "manager.department.name setting old=Engineering new=Sales prior=false",
            "manager.department.name setting old=Sales new=Sales 2 prior=false",
            "manager.department.name setting old=Sales 2 new=Ignored too prior=false",
        ])
    }

    @Test func threeLevelPathWithNilIntermediates() throws {
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "manager.department.name", options: [.initial, .old, .new]) }

        ada.manager = grace
        grace.department = engineering
        ada.manager = nil
        grace.department = sales

        #expect(observer.entries == [
            "manager.department.name setting old=nil new=nil prior=false",
            "manager.department.name setting old=nil new=nil prior=false",
            "manager.department.name setting old=nil new=Engineering prior=false",
            "manager.department.name setting old=Engineering new=nil prior=false",
        ])
    }

    @Test func observingTheRootKeyAndThePathTogether() throws {
        ada.department = engineering
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department", options: [.old, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = sales

        #expect(observer.entries == [
            "department.name setting old=Engineering new=Sales prior=false",
            "department setting old=Engineering new=Sales prior=false",
        ])
    }

    @Test func registrationOrderIsKeptAfterAnIntermediateIsReplaced() throws {
        // Prior notifications go out in registration order and after-change ones in reverse
        // registration order, also for later changes: re-attaching a key path observation to
        // a new intermediate object must not move it behind observations registered after it.
        ada.department = engineering
        let log = KVOEventLog()
        let path = ChangeLog("path", log: log)
        let key = ChangeLog("key", log: log)
        #expect(throws: Never.self) { try ada.addObserver(path, forKeyPath: "department.name", options: [.prior]) }
        #expect(throws: Never.self) { try ada.addObserver(key, forKeyPath: "department", options: [.prior]) }

        ada.department = sales
        ada.department = engineering

        let oneChange = [
            "path: department.name setting old=nil new=nil prior=true",
            "key: department setting old=nil new=nil prior=true",
            "key: department setting old=nil new=nil prior=false",
            "path: department.name setting old=nil new=nil prior=false",
        ]
        #expect(log.entries == oneChange + oneChange)
        kvoKeepAlive(path, key)
    }

    @Test func setValueForKeyPathOnTheRootReachesTheCurrentIntermediate() throws {
        ada.department = engineering
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new])
        ada.department = sales

        try ada.setValue("Direct Sales", forKeyPath: "department.name")

        #expect(observer.entries == [
            "department.name setting old=Engineering new=Sales prior=false",
            "department.name setting old=Sales new=Direct Sales prior=false",
        ])
        #expect(engineering.name == "Engineering")
    }

    @Test func handlerObservationOfAKeyPathFollowsReplacements() throws {
        ada.department = engineering
        let log = KVOEventLog()
        let token = try ada.observe("department.name", options: [.old, .new], changeHandler: log.handler(for: "department.name"))
        defer { token.invalidate() }

        ada.department = sales
        engineering.name = "Gone"
        sales.name = "Here"

        #expect(log.entries == [
            "department.name setting old=Engineering new=Sales prior=false",
            "department.name setting old=Sales new=Here prior=false",
        ])
    }
}
