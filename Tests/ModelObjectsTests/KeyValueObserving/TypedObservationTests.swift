import Foundation
import Testing
import ModelObjects
import SampleModels

/// Typed observation with Swift key paths, and removal errors and contexts.
@Suite struct TypedObservationTests {
    private func makeAda() -> Employee {
        Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
    }

    // MARK: observe(_:options:changeHandler:) with typed key paths

    @Test func typedSalaryObservationDeliversTypedOldAndNewValues() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Double>()
        let token = try ada.observe(\.salary, options: [.old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.salary = 120
        try ada.setValue(130, forKey: "salary")

        #expect(recorded.changes.map(\.kind) == [.setting, .setting])
        #expect(recorded.changes.map(\.oldValue) == [100, 120])
        #expect(recorded.changes.map(\.newValue) == [120, 130])
        #expect(recorded.changes.map(\.isPrior) == [false, false])
        #expect(recorded.changes.map(\.indexes) == [nil, nil])
        #expect(recorded.objects == [ObjectIdentifier(ada), ObjectIdentifier(ada)])
    }

    @Test func typedObservationWithoutOptionsHasNoValues() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Double>()
        let token = try ada.observe(\.salary) { employee, change in recorded.append(change, of: employee) }
        defer { token.invalidate() }

        ada.salary = 120

        #expect(recorded.changes.count == 1)
        #expect(recorded.changes.map(\.oldValue) == [nil])
        #expect(recorded.changes.map(\.newValue) == [nil])
    }

    @Test func typedPriorAndInitial() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Double>()
        let token = try ada.observe(\.salary, options: [.initial, .prior, .old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.salary = 150

        #expect(recorded.changes.map(\.isPrior) == [false, true, false])
        #expect(recorded.changes.map(\.oldValue) == [nil, 100, 100])
        #expect(recorded.changes.map(\.newValue) == [100, nil, 150])
    }

    @Test func typedOptionalPropertyNilStaysSomeNil() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Int?>()
        let token = try ada.observe(\.age, options: [.old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.age = 36
        ada.age = nil

        let olds: [Int??] = recorded.changes.map(\.oldValue)
        let news: [Int??] = recorded.changes.map(\.newValue)
        #expect(olds == [.some(nil), .some(36)])
        #expect(news == [.some(36), .some(nil)])
    }

    @Test func typedOptionalPropertyWithoutOldHasNoOldValueAtAll() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Int?>()
        let token = try ada.observe(\.age, options: [.new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.age = nil

        let olds: [Int??] = recorded.changes.map(\.oldValue)
        let news: [Int??] = recorded.changes.map(\.newValue)
        #expect(olds == [.none])
        #expect(news == [.some(nil)])
    }

    @Test func typedOptionalPriorOldValueOfNilIsSomeNil() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Int?>()
        let token = try ada.observe(\.age, options: [.prior, .old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.age = 50

        let olds: [Int??] = recorded.changes.map(\.oldValue)
        let news: [Int??] = recorded.changes.map(\.newValue)
        #expect(recorded.changes.map(\.isPrior) == [true, false])
        #expect(olds == [.some(nil), .some(nil)])
        #expect(news == [.none, .some(50)])
    }

    @Test func typedRelationshipObservation() throws {
        let ada = makeAda()
        let engineering = Department(name: "Engineering")
        let recorded = KVOTypedLog<Department?>()
        let token = try ada.observe(\.department, options: [.old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.department = engineering
        ada.department = nil

        #expect(recorded.changes.count == 2)
        #expect(recorded.changes.map { $0.oldValue.map { $0.map(ObjectIdentifier.init) } } == [
            .some(nil), .some(ObjectIdentifier(engineering)),
        ])
        #expect(recorded.changes.map { $0.newValue.map { $0.map(ObjectIdentifier.init) } } == [
            .some(ObjectIdentifier(engineering)), .some(nil),
        ])
    }

    @Test func typedDerivedPropertyObservation() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<String>()
        let token = try ada.observe(\.fullName, options: [.old, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        ada.firstName = "Augusta"

        #expect(recorded.changes.map(\.oldValue) == ["Ada Lovelace"])
        #expect(recorded.changes.map(\.newValue) == ["Augusta Lovelace"])
    }

    @Test func typedToManyObservationDeliversTheInsertedObjectsAsTheRelationshipType() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let recorded = KVOTypedLog<[Employee]>()
        let token = try department.observe(\.employees, options: [.old, .new]) { department, change in
            recorded.append(change, of: department)
        }
        defer { token.invalidate() }

        try department.mutableArrayValue(forKey: "employees").append(ada)

        #expect(recorded.changes.map(\.kind) == [.insertion])
        #expect(recorded.changes.map(\.indexes) == [IndexSet(integer: 0)])
        #expect(recorded.changes.map { $0.newValue?.map(\.firstName) } == [["Ada"]])
        #expect(recorded.changes.map { $0.oldValue == nil } == [true])
    }

    @Test func typedToManyRemovalDeliversTheRemovedObjects() throws {
        let department = Department(name: "Engineering")
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        department.employees = [ada, grace]
        let recorded = KVOTypedLog<[Employee]>()
        let token = try department.observe(\.employees, options: [.old, .new]) { department, change in
            recorded.append(change, of: department)
        }
        defer { token.invalidate() }

        try department.mutableArrayValue(forKey: "employees").remove(at: 0)

        #expect(recorded.changes.map(\.kind) == [.removal])
        #expect(recorded.changes.map(\.indexes) == [IndexSet(integer: 0)])
        #expect(recorded.changes.map { $0.oldValue?.map(\.firstName) } == [["Ada"]])
        #expect(recorded.changes.map { $0.newValue == nil } == [true])
    }

    @Test func typedSetMutationDeliversASetOfTheRelationshipsType() throws {
        let team = KVOTeam()
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        team.members = [ada]
        let recorded = KVOTypedLog<Set<Employee>>()
        let token = try team.observe(\.members, options: [.old, .new]) { team, change in
            recorded.append(change, of: team)
        }
        defer { token.invalidate() }

        try team.mutableSetValue(forKey: "members").formUnion([ada, grace])
        try team.mutableSetValue(forKey: "members").remove(ada)

        #expect(recorded.changes.map(\.kind) == [.insertion, .removal])
        #expect(recorded.changes.map { $0.newValue.map { Set($0.map(\.firstName)) } } == [["Grace"], nil])
        #expect(recorded.changes.map { $0.oldValue.map { Set($0.map(\.firstName)) } } == [nil, ["Ada"]])
        #expect(recorded.changes.map(\.indexes) == [nil, nil])
    }

    @Test func typedInitialOfANilOptionalIsSomeNil() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Int?>()
        let token = try ada.observe(\.age, options: [.initial, .new]) { employee, change in
            recorded.append(change, of: employee)
        }
        defer { token.invalidate() }

        let news: [Int??] = recorded.changes.map(\.newValue)
        #expect(news == [.some(nil)])
        #expect(recorded.changes.map(\.kind) == [.setting])
    }

    @Test func typedObservationOfAnUndeclaredPropertyThrows() {
        let ada = makeAda()
        let error = #expect(throws: KeyValueCodingError.self) {
            _ = try ada.observe(\.description) { _, _ in }
        }
        #expect(error?.code == .unmappableKeyPath)
    }

    @Test func typedTokenInvalidation() throws {
        let ada = makeAda()
        let recorded = KVOTypedLog<Double>()
        let token = try ada.observe(\.salary, options: [.new]) { employee, change in
            recorded.append(change, of: employee)
        }

        ada.salary = 1
        token.invalidate()
        ada.salary = 2

        #expect(token.isValid == false)
        #expect(recorded.changes.map(\.newValue) == [1])
    }

    // MARK: Removal errors and contexts

    @Test func removingAnUnregisteredObserverThrowsObserverNotRegistered() {
        let ada = makeAda()
        let observer = ChangeLog()

        let error = #expect(throws: KeyValueObservingError.self) {
            try ada.removeObserver(observer, forKeyPath: "salary")
        }

        #expect(error?.code == .observerNotRegistered)
        #expect(error?.keyPath == "salary")
        #expect(error?.className.hasSuffix("Employee") == true)
    }

    @Test func removingForAnotherKeyPathThrowsAndKeepsTheRegistration() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new]) }

        let error = #expect(throws: KeyValueObservingError.self) {
            try ada.removeObserver(observer, forKeyPath: "firstName")
        }
        ada.salary = 1

        #expect(error?.code == .observerNotRegistered)
        #expect(error?.keyPath == "firstName")
        #expect(observer.entries == ["salary setting old=nil new=1.0 prior=false"])
    }

    @Test func removingTwiceThrowsTheSecondTime() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary")

        try ada.removeObserver(observer, forKeyPath: "salary")
        let error = #expect(throws: KeyValueObservingError.self) {
            try ada.removeObserver(observer, forKeyPath: "salary")
        }

        #expect(error?.code == .observerNotRegistered)
    }

    @Test func removingFromAnotherObjectThrows() throws {
        let ada = makeAda()
        let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 200)
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary") }

        #expect(throws: KeyValueObservingError.self) {
            try grace.removeObserver(observer, forKeyPath: "salary")
        }
        #expect {
            try grace.removeObserver(observer, forKeyPath: "salary", context: nil)
        } throws: { error in
            KeyValueObservingError.Code.observerNotRegistered ~= error
        }
    }

    @Test func errorCodeMatchesInCatchPatterns() {
        let ada = makeAda()
        let observer = ChangeLog()
        var matched = false
        do {
            try ada.removeObserver(observer, forKeyPath: "salary")
        } catch KeyValueObservingError.Code.observerNotRegistered {
            matched = true
        } catch {
            matched = false
        }
        #expect(matched)
        #expect(KeyValueObservingError.Code.observerNotRegistered.rawValue == 1)
    }

    @Test func removalByContextRemovesOnlyTheMatchingRegistration() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first)
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.second)
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.third)

        try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.second)
        ada.salary = 1

        #expect(observer.contexts == [KVOContext.third, KVOContext.first])
        #expect(observer.entries == [
            "salary setting old=nil new=1.0 prior=false",
            "salary setting old=nil new=1.0 prior=false",
        ])
    }

    @Test func removalByContextOfTwinRegistrationsRemovesOneAtATime() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first)
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first)

        try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.first)
        ada.salary = 1
        try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.first)
        ada.salary = 2

        #expect(observer.entries == ["salary setting old=nil new=1.0 prior=false"])
        #expect(throws: KeyValueObservingError.self) {
            try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.first)
        }
    }

    @Test func removalByContextOfTheFirstRegistrationKeepsTheLater() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.old], context: KVOContext.first)
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.second)

        try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.first)
        ada.salary = 1

        #expect(observer.contexts == [KVOContext.second])
        #expect(observer.entries == ["salary setting old=nil new=1.0 prior=false"])
    }

    @Test func removalByAnUnknownContextThrowsAndRemovesNothing() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        #expect(throws: Never.self) { try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first) }

        let error = #expect(throws: KeyValueObservingError.self) {
            try ada.removeObserver(observer, forKeyPath: "salary", context: KVOContext.second)
        }
        ada.salary = 1

        #expect(error?.code == .observerNotRegistered)
        #expect(observer.contexts == [KVOContext.first])
    }

    @Test func removalByNilContextMatchesOnlyANilContextRegistration() throws {
        let ada = makeAda()
        let observer = ChangeLog()
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: nil)
        try ada.addObserver(observer, forKeyPath: "salary", options: [.new], context: KVOContext.first)

        try ada.removeObserver(observer, forKeyPath: "salary", context: nil)
        ada.salary = 1

        #expect(observer.contexts == [KVOContext.first])
    }

    @Test func removalByContextLeavesOtherObserversWithTheSameContext() throws {
        let ada = makeAda()
        let log = KVOEventLog()
        let one = ChangeLog("one", log: log)
        let two = ChangeLog("two", log: log)
        try ada.addObserver(one, forKeyPath: "salary", options: [.new], context: KVOContext.first)
        try ada.addObserver(two, forKeyPath: "salary", options: [.new], context: KVOContext.first)

        try ada.removeObserver(one, forKeyPath: "salary", context: KVOContext.first)
        ada.salary = 1

        #expect(log.entries == ["two: salary setting old=nil new=1.0 prior=false"])
        kvoKeepAlive(one, two)
    }
}
