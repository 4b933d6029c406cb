import Foundation
import Testing

@testable import ManagedObjects

// Classes and helpers shared by the model tests. The class names are prefixed so they cannot
// clash with the sample classes other suites of this target define.

class ModelTestPerson: ManagedObject {}
final class ModelTestEmployee: ModelTestPerson {}
final class ModelTestDepartment: ManagedObject {}

enum ModelFixtures {
    /// A model file or bundle written for these tests, in Fixtures/Models.
    static func url(_ name: String, _ pathExtension: String, in folder: String = "Fixtures/Models") throws -> URL {
        try #require(
            Bundle.module.url(forResource: name, withExtension: pathExtension, subdirectory: folder),
            "fixture \(folder)/\(name).\(pathExtension) is missing from the test bundle")
    }

    /// A broken model file or bundle, in Fixtures/Models/Broken.
    static func broken(_ name: String, _ pathExtension: String = "xcdatamodel") throws -> URL {
        try url(name, pathExtension, in: "Fixtures/Models/Broken")
    }

    /// The real Xcode models shared by the project, next to the package: present on developer
    /// machines and in CI, absent in a bare clone.
    /// Looked for beside the package and beside its parent folders (a worktree sits deeper).
    static let sharedFolder: URL = {
        var folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        while folder.path != "/" {
            folder.deleteLastPathComponent()
            let candidate = folder.appendingPathComponent("shared/fixtures/xcdatamodels")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: "/nonexistent/shared/fixtures/xcdatamodels")
    }()

    static var sharedFolderExists: Bool { FileManager.default.fileExists(atPath: sharedFolder.path) }

    /// The company model of the README, in code.
    static func companyEntities() -> [Entity] {
        [
            Entity("Department", class: ModelTestDepartment.self) {
                Property("name", .string, optional: false)
                Property("budget", .decimal, defaultValue: Decimal(0))
                Property(
                    "employees", to: "Employee", inverse: "department", toMany: true, ordered: true,
                    deleteRule: .cascade)
            },
            Entity("Employee") {
                Property("firstName", .string)
                Property("salary", .double, defaultValue: 0.0, minimum: 0)
                Property("department", to: "Department", inverse: "employees", deleteRule: .nullify)
            },
        ]
    }
}

/// A directory under the system's temporary directory, removed when the value is deinitialized.
final class ModelTestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ModelTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` to `path` (relative, folders created) and returns its URL.
    @discardableResult
    func write(_ text: String, to path: String) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }
}
