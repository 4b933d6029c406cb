import Foundation
import Testing
@testable import ModelObjects
import SampleModels

/// The seed's Employee: custom keys, and one `encode(with:)` for keyed and classic coders.
final class SeedEmployee: ModelObject {
    @Attribute var firstName = ""
    @Attribute var lastName = ""
    @Attribute var employeeID = 0
    @Relationship var department: Department?

    override func encode(with coder: Coder) {
        if coder.allowsKeyedCoding {
            coder.encode(firstName, forKey: "First")
            coder.encode(lastName, forKey: "Last")
            coder.encode(employeeID, forKey: "EmpID")
            coder.encode(department, forKey: "department")
        } else {
            coder.encode(firstName)
            coder.encode(lastName)
            coder.encode(department)
            coder.encode(employeeID)
        }
    }

    required init(coder: Coder) throws {
        try super.init(coder: coder)
        if coder.allowsKeyedCoding {
            department = try coder.decodeObject(of: Department.self, forKey: "department")
            employeeID = try coder.decodeInteger(forKey: "EmpID")
            lastName = try coder.decodeObject(of: String.self, forKey: "Last") ?? ""
            firstName = try coder.decodeObject(of: String.self, forKey: "First") ?? ""
        } else {
            firstName = try coder.decodeObject() as? String ?? ""
            lastName = try coder.decodeObject() as? String ?? ""
            department = try coder.decodeObject() as? Department
            employeeID = try coder.decodeInteger()
        }
    }

    required init() {
        super.init()
    }
}

/// A class at version 2 that reads version-1 archives, where `title` was called `name`.
final class VersionedNote: ModelObject {
    @Attribute var title = ""
    nonisolated(unsafe) static var currentVersion = 2
    override class var version: Int { currentVersion }

    override func encode(with coder: Coder) {
        coder.encode(title, forKey: Self.currentVersion >= 2 ? "title" : "name")
    }

    required init(coder: Coder) throws {
        try super.init(coder: coder)
        let archived = coder.version(forClassName: KeyedArchiver.className(for: VersionedNote.self)) ?? 0
        title = try coder.decodeObject(of: String.self, forKey: archived >= 2 ? "title" : "name") ?? ""
    }

    required init() {
        super.init()
    }
}

/// Encodes one reference conditionally.
final class Holder: ModelObject {
    @Relationship var strong: Department?
    @Relationship var weak: Department?
    override func encode(with coder: Coder) {
        coder.encodeConditionalObject(weak, forKey: "weak")
        coder.encode(strong, forKey: "strong")
    }
    required init(coder: Coder) throws {
        try super.init(coder: coder)
        strong = try coder.decodeObject(of: Department.self, forKey: "strong")
        weak = try coder.decodeObject(of: Department.self, forKey: "weak")
    }
    required init() { super.init() }
}

/// Encodes scalars with every keyed method and decodes them back.
final class Scalars: ModelObject {
    var results: [String] = []
    override func encode(with coder: Coder) {
        coder.encode(7, forKey: "int")
        coder.encode(Int32(-3), forKey: "int32")
        coder.encode(Int64.max, forKey: "int64")
        coder.encode(1.25, forKey: "double")
        coder.encode(Float(0.5), forKey: "float")
        coder.encode(true, forKey: "bool")
        coder.encode("text", forKey: "string")
    }
    required init(coder: Coder) throws {
        try super.init(coder: coder)
        results = [
            "\(try coder.decodeInteger(forKey: "int"))", "\(try coder.decodeInt32(forKey: "int32"))",
            "\(try coder.decodeInt64(forKey: "int64"))", "\(try coder.decodeDouble(forKey: "double"))",
            "\(try coder.decodeFloat(forKey: "float"))", "\(try coder.decodeBool(forKey: "bool"))",
            "\(try coder.decodeInteger(forKey: "missing"))", "\(coder.containsValue(forKey: "missing"))",
            "\(coder.containsValue(forKey: "int"))",
        ]
        do {
            _ = try coder.decodeInteger(forKey: "string")
            results.append("no error")
        } catch ArchiveError.Code.typeMismatch {
            results.append("typeMismatch")
        }
    }
    required init() { super.init() }
}

/// Calls a sequential method on a keyed coder.
final class Confused: ModelObject {
    override func encode(with coder: Coder) { coder.encode("no key") }
}

/// A class whose archived name is mapped at class level by one test only.
final class MappedThing: ModelObject {
    @Attribute var name = ""
}

/// Builds a department whose employees point back at it, with a manager and direct reports.
func makeDepartment(employees count: Int = 3) -> Department {
    let department = Department(name: "Engineering", budget: Decimal(string: "1250000.75") ?? 0)
    for index in 0..<count {
        let employee = Employee(
            firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: 1000 + Double(index))
        employee.age = index % 2 == 0 ? 20 + index : nil
        employee.hasDriversLicense = index % 3 == 0
        employee.startDate = Date(timeIntervalSinceReferenceDate: Double(index) * 86_400)
        employee.department = department
        department.employees.append(employee)
    }
    if count >= 3 {
        department.employees[1].manager = department.employees[0]
        department.employees[2].manager = department.employees[0]
        department.employees[0].directReports = [department.employees[1], department.employees[2]]
    }
    return department
}

@Suite struct KeyedArchiverRoundTripTests {
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func departmentWithCyclesRoundTrips(format: PropertyListSerialization.PropertyListFormat) throws {
        let original = makeDepartment()
        let data = try KeyedArchiver.archivedData(withRootObject: original, format: format)
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data))
        #expect(copy !== original)
        #expect(copy.name == "Engineering")
        #expect(copy.budget == Decimal(string: "1250000.75"))
        #expect(copy.employees.count == 3)
        for (restored, source) in zip(copy.employees, original.employees) {
            #expect(restored.firstName == source.firstName)
            #expect(restored.lastName == source.lastName)
            #expect(restored.employeeID == source.employeeID)
            #expect(restored.salary == source.salary)
            #expect(restored.age == source.age)
            #expect(restored.hasDriversLicense == source.hasDriversLicense)
            #expect(restored.startDate == source.startDate)
            #expect(restored.department === copy)
        }
        #expect(copy.employees[1].manager === copy.employees[0])
        #expect(copy.employees[0].directReports.map(ObjectIdentifier.init)
                == [copy.employees[1], copy.employees[2]].map(ObjectIdentifier.init))
    }

    @Test func objectReferencedTwiceIsEncodedOnceAndComesBackShared() throws {
        let shared = Department(name: "Shared")
        let a = Employee(), b = Employee()
        a.department = shared
        b.department = shared
        let data = try KeyedArchiver.archivedData(withRootObject: [a, b])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(from: data) as? [Any])
        let employees = decoded.compactMap { $0 as? Employee }
        #expect(employees.count == 2)
        #expect(employees[0].department === employees[1].department)
        let archive = try PropertyListEncoding.decode(data)
        guard case .array(let objects)? = archive["$objects"] else { Issue.record("no $objects"); return }
        let departments = objects.filter { $0["name"] != nil }
        #expect(departments.count == 1)
    }

    @Test func archiveHasFoundationsLayout() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Department(name: "X"))
        #expect(data.starts(with: Array("bplist00".utf8)))
        let archive = try PropertyListEncoding.decode(data)
        #expect(archive["$archiver"] == .string("NSKeyedArchiver"))
        #expect(archive["$version"] == .integer(100_000))
        guard case .array(let objects)? = archive["$objects"] else { Issue.record("no $objects"); return }
        #expect(objects.first == .string("$null"))
        guard case .uid(let root)? = archive["$top"]?["root"], let rootIndex = Int(exactly: root) else {
            Issue.record("no $top root UID"); return
        }
        guard case .uid(let classUID)? = objects[rootIndex]["$class"], let classIndex = Int(exactly: classUID) else {
            Issue.record("no $class"); return
        }
        #expect(objects[classIndex]["$classname"] == .string("SampleModels.Department"))
        #expect(objects[classIndex]["$classes"] == .array([
            .string("SampleModels.Department"), .string("ModelObjects.ModelObject"), .string("NSObject"),
        ]))
    }

    @Test func xmlFormatOnRequest() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: "hello", format: .xml)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("<?xml"))
        #expect(text.contains("<string>NSKeyedArchiver</string>"))
        #expect(try KeyedUnarchiver.unarchivedObject(from: data) as? String == "hello")
    }

    @Test func valuesOfEveryBoxedTypeRoundTrip() throws {
        let uuid = UUID()
        let values: [String: Any] = [
            "string": "héllo ✓", "int": 42, "negative": -7, "double": 2.5, "bool": true,
            "date": Date(timeIntervalSinceReferenceDate: 99.5), "data": Data([0, 1, 255]), "uuid": uuid,
            "url": URL(string: "https://swift.org/a?b=c") as Any, "decimal": Decimal(string: "-12.345") as Any,
            "point": CGPoint(x: 1.5, y: -2), "size": CGSize(width: 3, height: 4),
            "rect": CGRect(x: 1, y: 2, width: 3, height: 4), "range": NSRange(location: 5, length: 6),
            "array": [1, 2, 3], "set": Set(["a", "b"]), "nested": ["inner": [true, false]], "null": NSNull(),
            "big": UInt64.max,
        ]
        let data = try KeyedArchiver.archivedData(withRootObject: values)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(from: data) as? [String: Any])
        #expect(decoded["string"] as? String == "héllo ✓")
        #expect(decoded["int"] as? Int == 42)
        #expect(decoded["negative"] as? Int == -7)
        #expect(decoded["double"] as? Double == 2.5)
        #expect(decoded["bool"] as? Bool == true)
        #expect(decoded["date"] as? Date == Date(timeIntervalSinceReferenceDate: 99.5))
        #expect(decoded["data"] as? Data == Data([0, 1, 255]))
        #expect(decoded["uuid"] as? UUID == uuid)
        #expect((decoded["url"] as? URL)?.absoluteString == "https://swift.org/a?b=c")
        #expect(decoded["decimal"] as? Decimal == Decimal(string: "-12.345"))
        #expect(decoded["point"] as? CGPoint == CGPoint(x: 1.5, y: -2))
        #expect(decoded["size"] as? CGSize == CGSize(width: 3, height: 4))
        #expect(decoded["rect"] as? CGRect == CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(decoded["range"] as? NSRange == NSRange(location: 5, length: 6))
        #expect((decoded["array"] as? [Any])?.compactMap { $0 as? Int } == [1, 2, 3])
        #expect(decoded["set"] as? Set<AnyHashable> == Set(["a", "b"]))
        #expect(((decoded["nested"] as? [String: Any])?["inner"] as? [Any])?.compactMap { $0 as? Bool } == [true, false])
        #expect(decoded["null"] is NSNull)
        #expect(decoded["big"] as? UInt64 == UInt64.max)
    }

    @Test(arguments: ["0", "1", "-1", "0.001", "123456789012345678901234567890.5", "-98765.4321", "1e-30"])
    func decimalsRoundTripExactly(text: String) throws {
        let decimal = try #require(Decimal(string: text))
        let data = try KeyedArchiver.archivedData(withRootObject: decimal)
        #expect(try KeyedUnarchiver.unarchivedObject(from: data) as? Decimal == decimal)
    }

    @Test func seedEmployeeUsesItsOwnKeys() throws {
        let employee = SeedEmployee()
        employee.firstName = "Ada"
        employee.lastName = "Lovelace"
        employee.employeeID = 815
        employee.department = Department(name: "Math")
        let data = try KeyedArchiver.archivedData(withRootObject: employee)
        let archive = try PropertyListEncoding.decode(data)
        guard case .array(let objects)? = archive["$objects"] else { Issue.record("no $objects"); return }
        let body = try #require(objects.first { $0["EmpID"] != nil })
        #expect(body["EmpID"] == .integer(815))
        #expect(body["First"] != nil && body["Last"] != nil && body["firstName"] == nil)
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: SeedEmployee.self, from: data))
        #expect(copy.firstName == "Ada" && copy.lastName == "Lovelace" && copy.employeeID == 815)
        #expect(copy.department?.name == "Math")
    }

    @Test func conditionalObjectIsKeptWhenEncodedElsewhere() throws {
        let department = Department(name: "D")
        let kept = Holder()
        kept.strong = department
        kept.weak = department
        let keptCopy = try #require(try KeyedUnarchiver.unarchivedObject(
            ofClass: Holder.self, from: KeyedArchiver.archivedData(withRootObject: kept)))
        #expect(keptCopy.weak === keptCopy.strong)
        #expect(keptCopy.weak?.name == "D")

        let dropped = Holder()
        dropped.weak = department
        let droppedCopy = try #require(try KeyedUnarchiver.unarchivedObject(
            ofClass: Holder.self, from: KeyedArchiver.archivedData(withRootObject: dropped)))
        #expect(droppedCopy.weak == nil)
    }

    @Test func classVersionIsRecordedAndReadBack() throws {
        VersionedNote.currentVersion = 1
        let old = VersionedNote()
        old.title = "From version 1"
        let data = try KeyedArchiver.archivedData(withRootObject: old)
        VersionedNote.currentVersion = 2
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.version(forClassName: "ModelObjectsTests.VersionedNote") == 1)
        #expect(unarchiver.version(forClassName: "Nope") == nil)
        let note = try #require(try unarchiver.decodeObject(of: VersionedNote.self, forKey: "root"))
        #expect(note.title == "From version 1")
        let current = try KeyedArchiver.archivedData(withRootObject: note)
        #expect(try KeyedUnarchiver(forReadingFrom: current).version(forClassName: "ModelObjectsTests.VersionedNote") == 2)
    }

    @Test func classNamesMapOnBothSides() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("Dept", for: Department.self)
        archiver.encode(Department(name: "Mapped"), forKey: "root")
        let data = try archiver.finishEncoding()
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(from: data) }
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(Department.self, forClassName: "Dept")
        #expect(try unarchiver.decodeObject(of: Department.self, forKey: "root")?.name == "Mapped")

        KeyedUnarchiver.setClass(MappedThing.self, forClassName: "ClassLevelThing")
        KeyedArchiver.setClassName("ClassLevelThing", for: MappedThing.self)
        defer {
            KeyedArchiver.setClassName(nil, for: MappedThing.self)
            KeyedUnarchiver.setClass(nil, forClassName: "ClassLevelThing")
        }
        #expect(KeyedArchiver.className(for: MappedThing.self) == "ClassLevelThing")
        let thing = MappedThing()
        thing.name = "Class level"
        let mapped = try KeyedArchiver.archivedData(withRootObject: thing)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: MappedThing.self, from: mapped)?.name == "Class level")
    }

    @Test func decodedObjectsAreObservable() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: makeDepartment())
        let copy = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data))
        var seen: [String] = []
        let token = try copy.observe("employees.firstName", options: [.new]) { _, change in
            seen.append("\(change.newValue ?? "nil")")
        }
        copy.employees[0].firstName = "Changed"
        token.invalidate()
        #expect(seen.count == 1)
        #expect(try copy.value(forKeyPath: "employees.@count") as? Int == 3)
    }

    @Test func scalarDecodersConvertAndDefault() throws {
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(
            ofClass: Scalars.self, from: KeyedArchiver.archivedData(withRootObject: Scalars())))
        #expect(decoded.results == ["7", "-3", "\(Int64.max)", "1.25", "0.5", "true", "0", "false", "true", "typeMismatch"])
    }
}

@Suite struct KeyedArchiverErrorTests {
    @Test func unsupportedValueFailsWhenFinishing() {
        struct Opaque {}
        #expect {
            try KeyedArchiver.archivedData(withRootObject: ["x": Opaque()])
        } throws: { ($0 as? ArchiveError)?.code == .invalidValue }
    }

    @Test func sequentialMethodOnKeyedCoderFails() {
        #expect {
            try KeyedArchiver.archivedData(withRootObject: Confused())
        } throws: { ($0 as? ArchiveError)?.code == .unsupportedOperation }
    }

    @Test func unknownClassIsNamed() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("NoSuchClass", for: Department.self)
        archiver.encode(Department(), forKey: "root")
        let data = try archiver.finishEncoding()
        #expect {
            try KeyedUnarchiver.unarchivedObject(from: data)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .unknownClass && error.className == "NoSuchClass"
        }
    }

    @Test func notAnArchiveIsCorrupt() {
        #expect {
            try KeyedUnarchiver(forReadingFrom: Data("hello".utf8))
        } throws: { ($0 as? ArchiveError)?.code == .corruptArchive }
    }

    @Test func typeMismatchOnDecodeObjectOfClass() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: "a string")
        #expect {
            try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
    }

    @Test func archivedValueOfWrongTypeForPropertyFails() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: Department(name: "X"))
        var tree = try PropertyListEncoding.decode(archive)
        tree = replacingFirst(in: tree) { value in
            if case .dictionary(var entries) = value, entries["budget"] != nil {
                entries.updateValue(.bool(true), forKey: "name")
                return .dictionary(entries)
            }
            return nil
        }
        let data = try PropertyListEncoding.encode(tree, format: .binary)
        #expect {
            try KeyedUnarchiver.unarchivedObject(from: data)
        } throws: { ($0 as? ArchiveError)?.code == .typeMismatch }
    }
}

/// Replaces the first value (depth first) for which `transform` answers a replacement.
func replacingFirst(in value: PropertyListValue, _ transform: (PropertyListValue) -> PropertyListValue?) -> PropertyListValue {
    var done = false
    func visit(_ value: PropertyListValue) -> PropertyListValue {
        if done { return value }
        if let replaced = transform(value) {
            done = true
            return replaced
        }
        switch value {
        case .array(let elements): return .array(elements.map(visit))
        case .dictionary(let entries): return .dictionary(PropertyListDictionary(entries.map { ($0.key, visit($0.value)) }))
        default: return value
        }
    }
    return visit(value)
}
