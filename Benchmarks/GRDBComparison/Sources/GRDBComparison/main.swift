// The same work through this library's SQLite store and through GRDB: insert and save 100,000
// employees in 10 departments in one transaction, then fetch the 100,000 with a predicate and
// read one attribute of each. Best of three, fresh temporary files.

import Foundation
import GRDB
import ManagedObjects
import SampleModels

let count = 100_000

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func best(_ runs: Int = 3, _ body: (URL) throws -> Double) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grdb-comparison-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        times.append(try body(directory))
    }
    return times.min() ?? .nan
}

struct GRDBDepartment: Codable, PersistableRecord, FetchableRecord {
    static let databaseTableName = "department"
    var id: Int64
    var name: String
}

struct GRDBEmployee: Codable, PersistableRecord, FetchableRecord {
    static let databaseTableName = "employee"
    var id: Int64
    var firstName: String
    var lastName: String
    var employeeID: Int64
    var salary: Double
    var departmentId: Int64
}

func grdbSchema(_ db: Database) throws {
    try db.create(table: "department") { table in
        table.primaryKey("id", .integer)
        table.column("name", .text).notNull()
    }
    try db.create(table: "employee") { table in
        table.primaryKey("id", .integer)
        table.column("firstName", .text).notNull()
        table.column("lastName", .text).notNull()
        table.column("employeeID", .integer).notNull()
        table.column("salary", .double).notNull()
        table.column("departmentId", .integer).notNull().indexed().references("department")
    }
}

func format(_ nanoseconds: Double) -> String { String(format: "%.1f ms", nanoseconds / 1e6) }

/// A context on a new SQLite store in `directory`.
func makeContext(in directory: URL, model: ManagedObjectModel) throws -> ManagedObjectContext {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
    return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
}

/// The workload's 10 departments, inserted into `context`.
func insertDepartments(into context: ManagedObjectContext) -> [ManagedDepartment] {
    (0..<10).map { index in
        let department = ManagedDepartment(context: context)
        department.name = "Department \(index)"
        return department
    }
}

do {
    let model = try SampleModel.makeModel()

    let ours = try best { directory in
        let context = try makeContext(in: directory, model: model)
        let start = now()
        let departments = insertDepartments(into: context)
        for index in 0..<count {
            let employee = ManagedEmployee(context: context)
            employee.firstName = "First\(index)"
            employee.lastName = "Last\(index)"
            employee.employeeID = Int64(index)
            employee.salary = Double(40_000 + index % 997)
            employee.department = departments[index % 10]
        }
        try context.save()
        return Double(now() - start)
    }

    // The same 100,000 through a batch insert request (no managed objects), its dictionaries made
    // inside the timing, as GRDB's records are.
    let oursBatch = try best { directory in
        let context = try makeContext(in: directory, model: model)
        let start = now()
        let departments = insertDepartments(into: context)
        try context.save()
        var rows: [[String: Any]] = []
        rows.reserveCapacity(count)
        for index in 0..<count {
            var row: [String: Any] = [:]
            row["firstName"] = "First\(index)"
            row["lastName"] = "Last\(index)"
            row["employeeID"] = Int64(index)
            row["salary"] = Double(40_000 + index % 997)
            row["department"] = departments[index % 10].objectID
            rows.append(row)
        }
        try context.execute(BatchInsertRequest(entityName: "Employee", objects: rows))
        return Double(now() - start)
    }

    let grdb = try best { directory in
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("grdb.sqlite").path)
        try queue.write(grdbSchema)
        let start = now()
        try queue.write { db in
            for index in 0..<10 { try GRDBDepartment(id: Int64(index + 1), name: "Department \(index)").insert(db) }
            for index in 0..<count {
                try GRDBEmployee(
                    id: Int64(index + 1), firstName: "First\(index)", lastName: "Last\(index)", employeeID: Int64(index),
                    salary: Double(40_000 + index % 997), departmentId: Int64(index % 10 + 1)
                ).insert(db)
            }
        }
        return Double(now() - start)
    }

    // Fetch with a predicate and read one attribute of each.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grdb-comparison-fetch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let storeURL = directory.appendingPathComponent("Store.sqlite")
    do {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let department = ManagedDepartment(context: context)
        department.name = "Engineering"
        for index in 0..<count {
            let employee = ManagedEmployee(context: context)
            employee.salary = Double(40_000 + index % 997)
            employee.department = department
        }
        try context.save()
    }
    let queue = try DatabaseQueue(path: directory.appendingPathComponent("grdb.sqlite").path)
    try queue.write(grdbSchema)
    try queue.write { db in
        try GRDBDepartment(id: 1, name: "Engineering").insert(db)
        for index in 0..<count {
            try GRDBEmployee(
                id: Int64(index + 1), firstName: "", lastName: "", employeeID: 0, salary: Double(40_000 + index % 997),
                departmentId: 1
            ).insert(db)
        }
    }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    let predicate = try KeyValuePredicate(format: "salary >= 40000")
    let oursFetch = best { _ in
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let start = now()
        var total = 0.0
        let employees = (try? context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee", predicate: predicate))) ?? []
        for employee in employees { total += employee.salary }
        precondition(employees.count == count, "fetched \(employees.count)")
        return Double(now() - start) + total * 0
    }
    let grdbFetch = try best { _ in
        let start = now()
        let employees = try queue.read { db in try GRDBEmployee.filter(Column("salary") >= 40_000).fetchAll(db) }
        var total = 0.0
        for employee in employees { total += employee.salary }
        precondition(employees.count == count, "fetched \(employees.count)")
        return Double(now() - start) + total * 0
    }

    print("## SQLite store against GRDB 7.10.0")
    print()
    print("| Operation | ModelObjects (best of 3) | GRDB (best of 3) | Ratio |")
    print("|:--|--:|--:|--:|")
    print("| insert and save 100,000 employees in 10 departments | \(format(ours)) | \(format(grdb)) (records, one transaction) | \(String(format: "%.1fx", ours / grdb)) |")
    print("| the same with a batch insert request (dictionaries made inside the timing) | \(format(oursBatch)) | \(format(grdb)) | \(String(format: "%.1fx", oursBatch / grdb)) |")
    print("| fetch 100,000 with `salary >= 40000`, read `salary` | \(format(oursFetch)) (managed objects, faults fired) | \(format(grdbFetch)) (decoded records) | \(String(format: "%.1fx", oursFetch / grdbFetch)) |")
} catch {
    print("error: \(error)")
    exit(1)
}
