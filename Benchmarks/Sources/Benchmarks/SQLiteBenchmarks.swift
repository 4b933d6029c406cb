import CBenchmarkSQLite
import Foundation
import ManagedObjects
import ModelObjects
import SampleModels

/// The SQLite store against raw SQLite through the C API (prepared statements, one
/// transaction) on the same rows: inserting and saving 100,000 employees through a context,
/// the store's own part of that save, and fetching 100,000 records with a predicate.
enum SQLiteBenchmarks {
    static let count = 100_000

    /// Times whole operations (best of `runs`) and prints a table with the ratios.
    static func report(runs defaultRuns: Int = 3) {
        // SQLITE_BENCHMARK=context|insert|undo|batch|apply|fetch|objects|faults|onebyone|batches|memory
        // runs one part (`insert`, `objects`, `onebyone` and `batches` only the library's side of
        // one row, for profiling, and print no table); SQLITE_RUNS=n times each n times instead of 3.
        let only = ProcessInfo.processInfo.environment["SQLITE_BENCHMARK"]
        let runs = ProcessInfo.processInfo.environment["SQLITE_RUNS"].flatMap { Int($0) } ?? defaultRuns
        func wanted(_ part: String) -> Bool { only == nil || only == part }
        guard let model = try? SampleModel.makeModel() else {
            print("model failed")
            return
        }
        let startDate = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

        // 0. Memory, first, while the heap holds no freed pages that new objects could reuse
        // without growing: 1,000,000 employees fetched as faults (each holding its fetched row,
        // as a fetch leaves them), then fired by reading `salary`; the resident-memory growth
        // over the state before the fetch, per object, against plain Swift objects with the
        // same five fields held in an array the same way (measured before the store is made).
        var faultBytes = Double.nan, firedBytes = Double.nan, plainBytes = Double.nan, keyFaultBytes = Double.nan
        let million = 1_000_000
        if wanted("memory"), let directory = try? makeDirectory() {
            defer { try? FileManager.default.removeItem(at: directory) }
            let before = settledResidentBytes()
            var plain: [PlainFiveFields] = []
            plain.reserveCapacity(million)
            for index in 0..<million {
                plain.append(PlainFiveFields(
                    firstName: "First\(index)", lastName: "Last\(index)", employeeID: Int64(index),
                    salary: Double(40_000 + index % 997), department: index % 10))
            }
            plainBytes = Double(settledResidentBytes() - before) / Double(million)
            withExtendedLifetime(plain) {}
            plain = []
            let url = directory.appendingPathComponent("Store.sqlite")
            if let store = try? SQLiteStore(url: url, model: model) {
                var stored = false
                if let changes = makeChanges(store: store, model: model, startDate: startDate, employees: million),
                   (try? store.newPrimaryKeys(for: changes.employee, count: million)) != nil,
                   (try? store.apply(changes.changes)) != nil {
                    stored = true
                }
                if stored {
                    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                    coordinator.addPersistentStore(store)
                    // Supplementary: the same fetch with `includesPropertyValues = false`, faults
                    // holding no row (Core Data's fetch of IDs only), kept alive below so that the
                    // fetch with values cannot reuse their memory.
                    let keysContext = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    var keysRequest = FetchRequest<ManagedEmployee>(entityName: "Employee")
                    keysRequest.includesPropertyValues = false
                    let keysBefore = settledResidentBytes()
                    let keyFaults = (try? keysContext.fetch(keysRequest)) ?? []
                    if keyFaults.count == million {
                        keyFaultBytes = Double(settledResidentBytes() - keysBefore) / Double(million)
                    }
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    let before = settledResidentBytes()
                    let employees = (try? context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee"))) ?? []
                    let asFaults = settledResidentBytes()
                    var total = 0.0
                    for employee in employees { total += employee.salary }
                    blackHole(total)
                    let fired = settledResidentBytes()
                    if employees.count == million {
                        faultBytes = Double(asFaults - before) / Double(million)
                        firedBytes = Double(fired - before) / Double(million)
                    } else {
                        print("memory fetch read \(employees.count)")
                    }
                    withExtendedLifetime(employees) {}
                    withExtendedLifetime((keyFaults, keysContext)) {}
                }
            }
        }

        // 1. Insert and save 100,000 employees in 10 departments through a context.
        // With `undo`, the context has an undo manager, which records every change.
        func contextInsert(sqlite: Bool, undo: Bool = false) -> Double {
            best(runs) { contextInsertOnce(into: $0, sqlite: sqlite, undo: undo) }
        }
        /// One insert and save of the 100,000 through a context, timed, in `directory`.
        func contextInsertOnce(into directory: URL, sqlite: Bool, undo: Bool = false) -> Double? {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            do {
                if sqlite {
                    try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))
                } else {
                    try coordinator.addPersistentStore(type: .inMemory)
                }
            } catch {
                print("store failed: \(error)")
                return nil
            }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            if undo { context.undoManager = ModelUndoManager() }
            let start = now()
            fillEmployees(context, count: count)
            do { try context.save() } catch { print("save failed: \(error)") }
            return Double(now() - start)
        }
        /// The raw C API's insert of the same rows, timed.
        func rawInsertOnce(into directory: URL) -> Double? {
            rawInsert(path: directory.appendingPathComponent("raw.sqlite").path, startDate: startDate)
        }
        /// GRDB 7.10.0 records: the same departments and employees on the store's schema
        /// (GRDBBenchmarks), timed.
        func grdbInsertOnce(into directory: URL) -> Double? {
            GRDBBenchmarks.insert(path: directory.appendingPathComponent("grdb.sqlite").path, model: model, count: count, startDate: startDate)
        }
        if only == "insert" {
            _ = contextInsert(sqlite: true)
            return
        }
        // 1b. The same 100,000 employees through a batch insert request: no managed objects.
        // The dictionaries are made before timing, as the raw baseline's rows are.
        let batchInsertOnce: (URL) -> Double? = { directory in
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            guard (try? coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Store.sqlite"))) != nil else {
                return nil
            }
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let departments = (0..<10).map { index -> ManagedDepartment in
                let department = ManagedDepartment(context: context)
                department.name = "Department \(index)"
                return department
            }
            guard (try? context.save()) != nil else { return nil }
            let departmentIDs = departments.map(\.objectID)
            var rows: [[String: Any]] = []
            rows.reserveCapacity(count)
            for index in 0..<count {
                var row: [String: Any] = [:]
                row["firstName"] = "First\(index)"
                row["lastName"] = "Last\(index)"
                row["employeeID"] = Int64(index)
                row["salary"] = Double(40_000 + index % 997)
                row["department"] = departmentIDs[index % 10]
                rows.append(row)
            }
            let start = now()
            do { try context.execute(BatchInsertRequest(entityName: "Employee", objects: rows)) } catch { print("batch insert failed: \(error)") }
            return Double(now() - start)
        }

        // 2. The store's part: newPrimaryKeys and apply of 100,000 prepared records.
        let storeApplyOnce: (URL) -> Double? = { directory in
            let url = directory.appendingPathComponent("Store.sqlite")
            guard let store = try? SQLiteStore(url: url, model: model),
                  let changes = makeChanges(store: store, model: model, startDate: startDate)
            else { return nil }
            let start = now()
            do {
                _ = try store.newPrimaryKeys(for: changes.employee, count: count)
                try store.apply(changes.changes)
            } catch {
                print("apply failed: \(error)")
            }
            return Double(now() - start)
        }
        // The context's insert, the same with an undo manager set, the raw C API's, GRDB's, the
        // in-memory store's, the batch insert and the store's part, in turn. Only the undo part
        // run alone measures the undo row and its baseline.
        var contextSQLite = Double.nan, contextUndo = Double.nan, contextWithoutUndo = Double.nan, contextMemory = Double.nan
        var raw = Double.nan, grdbInsert = Double.nan, batchInsert = Double.nan, storeApply = Double.nan
        if wanted("context") {
            let inserts = interleavedBest(runs, [
                { contextInsertOnce(into: $0, sqlite: true) }, { contextInsertOnce(into: $0, sqlite: true, undo: true) },
                { rawInsertOnce(into: $0) }, { grdbInsertOnce(into: $0) }, { contextInsertOnce(into: $0, sqlite: false) },
                batchInsertOnce, storeApplyOnce,
            ])
            (contextSQLite, contextUndo, raw, grdbInsert) = (inserts[0], inserts[1], inserts[2], inserts[3])
            (contextMemory, batchInsert, storeApply) = (inserts[4], inserts[5], inserts[6])
            contextWithoutUndo = contextSQLite
        } else if wanted("undo") {
            let inserts = interleavedBest(runs, [
                { contextInsertOnce(into: $0, sqlite: true, undo: true) }, { contextInsertOnce(into: $0, sqlite: true) },
            ])
            (contextUndo, contextWithoutUndo) = (inserts[0], inserts[1])
        } else if wanted("batch") || wanted("apply") {
            let inserts = interleavedBest(runs, [{ rawInsertOnce(into: $0) }, wanted("batch") ? batchInsertOnce : storeApplyOnce])
            raw = inserts[0]
            if wanted("batch") { batchInsert = inserts[1] } else { storeApply = inserts[1] }
        }

        // 3. Fetch 100,000 employees with a predicate and read one attribute of each.
        var fetch = Double.nan, rawFetch = Double.nan, rawFetchRows = Double.nan, rawFetchObjects = Double.nan, fetchApplied = false
        var partialFetch = Double.nan
        var contextFetch = Double.nan, dictionaryFetch = Double.nan, countFetch = Double.nan, rawCount = Double.nan
        var prefixCount = Double.nan, rawPrefixCount = Double.nan, equalCount = Double.nan, rawEqualCount = Double.nan
        var grdbFetch = Double.nan, grdbFetchByName = Double.nan
        if wanted("fetch") || only == "objects", let directory = try? makeDirectory() {
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("Store.sqlite")
            if let store = try? SQLiteStore(url: url, model: model),
               let changes = makeChanges(store: store, model: model, startDate: startDate),
               (try? store.newPrimaryKeys(for: changes.employee, count: count)) != nil,
               (try? store.apply(changes.changes)) != nil,
               let predicate = try? KeyValuePredicate(format: "salary >= 40000"),
               let salary = changes.employee.properties.firstIndex(where: { $0.name == "salary" }) {
                let request = StoreFetchRequest(entity: changes.employee, predicate: predicate)
                fetch = best(runs) { _ in
                    let start = now()
                    var total = 0.0
                    do {
                        let result = try store.fetch(request)
                        fetchApplied = result.appliedPredicate
                        for record in result.records { if case .double(let value) = record.values[salary] { total += value } }
                    } catch {
                        print("fetch failed: \(error)")
                    }
                    blackHole(total)
                    return Double(now() - start)
                }
                // The same through a context: managed objects (faults filled from the fetch's
                // rows), dictionaries of the one property, and a count.
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                coordinator.addPersistentStore(store)
                let objectRequest = FetchRequest<ManagedEmployee>(entityName: "Employee", predicate: predicate)
                let fetchObjects: (URL) -> Double? = { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    let start = now()
                    var total = 0.0
                    let employees = (try? context.fetch(objectRequest)) ?? []
                    for employee in employees { total += employee.salary }
                    blackHole(total)
                    if employees.count != count { print("context fetch read \(employees.count)") }
                    let elapsed = Double(now() - start)
                    // Freed after the clock stops, as the raw side's objects are.
                    withExtendedLifetime(employees) {}
                    return elapsed
                }
                if only == "objects" {
                    contextFetch = best(runs, fetchObjects)
                    return
                }
                // The library's fetch, raw SQL into plain objects and GRDB's records, in turn.
                let objectFetches = interleavedBest(runs, [
                    fetchObjects,
                    { _ in rawSelectIntoObjects(path: url.path) },
                    { _ in GRDBBenchmarks.fetch(path: url.path, expected: count) },
                ])
                contextFetch = objectFetches[0]
                rawFetchObjects = objectFetches[1]
                grdbFetch = objectFetches[2]
                // Supplementary: the same fetch as partial faults (`propertiesToFetch`).
                partialFetch = best(runs) { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    var request = objectRequest
                    request.propertiesToFetch = ["salary"]
                    let start = now()
                    var total = 0.0
                    let employees = (try? context.fetch(request)) ?? []
                    for employee in employees { total += employee.salary }
                    blackHole(total)
                    if employees.count != count { print("partial fetch read \(employees.count)") }
                    let elapsed = Double(now() - start)
                    withExtendedLifetime(employees) {}
                    return elapsed
                }
                dictionaryFetch = best(runs) { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    let start = now()
                    var total = 0.0
                    let rows = (try? context.fetchDictionaries(objectRequest, properties: ["salary"])) ?? []
                    for row in rows { total += row["salary"] as? Double ?? 0 }
                    blackHole(total)
                    if rows.count != count { print("dictionary fetch read \(rows.count)") }
                    return Double(now() - start)
                }
                /// `count(for:)` through a fresh context, best of `runs`; says so when the count is not `expected`.
                func timedCount(_ format: String, expected: Int) -> Double {
                    guard let predicate = try? KeyValuePredicate(format: format) else { return .nan }
                    let request = FetchRequest<ManagedEmployee>(entityName: "Employee", predicate: predicate)
                    return best(runs) { _ in
                        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                        let start = now()
                        let counted = (try? context.count(for: request)) ?? 0
                        if counted != expected { print("\(format) counted \(counted)") }
                        return Double(now() - start)
                    }
                }
                countFetch = timedCount("salary >= 40000", expected: count)
                rawCount = best(runs) { _ in rawCountRows(path: url.path) }
                // A case-insensitive prefix: filtered in SQL by `mo_compare`, the in-memory comparison.
                prefixCount = timedCount("firstName BEGINSWITH[c] 'FIRST1'", expected: 11_111)
                rawPrefixCount = best(runs) { _ in rawCountRows(path: url.path, caseInsensitivePrefix: "FIRST1") }
                // String equality: compared by SQLite for ASCII values (a non-ASCII one would go to mo_compare).
                equalCount = timedCount("lastName == 'Last50000'", expected: 1)
                rawEqualCount = best(runs) { _ in rawCountRows(path: url.path, lastName: "Last50000") }
                rawFetch = best(runs) { _ in rawSelect(path: url.path, wholeRows: false) }
                rawFetchRows = best(runs) { _ in rawSelect(path: url.path, wholeRows: true) }
                // GRDB 7.10.0 struct records on the same file and rows (GRDBBenchmarks).
                grdbFetchByName = best(runs) { _ in GRDBBenchmarks.fetch(path: url.path, expected: count, byName: true) }
            }
        }

        // 3. Faults: 10,000 fired one by one (one query each) and in batches of 1,000 (the keys
        // fetched, then one query a batch), and a to-many prefetch, against raw SQL reading the
        // same rows the same way.
        var oneByOne = Double.nan, batched = Double.nan, prefetch = Double.nan, rawByKey = Double.nan, rawAll = Double.nan
        var rawBatches = Double.nan
        let faults = 10_000, faultBatchSize = 1_000
        if wanted("faults") || only == "onebyone" || only == "batches", let directory = try? makeDirectory() {
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("Store.sqlite")
            if let store = try? SQLiteStore(url: url, model: model),
               let changes = makeChanges(store: store, model: model, startDate: startDate),
               (try? store.newPrimaryKeys(for: changes.employee, count: count)) != nil,
               (try? store.apply(changes.changes)) != nil {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                coordinator.addPersistentStore(store)
                let ids = changes.changes.inserted.map(\.objectID).filter { $0.entity.name == "Employee" }.prefix(faults)
                let keys = ids.compactMap(\.primaryKey)
                let fireOneByOne: (URL) -> Double? = { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    let objects = ids.map { context.object(with: $0) }
                    let start = now()
                    for object in objects { try? object.fireFault() }
                    return Double(now() - start)
                }
                if only == "onebyone" {
                    oneByOne = best(runs, fireOneByOne)
                    return
                }
                // Timed: the fetch (the keys of the first 10,000 employees, 10,000 faults in
                // batches of 1,000) and `salary` of each read, which fires each batch's faults
                // from one read of its rows.
                let fetchInBatches: (URL) -> Double? = { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    var request = FetchRequest<ManagedEmployee>(entityName: "Employee")
                    request.fetchLimit = faults
                    request.fetchBatchSize = faultBatchSize
                    let start = now()
                    let objects = (try? context.fetch(request)) ?? []
                    var total = 0.0
                    for object in objects { total += object.salary }
                    blackHole(total)
                    if objects.count != faults { print("batched fetch read \(objects.count)") }
                    return Double(now() - start)
                }
                if only == "batches" {
                    batched = best(runs, fetchInBatches)
                    return
                }
                // Each library side in turn with its raw baseline.
                let byKey = interleavedBest(runs, [fireOneByOne, { _ in rawSelectByKey(path: url.path, keys: Array(keys)) }])
                oneByOne = byKey[0]
                rawByKey = byKey[1]
                let inBatches = interleavedBest(runs, [
                    fetchInBatches, { _ in rawSelectInBatches(path: url.path, limit: faults, batchSize: faultBatchSize) },
                ])
                batched = inBatches[0]
                rawBatches = inBatches[1]
                prefetch = best(runs) { _ in
                    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
                    var request = FetchRequest<ManagedDepartment>(entityName: "Department")
                    request.relationshipKeyPathsForPrefetching = ["employees"]
                    let start = now()
                    let departments = (try? context.fetch(request)) ?? []
                    var total = 0.0
                    for department in departments { for employee in department.employees { total += employee.salary } }
                    blackHole(total)
                    return Double(now() - start)
                }
                rawAll = best(runs) { _ in rawSelect(path: url.path, wholeRows: true) }
            }
        }

        print("## SQLite store")
        print()
        print("| Operation | Library (best of \(runs)) | Per object | Baseline | Ratio | Target |")
        print("|:--|--:|--:|--:|--:|:--|")
        /// The target column: the ratio asked for and whether it is met; empty without one.
        func verdict(_ ratio: Double, _ target: Double?) -> String {
            guard let target, !ratio.isNaN else { return "" }
            return "≤ \(String(format: "%.1f", target))x: " + (ratio <= target ? "MET" : "MISSED")
        }
        // A part run alone prints only its own rows.
        func row(_ name: String, _ library: Double, _ baseline: Double, target: Double? = nil) {
            guard only == nil || !library.isNaN else { return }
            let ratio = library / baseline
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(count))) | \(formatDuration(baseline)) | \(String(format: "%.2fx", ratio)) | \(verdict(ratio, target)) |")
        }
        row("insert and save 100,000 employees through a context (SQLite store; baseline raw C API)", contextSQLite, raw, target: 2)
        row("the same with an undo manager set (baseline: the same without, this run)", contextUndo, contextWithoutUndo, target: 1.3)
        row("the same through a context on the in-memory store (context cost alone)", contextMemory, raw)
        row("the same 100,000 through a batch insert request (dictionaries made beforehand)", batchInsert, raw)
        row("the store's part: reserve keys and apply 100,000 inserted records", storeApply, raw)
        /// A row whose target is to be faster than the baseline: a ratio below 1.0x.
        func fasterRow(_ name: String, _ library: Double, _ baseline: Double) {
            let ratio = library / baseline
            let verdict = ratio.isNaN ? "" : "< 1.0x: " + (ratio < 1 ? "MET" : "MISSED")
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(count))) | \(formatDuration(baseline)) | \(String(format: "%.2fx", ratio)) | \(verdict) |")
        }
        fasterRow("insert and save 100,000 employees through a context (baseline: GRDB 7.10.0 records, same schema and rows)", contextSQLite, grdbInsert)
        row("GRDB 7.10.0: insert the same 10 departments and 100,000 employees as struct records, one transaction (baseline raw C API)", grdbInsert, raw)
        row("fetch 100,000 with `salary >= 40000` and read `salary`" + (fetchApplied ? " (predicate in SQL)" : " (predicate not translated)"), fetch, rawFetch)
        row("the same fetch against raw SQL reading every column of each row into Swift values", fetch, rawFetchRows)
        row("fetch the 100,000 as managed objects through a context, read `salary` of each", contextFetch, rawFetch)
        row("the same against raw SQL reading the same columns into plain Swift objects", contextFetch, rawFetchObjects, target: 3)
        row("the same against GRDB 7.10.0 fetching the same columns as struct records (decoded by position)", contextFetch, grdbFetch, target: 1.5)
        row("the same against GRDB 7.10.0 struct records decoded by column name", contextFetch, grdbFetchByName)
        row("GRDB 7.10.0: fetch the 100,000 as struct records decoded by position, read `salary` (baseline raw into plain Swift objects)", grdbFetch, rawFetchObjects)
        row("supplementary: the same fetch as partial faults, `propertiesToFetch = [\"salary\"]` (the keys and `salary` read; reading it fires nothing)",
            partialFetch, rawFetch)
        row("GRDB 7.10.0: the same with records decoded by column name (baseline raw into plain Swift objects)", grdbFetchByName, rawFetchObjects)
        row("fetch dictionaries of `salary` (`propertiesToFetch`) through a context", dictionaryFetch, rawFetch)
        row("`count(for:)` of the same request (raw: `SELECT COUNT(*)`)", countFetch, rawCount)
        row("`count(for:)` with `firstName BEGINSWITH[c] 'FIRST1'` (raw: `LIKE 'FIRST1%'`, ASCII folding)", prefixCount, rawPrefixCount)
        row("`count(for:)` with `lastName == 'Last50000'` (raw: `ZLASTNAME = ?`; neither has an index)", equalCount, rawEqualCount)
        func faultRow(_ name: String, _ library: Double, _ baseline: Double, _ objects: Int, target: Double? = nil) {
            guard only == nil || !library.isNaN else { return }
            let ratio = library / baseline
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(objects))) | \(formatDuration(baseline)) | \(String(format: "%.2fx", ratio)) | \(verdict(ratio, target)) |")
        }
        faultRow("fire 10,000 faults one by one (raw: 10,000 selects by key)", oneByOne, rawByKey, faults, target: 1.5)
        faultRow(
            "fetch 10,000 with `fetchBatchSize` 1,000 and read `salary` of each: the keys, then one read of each batch's rows "
                + "(raw: the same keys query, then per 1,000 keys one prepared `SELECT` of every column `WHERE Z_PK IN (…)`, "
                + "each value read into a Swift value)", batched, rawBatches, faults, target: 2)
        faultRow("fetch 10 departments prefetching `employees` (100,000), read every salary (raw: every row read)", prefetch, rawAll, count)
        /// A memory row: bytes per object against the plain object's, with the issue's bound in bytes.
        func memoryRow(_ name: String, _ bytes: Double, bound: Double) {
            guard !bytes.isNaN else { return }
            let verdict = "≤ \(Int(bound)) B: " + (bytes <= bound ? "MET" : "MISSED")
            print("| \(name) | | \(Int(bytes.rounded())) B | \(Int(plainBytes.rounded())) B (plain Swift object, same five fields) | \(String(format: "%.2fx", bytes / plainBytes)) | \(verdict) |")
        }
        memoryRow("resident memory per employee, 1,000,000 fetched as faults", faultBytes, bound: 100)
        memoryRow("resident memory per employee, 1,000,000 fetched and fired", firedBytes, bound: 200)
        if !keyFaultBytes.isNaN {
            print("| supplementary: resident memory per employee, 1,000,000 fetched as faults holding no row (`includesPropertyValues = false`) "
                + "| | \(Int(keyFaultBytes.rounded())) B | \(Int(plainBytes.rounded())) B (plain Swift object, same five fields) "
                + "| \(String(format: "%.2fx", keyFaultBytes / plainBytes)) | |")
        }
        print()
        let grdbSQLite = GRDBBenchmarks.sqliteVersion()
        let sameSQLite = grdbSQLite.sourceID == String(cString: sqlite3_sourceid()) ? "the same library" : "different libraries"
        print("SQLite \(String(cString: sqlite3_libversion())) for the store and the raw baselines, \(grdbSQLite.version) for GRDB (\(sameSQLite): source IDs compared)")
        print()
        print("The rows with a target time the library and its baselines in turn, round by round (best of \(runs) each): "
            + "inserts (context, with undo, raw, GRDB, in-memory store, batch insert, the store's part), fetches as objects (context, raw into plain objects, GRDB), "
            + "faults one by one and in batches (each with its raw reads).")
        print()
    }

    /// Raw SQL: the number of employees with `ZSALARY >= 40000`.
    /// With `caseInsensitivePrefix`, of the employees whose first name starts with it in any
    /// case (SQLite's `LIKE`, which folds ASCII letters).
    private static func rawCountRows(path: String, caseInsensitivePrefix: String? = nil, lastName: String? = nil) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_close_v2(database) }
        let start = now()
        var statement: OpaquePointer?
        if let lastName {
            sqlite3_prepare_v2(database, "SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZLASTNAME = ?", -1, &statement, nil)
            sqlite3_bind_text(statement, 1, lastName, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        } else if let caseInsensitivePrefix {
            sqlite3_prepare_v2(database, "SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZFIRSTNAME LIKE ?", -1, &statement, nil)
            sqlite3_bind_text(statement, 1, caseInsensitivePrefix + "%", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        } else {
            sqlite3_prepare_v2(database, "SELECT COUNT(*) FROM ZEMPLOYEE WHERE ZSALARY >= ?", -1, &statement, nil)
            sqlite3_bind_double(statement, 1, 40_000)
        }
        var counted: Int64 = 0
        if sqlite3_step(statement) == SQLITE_ROW { counted = sqlite3_column_int64(statement, 0) }
        sqlite3_finalize(statement)
        blackHole(counted)
        return Double(now() - start)
    }

    /// Raw SQL: one prepared select by primary key, stepped for each key, reading every column.
    private static func rawSelectByKey(path: String, keys: [Int64]) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_close_v2(database) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "SELECT * FROM ZEMPLOYEE WHERE Z_PK = ?", -1, &statement, nil) == SQLITE_OK else {
            return nil
        }
        defer { sqlite3_finalize(statement) }
        let start = now()
        var total = 0.0
        for key in keys {
            sqlite3_bind_int64(statement, 1, key)
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<sqlite3_column_count(statement) { total += sqlite3_column_double(statement, column) }
            }
            sqlite3_reset(statement)
        }
        blackHole(total)
        return Double(now() - start)
    }

    /// Raw SQL reading rows the way a batch of faults does: the keys of the first `limit`
    /// employees (`SELECT Z_PK, Z_ENT … LIMIT`), then per `batchSize` keys one prepared
    /// `SELECT *` (every column of the table: the columns the store reads) `WHERE Z_PK IN (…)`
    /// with the keys bound, each column read into a Swift value of its storage class (text
    /// made into a `String`), and the salaries summed.
    private static func rawSelectInBatches(path: String, limit: Int, batchSize: Int) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_close_v2(database) }
        var keysStatement: OpaquePointer?, rowsStatement: OpaquePointer?
        let placeholders = Array(repeating: "?", count: batchSize).joined(separator: ", ")
        guard sqlite3_prepare_v2(database, "SELECT Z_PK, Z_ENT FROM ZEMPLOYEE LIMIT ?", -1, &keysStatement, nil) == SQLITE_OK,
              sqlite3_prepare_v2(database, "SELECT * FROM ZEMPLOYEE WHERE Z_PK IN (\(placeholders))", -1, &rowsStatement, nil) == SQLITE_OK
        else { return nil }
        defer {
            sqlite3_finalize(keysStatement)
            sqlite3_finalize(rowsStatement)
        }
        func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(statement, column) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
        }
        let salaryColumn = (0..<sqlite3_column_count(rowsStatement)).first {
            sqlite3_column_name(rowsStatement, $0).map { String(cString: $0) } == "ZSALARY"
        }
        let start = now()
        var keys: [Int64] = []
        sqlite3_bind_int64(keysStatement, 1, Int64(limit))
        while sqlite3_step(keysStatement) == SQLITE_ROW {
            keys.append(sqlite3_column_int64(keysStatement, 0))
            blackHole(text(keysStatement, 1))
        }
        var total = 0.0, rows = 0, integers: Int64 = 0
        var batchStart = 0
        while batchStart < keys.count {
            let batch = keys[batchStart..<min(batchStart + batchSize, keys.count)]
            for (offset, key) in batch.enumerated() { sqlite3_bind_int64(rowsStatement, Int32(offset + 1), key) }
            while sqlite3_step(rowsStatement) == SQLITE_ROW {
                for column in 0..<sqlite3_column_count(rowsStatement) {
                    switch sqlite3_column_type(rowsStatement, column) {
                    case SQLITE_INTEGER: integers &+= sqlite3_column_int64(rowsStatement, column)
                    case SQLITE_FLOAT:
                        let value = sqlite3_column_double(rowsStatement, column)
                        if column == salaryColumn { total += value }
                    case SQLITE_TEXT: blackHole(text(rowsStatement, column))
                    default: break
                    }
                }
                rows += 1
            }
            sqlite3_reset(rowsStatement)
            sqlite3_clear_bindings(rowsStatement)
            batchStart += batchSize
        }
        blackHole((total, integers))
        if rows != limit { print("raw batches read \(rows) rows") }
        return Double(now() - start)
    }

    /// The best of `runs` timings, each with a fresh temporary directory; nil timings are skipped.
    private static func best(_ runs: Int, _ body: (URL) -> Double?) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            guard let directory = try? makeDirectory() else { continue }
            if let time = body(directory) { times.append(time) }
            try? FileManager.default.removeItem(at: directory)
        }
        return times.min() ?? .nan
    }

    /// The best time of each of `bodies`, run in turn `runs` rounds (the library's side and its
    /// baselines alternating): a machine whose speed drifts over seconds (a shared host) then
    /// slows each side in the same rounds, where timing one side's runs before the other's
    /// would let the drift decide the ratio.
    private static func interleavedBest(_ runs: Int, _ bodies: [(URL) -> Double?]) -> [Double] {
        var times = [[Double]](repeating: [], count: bodies.count)
        for _ in 0..<runs {
            for (position, body) in bodies.enumerated() {
                guard let directory = try? makeDirectory() else { continue }
                if let time = body(directory) { times[position].append(time) }
                try? FileManager.default.removeItem(at: directory)
            }
        }
        return times.map { $0.min() ?? .nan }
    }

    private static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteBenchmarks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// 100,000 inserted employee records (and 10 departments), as a context's save makes them.
    private static func makeChanges(
        store: SQLiteStore, model: ManagedObjectModel, startDate: Date, employees: Int = count
    ) -> (changes: SaveChanges, employee: EntityDescription)? {
        guard let employee = model.entity(named: "Employee"), let department = model.entity(named: "Department") else { return nil }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(store)
        func id(_ entity: String, _ key: Int) -> ManagedObjectID? {
            coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(store.identifier)/\(entity)/p\(key)")!)
        }
        var changes = SaveChanges()
        let departmentIDs = (1...10).compactMap { id("Department", $0) }
        for (index, departmentID) in departmentIDs.enumerated() {
            var values = [StoreValue](repeating: .null, count: department.properties.count)
            values[0] = .string("Department \(index)")
            values[1] = .decimal(0)
            changes.inserted.append(StoreRecord(objectID: departmentID, version: 1, values: values))
        }
        // Values are indexed like the entity's properties.
        func position(_ name: String) -> Int? { employee.properties.firstIndex { $0.name == name } }
        guard let first = position("firstName"), let last = position("lastName"),
              let number = position("employeeID"), let salary = position("salary"),
              let license = position("hasDriversLicense"), let start = position("startDate"),
              let departmentIndex = position("department"), let reports = position("directReports")
        else { return nil }
        changes.inserted.reserveCapacity(departmentIDs.count + employees)
        for index in 0..<employees {
            guard let objectID = id("Employee", index + 1) else { return nil }
            var values = [StoreValue](repeating: .null, count: employee.properties.count)
            values[first] = .string("First\(index)")
            values[last] = .string("Last\(index)")
            values[number] = .integer(Int64(index))
            values[salary] = .double(Double(40_000 + index % 997))
            values[license] = .boolean(false)
            values[start] = .date(startDate)
            values[departmentIndex] = .toOne(departmentIDs[index % 10])
            values[reports] = .toMany([])
            changes.inserted.append(StoreRecord(objectID: objectID, version: 1, values: values))
        }
        return (changes, employee)
    }

    /// Raw SQLite: the store's schema for employees (same indexes), then 100,000 rows with the
    /// same values in one transaction through one prepared statement. Times the transaction.
    private static func rawInsert(path: String, startDate: Date) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let database else {
            return nil
        }
        defer { sqlite3_close_v2(database) }
        let setup = """
            PRAGMA journal_mode = WAL;
            CREATE TABLE ZEMPLOYEE (Z_PK INTEGER PRIMARY KEY, Z_ENT TEXT NOT NULL, Z_OPT INTEGER NOT NULL, ZFIRSTNAME TEXT,
              ZLASTNAME TEXT, ZEMPLOYEEID INTEGER, ZSALARY REAL, ZAGE INTEGER, ZHASDRIVERSLICENSE INTEGER, ZSTARTDATE REAL,
              ZDEPARTMENT INTEGER, ZMANAGER INTEGER, Z_FOK_MANAGER INTEGER);
            CREATE INDEX ZEMPLOYEE_Z_ENT ON ZEMPLOYEE (Z_ENT);
            CREATE INDEX ZEMPLOYEE_ZDEPARTMENT ON ZEMPLOYEE (ZDEPARTMENT);
            CREATE INDEX ZEMPLOYEE_ZMANAGER ON ZEMPLOYEE (ZMANAGER);
            """
        guard sqlite3_exec(database, setup, nil, nil, nil) == SQLITE_OK else { return nil }
        let rows = (0..<count).map { ("First\($0)", "Last\($0)") }
        let start = now()
        sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            database,
            "INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZEMPLOYEEID, ZSALARY, ZAGE, ZHASDRIVERSLICENSE, "
                + "ZSTARTDATE, ZDEPARTMENT, ZMANAGER) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
        for (index, (first, last)) in rows.enumerated() {
            sqlite3_bind_int64(statement, 1, Int64(index + 1))
            sqlite3_bind_text(statement, 2, "Employee", -1, cbenchmarksqlite_transient())
            sqlite3_bind_int64(statement, 3, 1)
            sqlite3_bind_text(statement, 4, first, -1, cbenchmarksqlite_transient())
            sqlite3_bind_text(statement, 5, last, -1, cbenchmarksqlite_transient())
            sqlite3_bind_int64(statement, 6, Int64(index))
            sqlite3_bind_double(statement, 7, Double(40_000 + index % 997))
            sqlite3_bind_null(statement, 8)
            sqlite3_bind_int64(statement, 9, 0)
            sqlite3_bind_double(statement, 10, startDate.timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(statement, 11, Int64(index % 10 + 1))
            sqlite3_bind_null(statement, 12)
            if sqlite3_step(statement) != SQLITE_DONE { print("raw insert failed") }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        sqlite3_exec(database, "COMMIT", nil, nil, nil)
        return Double(now() - start)
    }

    /// Raw SQLite: the salaries of employees with `ZSALARY >= 40000`, read one by one; with
    /// `wholeRows`, every column of each row is read too (strings made), as a store must.
    private static func rawSelect(path: String, wholeRows: Bool) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let database else { return nil }
        defer { sqlite3_close_v2(database) }
        let start = now()
        var statement: OpaquePointer?
        let sql = wholeRows
            ? "SELECT ZSALARY, Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZEMPLOYEEID, ZAGE, ZHASDRIVERSLICENSE, ZSTARTDATE, "
                + "ZDEPARTMENT, ZMANAGER FROM ZEMPLOYEE WHERE ZSALARY >= ?"
            : "SELECT ZSALARY FROM ZEMPLOYEE WHERE ZSALARY >= ?"
        sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        sqlite3_bind_double(statement, 1, 40_000)
        var total = 0.0, rows = 0
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(statement, column) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
        }
        while sqlite3_step(statement) == SQLITE_ROW {
            total += sqlite3_column_double(statement, 0)
            if wholeRows {
                blackHole((sqlite3_column_int64(statement, 1), text(2), sqlite3_column_int64(statement, 3), text(4), text(5)))
                blackHole((sqlite3_column_int64(statement, 6), sqlite3_column_type(statement, 7), sqlite3_column_int64(statement, 8)))
                blackHole((sqlite3_column_double(statement, 9), sqlite3_column_int64(statement, 10), sqlite3_column_type(statement, 11)))
            }
            rows += 1
        }
        sqlite3_finalize(statement)
        blackHole(total)
        if rows != count { print("raw select read \(rows) rows") }
        return Double(now() - start)
    }

    /// Raw SQLite: the employees with `ZSALARY >= 40000`, every column the store reads made into
    /// a plain Swift object per row (kept in an array, as a fetch's result is), then the salary
    /// of each read.
    private static func rawSelectIntoObjects(path: String) -> Double? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let database else { return nil }
        defer { sqlite3_close_v2(database) }
        let start = now()
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            database,
            "SELECT Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZEMPLOYEEID, ZSALARY, ZAGE, ZHASDRIVERSLICENSE, ZSTARTDATE, "
                + "ZDEPARTMENT, ZMANAGER FROM ZEMPLOYEE WHERE ZSALARY >= ?", -1, &statement, nil)
        sqlite3_bind_double(statement, 1, 40_000)
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(statement, column) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
        }
        func integer(_ column: Int32) -> Int64? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
        }
        var objects: [PlainEmployeeRow] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            objects.append(PlainEmployeeRow(
                key: sqlite3_column_int64(statement, 0), entity: text(1), version: sqlite3_column_int64(statement, 2),
                firstName: text(3), lastName: text(4), employeeID: sqlite3_column_int64(statement, 5),
                salary: sqlite3_column_double(statement, 6), age: integer(7), hasDriversLicense: sqlite3_column_int64(statement, 8) != 0,
                startDate: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 9)),
                department: integer(10), manager: integer(11)))
        }
        sqlite3_finalize(statement)
        var total = 0.0
        for object in objects { total += object.salary }
        blackHole(total)
        if objects.count != count { print("raw select into objects read \(objects.count) rows") }
        let elapsed = Double(now() - start)
        // Freed after the clock stops, as the context's objects and GRDB's records are.
        withExtendedLifetime(objects) {}
        return elapsed
    }

    /// Resident bytes once freed heap pages are given back, so that the figure shows what is in use.
    private static func settledResidentBytes() -> Int {
        _ = trimMalloc(0)
        return residentBytes()
    }
}

/// A plain Swift object with the five fields of the memory benchmark's employees.
final class PlainFiveFields {
    var firstName: String, lastName: String, employeeID: Int64, salary: Double, department: Int

    init(firstName: String, lastName: String, employeeID: Int64, salary: Double, department: Int) {
        self.firstName = firstName
        self.lastName = lastName
        self.employeeID = employeeID
        self.salary = salary
        self.department = department
    }
}

/// A plain Swift object with a field for each column the store reads of an employee.
final class PlainEmployeeRow {
    let key: Int64, entity: String, version: Int64
    var firstName: String, lastName: String, employeeID: Int64, salary: Double, age: Int64?
    var hasDriversLicense: Bool, startDate: Date, department: Int64?, manager: Int64?

    init(
        key: Int64, entity: String, version: Int64, firstName: String, lastName: String, employeeID: Int64, salary: Double,
        age: Int64?, hasDriversLicense: Bool, startDate: Date, department: Int64?, manager: Int64?
    ) {
        self.key = key
        self.entity = entity
        self.version = version
        self.firstName = firstName
        self.lastName = lastName
        self.employeeID = employeeID
        self.salary = salary
        self.age = age
        self.hasDriversLicense = hasDriversLicense
        self.startDate = startDate
        self.department = department
        self.manager = manager
    }
}
