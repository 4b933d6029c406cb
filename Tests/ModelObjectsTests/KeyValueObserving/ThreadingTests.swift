import Dispatch
import Foundation
import Testing
import ModelObjects
import SampleModels

/// Registration and removal from several threads at once (the library guards them with locks);
/// the changes themselves are made on one thread afterwards.
@Suite struct ThreadingTests {
    private static let rounds = 25
    private static let width = 64
    private static let raceRounds = 40_000

    @Test func concurrentRegistrationsAreAllKept() {
        for _ in 0..<Self.rounds {
            let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
            let observers = (0..<Self.width).map { ChangeLog("\($0)") }
            let fixture = KVOUnchecked((ada, observers))

            DispatchQueue.concurrentPerform(iterations: Self.width) { index in
                let (ada, observers) = fixture.value
                #expect(throws: Never.self) { try ada.addObserver(observers[index], forKeyPath: "salary", options: [.new]) }
            }
            ada.salary = 200

            let wrong = observers.filter { $0.entries != ["\($0.name!): salary setting old=nil new=200.0 prior=false"] }
            #expect(wrong.map(\.entries) == [])
        }
    }

    @Test func concurrentRegistrationAndRemovalLeavesExactlyTheKeptObservers() {
        for _ in 0..<Self.rounds {
            let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
            let observers = (0..<Self.width).map { ChangeLog("\($0)") }
            let fixture = KVOUnchecked((ada, observers))
            let errors = KVOLockedList<String>()

            DispatchQueue.concurrentPerform(iterations: Self.width) { index in
                let (ada, observers) = fixture.value
                #expect(throws: Never.self) { try ada.addObserver(observers[index], forKeyPath: "salary", options: [.new]) }
                if index % 2 == 1 {
                    do {
                        try ada.removeObserver(observers[index], forKeyPath: "salary")
                    } catch {
                        errors.append("\(index): \(error)")
                    }
                }
            }
            ada.salary = 300

            #expect(errors.elements == [])
            let kept = observers.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let removed = observers.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            let keptWrong = kept.filter { $0.entries != ["\($0.name!): salary setting old=nil new=300.0 prior=false"] }
            let removedWrong = removed.filter { !$0.entries.isEmpty }
            #expect(keptWrong.map(\.name) == [])
            #expect(removedWrong.map(\.name) == [])
        }
    }

    @Test func registrationRacingWithTheLastRemovalIsNotLost() {
        // One thread registers an observer that stays while another keeps registering and
        // removing its own, so the object's observation state keeps becoming empty (and being
        // dropped) around the registration. The registration must land in the state the object
        // keeps: the observer is notified, and it can be removed afterwards.
        var notNotified: [Int] = []
        var notRemovable: [Int] = []
        for round in 0..<Self.raceRounds {
            let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
            let keeper = ChangeLog("keeper")
            let churner = ChangeLog("churner")
            let done = KVOFlag()
            let fixture = KVOUnchecked((ada, keeper, churner))

            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let (ada, keeper, churner) = fixture.value
                if index == 0 {
                    for _ in 0..<(round % 50) { done.spin() }
                    #expect(throws: Never.self) { try ada.addObserver(keeper, forKeyPath: "salary", options: [.new]) }
                    done.set()
                } else {
                    repeat {
                        #expect(throws: Never.self) { try ada.addObserver(churner, forKeyPath: "salary") }
                        try? ada.removeObserver(churner, forKeyPath: "salary")
                    } while !done.isSet
                }
            }
            ada.salary = 1
            if keeper.entries != ["keeper: salary setting old=nil new=1.0 prior=false"] { notNotified.append(round) }
            do {
                try ada.removeObserver(keeper, forKeyPath: "salary")
            } catch {
                notRemovable.append(round)
            }
            ada.salary = 2
            #expect(churner.entries.isEmpty)
        }
        #expect(notNotified == [])
        #expect(notRemovable == [])
    }

    @Test func concurrentRemovalOfEveryObserverLeavesNone() throws {
        for _ in 0..<Self.rounds {
            let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
            let observers = (0..<Self.width).map { ChangeLog("\($0)") }
            for observer in observers {
                try ada.addObserver(observer, forKeyPath: "salary", options: [.new])
                try ada.addObserver(observer, forKeyPath: "fullName", options: [.new])
            }
            let fixture = KVOUnchecked((ada, observers))
            let errors = KVOLockedList<String>()

            DispatchQueue.concurrentPerform(iterations: Self.width) { index in
                let (ada, observers) = fixture.value
                do {
                    try ada.removeObserver(observers[index], forKeyPath: "salary")
                    try ada.removeObserver(observers[index], forKeyPath: "fullName")
                } catch {
                    errors.append("\(index): \(error)")
                }
            }
            ada.salary = 1
            ada.firstName = "Augusta"

            #expect(errors.elements == [])
            #expect(observers.filter { !$0.entries.isEmpty }.map(\.name) == [])

            // The object still accepts and notifies a new observer afterwards.
            let late = ChangeLog()
            try ada.addObserver(late, forKeyPath: "salary", options: [.new])
            ada.salary = 2
            #expect(late.entries == ["salary setting old=nil new=2.0 prior=false"])
        }
    }

    @Test func concurrentKeyPathRegistrationsThroughASharedIntermediate() {
        for _ in 0..<Self.rounds {
            let engineering = Department(name: "Engineering")
            let employees = (0..<Self.width).map { index in
                let employee = Employee(firstName: "E\(index)", lastName: "X", employeeID: index, salary: 1)
                employee.department = engineering
                return employee
            }
            let observers = (0..<Self.width).map { ChangeLog("\($0)") }
            let fixture = KVOUnchecked((employees, observers))

            DispatchQueue.concurrentPerform(iterations: Self.width) { index in
                let (employees, observers) = fixture.value
                #expect(throws: Never.self) { try employees[index].addObserver(observers[index], forKeyPath: "department.name", options: [.old, .new]) }
                if index % 4 == 3 {
                    try? employees[index].removeObserver(observers[index], forKeyPath: "department.name")
                }
            }
            engineering.name = "R&D"

            let wrong = observers.enumerated().filter { index, observer in
                let expected = index % 4 == 3
                    ? []
                    : ["\(index): department.name setting old=Engineering new=R&D prior=false"]
                return observer.entries != expected
            }.map(\.offset)
            #expect(wrong == [])
        }
    }

    @Test func concurrentTokensCreatedAndReleased() {
        for _ in 0..<Self.rounds {
            let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
            let logs = (0..<Self.width).map { _ in KVOEventLog() }
            let tokens = KVOLockedList<KVOUnchecked<(Int, KeyValueObservation)>>()
            let fixture = KVOUnchecked((ada, logs))

            DispatchQueue.concurrentPerform(iterations: Self.width) { index in
                let (ada, logs) = fixture.value
                let token: KeyValueObservation
                do {
                    token = try ada.observe("salary", options: [.new], changeHandler: logs[index].handler(for: "salary"))
                } catch {
                    Issue.record(error)
                    return
                }
                if index % 3 == 0 {
                    token.invalidate()
                } else {
                    tokens.append(KVOUnchecked((index, token)))
                }
            }
            ada.salary = 5

            let live = Set(tokens.elements.map(\.value.0))
            let wrong = logs.enumerated().filter { index, log in
                let expected = live.contains(index) ? ["salary setting old=nil new=5.0 prior=false"] : []
                return log.entries != expected
            }.map(\.offset)
            #expect(live.count == Self.width - (Self.width + 2) / 3)
            #expect(wrong == [])
            #expect(tokens.elements.allSatisfy { $0.value.1.isValid })
        }
    }
}
