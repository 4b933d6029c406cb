import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// Only the reference UID 0 means nil in a keyed archive: a string object spelled `$null` is a
/// string, in binary and XML archives alike.
@Suite struct NullStringArchiveTests {
    static let formats: [PropertyListSerialization.PropertyListFormat] = [.binary, .xml]

    @Test(arguments: formats)
    func propertyHoldingDollarNullRoundTrips(format: PropertyListSerialization.PropertyListFormat) throws {
        let employee = Employee()
        employee.firstName = "$null"
        employee.lastName = "Smith"
        let data = try KeyedArchiver.archivedData(withRootObject: employee, format: format)
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data))
        #expect(copy.firstName == "$null")
        #expect(copy.lastName == "Smith")
    }

    @Test(arguments: formats)
    func rootAndCollectionMembersSpelledDollarNullRoundTrip(format: PropertyListSerialization.PropertyListFormat) throws {
        let root = try KeyedUnarchiver.unarchivedObject(
            from: try KeyedArchiver.archivedData(withRootObject: "$null", format: format))
        #expect(root as? String == "$null")
        let array = try KeyedUnarchiver.unarchivedObject(
            from: try KeyedArchiver.archivedData(withRootObject: ["$null", "x"], format: format))
        #expect(array as? [String] == ["$null", "x"])
        let dictionary = try KeyedUnarchiver.unarchivedObject(
            from: try KeyedArchiver.archivedData(withRootObject: ["$null": "$null"], format: format))
        #expect(dictionary as? [String: String] == ["$null": "$null"])
    }

    @Test(arguments: formats)
    func handBuiltStringObjectSpelledDollarNullIsAString(format: PropertyListSerialization.PropertyListFormat) throws {
        func archive(root: UInt64) throws -> Data {
            try keyedArchive(objects: [.string("$null"), .string("$null")], root: root, format: format)
        }
        #expect(try KeyedUnarchiver.unarchivedObject(from: try archive(root: 1)) as? String == "$null")
        #expect(try KeyedUnarchiver.unarchivedObject(from: try archive(root: 0)) == nil)
    }

    @Test func handBuiltModelObjectWithADollarNullStringPropertyKeepsIt() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "firstName", value: .uid(3)), (key: "manager", value: .uid(0)), (key: "$class", value: .uid(2))]),
            classDictionary("SampleModels.Employee"),
            .string("$null"),
        ])
        let employee = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Employee.self, from: data))
        #expect(employee.firstName == "$null")
        #expect(employee.manager == nil)
    }
}
