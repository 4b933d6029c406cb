import CBenchmarkLibPQ
import Foundation
import ManagedObjects
import ModelObjects
import SampleModels

/// The PostgreSQL store against raw libpq on the same schema (prepared statements, one
/// transaction): inserting and saving 100,000 employees through a context, fetching 100,000
/// with a predicate reading one attribute, and firing them as batched faults; then several
/// writer processes saving at once (``PostgreSQLWriterBenchmarks``). Parameters go as text on
/// both sides; the store reads rows in binary format, the raw baselines in text (one also in
/// binary, marked ‡).
///
/// Needs a server: `MODELOBJECTS_POSTGRES_URL` (a `postgresql://` URL whose user may create
/// databases). Each run gets a fresh database, created through the server's `postgres`
/// database and dropped afterwards; the URL's own database is never written.
enum PostgreSQLBenchmarks {
    static let count = 100_000
    /// The `fetchBatchSize` of the batched-fault benchmark.
    static let faultBatch = 1_000

    /// Times whole operations (best of `runs`) and prints a table with the ratios.
    static func report(runs defaultRuns: Int = 3) {
        guard let base = ProcessInfo.processInfo.environment["MODELOBJECTS_POSTGRES_URL"], !base.isEmpty,
              let baseURL = URL(string: base)
        else {
            print("## PostgreSQL store: skipped (set MODELOBJECTS_POSTGRES_URL to a server's postgresql:// URL)")
            print()
            return
        }
        // POSTGRES_RUNS=n times each side n times instead of 3. POSTGRES_BENCHMARK=insert|fetch|faults
        // (or `partial`: the partial-fault fetch alone) runs one part (both sides, rows of the table for it only; `fetch` and `faults` on a
        // database filled by raw libpq, untimed) and no writer processes: for `perf record`.
        let runs = ProcessInfo.processInfo.environment["POSTGRES_RUNS"].flatMap { Int($0) } ?? defaultRuns
        let only = ProcessInfo.processInfo.environment["POSTGRES_BENCHMARK"]
        func wanted(_ part: String) -> Bool { only == nil || only == part }
        guard let model = try? SampleModel.makeModel() else {
            print("model failed")
            return
        }
        guard let admin = Server(base: baseURL) else { return }
        // POSTGRES_KEEP=1 leaves the databases on the server, to compare the two sides' rows.
        defer { if ProcessInfo.processInfo.environment["POSTGRES_KEEP"] == nil { admin.dropAll() } }

        // 1. Insert and save 100,000 employees in 10 departments through a context. The last
        // run's database is kept for the fetches.
        var filled: URL?
        var contextInsert = Double.nan, rawInsertTime = Double.nan
        if !wanted("insert") {
            // The fetch parts alone: the rows written by raw libpq into the store's schema.
            // `ANALYZE`d, so that both sides' plans use the statistics a kept database has.
            guard let url = admin.createDatabase(), (try? PostgreSQLStore(url: url, model: model)) != nil, rawInsert(url: url) != nil,
                  let connection = connect(url)
            else {
                print("filling the database failed")
                return
            }
            _ = command(connection, "ANALYZE")
            PQfinish(connection)
            filled = url
        }
        if wanted("insert") {
            contextInsert = best(runs) {
                guard let url = admin.createDatabase() else { return nil }
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                do {
                    try coordinator.addPersistentStore(type: .postgreSQL, at: url)
                } catch {
                    print("store failed: \(error)")
                    return nil
                }
                let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                let start = now()
                fillEmployees(context, count: count)
                do {
                    try context.save()
                } catch {
                    print("save failed: \(error)")
                    return nil
                }
                let elapsed = Double(now() - start)
                filled = url
                return elapsed
            }
            // The raw side: the store writes the schema (so that both sides have the same tables,
            // indexes and foreign keys), then libpq inserts the same rows.
            rawInsertTime = best(runs) {
                guard let url = admin.createDatabase() else { return nil }
                do {
                    _ = try PostgreSQLStore(url: url, model: model)
                } catch {
                    print("store failed: \(error)")
                    return nil
                }
                return rawInsert(url: url)
            }
        }

        // 2. Fetch the 100,000 with `salary >= 40000` and read `salary` of each.
        var contextFetch = Double.nan, storeFetch = Double.nan, rawFetch = Double.nan, rawFetchObjects = Double.nan
        var rawFetchBinaryObjects = Double.nan
        var fetchApplied = false
        var oneColumnDictionaries = Double.nan, keysOnlyFetch = Double.nan, partialFetch = Double.nan
        var contextFaults = Double.nan, rawFaults = Double.nan
        if let url = filled, let predicate = try? KeyValuePredicate(format: "salary >= 40000") {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            if let store = try? coordinator.addPersistentStore(type: .postgreSQL, at: url),
               let employee = model.entity(named: "Employee"),
               let salary = employee.properties.firstIndex(where: { $0.name == "salary" }) {
                let request = FetchRequest<ManagedEmployee>(entityName: "Employee", predicate: predicate)
                if wanted("fetch") || only == "partial" {
                    // The same fetch as partial faults (`propertiesToFetch`): the store reads the
                    // keys and `salary` alone, and reading `salary` fires nothing.
                    partialFetch = best(runs) {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        var partialRequest = request
                        partialRequest.propertiesToFetch = ["salary"]
                        let start = now()
                        var total = 0.0
                        let employees = (try? context.fetch(partialRequest)) ?? []
                        for employee in employees { total += employee.salary }
                        blackHole(total)
                        if employees.count != count { print("partial fetch read \(employees.count)") }
                        return Double(now() - start)
                    }
                }
                if wanted("fetch") {
                    contextFetch = best(runs) {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        let start = now()
                        var total = 0.0
                        let employees = (try? context.fetch(request)) ?? []
                        for employee in employees { total += employee.salary }
                        blackHole(total)
                        if employees.count != count { print("context fetch read \(employees.count)") }
                        return Double(now() - start)
                    }
                    // Supplementary: what reading one column costs through a context (dictionaries,
                    // no objects), and what making the 100,000 objects costs (keys only, no values).
                    oneColumnDictionaries = best(runs) {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        let start = now()
                        let rows = (try? context.fetchDictionaries(request, properties: ["salary"])) ?? []
                        var total = 0.0
                        for row in rows { total += row["salary"] as? Double ?? 0 }
                        blackHole(total)
                        return Double(now() - start)
                    }
                    keysOnlyFetch = best(runs) {
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        var keysRequest = request
                        keysRequest.includesPropertyValues = false
                        let start = now()
                        let employees = (try? context.fetch(keysRequest)) ?? []
                        blackHole(employees.count)
                        return Double(now() - start)
                    }
                    let storeRequest = StoreFetchRequest(entity: employee, predicate: predicate)
                    storeFetch = best(runs) {
                        let start = now()
                        var total = 0.0, rows = 0
                        do {
                            let result = try store.fetch(storeRequest)
                            fetchApplied = result.appliedPredicate
                            rows = result.records.count
                            for record in result.records { if case .double(let value) = record.values[salary] { total += value } }
                        } catch {
                            print("store fetch failed: \(error)")
                        }
                        blackHole(total)
                        if rows != count { print("store fetch read \(rows)") }
                        return Double(now() - start)
                    }
                }
            }
            if wanted("fetch") {
                rawFetch = best(runs) { rawSelect(url: url) }
                rawFetchObjects = best(runs) { rawSelectIntoObjects(url: url) }
                rawFetchBinaryObjects = best(runs) { rawSelectIntoObjects(url: url, binary: true) }
            }

            // 3. Batched faults: the same fetch with `fetchBatchSize` 1,000 (the keys only), then
            // `salary` of each, which fires the faults a batch at a time.
            if wanted("faults") {
                contextFaults = best(runs) {
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    var request = FetchRequest<ManagedEmployee>(entityName: "Employee", predicate: predicate)
                    request.fetchBatchSize = faultBatch
                    let start = now()
                    var total = 0.0
                    let employees = (try? context.fetch(request)) ?? []
                    for employee in employees { total += employee.salary }
                    blackHole(total)
                    if employees.count != count { print("batched fetch read \(employees.count)") }
                    return Double(now() - start)
                }
                rawFaults = best(runs) { rawBatchedSelect(url: url) }
            }
        }

        print("## PostgreSQL store")
        print()
        print("| Operation | Library (best of \(runs)) | Per object | Baseline | Ratio | Target |")
        print("|:--|--:|--:|--:|--:|:--|")
        func row(_ name: String, _ library: Double, _ baseline: Double, target: Double? = nil) {
            guard !library.isNaN || only == nil else { return }
            let ratio = library / baseline
            var verdict = ""
            if let target, !ratio.isNaN {
                verdict = "≤ \(String(format: "%.1f", target))x: " + (ratio <= target ? "MET" : "MISSED")
            }
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(count))) | \(formatDuration(baseline)) | \(String(format: "%.2fx", ratio)) | \(verdict) |")
        }
        row("insert and save 100,000 employees through a context (PostgreSQL store; baseline raw libpq)", contextInsert, rawInsertTime, target: 2)
        row("fetch the 100,000 with `salary >= 40000` as managed objects through a context, read `salary`", contextFetch, rawFetch, target: 3)
        row("the same fetch as partial faults, `propertiesToFetch = [\"salary\"]` (the store reads the keys and `salary`; reading it fires nothing)",
            partialFetch, rawFetch, target: 3)
        row("supplementary: `fetchDictionaries(_:properties: [\"salary\"])` of the same request, `salary` of each summed (the store reads that one column)",
            oneColumnDictionaries, rawFetch)
        row("supplementary: the fetch with `includesPropertyValues = false` (the store reads only the keys; 100,000 faults holding no row)",
            keysOnlyFetch, rawFetch)
        row("the store's part: `fetch` of the same request, read `salary` of each record"
            + (fetchApplied ? " (predicate in SQL)" : " (predicate not translated)"), storeFetch, rawFetch)
        row("the context fetch against raw libpq reading the store's 12 columns into plain Swift objects †", contextFetch, rawFetchObjects)
        row("the store's part against raw libpq reading the same 12 columns in binary format into plain Swift objects ‡", storeFetch,
            rawFetchBinaryObjects)
        row("batched faults: the fetch with `fetchBatchSize` 1,000, `salary` of each read (faults fired a batch at a time)",
            contextFaults, rawFaults)
        print()
        print("Baselines (raw libpq, text protocol unless marked ‡, on a database whose schema the store created):")
        print("- insert: one connection, `BEGIN`, one `PQprepare`d INSERT of the 10 departments and one of the employees (all 12 columns, keys given), `PQexecPrepared` per row, `COMMIT`; timed from `BEGIN` to `COMMIT`.")
        print("- fetch: one `PQprepare`d `SELECT \"ZSALARY\" FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= $1`, executed once, each value parsed with `strtod`; timed from the prepare on a fresh connection's first query to the last value.")
        print("- † supplementary: the same SELECT of every column the store reads, each row made into a `PlainEmployeeRow` (strings, integers, doubles parsed from text), kept in an array, then `salary` summed.")
        print("- ‡ the same SELECT as †, in binary format (result format 1, as the store reads): integers, doubles and Booleans from their big-endian bytes, strings from their UTF-8.")
        print("- batched faults: `SELECT \"Z_PK\"` of the same rows, then per 1,000 keys one `PQprepare`d SELECT of the 12 columns the store reads `WHERE \"Z_PK\" = ANY($1::bigint[])` (keys as one text array parameter), `salary` parsed with `strtod`.")
        print("- library: the store's connection opened before timing; the context side times making the objects, setting five properties and `save()` (reserving keys from the sequences, one transaction).")
        print()

        guard only == nil else { return }
        print("### Several writer processes (same server)")
        print()
        if let url = admin.createDatabase() { PostgreSQLWriterBenchmarks.report(database: url, model: model) }
    }

    // MARK: - Raw libpq

    /// Raw libpq: 10 departments and 100,000 employees with the values the context side sets, in
    /// one transaction through prepared statements. Times `BEGIN` to `COMMIT`.
    private static func rawInsert(url: URL) -> Double? {
        guard let connection = connect(url) else { return nil }
        defer { PQfinish(connection) }
        // The parameters as text, made before timing as the context side's strings are.
        var rows: [[String?]] = []
        rows.reserveCapacity(count)
        let startDate = String(Date(timeIntervalSinceReferenceDate: 700_000_000.25).timeIntervalSinceReferenceDate)
        for index in 0..<count {
            let salary: Double = Double(40_000 + index % 997)
            let row: [String?] = [
                String(index + 1), "Employee", "1", "First\(index)", "Last\(index)", String(index), String(salary), nil, "false",
                startDate, String(index % 10 + 1), nil,
            ]
            rows.append(row)
        }
        let start = now()
        guard command(connection, "BEGIN") else { return nil }
        guard prepare(connection, "department",
                      "INSERT INTO \"ZDEPARTMENT\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZNAME\", \"ZBUDGET\") VALUES ($1, $2, $3, $4, $5)"),
              prepare(connection, "employee",
                      "INSERT INTO \"ZEMPLOYEE\" (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZFIRSTNAME\", \"ZLASTNAME\", \"ZEMPLOYEEID\", "
                          + "\"ZSALARY\", \"ZAGE\", \"ZHASDRIVERSLICENSE\", \"ZSTARTDATE\", \"ZDEPARTMENT\", \"ZMANAGER\") "
                          + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
        else { return nil }
        for index in 0..<10 {
            guard execute(connection, "department", [String(index + 1), "Department", "1", "Department \(index)", "0"]) else { return nil }
        }
        for row in rows {
            guard execute(connection, "employee", row) else { return nil }
        }
        guard command(connection, "COMMIT") else { return nil }
        return Double(now() - start)
    }

    /// Raw libpq: the salaries of employees with `ZSALARY >= 40000`, read one by one.
    private static func rawSelect(url: URL) -> Double? {
        guard let connection = connect(url) else { return nil }
        defer { PQfinish(connection) }
        let start = now()
        guard prepare(connection, "salaries", "SELECT \"ZSALARY\" FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= $1") else { return nil }
        let result = withParameters(["40000"]) { values, count in
            PQexecPrepared(connection, "salaries", count, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            print("raw select failed: \(String(cString: PQerrorMessage(connection)))")
            return nil
        }
        var total = 0.0
        let rows = PQntuples(result)
        for row in 0..<rows { total += strtod(PQgetvalue(result, row, 0), nil) }
        blackHole(total)
        let elapsed = Double(now() - start)
        if rows != count { print("raw select read \(rows) rows") }
        return elapsed
    }

    /// Raw libpq: the keys of the employees with `ZSALARY >= 40000`, then their rows a batch of
    /// 1,000 keys at a time (the columns the store reads), the salary of each parsed.
    private static func rawBatchedSelect(url: URL) -> Double? {
        guard let connection = connect(url) else { return nil }
        defer { PQfinish(connection) }
        let start = now()
        guard prepare(connection, "keys", "SELECT \"Z_PK\" FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= $1 ORDER BY \"Z_PK\""),
              prepare(
                connection, "batch",
                "SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZFIRSTNAME\", \"ZLASTNAME\", \"ZEMPLOYEEID\", \"ZSALARY\", \"ZAGE\", "
                    + "\"ZHASDRIVERSLICENSE\", \"ZSTARTDATE\", \"ZDEPARTMENT\", \"ZMANAGER\" FROM \"ZEMPLOYEE\" WHERE \"Z_PK\" = ANY($1::bigint[])")
        else { return nil }
        let keysResult = withParameters(["40000"]) { values, count in PQexecPrepared(connection, "keys", count, values, nil, nil, 0) }
        defer { PQclear(keysResult) }
        guard PQresultStatus(keysResult) == PGRES_TUPLES_OK else { return nil }
        let keys = (0..<PQntuples(keysResult)).map { String(cString: PQgetvalue(keysResult, $0, 0)) }
        var total = 0.0, rows = 0
        var first = 0
        while first < keys.count {
            let batch = "{" + keys[first..<min(first + faultBatch, keys.count)].joined(separator: ",") + "}"
            let result = withParameters([batch]) { values, count in PQexecPrepared(connection, "batch", count, values, nil, nil, 0) }
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_TUPLES_OK else { return nil }
            for row in 0..<PQntuples(result) { total += strtod(PQgetvalue(result, row, 6), nil) }
            rows += Int(PQntuples(result))
            first += faultBatch
        }
        blackHole(total)
        let elapsed = Double(now() - start)
        if rows != count { print("raw batched select read \(rows) rows") }
        return elapsed
    }

    /// Raw libpq: the employees with `ZSALARY >= 40000`, every column the store reads made into
    /// a plain Swift object per row (kept in an array, as a fetch's result is), then the salary
    /// of each read.
    ///
    /// With `binary`, the result comes in libpq's binary format (result format 1) and each
    /// value is read from its big-endian bytes instead of parsed from text.
    private static func rawSelectIntoObjects(url: URL, binary: Bool = false) -> Double? {
        guard let connection = connect(url) else { return nil }
        defer { PQfinish(connection) }
        let start = now()
        guard prepare(
            connection, "rows",
            "SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\", \"ZFIRSTNAME\", \"ZLASTNAME\", \"ZEMPLOYEEID\", \"ZSALARY\", \"ZAGE\", "
                + "\"ZHASDRIVERSLICENSE\", \"ZSTARTDATE\", \"ZDEPARTMENT\", \"ZMANAGER\" FROM \"ZEMPLOYEE\" WHERE \"ZSALARY\" >= $1")
        else { return nil }
        let result = withParameters(["40000"]) { values, count in
            PQexecPrepared(connection, "rows", count, values, nil, nil, binary ? 1 : 0)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            print("raw select failed: \(String(cString: PQerrorMessage(connection)))")
            return nil
        }
        func text(_ row: Int32, _ column: Int32) -> String {
            String(decoding: UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column))), as: UTF8.self)
        }
        func bigEndian(_ row: Int32, _ column: Int32) -> UInt64 {
            let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
            return bytes.reduce(0) { $0 << 8 | UInt64($1) }
        }
        func integer(_ row: Int32, _ column: Int32) -> Int64? {
            guard PQgetisnull(result, row, column) == 0 else { return nil }
            guard binary else { return strtoll(PQgetvalue(result, row, column), nil, 10) }
            let value = bigEndian(row, column)
            return PQgetlength(result, row, column) == 2 ? Int64(Int16(truncatingIfNeeded: value)) : Int64(bitPattern: value)
        }
        func double(_ row: Int32, _ column: Int32) -> Double {
            binary ? Double(bitPattern: bigEndian(row, column)) : strtod(PQgetvalue(result, row, column), nil)
        }
        let rows = PQntuples(result)
        var objects: [PlainEmployeeRow] = []
        objects.reserveCapacity(Int(rows))
        for row in 0..<rows {
            objects.append(PlainEmployeeRow(
                key: integer(row, 0) ?? 0, entity: text(row, 1), version: integer(row, 2) ?? 0,
                firstName: text(row, 3), lastName: text(row, 4), employeeID: integer(row, 5) ?? 0,
                salary: double(row, 6), age: integer(row, 7),
                hasDriversLicense: PQgetvalue(result, row, 8).pointee == (binary ? 1 : CChar(UInt8(ascii: "t"))),
                startDate: Date(timeIntervalSinceReferenceDate: double(row, 9)),
                department: integer(row, 10), manager: integer(row, 11)))
        }
        var total = 0.0
        for object in objects { total += object.salary }
        blackHole(total)
        let elapsed = Double(now() - start)
        if objects.count != count { print("raw select into objects read \(objects.count) rows") }
        return elapsed
    }

    static func connect(_ url: URL) -> OpaquePointer? {
        let connection = PQconnectdb(url.absoluteString)
        guard PQstatus(connection) == CONNECTION_OK else {
            print("raw connection failed: \(String(cString: PQerrorMessage(connection)))")
            PQfinish(connection)
            return nil
        }
        return connection
    }

    static func command(_ connection: OpaquePointer, _ sql: String) -> Bool {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            print("\(sql) failed: \(String(cString: PQerrorMessage(connection)))")
            return false
        }
        return true
    }

    static func prepare(_ connection: OpaquePointer, _ name: String, _ sql: String) -> Bool {
        let result = PQprepare(connection, name, sql, 0, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            print("prepare failed: \(String(cString: PQerrorMessage(connection)))")
            return false
        }
        return true
    }

    static func execute(_ connection: OpaquePointer, _ name: String, _ parameters: [String?]) -> Bool {
        let result = withParameters(parameters) { values, count in
            PQexecPrepared(connection, name, count, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            print("insert failed: \(String(cString: PQerrorMessage(connection)))")
            return false
        }
        return true
    }

    /// Calls `body` with the parameters as C strings (nil for SQL NULL), text format.
    static func withParameters<Result>(
        _ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> Result
    ) -> Result {
        let copies = parameters.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress, Int32(parameters.count)) }
    }

    /// The best of `runs` timings; nil timings are skipped.
    static func best(_ runs: Int, _ body: () -> Double?) -> Double {
        var times: [Double] = []
        for _ in 0..<runs { if let time = body() { times.append(time) } }
        return times.min() ?? .nan
    }

    /// The server behind `MODELOBJECTS_POSTGRES_URL`, reached through its `postgres` database
    /// to create and drop the benchmark's own databases.
    final class Server {
        let base: URL
        let connection: OpaquePointer
        var created: [String] = []

        init?(base: URL) {
            guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
            components.path = "/postgres"
            guard let url = components.url, let connection = PostgreSQLBenchmarks.connect(url) else {
                print("## PostgreSQL store: skipped (cannot reach the server of MODELOBJECTS_POSTGRES_URL)")
                print()
                return nil
            }
            self.base = base
            self.connection = connection
        }

        deinit { PQfinish(connection) }

        /// A new empty database's URL (the base URL with another database name).
        func createDatabase() -> URL? {
            let name = "modelobjects_bench_\(getpid())_\(created.count)"
            guard PostgreSQLBenchmarks.command(connection, "CREATE DATABASE \(name) ENCODING 'UTF8' TEMPLATE template0"),
                  var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
            else { return nil }
            created.append(name)
            components.path = "/" + name
            return components.url
        }

        /// Drops every database this run created.
        func dropAll() {
            for name in created { _ = PostgreSQLBenchmarks.command(connection, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
            created = []
        }
    }
}
