import Foundation
import ManagedObjects
import SampleModels

/// Managed objects in a context over the in-memory store: inserting and saving 100,000
/// employees, looking up 100,000 objects by ID, and a relationship change with inverse
/// maintenance, each against plain Swift doing the same bookkeeping by hand.
enum ManagedObjectBenchmarks {
    /// Times whole operations (best of `runs`) and prints a table with the ratios.
    static func report(runs: Int = 5) {
        let count = 100_000
        // MANAGED_BENCHMARK=insert|lookup|move runs one part (for profiling).
        let only = ProcessInfo.processInfo.environment["MANAGED_BENCHMARK"]
        func wanted(_ part: String) -> Bool { only == nil || only == part }
        func best(_ body: () -> Void) -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                let start = now()
                body()
                times.append(Double(now() - start))
            }
            return times.min() ?? .nan
        }
        guard let model = try? SampleModel.makeModel() else {
            print("model failed")
            return
        }
        func makeContext() -> ManagedObjectContext? {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            guard (try? coordinator.addPersistentStore(type: .inMemory)) != nil else { return nil }
            return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        }

        // Insert and save 100,000 employees in 10 departments.
        let insertAndSave = !wanted("insert") ? Double.nan : best {
            guard let context = makeContext() else { return }
            fillEmployees(context, count: count)
            do { try context.save() } catch { print("save failed: \(error)") }
        }
        let plainInsertAndSave = !wanted("insert") ? Double.nan : best {
            let departments = (0..<10).map { PlainManagedDepartment(name: "Department \($0)") }
            var store: [Int: PlainRecord] = [:]
            var objects: [PlainManagedEmployee] = []
            for index in 0..<count {
                let employee = PlainManagedEmployee()
                employee.firstName = "First\(index)"
                employee.lastName = "Last\(index)"
                employee.employeeID = Int64(index)
                employee.salary = Double(40_000 + index % 997)
                let department = departments[index % 10]
                employee.department = department
                department.employees.insert(ObjectIdentifier(employee))
                objects.append(employee)
            }
            for (key, employee) in objects.enumerated() {
                store[key] = PlainRecord(
                    firstName: employee.firstName, lastName: employee.lastName, employeeID: employee.employeeID,
                    salary: employee.salary, department: employee.department.map { ObjectIdentifier($0).hashValue })
            }
            blackHole(store)
        }

        // Look up 100,000 registered objects by ID.
        var lookup = Double.nan, plainLookup = Double.nan
        if wanted("lookup"), let context = makeContext() {
            let employees = (0..<count).map { index -> ManagedEmployee in
                let employee = ManagedEmployee(context: context)
                employee.employeeID = Int64(index)
                return employee
            }
            try? context.save()
            let ids = employees.map(\.objectID).shuffled()
            lookup = best { for id in ids { blackHole(context.object(with: id)) } }
            let table = Dictionary(uniqueKeysWithValues: employees.map { ($0.employeeID, $0) })
            let keys = ids.indices.map { Int64($0) }.shuffled()
            plainLookup = best { for key in keys { blackHole(table[key]) } }
        }

        // Move an employee between two departments of 1,000 employees each, 100,000 times.
        var move = Double.nan, plainMove = Double.nan
        let moves = 100_000
        if wanted("move"), let context = makeContext() {
            let research = ManagedDepartment(context: context), sales = ManagedDepartment(context: context)
            research.name = "Research"
            sales.name = "Sales"
            for index in 0..<2_000 {
                let employee = ManagedEmployee(context: context)
                employee.department = index.isMultiple(of: 2) ? research : sales
            }
            let mover = ManagedEmployee(context: context)
            try? context.save()
            move = best {
                for index in 0..<moves { mover.department = index.isMultiple(of: 2) ? research : sales }
            }
            let plainResearch = PlainManagedDepartment(name: "Research"), plainSales = PlainManagedDepartment(name: "Sales")
            for index in 0..<2_000 {
                let employee = PlainManagedEmployee()
                (index.isMultiple(of: 2) ? plainResearch : plainSales).employees.insert(ObjectIdentifier(employee))
            }
            let plainMover = PlainManagedEmployee()
            plainMove = best {
                for index in 0..<moves { plainMover.move(to: index.isMultiple(of: 2) ? plainResearch : plainSales) }
            }
        }

        // Fetch 1,000,000 objects as faults, drop them, and see the memory come back.
        var memoryRow: String?
        if wanted("memory"), let context = makeContext(), let store = context.persistentStoreCoordinator.persistentStores.first,
           let entity = model.entity(named: "Employee") {
            var changes = SaveChanges()
            let million = 1_000_000
            let keys = (try? store.newPrimaryKeys(for: entity, count: million)) ?? []
            for key in keys {
                var values = [StoreValue](repeating: .null, count: entity.properties.count)
                func slot(_ name: String) -> Int { entity.properties.firstIndex { $0.name == name } ?? 0 }
                values[slot("firstName")] = .string("First\(key)")
                values[slot("salary")] = .double(Double(key % 997))
                values[slot("directReports")] = .toMany([])
                changes.inserted.append(StoreRecord(
                    objectID: ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: key),
                    version: 1, values: values))
            }
            try? store.apply(changes)
            changes = SaveChanges()
            let before = residentBytes()
            let start = now()
            var fetched = 0
            var elapsed = 0.0
            var held = 0
            do {
                let objects = (try? context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee"))) ?? []
                elapsed = Double(now() - start)
                fetched = objects.count
                held = residentBytes()
            }
            _ = trimMalloc(0)  // give freed pages back to the system, so the figure shows what is still in use
            let after = residentBytes()
            let during = ", holding them \(held / 1_048_576) MiB"
            memoryRow = "| fetch 1,000,000 employees as faults, then drop them | \(formatDuration(elapsed)) | \(formatDuration(elapsed / Double(max(fetched, 1)))) | resident memory before \(before / 1_048_576) MiB\(during), after dropping \(after / 1_048_576) MiB; registered objects left: \(context.registeredObjects.count) | |"
        }

        print("## Managed objects (in-memory store)")
        print()
        print("| Operation | Library (best of \(runs)) | Per object | Plain Swift | Ratio |")
        print("|:--|--:|--:|--:|--:|")
        func row(_ name: String, _ library: Double, _ plain: Double, _ operations: Int) {
            print("| \(name) | \(formatDuration(library)) | \(formatDuration(library / Double(operations))) | \(formatDuration(plain)) | \(String(format: "%.1fx", library / plain)) |")
        }
        row("insert and save 100,000 employees", insertAndSave, plainInsertAndSave, count)
        row("look up 100,000 objects by ID", lookup, plainLookup, count)
        row("move an employee between departments (inverse kept), 100,000 times", move, plainMove, moves)
        if let memoryRow { print(memoryRow) }
        print()
    }
}

/// Plain Swift stand-ins for the baselines: classes with stored properties and hand-kept inverses.
final class PlainManagedEmployee {
    var firstName = "", lastName = "", employeeID: Int64 = 0, salary = 0.0
    var department: PlainManagedDepartment?

    func move(to department: PlainManagedDepartment) {
        if let old = self.department { old.employees.remove(ObjectIdentifier(self)) }
        self.department = department
        department.employees.insert(ObjectIdentifier(self))
    }
}

final class PlainManagedDepartment {
    let name: String
    var employees = Set<ObjectIdentifier>()
    init(name: String) { self.name = name }
}

struct PlainRecord {
    var firstName: String, lastName: String, employeeID: Int64, salary: Double, department: Int?
}

/// The process's resident memory in bytes, from `/proc/self/statm` (0 where it is not available).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// glibc's `malloc_trim`, which the Glibc module does not export: returns freed heap pages to the system.
@_silgen_name("malloc_trim")
func trimMalloc(_ pad: Int) -> Int32
