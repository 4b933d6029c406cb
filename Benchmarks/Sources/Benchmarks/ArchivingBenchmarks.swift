import Foundation
import ModelObjects

/// Keyed archiving of a department with its employees (names, ID, salary, back-reference to the
/// department), against Foundation's `NSKeyedArchiver` on the same data. Foundation cannot
/// archive the back-reference cycle on Linux (its unarchiver overflows the stack), so its side
/// archives the employees without it.
enum ArchivingBenchmarks {
    /// Times whole archives (best of `runs`) and prints a table of objects per second, bytes per
    /// employee and the 10x linearity check.
    static func report(runs: Int = 5) {
        let small = makeDepartment(employees: 10_000)
        let large = makeDepartment(employees: 100_000)
        let foundationSmall = makeFoundationDepartment(employees: 10_000)
        guard let archived = try? KeyedArchiver.archivedData(withRootObject: small),
              let archivedLarge = try? KeyedArchiver.archivedData(withRootObject: large)
        else {
            print("archiving failed")
            return
        }
        let foundationArchived = foundationArchive(foundationSmall)
        let foundationArchivedXML = foundationArchive(foundationSmall, format: .xml)
        guard let archivedXML = try? KeyedArchiver.archivedData(withRootObject: small, format: .xml),
              let archivedLargeXML = try? KeyedArchiver.archivedData(withRootObject: large, format: .xml)
        else {
            print("archiving as XML failed")
            return
        }
        precondition(decodedCount(archived) == 10_000, "round trip lost employees")
        if let path = ProcessInfo.processInfo.environment["BENCHMARK_ARCHIVE_PATH"] {
            try? archived.write(to: URL(fileURLWithPath: path))
        }

        func best(_ body: () -> Void) -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                let start = now()
                body()
                times.append(Double(now() - start) / 1e9)
            }
            return times.min() ?? .nan
        }
        let archiveSmall = best { blackHole(try? KeyedArchiver.archivedData(withRootObject: small)) }
        let archiveLarge = best { blackHole(try? KeyedArchiver.archivedData(withRootObject: large)) }
        let unarchiveSmall = best { blackHole(try? KeyedUnarchiver.unarchivedObject(from: archived)) }
        let unarchiveLarge = best { blackHole(try? KeyedUnarchiver.unarchivedObject(from: archivedLarge)) }
        let foundationArchiveTime = best { blackHole(foundationArchive(foundationSmall)) }
        let foundationUnarchiveTime = best { blackHole(foundationUnarchive(foundationArchived)) }
        // The same archives as XML property lists (the reader and writer of the XML format).
        let archiveXML = best { blackHole(try? KeyedArchiver.archivedData(withRootObject: small, format: .xml)) }
        let archiveLargeXML = best { blackHole(try? KeyedArchiver.archivedData(withRootObject: large, format: .xml)) }
        let unarchiveXML = best { blackHole(try? KeyedUnarchiver.unarchivedObject(from: archivedXML)) }
        let unarchiveLargeXML = best { blackHole(try? KeyedUnarchiver.unarchivedObject(from: archivedLargeXML)) }
        let foundationArchiveXMLTime = best { blackHole(foundationArchive(foundationSmall, format: .xml)) }
        let foundationUnarchiveXMLTime = best { blackHole(foundationUnarchive(foundationArchivedXML)) }

        func rate(_ objects: Double, _ seconds: Double) -> String {
            String(format: "%.0f", objects / seconds)
        }
        print("## Archiving")
        print()
        print("A department with 10,000 (and 100,000) employees: names, ID, salary, back-reference to the department.")
        print("Foundation's NSKeyedArchiver cannot take the back-reference cycle on Linux, so its side archives the employees without it.")
        print()
        print("| Operation | Time (best of \(runs)) | Objects/s | Foundation | Foundation objects/s | Target | Met |")
        print("|:--|--:|--:|--:|--:|--:|:-:|")
        let objects = 10_001.0
        print("| archive 10,000 employees | \(formatDuration(archiveSmall * 1e9)) | \(rate(objects, archiveSmall)) | \(formatDuration(foundationArchiveTime * 1e9)) | \(rate(objects, foundationArchiveTime)) | ≥ 500000/s | \(objects / archiveSmall >= 500_000 ? "yes" : "NO") |")
        print("| unarchive 10,000 employees | \(formatDuration(unarchiveSmall * 1e9)) | \(rate(objects, unarchiveSmall)) | \(formatDuration(foundationUnarchiveTime * 1e9)) | \(rate(objects, foundationUnarchiveTime)) | ≥ 500000/s | \(objects / unarchiveSmall >= 500_000 ? "yes" : "NO") |")
        print("| archive 100,000 employees | \(formatDuration(archiveLarge * 1e9)) | \(rate(objects * 10, archiveLarge)) | | | ≈ 10x of 10,000: \(String(format: "%.1f", archiveLarge / archiveSmall))x | \(archiveLarge / archiveSmall <= 15 ? "yes" : "NO") |")
        print("| unarchive 100,000 employees | \(formatDuration(unarchiveLarge * 1e9)) | \(rate(objects * 10, unarchiveLarge)) | | | ≈ 10x of 10,000: \(String(format: "%.1f", unarchiveLarge / unarchiveSmall))x | \(unarchiveLarge / unarchiveSmall <= 15 ? "yes" : "NO") |")
        print("| archive 10,000 employees as XML | \(formatDuration(archiveXML * 1e9)) | \(rate(objects, archiveXML)) | \(formatDuration(foundationArchiveXMLTime * 1e9)) | \(rate(objects, foundationArchiveXMLTime)) | | |")
        print("| unarchive 10,000 employees from XML | \(formatDuration(unarchiveXML * 1e9)) | \(rate(objects, unarchiveXML)) | \(formatDuration(foundationUnarchiveXMLTime * 1e9)) | \(rate(objects, foundationUnarchiveXMLTime)) | | |")
        print("| archive 100,000 employees as XML | \(formatDuration(archiveLargeXML * 1e9)) | \(rate(objects * 10, archiveLargeXML)) | | | ≈ 10x of 10,000: \(String(format: "%.1f", archiveLargeXML / archiveXML))x | \(archiveLargeXML / archiveXML <= 15 ? "yes" : "NO") |")
        print("| unarchive 100,000 employees from XML | \(formatDuration(unarchiveLargeXML * 1e9)) | \(rate(objects * 10, unarchiveLargeXML)) | | | ≈ 10x of 10,000: \(String(format: "%.1f", unarchiveLargeXML / unarchiveXML))x | \(unarchiveLargeXML / unarchiveXML <= 15 ? "yes" : "NO") |")
        let perEmployee = Double(archived.count) / 10_000
        print("| archive size | \(archived.count) bytes | \(String(format: "%.1f", perEmployee)) bytes/employee | \(foundationArchived.count) bytes | | ≤ 100 bytes/employee | \(perEmployee <= 100 ? "yes" : "NO") |")
        print()
    }

    private static func decodedCount(_ data: Data) -> Int {
        ((try? KeyedUnarchiver.unarchivedObject(from: data)) as? ArchivedDepartment)?.employees.count ?? -1
    }

    static func makeDepartment(employees count: Int) -> ArchivedDepartment {
        let department = ArchivedDepartment()
        department.name = "Engineering"
        department.employees = (0..<count).map { index in
            let employee = ArchivedEmployee()
            employee.firstName = "First\(index)"
            employee.lastName = "Last\(index)"
            employee.employeeID = index
            employee.salary = Double(40_000 + index % 997)
            employee.department = department
            return employee
        }
        return department
    }

    static func makeFoundationDepartment(employees count: Int) -> FoundationArchivedDepartment {
        let department = FoundationArchivedDepartment()
        department.name = "Engineering"
        department.employees = (0..<count).map { index in
            let employee = FoundationArchivedEmployee()
            employee.firstName = "First\(index)"
            employee.lastName = "Last\(index)"
            employee.employeeID = index
            employee.salary = Double(40_000 + index % 997)
            return employee
        }
        return department
    }

    static func foundationArchive(
        _ department: FoundationArchivedDepartment, format: PropertyListSerialization.PropertyListFormat = .binary
    ) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = format
        archiver.encode(department, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func foundationUnarchive(_ data: Data) -> Any? {
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        unarchiver.requiresSecureCoding = false
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }
}

/// The benchmark's employee: names, ID, salary and the department it belongs to.
final class ArchivedEmployee: ModelObject {
    @Attribute var firstName = ""
    @Attribute var lastName = ""
    @Attribute var employeeID = 0
    @Attribute var salary = 0.0
    @Relationship var department: ArchivedDepartment?
}

/// The benchmark's department.
final class ArchivedDepartment: ModelObject {
    @Attribute var name = ""
    @Relationship var employees: [ArchivedEmployee] = []
}

final class FoundationArchivedEmployee: NSObject, NSCoding {
    var firstName = "", lastName = "", employeeID = 0, salary = 0.0
    override init() {}
    init?(coder: NSCoder) {
        firstName = coder.decodeObject(forKey: "firstName") as? String ?? ""
        lastName = coder.decodeObject(forKey: "lastName") as? String ?? ""
        employeeID = coder.decodeInteger(forKey: "employeeID")
        salary = coder.decodeDouble(forKey: "salary")
    }
    func encode(with coder: NSCoder) {
        coder.encode(firstName, forKey: "firstName")
        coder.encode(lastName, forKey: "lastName")
        coder.encode(employeeID, forKey: "employeeID")
        coder.encode(salary, forKey: "salary")
    }
}

final class FoundationArchivedDepartment: NSObject, NSCoding {
    var name = ""
    var employees: [FoundationArchivedEmployee] = []
    override init() {}
    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        employees = coder.decodeObject(forKey: "employees") as? [FoundationArchivedEmployee] ?? []
    }
    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(employees as NSArray, forKey: "employees")
    }
}
