import Foundation
import GRDB
import ManagedObjects

/// GRDB 7.10.0 on the SQLite store's own schema and rows: the peer baselines of the SQLite
/// table (issue 12). Both sides link the system SQLite (`libsqlite3.so`, through GRDB's
/// `GRDBSQLite` and the store's `CSQLite`, each a `link "sqlite3"` module map).
///
/// The file is made by `SQLiteStore` itself (same tables, columns, indexes, `Z_PRIMARYKEY`
/// and `Z_METADATA`), then opened with a `DatabaseQueue` whose connection is set to
/// `journal_mode = WAL` and `synchronous = FULL`, the store's pragmas (GRDB's own WAL setup
/// would choose `NORMAL`). Records are hand-written structs: no `Codable`, no object per row.
/// Fetched rows are decoded by position (`row[0]`, GRDB's fastest record, as in its own
/// "optimized" performance test) or, for reference, by column name (`row["ZSALARY"]`, its
/// plain hand-written record).
enum GRDBBenchmarks {
    /// An employee row of the store's `ZEMPLOYEE` table, with a field for each column the
    /// store writes and reads (the columns of `PlainEmployeeRow`), decoded by position in
    /// `databaseSelection`.
    struct Employee: FetchableRecord, PersistableRecord {
        static let databaseTableName = "ZEMPLOYEE"
        static var databaseSelection: [any SQLSelectable] {
            [
                Columns.key, Columns.entity, Columns.version, Columns.firstName, Columns.lastName, Columns.employeeID,
                Columns.salary, Columns.age, Columns.hasDriversLicense, Columns.startDate, Columns.department, Columns.manager,
            ]
        }

        enum Columns {
            static let key = Column("Z_PK")
            static let entity = Column("Z_ENT")
            static let version = Column("Z_OPT")
            static let firstName = Column("ZFIRSTNAME")
            static let lastName = Column("ZLASTNAME")
            static let employeeID = Column("ZEMPLOYEEID")
            static let salary = Column("ZSALARY")
            static let age = Column("ZAGE")
            static let hasDriversLicense = Column("ZHASDRIVERSLICENSE")
            static let startDate = Column("ZSTARTDATE")
            static let department = Column("ZDEPARTMENT")
            static let manager = Column("ZMANAGER")
        }

        var key: Int64, entity: String, version: Int64
        var firstName: String, lastName: String, employeeID: Int64, salary: Double, age: Int64?
        var hasDriversLicense: Bool, startDate: Date, department: Int64?, manager: Int64?

        func encode(to container: inout PersistenceContainer) throws {
            container[Columns.key] = key
            container[Columns.entity] = entity
            container[Columns.version] = version
            container[Columns.firstName] = firstName
            container[Columns.lastName] = lastName
            container[Columns.employeeID] = employeeID
            container[Columns.salary] = salary
            container[Columns.age] = age
            container[Columns.hasDriversLicense] = hasDriversLicense
            container[Columns.startDate] = startDate.timeIntervalSinceReferenceDate
            container[Columns.department] = department
            container[Columns.manager] = manager
        }
    }

    /// The same employee decoded by column name, as a plain hand-written record reads its row.
    struct EmployeeByName: FetchableRecord, TableRecord {
        static let databaseTableName = Employee.databaseTableName
        static var databaseSelection: [any SQLSelectable] { Employee.databaseSelection }
        var employee: Employee

        init(row: Row) throws {
            typealias Columns = Employee.Columns
            employee = Employee(
                key: row[Columns.key], entity: row[Columns.entity], version: row[Columns.version],
                firstName: row[Columns.firstName], lastName: row[Columns.lastName], employeeID: row[Columns.employeeID],
                salary: row[Columns.salary], age: row[Columns.age], hasDriversLicense: row[Columns.hasDriversLicense],
                startDate: Date(timeIntervalSinceReferenceDate: row[Columns.startDate]), department: row[Columns.department],
                manager: row[Columns.manager])
        }
    }

    /// A department row of the store's `ZDEPARTMENT` table (the store keeps a decimal as text).
    struct Department: PersistableRecord {
        static let databaseTableName = "ZDEPARTMENT"
        var key: Int64, name: String

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = "Department"
            container["Z_OPT"] = 1
            container["ZNAME"] = name
            container["ZBUDGET"] = "0"
        }
    }

    /// A queue on the file at `path`, with the store's pragmas; nil (said) when it cannot open.
    static func openQueue(path: String) -> DatabaseQueue? {
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = FULL")
                let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                if mode != "wal" || synchronous != 2 {
                    print("GRDB connection: journal mode \(mode ?? "?"), synchronous \(synchronous ?? -1)")
                }
            }
            return queue
        } catch {
            print("GRDB open failed: \(error)")
            return nil
        }
    }

    /// Inserts 10 departments and `count` employees with the values the raw baseline and
    /// `fillEmployees` write, as GRDB records in one `write` (`BEGIN IMMEDIATE` … `COMMIT`),
    /// into a new store file at `path` made by `SQLiteStore`. Keys are reserved the way the
    /// store's schema asks: each entity's `Z_MAX` in `Z_PRIMARYKEY` read and moved on in the same
    /// transaction. Records (and their strings) are made inside the timing, as a context's
    /// objects are. Times the transaction.
    static func insert(path: String, model: ManagedObjectModel, count: Int, startDate: Date) -> Double? {
        do {
            _ = try SQLiteStore(url: URL(fileURLWithPath: path), model: model)
        } catch {
            print("store file failed: \(error)")
            return nil
        }
        guard let queue = openQueue(path: path) else { return nil }
        let start = now()
        do {
            try queue.write { db in
                let maximum = "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"
                let reserve = "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?"
                let departmentBase = try Int64.fetchOne(db, sql: maximum, arguments: ["Department"]) ?? 0
                let employeeBase = try Int64.fetchOne(db, sql: maximum, arguments: ["Employee"]) ?? 0
                try db.execute(sql: reserve, arguments: [departmentBase + 10, "Department"])
                try db.execute(sql: reserve, arguments: [employeeBase + Int64(count), "Employee"])
                for index in 0..<10 {
                    try Department(key: departmentBase + Int64(index + 1), name: "Department \(index)").insert(db)
                }
                for index in 0..<count {
                    try Employee(
                        key: employeeBase + Int64(index + 1), firstName: "First\(index)", lastName: "Last\(index)",
                        employeeID: Int64(index), salary: Double(40_000 + index % 997), startDate: startDate,
                        department: departmentBase + Int64(index % 10 + 1)
                    ).insert(db)
                }
            }
        } catch {
            print("GRDB insert failed: \(error)")
            return nil
        }
        return Double(now() - start)
    }

    /// Fetches the employees with `ZSALARY >= 40000` from the store file at `path` as
    /// `Employee` records (`fetchAll` of a query-interface request selecting the columns the
    /// store reads, in one `read`), or as `EmployeeByName` records with `byName`, then reads the
    /// salary of each. Opening the queue is not timed, as the raw baseline's open is not. Says
    /// so when it reads another count than `expected`.
    static func fetch(path: String, expected: Int, byName: Bool = false) -> Double? {
        guard let queue = openQueue(path: path) else { return nil }
        // The records outlive the timing, as the other sides' objects do: freeing them is not timed.
        var employees: [Employee] = [], named: [EmployeeByName] = []
        let start = now()
        var total = 0.0
        do {
            if byName {
                named = try queue.read { db in try EmployeeByName.filter(Employee.Columns.salary >= 40_000).fetchAll(db) }
                for record in named { total += record.employee.salary }
            } else {
                employees = try queue.read { db in try Employee.filter(Employee.Columns.salary >= 40_000).fetchAll(db) }
                for employee in employees { total += employee.salary }
            }
        } catch {
            print("GRDB fetch failed: \(error)")
            return nil
        }
        blackHole(total)
        let elapsed = Double(now() - start)
        let fetched = byName ? named.count : employees.count
        if fetched != expected { print("GRDB fetch read \(fetched) rows") }
        withExtendedLifetime((employees, named)) {}
        return elapsed
    }

    /// The SQLite GRDB runs on: `sqlite_version()` and `sqlite_source_id()` through a GRDB connection.
    static func sqliteVersion() -> (version: String, sourceID: String) {
        guard let queue = try? DatabaseQueue(),
              let row = try? queue.read({ db in try Row.fetchOne(db, sql: "SELECT sqlite_version(), sqlite_source_id()") })
        else { return ("?", "?") }
        return (row[0], row[1])
    }
}

// Initializers in an extension, so that the record keeps its memberwise initializer.
extension GRDBBenchmarks.Employee {
    init(
        key: Int64, firstName: String, lastName: String, employeeID: Int64, salary: Double, startDate: Date,
        department: Int64
    ) {
        self.key = key
        entity = "Employee"
        version = 1
        self.firstName = firstName
        self.lastName = lastName
        self.employeeID = employeeID
        self.salary = salary
        age = nil
        hasDriversLicense = false
        self.startDate = startDate
        self.department = department
        manager = nil
    }

    init(row: Row) throws {
        key = row[0]
        entity = row[1]
        version = row[2]
        firstName = row[3]
        lastName = row[4]
        employeeID = row[5]
        salary = row[6]
        age = row[7]
        hasDriversLicense = row[8]
        // The store keeps dates as seconds since the reference date (a REAL column).
        startDate = Date(timeIntervalSinceReferenceDate: row[9])
        department = row[10]
        manager = row[11]
    }
}
