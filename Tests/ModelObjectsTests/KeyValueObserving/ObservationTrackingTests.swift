import Foundation
import Observation
import Synchronization
import Testing
@testable import ModelObjects

/// Counts the `onChange` calls of Observation trackings, which may come from any thread.
final class TrackingCounter: Sendable {
    private let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }
    func increment() { calls.withLock { $0 += 1 } }
}

/// Runs `apply` inside `withObservationTracking`; the counter counts its `onChange` calls.
@discardableResult
func tracking<T>(_ counter: TrackingCounter, _ apply: () -> T) -> T {
    withObservationTracking(apply, onChange: { counter.increment() })
}

final class TrackedStaff: ModelObject {
    @Attribute var firstName = ""
    @Attribute var lastName = ""
    @Attribute var salary = 0.0
    @Relationship var team: TrackedTeam?
    @CustomAttribute(get: { (_: TrackedStaff, stored: String) in stored.uppercased() }) var code = ""
    @Derived("firstName", "lastName", compute: { (staff: TrackedStaff) in "\(staff.firstName) \(staff.lastName)" })
    var fullName: String
    @Derived("team.name", compute: { (staff: TrackedStaff) in staff.teamNameByKey })
    var teamName: String

    /// Depends on another derived key, and reads it by key, so that only the declared
    /// dependencies (followed through `fullName`'s own) track it.
    @Derived("fullName", compute: { (staff: TrackedStaff) in "Dear " + ((try? staff.value(forKey: "fullName")) as? String ?? "") })
    var greeting: String

    /// Reads the team's name by key, so that only the declared dependency tracks it.
    var teamNameByKey: String {
        (try? value(forKeyPath: "team.name")) as? String ?? ""
    }
}

final class TrackedTeam: ModelObject {
    @Attribute var name = ""
    @Relationship var members: [TrackedStaff] = []
    @Relationship var tags: Set<TrackedTag> = []
}

final class TrackedTag: ModelObject {
    @Attribute var label = ""
}

/// A class that opts out: its reads do not register.
final class UntrackedStaff: ModelObject {
    override class var tracksObservationAccess: Bool { false }
    @Attribute var salary = 0.0
}

/// A class that notifies changes of `salary` by hand, and of `bonus` automatically.
final class ManuallyNotifyingStaff: ModelObject {
    @Attribute var salary = 0.0
    @Attribute var bonus = 0.0

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "salary" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    /// Sets `salary` between the notifications its class does not send by itself.
    func raise(to salary: Double) {
        willChangeValue(forKey: "salary")
        self.salary = salary
        didChangeValue(forKey: "salary")
    }
}

@Suite struct ObservationTrackingTests {
    private func staff(_ first: String = "Ada", salary: Double = 100) -> TrackedStaff {
        let staff = TrackedStaff()
        staff.firstName = first
        staff.lastName = "Lovelace"
        staff.salary = salary
        return staff
    }

    // MARK: Routes that change a tracked property

    @Test func typedSetCallsOnChangeOnce() {
        let ada = staff()
        let counter = TrackingCounter()
        let read = tracking(counter) { ada.salary }
        #expect(read == 100)
        #expect(counter.count == 0)
        ada.salary = 120
        #expect(counter.count == 1)
        ada.salary = 130
        #expect(counter.count == 1)
        #expect(ada.salary == 130)
    }

    @Test func setValueForKeyCallsOnChange() throws {
        let ada = staff()
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        try ada.setValue(150, forKey: "salary")
        #expect(counter.count == 1)
    }

    @Test func setValueForKeyPathCallsOnChangeOfTheLastObject() throws {
        let ada = staff(), team = TrackedTeam()
        ada.team = team
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.team?.name }
        try ada.setValue("Analytics", forKeyPath: "team.name")
        #expect(counter.count == 1)
    }

    @Test func replacingAnIntermediateObjectCallsOnChange() {
        let ada = staff(), team = TrackedTeam()
        ada.team = team
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.team?.name }
        ada.team = TrackedTeam()
        #expect(counter.count == 1)
    }

    @Test func orderedProxyMutationCallsOnChange() throws {
        let team = TrackedTeam()
        let counter = TrackingCounter()
        tracking(counter) { _ = team.members.count }
        try team.mutableArrayValue(forKey: "members").append(staff())
        #expect(counter.count == 1)
        #expect(team.members.count == 1)
    }

    @Test func unorderedProxyMutationCallsOnChange() throws {
        let team = TrackedTeam()
        let counter = TrackingCounter()
        tracking(counter) { _ = team.tags.count }
        try team.mutableSetValue(forKey: "tags").insert(TrackedTag())
        #expect(counter.count == 1)
    }

    @Test func manualWillAndDidChangeCallOnChange() {
        let ada = staff()
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        ada.willChangeValue(forKey: "salary")
        #expect(counter.count == 1)
        ada.didChangeValue(forKey: "salary")
        #expect(counter.count == 1)
    }

    @Test func keyNotNotifiedAutomaticallyCallsOnChangeOnlyForManualNotifications() {
        // The class's answer is kept per key after the first set: later sets, of this object and
        // of another, must still follow it, key by key.
        for _ in 0..<2 {
            let staff = ManuallyNotifyingStaff()
            let silent = TrackingCounter()
            tracking(silent) { _ = staff.salary }
            staff.salary = 10
            staff.salary = 20
            #expect(silent.count == 0)
            staff.raise(to: 30)
            #expect(silent.count == 1)
            #expect(staff.salary == 30)

            let automatic = TrackingCounter()
            tracking(automatic) { _ = staff.bonus }
            staff.bonus = 5
            #expect(automatic.count == 1)
        }
    }

    @Test func customAttributeReadIsTracked() {
        let ada = staff()
        let counter = TrackingCounter()
        let code = tracking(counter) { ada.code }
        #expect(code == "")
        ada.code = "x1"
        #expect(counter.count == 1)
        #expect(ada.code == "X1")
    }

    @Test func derivedKeyIsTrackedThroughWhatItReads() {
        let ada = staff()
        let counter = TrackingCounter()
        let name = tracking(counter) { ada.fullName }
        #expect(name == "Ada Lovelace")
        ada.lastName = "Byron"
        #expect(counter.count == 1)
    }

    @Test func derivedKeyIsTrackedThroughItsDeclaredKeyPaths() throws {
        let ada = staff(), team = TrackedTeam()
        ada.team = team
        team.name = "Analytics"
        let counter = TrackingCounter()
        let name = tracking(counter) { ada.teamName }
        #expect(name == "Analytics")
        try team.setValue("Engines", forKey: "name")
        #expect(counter.count == 1)
    }

    @Test func derivedKeyIsTrackedThroughTheDependenciesOfADerivedKeyItDependsOn() {
        let ada = staff()
        let counter = TrackingCounter()
        let greeting = tracking(counter) { ada.greeting }
        #expect(greeting == "Dear Ada Lovelace")
        ada.lastName = "Byron"
        #expect(counter.count == 1)
    }

    @Test func keyValueObserversAndTrackingsBothHearAChange() throws {
        let ada = staff()
        let counter = TrackingCounter()
        var heard: [Double] = []
        let token = try ada.observe(\.salary, options: [.new]) { _, change in heard.append(change.newValue ?? -1) }
        defer { token.invalidate() }
        tracking(counter) { _ = ada.salary }
        ada.salary = 200
        #expect(counter.count == 1)
        #expect(heard == [200])
    }

    @Test func dependentKeyObserverAndTrackingBothHearAChange() throws {
        let ada = staff()
        let counter = TrackingCounter()
        var heard: [String] = []
        let token = try ada.observe(\.fullName, options: [.new]) { _, change in heard.append(change.newValue ?? "") }
        defer { token.invalidate() }
        tracking(counter) { _ = ada.lastName }
        ada.lastName = "Byron"
        #expect(counter.count == 1)
        #expect(heard == ["Ada Byron"])
    }

    // MARK: No spurious calls

    @Test func changingAnotherKeyDoesNotCallOnChange() {
        let ada = staff()
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        ada.firstName = "Augusta"
        try? ada.setValue("King", forKey: "lastName")
        #expect(counter.count == 0)
    }

    @Test func changingAnotherObjectOfTheClassDoesNotCallOnChange() {
        let ada = staff(), grace = staff("Grace")
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        grace.salary = 1
        #expect(counter.count == 0)
    }

    @Test func readsOutsideATrackingScopeRegisterNothing() {
        let ada = staff()
        _ = ada.salary
        #expect(ada.observationState == nil)
        ada.salary = 1
        #expect(ada.observationState == nil)
    }

    @Test func classesThatOptOutStayOnTheFastPath() {
        let plain = UntrackedStaff()
        let counter = TrackingCounter()
        tracking(counter) { _ = plain.salary }
        plain.salary = 5
        #expect(counter.count == 0)
        #expect(plain.observationState == nil)
    }

    @Test func mappingAKeyPathInsideATrackingScopeStillWorks() throws {
        let ada = staff()
        let counter = TrackingCounter()
        let key = tracking(counter) { try? ada.key(for: \.salary) }
        #expect(key == "salary")
        ada.salary = 3
        #expect(counter.count == 0)
    }

    @Test func removingTheLastKeyValueObserverKeepsTheTracking() throws {
        let ada = staff()
        let token = try ada.observe(\.salary) { _, _ in }
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        token.invalidate()
        ada.salary = 7
        #expect(counter.count == 1)
    }

    @Test func onChangeIsReleasedWithTheTrackedObjectsWhenNothingChanged() {
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        weak var weakStaff: TrackedStaff?
        do {
            let ada = staff(), captured = Captured()
            weakCaptured = captured
            weakStaff = ada
            withObservationTracking { _ = ada.firstName } onChange: { _ = captured }
        }
        #expect(weakStaff == nil)
        #expect(weakCaptured == nil)
    }

    @Test func onChangeIsReleasedOnceItFired() {
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        let ada = staff()
        do {
            let captured = Captured()
            weakCaptured = captured
            withObservationTracking { _ = ada.salary } onChange: { _ = captured }
        }
        #expect(weakCaptured != nil)
        ada.salary = 1
        #expect(weakCaptured == nil)
    }

    @Test func manyReadsOutsideScopesAfterATrackingRegisterNothingMore() {
        let ada = staff()
        let counter = TrackingCounter()
        tracking(counter) { _ = ada.salary }
        ada.salary = 1
        #expect(counter.count == 1)
        // The tracking ended with its onChange: later reads and sets reach no scope.
        for index in 0..<1_000 {
            _ = ada.salary
            ada.salary = Double(index)
        }
        #expect(counter.count == 1)
    }

    // MARK: Finding the tracking scope

    @Test func trackingScopeIsFoundOnlyInsideScopesOfTheCurrentThread() {
        #if os(Linux) && canImport(Glibc)
        // On glibc the thread's tracking pointer is read directly, not probed.
        #expect(ObservationTrackingScope.reader != nil)
        #endif
        guard ObservationTrackingScope.reader != nil else { return }
        #expect(ObservationTrackingScope.isActive == false)
        #expect(!ObservationTrackingScope.mayBeActive)
        var answers: [Bool?] = []
        final class Answer: Sendable { let value = Mutex<Bool?>(nil) }
        let otherThread = Answer()
        withObservationTracking {
            answers.append(ObservationTrackingScope.isActive)
            withObservationTracking { answers.append(ObservationTrackingScope.isActive) } onChange: {}
            answers.append(ObservationTrackingScope.isActive)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                otherThread.value.withLock { $0 = ObservationTrackingScope.isActive }
                done.signal()
            }
            thread.start()
            done.wait()
        } onChange: {}
        #expect(answers == [true, true, true])
        #expect(otherThread.value.withLock { $0 } == false)
        #expect(ObservationTrackingScope.isActive == false)
    }

    @Test func probeFindsTheScopeWithoutTheThreadLocal() {
        #expect(ObservationTrackingProbe.enrolledRegistrar() == nil)
        let enrolled = withObservationTracking { ObservationTrackingProbe.enrolledRegistrar() != nil } onChange: {}
        #expect(enrolled)
        #expect(ObservationTrackingProbe.enrolledRegistrar() == nil)
    }

    // MARK: A SwiftUI-style render loop

    @Test func renderLoopSeesEveryChangeAndNoSpuriousOne() throws {
        let ada = staff(), team = TrackedTeam()
        ada.team = team
        team.name = "Research"
        let counter = TrackingCounter()
        var renders: [String] = []
        func render() {
            tracking(counter) { renders.append("\(ada.fullName) \(ada.salary) \(ada.team?.name ?? "-")") }
        }
        render()
        // Each change that a render read: one onChange, one render.
        let changes: [() throws -> Void] = [
            { ada.salary = 110 },
            { try ada.setValue("Byron", forKey: "lastName") },
            { team.name = "Engines" },
            { try ada.setValue("Analytics", forKeyPath: "team.name") },
            { ada.team = nil },
        ]
        for (index, change) in changes.enumerated() {
            try change()
            #expect(counter.count == index + 1)
            // Changes the render did not read: no onChange.
            team.members = []
            ada.code = "c\(index)"
            #expect(counter.count == index + 1)
            render()
        }
        // The old team is no longer read: changing it calls nothing.
        team.name = "Gone"
        #expect(counter.count == changes.count)
        #expect(renders == [
            "Ada Lovelace 100.0 Research", "Ada Lovelace 110.0 Research", "Ada Byron 110.0 Research",
            "Ada Byron 110.0 Engines", "Ada Byron 110.0 Analytics", "Ada Byron 110.0 -",
        ])
    }
}
