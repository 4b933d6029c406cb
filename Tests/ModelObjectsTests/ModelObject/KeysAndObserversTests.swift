import Foundation
@testable import ModelObjects
import SampleModels
import Testing

/// An object's class keys and its observation state share one word, the state retained by the
/// object: these pin that the state lives exactly as long as something observes the object (or
/// the object goes), and that the keys answer in either state.
@Suite struct KeysAndObserversTests {
    @Test func theWordIsOneWord() {
        #expect(MemoryLayout<KeysAndObservers>.size == MemoryLayout<Int>.size)
    }

    @Test func anUnobservedObjectHoldsItsClassKeys() throws {
        let employee = Employee()
        #expect(!employee.hasObservationState)
        #expect(employee.observationState == nil)
        #expect(employee.propertyTable === PropertyTable.table(for: Employee.self))
        employee.salary = 5
        #expect(try employee.value(forKey: "salary") as? Double == 5)
    }

    @Test func anObservedObjectHoldsItsStateAndStillItsKeys() throws {
        let employee = Employee()
        var seen: [Double] = []
        let token = try employee.observe(\.salary, options: [.new]) { _, change in seen.append(change.newValue ?? -1) }
        #expect(employee.hasObservationState)
        #expect(employee.propertyTable === PropertyTable.table(for: Employee.self))
        try employee.setValue(7.0, forKey: "salary")
        #expect(try employee.value(forKey: "salary") as? Double == 7)
        #expect(seen == [7])
        token.invalidate()
        #expect(!employee.hasObservationState)
        #expect(employee.propertyTable === PropertyTable.table(for: Employee.self))
    }

    @Test func theStateGoesWhenTheLastObserverDoes() throws {
        let employee = Employee()
        weak var state: ObservationState?
        do {
            let token = try employee.observe(\.salary, options: [.new]) { _, _ in }
            state = employee.observationState
            #expect(state != nil)
            token.invalidate()
        }
        #expect(state == nil)
        #expect(!employee.hasObservationState)
    }

    @Test func theStateGoesWithTheObservedObject() throws {
        weak var state: ObservationState?
        var token: KeyValueObservation?
        do {
            let employee = Employee()
            token = try employee.observe(\.salary, options: [.new]) { _, _ in }
            state = employee.observationState
            #expect(state != nil)
        }
        #expect(state == nil)
        token?.invalidate()
    }

    @Test func aKeyPathProbePutsTheObserversBack() throws {
        let employee = Employee()
        let token = try employee.observe(\.salary, options: [.new]) { _, _ in }
        let state = employee.observationState
        #expect(try employee.key(for: \Employee.salary) == "salary")
        #expect(employee.observationState === state)
        token.invalidate()
        #expect(try employee.key(for: \Employee.lastName) == "lastName")
        #expect(!employee.hasObservationState)
    }
}
