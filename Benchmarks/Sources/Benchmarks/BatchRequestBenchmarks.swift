import CBenchmarkSQLite
import Foundation
import ManagedObjects
import ModelObjects

/// Batch update and batch delete requests of 100,000 records on the SQLite store, against the
/// same statements through the raw C API on a file filled the same way.
enum BatchRequestBenchmarks {
    static let count = 100_000

    /// Times each operation (best of `runs`, each on a freshly filled file) and prints a table.
    static func report(runs: Int = 3) {
        guard let model = try? makeModel() else {
            print("model failed")
            return
        }
        func measure(_ body: (ManagedObjectContext, URL) throws -> Double) -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("BatchBenchmarks-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: directory) }
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    let url = directory.appendingPathComponent("Store.sqlite")
                    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                    try coordinator.addPersistentStore(type: .sqlite, at: url)
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    try fill(context)
                    times.append(try body(context, url))
                } catch {
                    print("batch benchmark failed: \(error)")
                }
            }
            return times.min() ?? .nan
        }
        let predicate = try? KeyValuePredicate(format: "value >= 0")
        let update = measure { context, _ in
            let start = now()
            try context.execute(BatchUpdateRequest(entityName: "Reading", predicate: predicate, propertiesToUpdate: ["value": 1.5]))
            return Double(now() - start)
        }
        let rawUpdate = measure { _, url in
            try raw(url, "UPDATE \"ZREADING\" SET \"ZVALUE\" = 1.5, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"ZVALUE\" >= 0")
        }
        let delete = measure { context, _ in
            let start = now()
            try context.execute(BatchDeleteRequest(entityName: "Reading", predicate: predicate))
            return Double(now() - start)
        }
        let rawDelete = measure { _, url in try raw(url, "DELETE FROM \"ZREADING\" WHERE \"ZVALUE\" >= 0") }
        let related = measure { context, _ in
            let start = now()
            try context.execute(BatchDeleteRequest(entityName: "Employee", predicate: try KeyValuePredicate(format: "salary >= 0")))
            return Double(now() - start)
        }
        let rawRelated = measure { _, url in
            try raw(
                url,
                "UPDATE \"ZDEPARTMENT\" SET \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" IN (SELECT \"ZDEPARTMENT\" FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= 0)",
                "DELETE FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= 0")
        }

        print("## Batch update and delete")
        print()
        print("| Operation | Library (best of \(runs)) | Per record | Raw C API | Ratio |")
        print("|:--|--:|--:|--:|--:|")
        func row(_ name: String, _ library: Double, _ baseline: Double) {
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(count))) | \(formatDuration(baseline)) | \(String(format: "%.2fx", library / baseline)) |")
        }
        row("batch update of 100,000 readings (`value >= 0`, one UPDATE; raw: the same UPDATE)", update, rawUpdate)
        row("batch delete of 100,000 readings (no relationships: one DELETE; raw: the same DELETE)", delete, rawDelete)
        row("batch delete of 100,000 employees of 10 departments (nullify: the departments' versions raised; raw: the same UPDATE + DELETE)", related, rawRelated)
        print()
    }

    private static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Reading") {
                Property("value", .double, defaultValue: 0.0)
                Property("station", .string)
            }
            Entity("Department") {
                Property("name", .string)
                Property("employees", to: "Employee", inverse: "department", toMany: true)
            }
            Entity("Employee") {
                Property("salary", .double, defaultValue: 0.0)
                Property("department", to: "Department", inverse: "employees")
            }
        }
    }

    /// 100,000 readings, 10 departments and 100,000 employees, through batch inserts.
    private static func fill(_ context: ManagedObjectContext) throws {
        try context.execute(BatchInsertRequest(
            entityName: "Reading", objects: (0..<count).map { ["value": Double($0 % 1000), "station": "S\($0 % 50)"] }))
        let departments = try context.execute(BatchInsertRequest(entityName: "Department", objects: (0..<10).map { ["name": "D\($0)"] }))
        try context.execute(BatchInsertRequest(
            entityName: "Employee", objects: (0..<count).map { ["salary": Double(40_000 + $0 % 997), "department": departments[$0 % 10]] }))
    }

    /// Runs `statements` in one transaction through the C API; returns the time taken.
    private static func raw(_ url: URL, _ statements: String...) throws -> Double {
        var database: OpaquePointer?
        guard sqlite3_open_v2(url.path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let database else {
            throw CocoaError(.fileReadUnknown)
        }
        defer { sqlite3_close_v2(database) }
        let start = now()
        sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil)
        for sql in statements {
            guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
        }
        sqlite3_exec(database, "COMMIT", nil, nil, nil)
        return Double(now() - start)
    }
}
