import ModelObjects
import PlainModels
import SampleModels

/// Notified sets: one observer asking old and new values, a dependent key, a key path through a
/// relationship and ten observers, against hand-written notification code on plain classes (read
/// the old value, store, read the new value, call the handler).
enum KeyValueObservingBenchmarks: BenchmarkGroup {
    static let title = "Key-value observing"

    static func makeBenchmarks() -> [Benchmark] {
        var tokens: [KeyValueObservation] = []
        let sink = NotificationSink()

        // One observer of `salary` with old and new values, on each of 64 employees.
        let observed = Pool((0..<64).map { index in
            Employee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: 1)
        })
        for employee in observed.objects {
            if let token = try? employee.observe("salary", options: [.old, .new], changeHandler: { _, change in sink.receive(change) }) {
                tokens.append(token)
            }
        }
        let plain = Pool((0..<64).map { PlainEmployee(firstName: "F\($0)", lastName: "L\($0)", employeeID: $0, salary: 1) })
        let plainHandler: (Double, Double) -> Void = { old, new in sink.receive(old, new) }

        // Observers of the derived `fullName`, notified when `firstName` changes.
        let named = Pool((0..<64).map { index in
            Employee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: 1)
        })
        for employee in named.objects {
            if let token = try? employee.observe("fullName", options: [.old, .new], changeHandler: { _, change in sink.receive(change) }) {
                tokens.append(token)
            }
        }
        let firstNames = ["Ada", "Grace"]
        let plainNameHandler: (String, String) -> Void = { old, new in sink.receive(old, new) }

        // Observers of `department.name` on employees, notified when their department's name changes.
        let departments = Pool((0..<64).map { Department(name: "D\($0)") })
        for department in departments.objects {
            let employee = Employee()
            employee.department = department
            if let token = try? employee.observe("department.name", options: [.old, .new], changeHandler: { _, change in sink.receive(change) }) {
                tokens.append(token)
            }
            sink.keepAlive.append(employee)
        }
        let plainDepartments = Pool((0..<64).map { PlainDepartment(name: "D\($0)", budget: 0) })
        let departmentNames = ["Sales", "Research"]

        // One typed observer of `salary` with old and new values, on each of 64 employees: the
        // same job as `observed`, through `observe(\.salary, …)`.
        let typed = Pool((0..<64).map { index in
            Employee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: 1)
        })
        for employee in typed.objects {
            // `try?`: `\.salary` always maps to its key; a failure would show as a missing token.
            if let token = try? employee.observe(\.salary, options: [.old, .new], changeHandler: { _, change in sink.receive(change) }) {
                tokens.append(token)
            }
        }

        // Ten observers of one key.
        let crowded = Pool((0..<64).map { index in
            Employee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: 1)
        })
        for employee in crowded.objects {
            for _ in 0..<10 {
                if let token = try? employee.observe("salary", options: [.old, .new], changeHandler: { _, change in sink.receive(change) }) {
                    tokens.append(token)
                }
            }
        }
        sink.tokens = tokens

        return [
            Benchmark(
                name: "set with one observer (old and new)",
                target: .nanoseconds(150),
                baselineDescription: "plain property: read old, store, call a handler with old and new",
                measured: { iterations in
                    for i in 0..<iterations { observed.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations {
                        plain.with(i) { notifiedPlainWrite($0, Double(i), plainHandler) }
                    }
                }),
            Benchmark(
                name: "dependent key: `fullName` observer, set `firstName`",
                target: .nanoseconds(250),
                baselineDescription: "plain properties: compute the old full name, store, compute the new one, call a handler",
                measured: { iterations in
                    for i in 0..<iterations { named.with(i) { writeFirstName($0, firstNames[i & 1]) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations {
                        plain.with(i) { notifiedPlainFirstName($0, firstNames[i & 1], plainNameHandler) }
                    }
                }),
            Benchmark(
                name: "`department.name` observer, set the department's name",
                target: .nanoseconds(300),
                baselineDescription: "plain property: read old, store, call a handler with old and new",
                measured: { iterations in
                    for i in 0..<iterations { departments.with(i) { writeName($0, departmentNames[i & 1]) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations {
                        plainDepartments.with(i) { notifiedPlainName($0, departmentNames[i & 1], plainNameHandler) }
                    }
                }),
            Benchmark(
                name: "typed observer `observe(\\.salary)` (old and new), set",
                target: .ratio(1.2),
                baselineDescription: "the same set with a string observer, `observe(\"salary\")` (old and new)",
                measured: { iterations in
                    for i in 0..<iterations { typed.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { observed.with(i) { writeSalary($0, Double(i)) } }
                }),
            Benchmark(
                name: "ten observers of one key (time per observer)",
                target: .nanoseconds(150),
                baselineDescription: "one observer of one key (per set)",
                measured: { iterations in
                    let sets = max(1, iterations / 10)
                    for i in 0..<sets { crowded.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { observed.with(i) { writeSalary($0, Double(i)) } }
                }),
        ]
    }
}

/// Receives every notification, so that the optimizer cannot drop them.
final class NotificationSink: @unchecked Sendable {
    var count = 0
    var tokens: [KeyValueObservation] = []
    var keepAlive: [AnyObject] = []

    @inline(never)
    func receive(_ change: KeyValueChange) {
        if change.newValue != nil { count &+= 1 }
    }

    @inline(never)
    func receive<Value>(_ change: ObservedChange<Value>) {
        if change.newValue != nil { count &+= 1 }
    }

    @inline(never)
    func receive<T>(_ old: T, _ new: T) {
        count &+= 1
    }
}

@inline(never)
func writeFirstName(_ employee: Employee, _ name: String) { employee.firstName = name }

@inline(never)
func writeName(_ department: Department, _ name: String) { department.name = name }

@inline(never)
func notifiedPlainWrite(_ employee: PlainEmployee, _ salary: Double, _ handler: (Double, Double) -> Void) {
    let old = employee.salary
    employee.salary = salary
    handler(old, employee.salary)
}

@inline(never)
func notifiedPlainFirstName(_ employee: PlainEmployee, _ name: String, _ handler: (String, String) -> Void) {
    let old = employee.firstName + " " + employee.lastName
    employee.firstName = name
    handler(old, employee.firstName + " " + employee.lastName)
}

@inline(never)
func notifiedPlainName(_ department: PlainDepartment, _ name: String, _ handler: (String, String) -> Void) {
    let old = department.name
    department.name = name
    handler(old, department.name)
}
