import Foundation
import Testing
import ModelObjects
import SampleModels

/// Adding and removing observers: who is told, with which key path, object and context.
@Suite struct RegistrationTests {
    @Test func registeredObserverReceivesKeyPathObjectAndContext() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new], context: KVOContext.first) }

        ada.salary = 120

        #expect(observer.entries == ["salary setting old=100.0 new=120.0 prior=false"])
        #expect(observer.objects == [ObjectIdentifier(ada)])
        #expect(observer.contexts == [KVOContext.first])
    }

    @Test func observerIsNotToldAboutOtherKeys() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new]) }

        ada.employeeID = 2
        ada.age = 36
        ada.hasDriversLicense = true

        #expect(observer.entries == [])
    }

    @Test func nilContextIsDeliveredAsNil() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "employeeID") }

        ada.employeeID = 7

        #expect(observer.entries == ["employeeID setting old=nil new=nil prior=false"])
        #expect(observer.contexts == [nil])
    }

    @Test func sameObserverWithTwoContextsIsNotifiedOncePerRegistration() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old], context: KVOContext.second) }

        ada.salary = 150

        // After-change notifications go out in reverse registration order.
        #expect(observer.entries == [
            "salary setting old=100.0 new=nil prior=false",
            "salary setting old=nil new=150.0 prior=false",
        ])
        #expect(observer.contexts == [KVOContext.second, KVOContext.first])
    }

    @Test func identicalRegistrationsAreEachNotified() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first) }
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first) }

        ada.salary = 150

        #expect(observer.entries == [
            "salary setting old=nil new=150.0 prior=false",
            "salary setting old=nil new=150.0 prior=false",
        ])
    }

    @Test func severalObserversAreNotifiedInReverseRegistrationOrder() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let log = KVOEventLog()
        let first = ChangeLog("first", log: log)
        let second = ChangeLog("second", log: log)
        let third = ChangeLog("third", log: log)
        #expect(throws: Never.self) { try ada.addObserver(first, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try ada.addObserver(second, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try ada.addObserver(third, forKeyPath: "salary", options: [.new]) }

        ada.salary = 1

        #expect(log.entries == [
            "third: salary setting old=nil new=1.0 prior=false",
            "second: salary setting old=nil new=1.0 prior=false",
            "first: salary setting old=nil new=1.0 prior=false",
        ])
        kvoKeepAlive(first, second, third)
    }

    @Test func removedObserverIsNoLongerNotified() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new])
        ada.salary = 110

        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 120

        #expect(observer.entries == ["salary setting old=nil new=110.0 prior=false"])
    }

    @Test func removingOneObserverLeavesTheOthers() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let log = KVOEventLog()
        let kept = ChangeLog("kept", log: log)
        let removed = ChangeLog("removed", log: log)
        try ada.addObserver(kept, forKeyPath: "salary", options: [.new])
        try ada.addObserver(removed, forKeyPath: "salary", options: [.new])

        try ada.removeObserver(removed, forKeyPath: "salary")
        ada.salary = 5

        #expect(log.entries == ["kept: salary setting old=nil new=5.0 prior=false"])
        kvoKeepAlive(kept, removed)
    }

    @Test func removingOneKeyPathLeavesTheObserversOtherKeyPaths() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new])
        try ada.addObserver(observer, forKeyPath: "employeeID", options: [.new])

        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 5
        ada.employeeID = 9

        #expect(observer.entries == ["employeeID setting old=nil new=9 prior=false"])
    }

    @Test func observerCanRegisterAgainAfterRemoval() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new])
        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 1

        try ada.addObserver(observer, forKeyPath: "salary", options: [.new])
        ada.salary = 2

        #expect(observer.entries == ["salary setting old=nil new=2.0 prior=false"])
    }

    @Test func removeWithoutContextRemovesTheMostRecentRegistration() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", context: KVOContext.first)
        try ada.addObserver(observer, forKeyPath: "salary", context: KVOContext.second)

        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 1

        #expect(observer.contexts == [KVOContext.first])
        #expect(observer.entries.count == 1)
    }

    @Test func observersOfDifferentObjectsAreIndependent() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        let adaObserver = ChangeLog()
        let graceObserver = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(adaObserver, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try grace.addObserver(graceObserver, forKeyPath: "salary", options: [.new]) }

        grace.salary = 210

        #expect(adaObserver.entries == [])
        #expect(graceObserver.entries == ["salary setting old=nil new=210.0 prior=false"])
        #expect(graceObserver.objects == [ObjectIdentifier(grace)])
    }

    @Test func oneObserverOfSeveralObjectsIsToldWhichObjectChanged() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new]) }
        #expect(throws: Never.self) { try grace.addObserver(observer, forKeyPath: "salary", options: [.new]) }

        grace.salary = 1
        ada.salary = 2

        #expect(observer.entries == [
            "salary setting old=nil new=1.0 prior=false",
            "salary setting old=nil new=2.0 prior=false",
        ])
        #expect(observer.objects == [ObjectIdentifier(grace), ObjectIdentifier(ada)])
    }

    @Test func removingAKeyPathObserverStopsNotificationsFromIntermediateObjects() throws {
        let engineering = Department(name: "Engineering")
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        ada.department = engineering
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "department.name", options: [.new])

        try ada.removeObserver(observer, forKeyPath: "department.name")
        engineering.name = "R&D"
        ada.department = Department(name: "Sales")

        #expect(observer.entries == [])
    }

    @Test func handlerObservationReceivesTheObservedObject() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let log = KVOEventLog()
        var receivedObjects: [ObjectIdentifier] = []
        let token = try ada.observe("salary", options: [.old, .new]) { object, change in
            receivedObjects.append(ObjectIdentifier(object))
            log.append(kvoDescribe(keyPath: "salary", change: change))
        }
        defer { token.invalidate() }

        ada.salary = 130

        #expect(log.entries == ["salary setting old=100.0 new=130.0 prior=false"])
        #expect(receivedObjects == [ObjectIdentifier(ada)])
        #expect(token.isValid)
    }

    @Test func observerOfASubclassInstanceIsNotified() throws {
        let formal = KVOFormalEmployee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try formal.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }
        #expect(throws: Never.self) { try formal.addObserver(observer, forKeyPath: "title", options: [.old, .new]) }

        formal.salary = 101
        formal.title = "Countess"

        #expect(observer.entries == [
            "salary setting old=100.0 new=101.0 prior=false",
            "title setting old= new=Countess prior=false",
        ])
    }
}
