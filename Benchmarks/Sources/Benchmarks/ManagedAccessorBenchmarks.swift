import Foundation
import ManagedObjects
import PlainModels
import SampleModels

/// Typed `@Managed` access to fired `ManagedEmployee`s registered with a context, against plain
/// Swift classes: issue 12's "typed reads of a fired object stay within 2x of a plain stored
/// property".
///
/// The employees are inserted into a context over the in-memory store and saved, so each is a
/// registered object with its values and snapshot loaded (no fault, not inserted); the context
/// has no undo manager and nothing observes them.
enum ManagedAccessorBenchmarks: BenchmarkGroup {
    static let title = "Managed objects: typed access"

    static func makeBenchmarks() -> [Benchmark] {
        guard let model = try? SampleModel.makeModel() else {
            print("managed accessor benchmarks: the sample model failed")
            return []
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        guard (try? coordinator.addPersistentStore(type: .inMemory)) != nil else {
            print("managed accessor benchmarks: the in-memory store failed")
            return []
        }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let department = ManagedDepartment(context: context)
        department.name = "Department"
        let employees = Pool((0..<KeyValueCodingBenchmarks.poolSize).map { index in
            let employee = ManagedEmployee(context: context)
            employee.firstName = "First\(index)"
            employee.lastName = "Last\(index)"
            employee.salary = Double(50_000 + index)
            employee.department = department
            return employee
        })
        do {
            try context.save()
        } catch {
            print("managed accessor benchmarks: the save failed: \(error)")
            return []
        }
        let plainEmployees = Pool((0..<KeyValueCodingBenchmarks.poolSize).map { index in
            PlainEmployee(firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: Double(50_000 + index))
        })
        for index in 0..<KeyValueCodingBenchmarks.poolSize {
            let managed = employees.with(index) { readSalary($0) }, plain = plainEmployees.with(index) { readSalary($0) }
            if managed != plain || employees.with(index, { $0.isFault || $0.hasChanges }) {
                print("managed accessor benchmarks: employee \(index) is not a fired, saved object with the plain one's salary")
                return []
            }
        }

        return [
            Benchmark(
                name: "`@Managed` typed get `salary` of a fired managed object",
                target: .ratio(2),
                baselineDescription: "`PlainEmployee.salary`, a stored property of a final class in another module, read through the same kind of non-inlined function",
                measured: { iterations in
                    withExtendedLifetime(context) {
                        employees.readEach(iterations, readSalary)
                    }
                },
                baseline: { iterations in
                    plainEmployees.readEach(iterations, readSalary)
                }),
            Benchmark(
                name: "`@Managed` typed set `salary = x` of a saved managed object (announced, tracked)",
                target: .nanoseconds(100),
                baselineDescription: "`PlainEmployee.salary = x` through the same kind of non-inlined function; the managed set also announces the change (will/did change), marks the object updated and records it for the next save",
                isSupplementary: true,
                measured: { iterations in
                    withExtendedLifetime(context) {
                        for i in 0..<iterations { employees.with(i) { writeSalary($0, Double(i & 0xFFFF)) } }
                    }
                },
                baseline: { iterations in
                    for i in 0..<iterations { plainEmployees.with(i) { writeSalary($0, Double(i & 0xFFFF)) } }
                }),
        ]
    }
}

// Behind calls the optimizer keeps, as the key-value coding group's: both sides pay one call per
// operation.

@inline(never)
func readSalary(_ employee: ManagedEmployee) -> Double { employee.salary }

@inline(never)
func writeSalary(_ employee: ManagedEmployee, _ salary: Double) { employee.salary = salary }
