// A fuzz target for the unarchivers: every input must decode or throw, never crash, hang or
// allocate without bound, and what decodes must be safe to use: described, validated, copied and
// archived again. `.ci/fuzz archive` builds it with libFuzzer (`-sanitize=fuzzer,address`) and
// the sample model classes, so archives naming `SampleModels.Department` or
// `SampleModels.Employee` decode into real objects and set decoded values on their properties;
// built normally, it replays the files given on the command line, or writes seed archives.

import Foundation
import ModelObjects
import SampleModels

/// Maps the class names of the Foundation-written department archive in the test fixtures
/// (written by a program whose module is `gen`) to the sample classes, once.
private let foundationClassNames: Void = {
    KeyedUnarchiver.setClass(Department.self, forClassName: "gen.FDepartment")
    KeyedUnarchiver.setClass(Employee.self, forClassName: "gen.FEmployee")
}()

/// Decodes one input with every reader and uses what decodes; errors are expected, crashes are
/// bugs.
func decodeEverything(_ data: Data) {
    _ = foundationClassNames
    if let value = try? KeyedUnarchiver.unarchivedObject(from: data) { use(value) }
    if let value = try? SequentialUnarchiver.unarchivedObject(from: data) { use(value) }
    // Secure decoding refuses other classes before making any object of them.
    let allowed: Set<ArchiveClass> = [.class(Department.self), .class(Employee.self), .array, .set, .dictionary]
    if let value = try? KeyedUnarchiver.unarchivedObject(ofClasses: allowed, from: data) { use(value) }
    // The typed entry points check the root's class after decoding.
    if let value = try? KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data) { breakCycles(value) }
    if let value = try? SequentialUnarchiver.unarchivedObject(ofClass: Employee.self, from: data) { breakCycles(value) }
}

/// Uses a decoded value the ways an application would: any value it accepted must survive them.
func use(_ value: Any) {
    _ = String(describing: value)
    _ = String(reflecting: value)
    if let object = value as? ModelObject {
        _ = try? object.dictionaryWithValues(forKeys: object.declaredKeys)
        _ = try? object.validateForUpdate()
        _ = object.copy().description
        let deepCopy = object.deepCopy()
        _ = deepCopy.description
        breakCycles(deepCopy)
    }
    _ = try? KeyedArchiver.archivedData(withRootObject: value)
    _ = try? KeyedArchiver.archivedData(withRootObject: value, format: .xml)
    _ = try? SequentialArchiver.archivedData(withRootObject: value)
    breakCycles(value)
}

/// Clears the relationships of every sample object reachable from `value`. Relationships and
/// their inverses are strong references, as in Cocoa, so a decoded graph is never freed on its
/// own; cleared, it is, and the sanitizer's leak check reports only real leaks.
func breakCycles(_ value: Any) {
    var visited: Set<ObjectIdentifier> = []
    var pending: [Any] = [value]
    while let next = pending.popLast() {
        if let object = next as? ModelObject {
            guard visited.insert(ObjectIdentifier(object)).inserted else { continue }
            if let department = object as? Department {
                pending.append(department.employees)
                department.employees = []
            }
            if let employee = object as? Employee {
                pending.append(contentsOf: [employee.department as Any, employee.manager as Any, employee.directReports])
                employee.department = nil
                employee.manager = nil
                employee.directReports = []
            }
        } else {
            // Only containers hold objects: dictionary entries are tuples.
            let mirror = Mirror(reflecting: next)
            switch mirror.displayStyle {
            case .collection, .dictionary, .set, .optional, .tuple: pending.append(contentsOf: mirror.children.map(\.value))
            default: break
            }
        }
    }
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    decodeEverything(Data(bytes: bytes, count: count))
    return 0
}

#if !FUZZING
/// Archives of the sample models, to seed the fuzzer's corpus: every property type of the
/// sample classes, in every archive format.
func seedArchives() throws -> [String: Data] {
    let department = Department(name: "Engineering", budget: Decimal(string: "1234.5") ?? 0)
    for index in 0..<3 {
        let employee = Employee(firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: 1000)
        employee.age = index == 2 ? nil : 30 + index
        employee.hasDriversLicense = index == 1
        employee.startDate = Date(timeIntervalSinceReferenceDate: 86_400.5 * Double(index))
        employee.department = department
        department.employees.append(employee)
    }
    department.employees[1].manager = department.employees[0]
    department.employees[0].directReports = [department.employees[1]]
    let employee = department.employees[1]
    // Values written inline where the classes write objects or other types (a real budget, a
    // string salary, a fractional age): one mutation from `+infinity` or `nan` in a property,
    // and the conversion and type-mismatch paths from the start.
    let xml = String(decoding: try KeyedArchiver.archivedData(withRootObject: department, format: .xml), as: UTF8.self)
    let inlineValues = xml
        .replacing(try Regex(#"<key>budget</key>\s*<dict>\s*<key>CF\$UID</key>\s*<integer>\d+</integer>\s*</dict>"#),
                   with: "<key>budget</key><real>1234.5</real>")
        .replacing("<real>1000</real>", with: "<string>1000</string>", maxReplacements: 1)
        .replacing("<integer>30</integer>", with: "<real>30.5</real>", maxReplacements: 1)
    return [
        "department-inline-values-keyed-xml": Data(inlineValues.utf8),
        "department-keyed-binary": try KeyedArchiver.archivedData(withRootObject: department),
        "department-keyed-xml": try KeyedArchiver.archivedData(withRootObject: department, format: .xml),
        "department-sequential": try SequentialArchiver.archivedData(withRootObject: department),
        "employee-keyed-binary": try KeyedArchiver.archivedData(withRootObject: employee),
        "employee-keyed-xml": try KeyedArchiver.archivedData(withRootObject: employee, format: .xml),
        "employee-sequential": try SequentialArchiver.archivedData(withRootObject: employee),
        "employees-array-keyed-xml": try KeyedArchiver.archivedData(withRootObject: department.employees, format: .xml),
        "values-keyed-binary": try KeyedArchiver.archivedData(withRootObject: [
            "date": Date(timeIntervalSinceReferenceDate: 1), "uuid": UUID(), "numbers": [1, 2.5, true],
            "url": URL(string: "https://example.com/a") as Any, "set": Set([1, 2]),
            "decimal": Decimal(string: "0.1") as Any, "data": Data([0, 1, 255]), "null": NSNull(),
        ] as [String: Any]),
    ]
}

@main
struct ArchiveFuzzer {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--write-seeds", let directory = arguments.dropFirst().first {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (name, data) in try seedArchives() {
                try data.write(to: url.appendingPathComponent(name))
            }
            return
        }
        for path in arguments {
            decodeEverything(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }
}
#endif
