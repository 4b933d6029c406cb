// A fuzz target for the unarchivers: every input must decode or throw, never crash, hang or
// allocate without bound. `.ci/fuzz` builds it with libFuzzer (`-sanitize=fuzzer`) and runs it;
// built normally, it replays the files given on the command line, or writes seed archives.

import Foundation
#if !FUZZING
// Under libFuzzer `.ci/fuzz` compiles the library's sources and this file as one module.
import ModelObjects
import SampleModels
#endif

/// Decodes one input with every reader; errors are expected, crashes are bugs.
func decodeEverything(_ data: Data) {
    _ = try? KeyedUnarchiver.unarchivedObject(from: data)
    _ = try? SequentialUnarchiver.unarchivedObject(from: data)
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    decodeEverything(Data(bytes: bytes, count: count))
    return 0
}

#if !FUZZING
/// Archives of the sample models, to seed the fuzzer's corpus.
func seedArchives() throws -> [String: Data] {
    let department = Department(name: "Engineering", budget: Decimal(string: "1234.5") ?? 0)
    for index in 0..<3 {
        let employee = Employee(firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: 1000)
        employee.age = 30 + index
        employee.department = department
        department.employees.append(employee)
    }
    department.employees[1].manager = department.employees[0]
    department.employees[0].directReports = [department.employees[1]]
    return [
        "keyed-binary": try KeyedArchiver.archivedData(withRootObject: department),
        "keyed-xml": try KeyedArchiver.archivedData(withRootObject: department, format: .xml),
        "sequential-binary": try SequentialArchiver.archivedData(withRootObject: department),
        "values": try KeyedArchiver.archivedData(withRootObject: [
            "date": Date(timeIntervalSinceReferenceDate: 1), "uuid": UUID(), "numbers": [1, 2.5, true],
            "url": URL(string: "https://example.com/a") as Any, "set": Set([1, 2]),
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
