import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Dates whose time is NaN or infinite: accepted as values (as Cocoa's `NSDate` accepts them),
/// and described without trapping, where Foundation's `Date.description` traps for NaN.
@Suite struct NonFiniteDateTests {
    /// An employee archived by hand with an `NSDate` of time `time` under `key`.
    private func employeeArchive(dateKey key: String, time: Double) throws -> Data {
        try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: key, value: .uid(3)), (key: "$class", value: .uid(2))]),
            classDictionary("SampleModels.Employee"),
            .dictionary([(key: "NS.time", value: .real(time)), (key: "$class", value: .uid(4))]),
            classDictionary("NSDate"),
        ])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDateIntoAStringPropertyThrowsADescribableError(_ time: Double) throws {
        let data = try employeeArchive(dateKey: "firstName", time: time)
        let error = #expect(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error.map { String(describing: $0) }?.contains("Date(timeIntervalSinceReferenceDate: \(time))") == true)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDateIntoADatePropertyIsAccepted(_ time: Double) throws {
        let data = try employeeArchive(dateKey: "startDate", time: time)
        let employee = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data))
        let stored = employee.startDate.timeIntervalSinceReferenceDate
        #expect(stored.isNaN == time.isNaN && (time.isNaN || stored == time))
        #expect(describeKeyValue(try employee.value(forKey: "startDate")) == "Date(timeIntervalSinceReferenceDate: \(time))")
        // Archiving it again keeps it.
        let again = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: KeyedArchiver.archivedData(withRootObject: employee)))
        #expect(again.startDate.timeIntervalSinceReferenceDate.isNaN == time.isNaN)
    }

    @Test func settingANaNDateOnAStringPropertyThrowsADescribableError() {
        let employee = Employee()
        let error = expectKVCError(.typeMismatch) { try employee.setValue(Date(timeIntervalSinceReferenceDate: .nan), forKey: "firstName") }
        #expect(error?.message.contains("Date(timeIntervalSinceReferenceDate: nan)") == true)
        let sortError = #expect(throws: KeyValuePredicateError.self) {
            try [["d": Date(timeIntervalSinceReferenceDate: .nan)], ["d": "text"]].sorted(using: KeyPathSortDescriptor(key: "d"))
        }
        #expect(sortError.map { String(describing: $0) }?.contains("nan") == true)
    }

    @Test func nanDatesInsideCollectionsAreDescribed() {
        let date = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(describeKeyValue([date, 1] as [Any]) == "[Date(timeIntervalSinceReferenceDate: nan), 1]")
        #expect(describeKeyValue(["d": date]) == "[d: Date(timeIntervalSinceReferenceDate: nan)]")
        #expect(describeKeyValue(NSArray(array: [NSDate(timeIntervalSinceReferenceDate: .infinity)])) == "[Date(timeIntervalSinceReferenceDate: inf)]")
        #expect(describeKeyValue(Date(timeIntervalSinceReferenceDate: 0)) == Date(timeIntervalSinceReferenceDate: 0).description)
        #expect(describeKeyValue(nil) == "nil")
        var nested: Any = date
        for _ in 0..<20 { nested = [nested] }
        #expect(describeKeyValue(nested).contains("…"))
    }

    @Test func changeAndValidationDescriptionsOfANaNDate() {
        let date = Date(timeIntervalSinceReferenceDate: .nan)
        let change = KeyValueChange(kind: .setting, oldValue: date, newValue: date)
        #expect(change.description.contains("Date(timeIntervalSinceReferenceDate: nan)"))
        let error = ValidationError(key: "startDate", value: date, message: "rejected")
        #expect(error.rejectedValueDescription == "Date(timeIntervalSinceReferenceDate: nan)")
        #expect(!String(describing: error).isEmpty)
    }

    @Test func predicateOnANaNDatePrintsAndThrowsWithoutTrapping() throws {
        let date = Date(timeIntervalSinceReferenceDate: .nan)
        let predicate = try KeyValuePredicate(format: "startDate == %@", date)
        #expect(!predicate.predicateFormat.isEmpty)
        let error = expectPredicateError(.invalidOperand) { _ = try KeyValuePredicate(format: "%@ BEGINSWITH 'a'", date).evaluate(with: nil) }
        #expect(error?.message.contains("nan") == true)
    }
}
