import Foundation
import Testing
import ModelObjects
import SampleModels

/// Foundation's side of the interop tests: NSCoding classes using the same keys as the sample
/// models' default archiving.
final class FoundationEmployee: NSObject, NSCoding {
    var firstName = ""
    var lastName = ""
    var employeeID = 0
    var salary = 0.0
    var age: Int?
    var startDate: Date?

    override init() {}

    init?(coder: NSCoder) {
        firstName = coder.decodeObject(forKey: "firstName") as? String ?? ""
        lastName = coder.decodeObject(forKey: "lastName") as? String ?? ""
        employeeID = coder.decodeInteger(forKey: "employeeID")
        salary = coder.decodeDouble(forKey: "salary")
        age = coder.containsValue(forKey: "age") ? (coder.decodeObject(forKey: "age") as? NSNumber)?.intValue : nil
        startDate = coder.decodeObject(forKey: "startDate") as? Date
    }

    func encode(with coder: NSCoder) {
        coder.encode(firstName, forKey: "firstName")
        coder.encode(lastName, forKey: "lastName")
        coder.encode(employeeID, forKey: "employeeID")
        coder.encode(salary, forKey: "salary")
        if let startDate { coder.encode(startDate, forKey: "startDate") }
    }
}

final class FoundationDepartment: NSObject, NSCoding {
    var name = ""
    var employees: [FoundationEmployee] = []

    override init() {}

    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        employees = coder.decodeObject(forKey: "employees") as? [FoundationEmployee] ?? []
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(employees as NSArray, forKey: "employees")
    }
}

@Suite struct FoundationInteropTests {
    func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "plist", subdirectory: "Fixtures/Archives"))
        return try Data(contentsOf: url)
    }

    @Test func ourArchiveDecodesWithFoundationsUnarchiver() throws {
        let employee = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1815, salary: 120_000.5)
        employee.startDate = Date(timeIntervalSinceReferenceDate: 1_000)
        let data = try KeyedArchiver.archivedData(withRootObject: employee)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(FoundationEmployee.self, forClassName: "SampleModels.Employee")
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FoundationEmployee)
        #expect(decoded.firstName == "Ada" && decoded.lastName == "Lovelace")
        #expect(decoded.employeeID == 1815 && decoded.salary == 120_000.5)
        #expect(decoded.startDate == Date(timeIntervalSinceReferenceDate: 1_000))
    }

    @Test func ourValuesDecodeWithFoundation() throws {
        let uuid = UUID()
        let values: [String: Any] = [
            "string": "héllo", "int": 42, "double": 2.5, "bool": true, "array": ["a", "b"],
            "date": Date(timeIntervalSinceReferenceDate: 5), "data": Data([1, 2]), "uuid": uuid,
            "url": URL(string: "https://swift.org") as Any,
        ]
        let data = try KeyedArchiver.archivedData(withRootObject: values)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary)
        #expect(unarchiver.error == nil)
        #expect(decoded["string"] as? String == "héllo")
        #expect((decoded["int"] as? NSNumber)?.intValue == 42)
        #expect((decoded["double"] as? NSNumber)?.doubleValue == 2.5)
        #expect((decoded["array"] as? [String]) == ["a", "b"])
        #expect(decoded["date"] as? Date == Date(timeIntervalSinceReferenceDate: 5))
        #expect(decoded["data"] as? Data == Data([1, 2]))
        #expect(decoded["uuid"] as? UUID == uuid)
        #expect((decoded["url"] as? URL)?.absoluteString == "https://swift.org")
    }

    @Test func foundationsArchiveDecodesWithOurUnarchiver() throws {
        let department = FoundationDepartment()
        department.name = "Research"
        let grace = FoundationEmployee()
        grace.firstName = "Grace"
        grace.employeeID = 2
        grace.salary = 135_000
        department.employees = [grace, grace]
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(department, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        // Foundation on Linux ignores setClassName(_:for:), so the names are mapped on our side.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(Department.self, forClassName: NSStringFromClass(FoundationDepartment.self))
        unarchiver.setClass(Employee.self, forClassName: NSStringFromClass(FoundationEmployee.self))
        let decoded = try #require(try unarchiver.decodeObject(of: Department.self, forKey: "root"))
        #expect(decoded.name == "Research")
        #expect(decoded.employees.count == 2)
        #expect(decoded.employees[0] === decoded.employees[1])
        #expect(decoded.employees[0].firstName == "Grace" && decoded.employees[0].salary == 135_000)
    }

    @Test func goldenDepartmentWrittenByFoundationDecodes() throws {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: fixture("foundation-department"))
        unarchiver.setClass(Department.self, forClassName: "gen.FDepartment")
        unarchiver.setClass(Employee.self, forClassName: "gen.FEmployee")
        let decoded = try #require(try unarchiver.decodeObject(of: Department.self, forKey: "root"))
        #expect(decoded.name == "Engineering")
        #expect(decoded.employees.map(\.fullNameAndID) == [
            "Ada Lovelace (1)", "Grace Hopper (2)", "Ada Lovelace (1)",
        ])
        #expect(decoded.employees[0] === decoded.employees[2])
        #expect(decoded.employees[0].salary == 120_000.5)
    }

    @Test(arguments: ["foundation-values-binary", "foundation-values-xml"])
    func goldenValuesWrittenByFoundationDecode(name: String) throws {
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(from: fixture(name)) as? [String: Any])
        #expect(decoded["string"] as? String == "héllo wörld ✓")
        #expect(decoded["int"] as? Int == 42)
        #expect(decoded["negative"] as? Int == -7)
        #expect(decoded["double"] as? Double == 2.5)
        // Foundation on Linux archives `true` as the integer 1 (and shares it with the array's 1).
        #expect(decoded["bool"] as? Int == 1)
        #expect(decoded["date"] as? Date == Date(timeIntervalSinceReferenceDate: 123_456.5))
        #expect(decoded["data"] as? Data == Data([0, 1, 2, 255]))
        #expect(decoded["uuid"] as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect((decoded["url"] as? URL)?.absoluteString == "https://swift.org/documentation")
        #expect((decoded["array"] as? [Any]).map { "\($0)" } == "[\"a\", 1, 2.5]")
        #expect(decoded["set"] as? Set<AnyHashable> == Set([1, 2, 3]))
        #expect(decoded["null"] is NSNull)
    }

    /// Apple's own archives from swift-corelibs-foundation's test resources, when the shared
    /// fixtures are beside the checkout: collections, strings, numbers, dates, data, UUIDs and
    /// URLs decode; classes this library does not model throw an error naming them.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: appleArchivesPath)))
    func appleArchivesDecodeOrNameTheirUnknownClass() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: appleArchivesPath).sorted()
        #expect(!names.isEmpty)
        var decodedCount = 0
        for name in names {
            let data = try Data(contentsOf: URL(fileURLWithPath: appleArchivesPath).appendingPathComponent(name))
            do {
                _ = try KeyedUnarchiver.unarchivedObject(from: data)
                decodedCount += 1
            } catch let error as ArchiveError {
                #expect(error.code == .unknownClass, "\(name): \(error)")
                #expect(error.className != nil, "\(name): \(error)")
            }
        }
        #expect(decodedCount >= 8)
    }
}

/// `shared/fixtures/apple-archives` beside the checkout or beside one of its parent folders (a
/// worktree sits one level further down).
let appleArchivesPath: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    while url.path != "/" {
        url.deleteLastPathComponent()
        let candidate = url.appendingPathComponent("shared/fixtures/apple-archives")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
    }
    return "/nonexistent/shared/fixtures/apple-archives"
}()
