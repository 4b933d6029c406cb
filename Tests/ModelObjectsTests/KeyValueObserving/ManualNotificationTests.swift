import Foundation
import Testing
import ModelObjects
import SampleModels

/// willChangeValue(forKey:)/didChangeValue(forKey:) called by hand: pairing, nesting and
/// registrations that happen between them.
@Suite struct ManualNotificationTests {
    @Test func manualPairDeliversOldValueFromWillAndNewValueFromDid() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }

        account.deposit(25)
        account.deposit(5)

        #expect(observer.entries == [
            "balance setting old=0 new=25 prior=false",
            "balance setting old=25 new=30 prior=false",
        ])
    }

    @Test func manualPairSendsThePriorNotificationAtWill() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.prior, .old, .new]) }

        account.willChangeValue(forKey: "balance")
        #expect(observer.entries == ["balance setting old=0 new=nil prior=true"])
        account.balance = 7
        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == [
            "balance setting old=0 new=nil prior=true",
            "balance setting old=0 new=7 prior=false",
        ])
    }

    @Test func manualPairWithoutAChangeStillNotifies() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }

        ada.willChangeValue(forKey: "salary")
        ada.didChangeValue(forKey: "salary")

        #expect(observer.entries == ["salary setting old=100.0 new=100.0 prior=false"])
    }

    @Test func nestedWillWillDidDidForOneKeyDeliversTwoNotificationsInnerFirst() throws {
        let account = KVOAccount()
        account.balance = 1
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }

        account.willChangeValue(forKey: "balance")
        account.balance = 2
        account.willChangeValue(forKey: "balance")
        account.balance = 3
        account.didChangeValue(forKey: "balance")
        account.didChangeValue(forKey: "balance")

        // The first did carries the inner will's old value; both read the current new value.
        #expect(observer.entries == [
            "balance setting old=2 new=3 prior=false",
            "balance setting old=1 new=3 prior=false",
        ])
    }

    @Test func nestedWillWillDidDidWithPriorSendsTwoPriorNotifications() throws {
        let account = KVOAccount()
        account.balance = 1
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.prior, .old, .new]) }

        account.willChangeValue(forKey: "balance")
        account.balance = 2
        account.willChangeValue(forKey: "balance")
        account.balance = 3
        account.didChangeValue(forKey: "balance")
        account.balance = 4
        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == [
            "balance setting old=1 new=nil prior=true",
            "balance setting old=2 new=nil prior=true",
            "balance setting old=2 new=3 prior=false",
            "balance setting old=1 new=4 prior=false",
        ])
    }

    @Test func observerAddedBetweenNestedWillsHearsOnlyTheInnerPair() throws {
        let account = KVOAccount()
        account.balance = 1
        let log = KVOEventLog()
        let early = ChangeLog("early", log: log)
        let late = ChangeLog("late", log: log)
        #expect(throws: Never.self) { try account.addObserver(early, forKeyPath: "balance", options: [.old, .new]) }

        account.willChangeValue(forKey: "balance")
        account.balance = 2
        #expect(throws: Never.self) { try account.addObserver(late, forKeyPath: "balance", options: [.old, .new]) }
        account.willChangeValue(forKey: "balance")
        account.balance = 3
        account.didChangeValue(forKey: "balance")
        account.didChangeValue(forKey: "balance")

        #expect(log.entries == [
            "late: balance setting old=2 new=3 prior=false",
            "early: balance setting old=2 new=3 prior=false",
            "early: balance setting old=1 new=3 prior=false",
        ])
        kvoKeepAlive(early, late)
    }

    @Test func nestedPairsForTwoKeysAreDeliveredPairByPair() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.prior, .old, .new]) }
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "score", options: [.prior, .old, .new]) }

        account.willChangeValue(forKey: "balance")
        account.willChangeValue(forKey: "score")
        account.balance = 10
        account.score = 20
        account.didChangeValue(forKey: "score")
        account.didChangeValue(forKey: "balance")

        // The automatic score set inside the manual score pair notifies too, nested.
        #expect(observer.entries == [
            "balance setting old=0 new=nil prior=true",
            "score setting old=0 new=nil prior=true",
            "score setting old=0 new=nil prior=true",
            "score setting old=0 new=20 prior=false",
            "score setting old=0 new=20 prior=false",
            "balance setting old=0 new=10 prior=false",
        ])
    }

    @Test func interleavedPairsForTwoKeysMatchByKey() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "name", options: [.old, .new]) }

        account.willChangeValue(forKey: "balance")
        account.willChangeValue(forKey: "name")
        account.balance = 3
        account.didChangeValue(forKey: "balance")
        account.didChangeValue(forKey: "name")

        #expect(observer.entries == [
            "balance setting old=0 new=3 prior=false",
            "name setting old= new= prior=false",
        ])
    }

    @Test func setterNotifyingManuallyWhileAutomaticIsOnNotifiesTwice() throws {
        let account = KVOAccount()
        account.score = 1
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "score", options: [.old, .new]) }

        account.setScoreNotifyingManually(2)

        #expect(observer.entries == [
            "score setting old=1 new=2 prior=false",
            "score setting old=1 new=2 prior=false",
        ])
    }

    @Test func setterNotifyingManuallyWhileAutomaticIsOnSendsTwoPriorNotifications() throws {
        let account = KVOAccount()
        account.score = 1
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "score", options: [.prior, .old]) }

        account.setScoreNotifyingManually(2)

        #expect(observer.entries == [
            "score setting old=1 new=nil prior=true",
            "score setting old=1 new=nil prior=true",
            "score setting old=1 new=nil prior=false",
            "score setting old=1 new=nil prior=false",
        ])
    }

    @Test func didWhoseWillCameBeforeAnyRegistrationDeliversNothing() throws {
        let account = KVOAccount()
        let observer = ChangeLog()

        account.willChangeValue(forKey: "balance")
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }
        account.balance = 5
        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == [])

        // The next complete pair is delivered normally.
        account.deposit(1)
        #expect(observer.entries == ["balance setting old=5 new=6 prior=false"])
    }

    @Test func didWhoseWillCameBeforeThisRegistrationDeliversNothingWhileOthersObserve() throws {
        let account = KVOAccount()
        let log = KVOEventLog()
        let early = ChangeLog("early", log: log)
        let late = ChangeLog("late", log: log)
        #expect(throws: Never.self) { try account.addObserver(early, forKeyPath: "balance", options: [.old, .new]) }

        account.willChangeValue(forKey: "balance")
        #expect(throws: Never.self) { try account.addObserver(late, forKeyPath: "balance", options: [.old, .new]) }
        account.balance = 5
        account.didChangeValue(forKey: "balance")

        #expect(log.entries == ["early: balance setting old=0 new=5 prior=false"])
        kvoKeepAlive(early, late)
    }

    @Test func strayWillBeforeRegistrationDoesNotDisturbLaterPairs() throws {
        let account = KVOAccount()
        let other = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(other, forKeyPath: "name") }
        let observer = ChangeLog()

        account.willChangeValue(forKey: "balance")
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }
        account.deposit(3)
        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == ["balance setting old=0 new=3 prior=false"])
        #expect(other.entries == [])
    }

    @Test func unmatchedDidDeliversNothing() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }

        account.didChangeValue(forKey: "balance")

        #expect(observer.entries == [])
    }

    @Test func manualNotificationOfAKeyNotifiesItsDependents() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "fullName", options: [.old, .new]) }

        ada.willChangeValue(forKey: "lastName")
        ada.didChangeValue(forKey: "lastName")

        #expect(observer.entries == ["fullName setting old=Ada Lovelace new=Ada Lovelace prior=false"])
    }
}
