import Foundation
import Testing
import ModelObjects
import SampleModels

/// Changes made through typed properties and key-value coding notify by themselves, unless the
/// class turns automatic notification off for the key.
@Suite struct AutomaticNotificationTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    @Test func typedSetNotifies() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }

        ada.salary = 150

        #expect(observer.entries == ["salary setting old=100.0 new=150.0 prior=false"])
    }

    @Test func typedCompoundAssignmentNotifiesOnce() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }

        ada.salary += 25

        #expect(observer.entries == ["salary setting old=100.0 new=125.0 prior=false"])
    }

    @Test func typedSetOfARelationshipNotifies() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "department", options: [.old, .new]) }

        ada.department = engineering
        ada.department = nil

        #expect(observer.entries == [
            "department setting old=nil new=Engineering prior=false",
            "department setting old=Engineering new=nil prior=false",
        ])
    }

    @Test func settingTheSameValueStillNotifies() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }

        ada.salary = 100
        try? ada.setValue(100.0, forKey: "salary")

        #expect(observer.entries == [
            "salary setting old=100.0 new=100.0 prior=false",
            "salary setting old=100.0 new=100.0 prior=false",
        ])
    }

    @Test func setValueForKeyNotifiesWithTheConvertedValue() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new])

        try ada.setValue(52_000, forKey: "salary")

        #expect(observer.entries == ["salary setting old=100.0 new=52000.0 prior=false"])
        #expect(observer.changes.first?.newValue as? Double == 52_000)
    }

    @Test func setValueForKeyOfNilOnAnOptionalNotifies() throws {
        let ada = makeAda()
        ada.age = 30
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "age", options: [.old, .new])

        try ada.setValue(nil, forKey: "age")

        #expect(observer.entries == ["age setting old=30 new=nil prior=false"])
    }

    @Test func setNilValueForKeyMappingNotifiesOnce() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new])

        // Employee maps nil for salary to 0 with a typed set.
        try ada.setValue(nil, forKey: "salary")

        #expect(observer.entries == ["salary setting old=100.0 new=0.0 prior=false"])
    }

    @Test func failedSetValueForKeyDoesNotNotify() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new]) }

        #expect(throws: KeyValueCodingError.self) {
            try ada.setValue("a lot", forKey: "salary")
        }

        #expect(observer.entries == [])
        #expect(ada.salary == 100)
    }

    @Test func setValueForKeyPathNotifiesObserversOfTheLastObjectAndOfThePath() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        ada.department = engineering
        let log = KVOEventLog()
        let departmentObserver = ChangeLog("department", log: log)
        let employeeObserver = ChangeLog("employee", log: log)
        try engineering.addObserver(departmentObserver, forKeyPath: "name", options: [.old, .new])
        try ada.addObserver(employeeObserver, forKeyPath: "department.name", options: [.old, .new])

        try ada.setValue("R&D", forKeyPath: "department.name")

        #expect(log.entries == [
            "employee: department.name setting old=Engineering new=R&D prior=false",
            "department: name setting old=Engineering new=R&D prior=false",
        ])
        #expect(departmentObserver.objects == [ObjectIdentifier(engineering)])
        #expect(employeeObserver.objects == [ObjectIdentifier(ada)])
    }

    @Test func setValueForKeyPathThroughANilIntermediateDoesNothing() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "department.name", options: [.old, .new])
        try ada.addObserver(observer, forKeyPath: "department", options: [.old, .new])

        try ada.setValue("R&D", forKeyPath: "department.name")

        #expect(observer.entries == [])
    }

    @Test func setValueForKeyPathOfOneKeyNotifiesLikeSetValueForKey() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "employeeID", options: [.old, .new])

        try ada.setValue(42, forKeyPath: "employeeID")

        #expect(observer.entries == ["employeeID setting old=1 new=42 prior=false"])
    }

    @Test func setValuesForKeysNotifiesOncePerKey() throws {
        let ada = makeAda()
        ada.age = 36
        let firstNameObserver = ChangeLog()
        let salaryObserver = ChangeLog()
        let ageObserver = ChangeLog()
        let idObserver = ChangeLog()
        try ada.addObserver(firstNameObserver, forKeyPath: "firstName", options: [.old, .new])
        try ada.addObserver(salaryObserver, forKeyPath: "salary", options: [.old, .new])
        try ada.addObserver(ageObserver, forKeyPath: "age", options: [.old, .new])
        try ada.addObserver(idObserver, forKeyPath: "employeeID", options: [.old, .new])

        try ada.setValuesForKeys(["firstName": "Augusta", "salary": 300, "age": NSNull()])

        // Each key is one will/did bracket (the order among keys is the dictionary's).
        #expect(firstNameObserver.entries == ["firstName setting old=Ada new=Augusta prior=false"])
        #expect(salaryObserver.entries == ["salary setting old=100.0 new=300.0 prior=false"])
        #expect(ageObserver.entries == ["age setting old=36 new=nil prior=false"])
        #expect(idObserver.entries == [])
    }

    @Test func mutableArrayProxyNotifiesAutomatically() throws {
        let engineering = Department(name: "Engineering")
        let observer = ChangeLog()
        try engineering.addObserver(observer, forKeyPath: "employees", options: [.new])

        try engineering.mutableArrayValue(forKey: "employees").append(makeAda())

        #expect(observer.entries == ["employees insertion old=nil new=[Ada] indexes=[0] prior=false"])
    }

    @Test func automaticNotificationOffSilencesTypedSets() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }

        account.balance = 10
        account.balance += 5

        #expect(observer.entries == [])
        #expect(account.balance == 15)
    }

    @Test func automaticNotificationOffSilencesKeyValueCoding() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new])

        try account.setValue(10, forKey: "balance")
        try account.setValue(11, forKeyPath: "balance")
        try account.setValuesForKeys(["balance": 12])

        #expect(observer.entries == [])
        #expect(account.balance == 12)
    }

    @Test func automaticNotificationOffForOneKeyLeavesTheOthers() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.new]) }
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "score", options: [.new]) }
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "nickname", options: [.new]) }

        account.balance = 1
        account.score = 2
        account.nickname = "Lucky"

        #expect(observer.entries == [
            "score setting old=nil new=2 prior=false",
            "nickname setting old=nil new=Lucky prior=false",
        ])
    }

    @Test func automaticNotificationOffSilencesCollectionProxies() throws {
        let playlist = KVOPlaylist()
        let observer = ChangeLog()
        try playlist.addObserver(observer, forKeyPath: "tracks", options: [.old, .new])
        try playlist.addObserver(observer, forKeyPath: "tags", options: [.old, .new])

        try playlist.mutableArrayValue(forKey: "tracks").append("Intro")
        try playlist.mutableSetValue(forKey: "tags").insert("jazz")
        playlist.tracks = ["Outro"]

        #expect(observer.entries == [])
        #expect(playlist.tracks == ["Outro"])
        #expect(playlist.tags == ["jazz"])
    }

    @Test func automaticNotificationOffDoesNotSilenceManualNotification() throws {
        let account = KVOAccount()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try account.addObserver(observer, forKeyPath: "balance", options: [.old, .new]) }

        account.deposit(30)

        #expect(observer.entries == ["balance setting old=0 new=30 prior=false"])
    }

    @Test func objectWithoutObserversChangesSilentlyAndThenNotifiesOnceObserved() throws {
        let ada = makeAda()
        ada.salary = 1
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new])
        try ada.removeObserver(observer, forKeyPath: "salary")
        ada.salary = 2
        try ada.addObserver(observer, forKeyPath: "salary", options: [.old, .new])

        ada.salary = 3

        #expect(observer.entries == ["salary setting old=2.0 new=3.0 prior=false"])
    }
}
