import Foundation
import Testing
@testable import ManagedObjects
import ModelObjects

/// A managed `Decimal` attribute refuses doubles a `Decimal` cannot hold, and describing an
/// object with a NaN date does not trap.
@Suite struct ManagedNonFiniteValueTests {
    @Test(arguments: [Double.infinity, -Double.infinity, 1e300])
    func decimalAttributeRefusesAnInfiniteDouble(_ value: Double) throws {
        let stack = try ManagedTestStack()
        let department = stack.department("Research")
        department.budget = 7
        let swiftError = #expect(throws: KeyValueCodingError.self) { try department.setValue(value, forKey: "budget") }
        let foundationError = #expect(throws: KeyValueCodingError.self) { try department.setValue(NSNumber(value: value), forKey: "budget") }
        #expect(swiftError?.code == .typeMismatch && foundationError?.code == .typeMismatch)
        #expect(department.budget == 7)
        try department.setValue(2.5, forKey: "budget")
        #expect(department.budget == Decimal(string: "2.5"))
    }

    @Test func describingAnObjectWithANaNDateDoesNotTrap() throws {
        let stack = try ManagedTestStack()
        let record = try stack.context.insertNewObject(forEntityName: "Record")
        try record.setValue(Date(timeIntervalSinceReferenceDate: .nan), forKey: "when")
        #expect(record.description.contains("when = Date(timeIntervalSinceReferenceDate: nan)"))
    }

    @Test func validationMessageOfAnInfiniteDateDoesNotTrap() throws {
        let stack = try ManagedTestStack()
        let record = try stack.context.insertNewObject(forEntityName: "Record")
        var value: Any? = Date(timeIntervalSinceReferenceDate: -.infinity)
        let error = #expect(throws: ValidationError.self) { try record.validateValue(&value, forKey: "when") }
        #expect(error?.code == .dateTooSoon)
        #expect(error.map { String(describing: $0) }?.contains("Date(timeIntervalSinceReferenceDate: -inf)") == true)
    }
}
