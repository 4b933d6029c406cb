import Foundation
import Testing
import ModelObjects
import SampleModels

/// Observers that register, remove or change values while a notification is being delivered.
@Suite struct ReentrancyTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    // MARK: Registration during delivery

    @Test func observerAddedDuringDeliveryDoesNotReceiveTheChangeInProgress() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let adder = ChangeLog("adder", log: log)
        let added = ChangeLog("added", log: log)
        adder.onChange = { _, _, object, _ in
            #expect(throws: Never.self) { try object.addObserver(added, forKeyPath: "salary", options: [.new]) }
        }
        try ada.addObserver(adder, forKeyPath: "salary", options: [.new])

        ada.salary = 1
        adder.onChange = nil
        ada.salary = 2

        #expect(log.entries == [
            "adder: salary setting old=nil new=1.0 prior=false",
            "added: salary setting old=nil new=2.0 prior=false",
            "adder: salary setting old=nil new=2.0 prior=false",
        ])
        kvoKeepAlive(adder, added)
    }

    @Test func observerAddedDuringAPriorNotificationDoesNotReceiveTheAfterChange() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let adder = ChangeLog("adder", log: log)
        let added = ChangeLog("added", log: log)
        adder.onChange = { recorder, _, object, change in
            if change.isPrior {
                #expect(throws: Never.self) { try object.addObserver(added, forKeyPath: "salary", options: [.prior, .new]) }
                recorder.onChange = nil
            }
        }
        try ada.addObserver(adder, forKeyPath: "salary", options: [.prior, .new])

        ada.salary = 1

        #expect(log.entries == [
            "adder: salary setting old=nil new=nil prior=true",
            "adder: salary setting old=nil new=1.0 prior=false",
        ])
        kvoKeepAlive(adder, added)
    }

    @Test func observerAddedBetweenWillAndDidGetsNothingFromThatChange() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let early = ChangeLog("early", log: log)
        let late = ChangeLog("late", log: log)
        #expect(throws: Never.self) { try ada.addObserver(early, forKeyPath: "salary", options: [.old, .new]) }

        ada.willChangeValue(forKey: "salary")
        #expect(throws: Never.self) { try ada.addObserver(late, forKeyPath: "salary", options: [.old, .new]) }
        ada.didChangeValue(forKey: "salary")

        #expect(log.entries == ["early: salary setting old=100.0 new=100.0 prior=false"])
        kvoKeepAlive(early, late)
    }

    // MARK: Removal during delivery

    @Test func observerRemovedDuringDeliveryBeforeItsTurnIsNotCalled() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let victim = ChangeLog("victim", log: log)
        let remover = ChangeLog("remover", log: log)
        remover.onChange = { _, _, object, _ in
            try? object.removeObserver(victim, forKeyPath: "salary")
        }
        // The victim registers first, so it would be told last.
        #expect(throws: Never.self) { try ada.addObserver(victim, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try ada.addObserver(remover, forKeyPath: "salary", options: [.new]) }

        ada.salary = 1
        ada.salary = 2

        #expect(log.entries == [
            "remover: salary setting old=nil new=1.0 prior=false",
            "remover: salary setting old=nil new=2.0 prior=false",
        ])
        kvoKeepAlive(victim, remover)
    }

    @Test func observerRemovedDuringItsPriorNotificationGetsNoAfterChange() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        observer.onChange = { recorder, keyPath, object, change in
            if change.isPrior { try? object.removeObserver(recorder, forKeyPath: keyPath) }
        }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.prior, .new]) }

        ada.salary = 1

        #expect(observer.entries == ["salary setting old=nil new=nil prior=true"])
    }

    @Test func observerRemovedBetweenWillAndDidIsNotCalled() throws {
        let account = KVOAccount()
        let log = KVOEventLog()
        let kept = ChangeLog("kept", log: log)
        let removed = ChangeLog("removed", log: log)
        try account.addObserver(kept, forKeyPath: "balance", options: [.old, .new])
        try account.addObserver(removed, forKeyPath: "balance", options: [.old, .new])

        account.willChangeValue(forKey: "balance")
        account.balance = 5
        try account.removeObserver(removed, forKeyPath: "balance")
        account.didChangeValue(forKey: "balance")

        #expect(log.entries == ["kept: balance setting old=0 new=5 prior=false"])
        kvoKeepAlive(kept, removed)
    }

    @Test func onlyObserverRemovedBetweenWillAndDidIsNotCalled() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new])

        account.willChangeValue(forKey: "balance")
        account.balance = 5
        try account.removeObserver(observer, forKeyPath: "balance")
        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == [])
    }

    @Test func observerRemovingItselfDuringDeliveryIsNotCalledAgain() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let other = ChangeLog("other", log: log)
        let quitter = ChangeLog("quitter", log: log)
        quitter.onChange = { recorder, keyPath, object, _ in
            try? object.removeObserver(recorder, forKeyPath: keyPath)
        }
        #expect(throws: Never.self) { try ada.addObserver(other, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try ada.addObserver(quitter, forKeyPath: "salary", options: [.new]) }

        ada.salary = 1
        ada.salary = 2

        #expect(log.entries == [
            "quitter: salary setting old=nil new=1.0 prior=false",
            "other: salary setting old=nil new=1.0 prior=false",
            "other: salary setting old=nil new=2.0 prior=false",
        ])
        kvoKeepAlive(other, quitter)
    }

    @Test func tokenInvalidatedByItsOwnHandlerIsNotCalledAgain() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let holder = KVOHolder<KeyValueObservation>(nil)
        holder.object = try ada.observe("salary", options: [.new]) { _, change in
            log.append(kvoDescribe(keyPath: "salary", change: change))
            holder.object?.invalidate()
        }

        ada.salary = 1
        ada.salary = 2

        #expect(log.entries == ["salary setting old=nil new=1.0 prior=false"])
        #expect(holder.object?.isValid == false)
    }

    @Test func removingAKeyPathObservationDuringDeliveryOfItsIntermediateChange() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        ada.department = engineering
        let log = KVOEventLog()
        let victim = ChangeLog("victim", log: log)
        let remover = ChangeLog("remover", log: log)
        remover.onChange = { _, _, _, _ in
            try? ada.removeObserver(victim, forKeyPath: "department.name")
        }
        try ada.addObserver(victim, forKeyPath: "department.name", options: [.new])
        try engineering.addObserver(remover, forKeyPath: "name", options: [.new])

        engineering.name = "R&D"
        engineering.name = "Research"

        #expect(log.entries == [
            "remover: name setting old=nil new=R&D prior=false",
            "remover: name setting old=nil new=Research prior=false",
        ])
        remover.onChange = nil
        kvoKeepAlive(victim, remover)
    }

    // MARK: Changes made from inside an observer

    @Test func changeMadeByAnObserverIsDeliveredCompletelyBeforeTheOuterDeliveryContinues() throws {
        // Cocoa: MultipleChangeOnChangeObservers. The observer registered last is told first;
        // it sets the value again, which is delivered to both observers before the outer
        // delivery reaches the observer registered first.
        let ada = makeAda()
        ada.employeeID = 0
        let log = KVOEventLog()
        let second = ChangeLog("second", log: log)
        let first = ChangeLog("first", log: log)
        var trace: [String] = []
        second.onChange = { _, _, object, _ in
            trace.append(">> second \((object as? Employee)?.employeeID ?? -1)")
            trace.append("<< second")
        }
        first.onChange = { _, _, object, _ in
            let employee = object as? Employee
            trace.append(">> first \(employee?.employeeID ?? -1)")
            if employee?.employeeID != 2 { employee?.employeeID = 2 }
            trace.append("<< first")
        }
        #expect(throws: Never.self) { try ada.addObserver(second, forKeyPath: "employeeID", options: [.old, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(first, forKeyPath: "employeeID", options: [.old, .new]) }

        ada.employeeID = 1

        #expect(trace == [
            ">> first 1",
            ">> first 2",
            "<< first",
            ">> second 2",
            "<< second",
            "<< first",
            ">> second 2",
            "<< second",
        ])
        // Each observer's new value is read when its notification goes out (as Cocoa's
        // didChange reads it per observance), so the outer one for `second` shows 2.
        #expect(log.entries == [
            "first: employeeID setting old=0 new=1 prior=false",
            "first: employeeID setting old=1 new=2 prior=false",
            "second: employeeID setting old=1 new=2 prior=false",
            "second: employeeID setting old=0 new=2 prior=false",
        ])
        kvoKeepAlive(first, second)
    }

    @Test func changeMadeByTheLastObserverToBeToldIsDeliveredAfterIt() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let first = ChangeLog("first", log: log)
        let second = ChangeLog("second", log: log)
        first.onChange = { recorder, _, object, _ in
            recorder.onChange = nil
            (object as? Employee)?.salary = 300
        }
        #expect(throws: Never.self) { try ada.addObserver(first, forKeyPath: "salary", options: [.old, .new]) }
        #expect(throws: Never.self) { try ada.addObserver(second, forKeyPath: "salary", options: [.old, .new]) }

        ada.salary = 200

        #expect(log.entries == [
            "second: salary setting old=100.0 new=200.0 prior=false",
            "first: salary setting old=100.0 new=200.0 prior=false",
            "second: salary setting old=200.0 new=300.0 prior=false",
            "first: salary setting old=200.0 new=300.0 prior=false",
        ])
        #expect(ada.salary == 300)
        kvoKeepAlive(first, second)
    }

    @Test func changeWithPriorFromInsideAnObserverNestsBrackets() throws {
        // Cocoa: AutomaticDependantKeyChangeObserver, with Employee's firstName and fullName.
        let ada = makeAda()
        let observer = ChangeLog()
        var depth = 0
        var trace: [String] = []
        observer.onChange = { _, keyPath, object, change in
            guard let employee = object as? Employee else { return }
            depth += 1
            defer { depth -= 1 }
            let value = (try? employee.value(forKey: keyPath)).map { kvoDescribe($0) } ?? "?"
            if change.isPrior {
                trace.append("\(depth) will \(keyPath) \(value)")
                return
            }
            if keyPath == "firstName", employee.firstName != "Augusta" {
                employee.firstName = "Augusta"
            }
            let after = (try? employee.value(forKey: keyPath)).map { kvoDescribe($0) } ?? "?"
            trace.append("\(depth) did \(keyPath) \(after)")
        }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "firstName", options: [.prior]) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.prior]) }

        ada.firstName = "Countess"

        #expect(trace == [
            "1 will firstName Ada",
            "1 will fullName Ada Lovelace",
            "1 did fullName Countess Lovelace",
            "2 will firstName Countess",
            "2 will fullName Countess Lovelace",
            "2 did fullName Augusta Lovelace",
            "2 did firstName Augusta",
            "1 did firstName Augusta",
        ])
    }

    @Test func observerChangingAnotherKeyDuringDeliveryNotifiesThatKeysObservers() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let salaryObserver = ChangeLog("salary", log: log)
        let idObserver = ChangeLog("id", log: log)
        salaryObserver.onChange = { _, _, object, _ in
            (object as? Employee)?.employeeID += 1
        }
        #expect(throws: Never.self) { try ada.addObserver(salaryObserver, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try ada.addObserver(idObserver, forKeyPath: "employeeID", options: [.old, .new]) }

        ada.salary = 1

        #expect(log.entries == [
            "salary: salary setting old=nil new=1.0 prior=false",
            "id: employeeID setting old=1 new=2 prior=false",
        ])
        kvoKeepAlive(salaryObserver, idObserver)
    }
}
