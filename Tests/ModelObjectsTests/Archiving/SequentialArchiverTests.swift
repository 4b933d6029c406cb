import Foundation
import Testing
import ModelObjects
import SampleModels

final class VersionedCounter: ModelObject {
    @Attribute var count = 0
    override class var version: Int { 3 }
}

/// Records whether its coder allows keyed coding, then encodes by key.
final class Probe: ModelObject {
    nonisolated(unsafe) static var seen: [Bool] = []
    override func encode(with coder: Coder) {
        Self.seen.append(coder.allowsKeyedCoding)
        coder.encode(1, forKey: "keyed")
    }
}

/// Reads one value more than it wrote.
final class Greedy: ModelObject {
    override func encode(with coder: Coder) { coder.encode(1) }
    required init(coder: Coder) throws {
        try super.init(coder: coder)
        _ = try coder.decodeInteger()
        _ = try coder.decodeInteger()
    }
    required init() { super.init() }
}

@Suite struct SequentialArchiverTests {
    @Test func departmentWithCyclesRoundTrips() throws {
        let original = makeDepartment()
        let data = try SequentialArchiver.archivedData(withRootObject: original)
        let copy = try #require(try SequentialUnarchiver.unarchivedObject(ofClass: Department.self, from: data))
        #expect(copy.name == original.name && copy.budget == original.budget)
        #expect(copy.employees.map(\.fullNameAndID) == original.employees.map(\.fullNameAndID))
        #expect(copy.employees.allSatisfy { $0.department === copy })
        #expect(copy.employees[2].manager === copy.employees[0])
    }

    @Test func seedEmployeeDecodesValuesInOrder() throws {
        let employee = SeedEmployee()
        employee.firstName = "Grace"
        employee.lastName = "Hopper"
        employee.employeeID = 1906
        employee.department = Department(name: "Navy")
        let data = try SequentialArchiver.archivedData(withRootObject: employee)
        let copy = try #require(try SequentialUnarchiver.unarchivedObject(ofClass: SeedEmployee.self, from: data))
        #expect(copy.firstName == "Grace" && copy.lastName == "Hopper" && copy.employeeID == 1906)
        #expect(copy.department?.name == "Navy")
    }

    @Test func sequentialCoderDoesNotAllowKeyedCoding() throws {
        #expect {
            try SequentialArchiver.archivedData(withRootObject: Probe())
        } throws: { ($0 as? ArchiveError)?.code == .unsupportedOperation }
        #expect(Probe.seen == [false])
    }

    @Test func readingPastTheEndFails() throws {
        let data = try SequentialArchiver.archivedData(withRootObject: Greedy())
        #expect {
            try SequentialUnarchiver.unarchivedObject(from: data)
        } throws: { ($0 as? ArchiveError)?.code == .valueNotFound }
    }

    @Test func versionsAreRecorded() throws {
        let data = try SequentialArchiver.archivedData(withRootObject: [VersionedCounter(), Department()])
        let unarchiver = try SequentialUnarchiver(forReadingFrom: data)
        #expect(unarchiver.version(forClassName: "ModelObjectsTests.VersionedCounter") == 3)
        #expect(unarchiver.version(forClassName: "SampleModels.Department") == 0)
        #expect(unarchiver.version(forClassName: "SampleModels.Employee") == nil)
    }

    @Test func keyedArchiveIsNotASequentialArchive() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: "x")
        #expect {
            try SequentialUnarchiver(forReadingFrom: data)
        } throws: { ($0 as? ArchiveError)?.code == .corruptArchive }
    }
}
