import Foundation
import Testing
import ModelObjects
import SampleModels

/// Who keeps whom alive: observers are held weakly, tokens end their observation when released
/// or invalidated, and no retain cycle forms among observed objects, observers and tokens.
@Suite struct LifetimeTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    @Test func registeringDoesNotRetainTheObserver() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        weak var weakObserver: ChangeLog?
        do {
            let observer = ChangeLog(log: log)
            #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new]) }
            weakObserver = observer
        }

        #expect(weakObserver == nil)
        ada.salary = 1
        #expect(log.entries == [])
    }

    @Test func deallocatedObserverIsNeverCalledAndOthersStillAre() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let survivor = ChangeLog("survivor", log: log)
        #expect(throws: Never.self) { try ada.addObserver(survivor, forKeyPath: "salary", options: [.new]) }
        weak var weakObserver: ChangeLog?
        do {
            let doomed = ChangeLog("doomed", log: log)
            #expect(throws: Never.self) { try ada.addObserver(doomed, forKeyPath: "salary", options: [.new]) }
            #expect(throws: Never.self) { try ada.addObserver(doomed, forKeyPath: "fullName", options: [.new]) }
            weakObserver = doomed
        }
        #expect(weakObserver == nil)

        ada.salary = 1
        ada.firstName = "Augusta"
        ada.salary = 2

        #expect(log.entries == [
            "survivor: salary setting old=nil new=1.0 prior=false",
            "survivor: salary setting old=nil new=2.0 prior=false",
        ])
        kvoKeepAlive(survivor)
    }

    @Test func deallocatedObserverOfAKeyPathIsNeverCalled() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        ada.department = engineering
        let log = KVOEventLog()
        do {
            let doomed = ChangeLog("doomed", log: log)
            #expect(throws: Never.self) { try ada.addObserver(doomed, forKeyPath: "department.name", options: [.new]) }
        }

        engineering.name = "R&D"
        ada.department = Department(name: "Sales")
        ada.department?.name = "Sales 2"

        #expect(log.entries == [])
    }

    @Test func observerDeallocatedDuringDeliveryByAnEarlierObserverIsNotCalled() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let holder = KVOHolder<ChangeLog>(ChangeLog("victim", log: log))
        weak let weakVictim = holder.object
        // The victim registers first, so it would be told last.
        if let victim = holder.object {
            #expect(throws: Never.self) { try ada.addObserver(victim, forKeyPath: "salary", options: [.new]) }
        }
        let releaser = ChangeLog("releaser", log: log)
        releaser.onChange = { _, _, _, _ in holder.release() }
        #expect(throws: Never.self) { try ada.addObserver(releaser, forKeyPath: "salary", options: [.new]) }

        ada.salary = 1
        ada.salary = 2

        #expect(weakVictim == nil)
        #expect(log.entries == [
            "releaser: salary setting old=nil new=1.0 prior=false",
            "releaser: salary setting old=nil new=2.0 prior=false",
        ])
        kvoKeepAlive(releaser)
    }

    @Test func releasingTheTokenEndsTheObservation() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        var token: KeyValueObservation? = try ada.observe("salary", options: [.new], changeHandler: log.handler(for: "salary"))
        weak let weakToken = token

        ada.salary = 1
        token = nil
        ada.salary = 2

        #expect(weakToken == nil)
        #expect(log.entries == ["salary setting old=nil new=1.0 prior=false"])
    }

    @Test func invalidatingTheTokenEndsTheObservation() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let token = try ada.observe("salary", options: [.new], changeHandler: log.handler(for: "salary"))

        #expect(token.isValid)
        ada.salary = 1
        token.invalidate()
        ada.salary = 2
        token.invalidate()

        #expect(token.isValid == false)
        #expect(log.entries == ["salary setting old=nil new=1.0 prior=false"])
    }

    @Test func invalidatingAKeyPathTokenStopsIntermediateNotifications() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        ada.department = engineering
        let log = KVOEventLog()
        let token = try ada.observe("department.name", options: [.new], changeHandler: log.handler(for: "department.name"))

        token.invalidate()
        engineering.name = "R&D"
        ada.department = nil

        #expect(log.entries == [])
    }

    @Test func releasingATypedTokenEndsTheObservation() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Double>()
        var token: KeyValueObservation? = try ada.observe(\.salary, options: [.new]) { employee, change in
            recorded.append(change, of: employee)
        }

        ada.salary = 1
        token = nil
        ada.salary = 2

        #expect(token == nil)
        #expect(recorded.changes.map(\.newValue) == [1])
    }

    @Test func noRetainCycleAmongObjectObserverAndToken() throws {
        weak var weakEmployee: Employee?
        weak var weakObserver: ChangeLog?
        weak var weakToken: KeyValueObservation?
        let log = KVOEventLog()
        do {
            let ada = makeAda()
            let observer = ChangeLog(log: log)
            #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.old, .new]) }
            let token = try ada.observe("salary", options: [.new], changeHandler: log.handler(for: "salary"))
            weakEmployee = ada
            weakObserver = observer
            weakToken = token
            ada.salary = 1
            ada.firstName = "Augusta"
            #expect(log.entries.count == 2)
        }

        #expect(weakEmployee == nil)
        #expect(weakObserver == nil)
        #expect(weakToken == nil)
    }

    @Test func noRetainCycleWhenTheHandlerUsesItsObjectArgument() throws {
        weak var weakEmployee: Employee?
        weak var weakToken: KeyValueObservation?
        var salaries: [Double] = []
        do {
            let ada = makeAda()
            let token = try ada.observe("salary") { object, _ in
                salaries.append((object as? Employee)?.salary ?? -1)
            }
            weakEmployee = ada
            weakToken = token
            ada.salary = 5
            withExtendedLifetime(token) {}
        }

        #expect(salaries == [5])
        #expect(weakEmployee == nil)
        #expect(weakToken == nil)
    }

    @Test func noRetainCycleThroughKeyPathObservations() throws {
        weak var weakEmployee: Employee?
        weak var weakDepartment: Department?
        weak var weakObserver: ChangeLog?
        let log = KVOEventLog()
        do {
            let ada = makeAda()
            let engineering = Department(name: "Engineering")
            ada.department = engineering
            engineering.employees = [ada]
            let observer = ChangeLog(log: log)
            #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.new]) }
            #expect(throws: Never.self) { try engineering.addObserver(observer, forKeyPath: "totalSalary", options: [.new]) }
            engineering.name = "R&D"
            ada.salary = 7
            weakEmployee = ada
            weakDepartment = engineering
            weakObserver = observer
            // Break the model's own cycle (department <-> employee) so only KVO could leak.
            engineering.employees = []
        }

        #expect(log.entries == [
            "department.name setting old=nil new=R&D prior=false",
            "totalSalary setting old=nil new=7.0 prior=false",
            "totalSalary setting old=nil new=0.0 prior=false",
        ])
        #expect(weakEmployee == nil)
        #expect(weakDepartment == nil)
        #expect(weakObserver == nil)
    }

    @Test func observedObjectDeinitRunsWhileObserved() throws {
        var deinitCount = 0
        let observer = ChangeLog()
        do {
            let probe = KVODeinitProbe()
            probe.onDeinit = { deinitCount += 1 }
            #expect(throws: Never.self) { try probe.addObserver(observer, forKeyPath: "value", options: [.new]) }
            probe.value = 1
        }

        #expect(deinitCount == 1)
        #expect(observer.entries == ["value setting old=nil new=1 prior=false"])
    }

    @Test func tokenOutlivingItsObjectIsHarmless() throws {
        let log = KVOEventLog()
        var token: KeyValueObservation?
        weak var weakProbe: KVODeinitProbe?
        do {
            let probe = KVODeinitProbe()
            token = try probe.observe("value", options: [.new], changeHandler: log.handler(for: "value"))
            probe.value = 3
            weakProbe = probe
        }

        #expect(weakProbe == nil)
        #expect(token?.isValid == false)
        token?.invalidate()
        token = nil
        #expect(log.entries == ["value setting old=nil new=3 prior=false"])
    }

    @Test func intermediateObjectDeallocatedWhileObservedIsHarmless() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        weak var weakDepartment: Department?
        do {
            let temporary = Department(name: "Temporary")
            ada.department = temporary
            weakDepartment = temporary
        }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new]) }

        ada.department = nil
        #expect(weakDepartment == nil)
        let sales = Department(name: "Sales")
        ada.department = sales
        sales.name = "Sales 2"

        #expect(observer.entries == [
            "department.name setting old=Temporary new=nil prior=false",
            "department.name setting old=nil new=Sales prior=false",
            "department.name setting old=Sales new=Sales 2 prior=false",
        ])
    }

    @Test func removingAnObserverAfterItsObjectDiedIsHarmless() throws {
        let observer = ChangeLog()
        let ada = makeAda()
        do {
            let probe = KVODeinitProbe()
            try probe.addObserver(observer, forKeyPath: "value")
        }
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new])

        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 3

        #expect(observer.entries == [])
    }
}
