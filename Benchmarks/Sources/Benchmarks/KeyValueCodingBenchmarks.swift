import ModelObjects
import PlainModels
import SampleModels

/// Typed property access and string-keyed key-value coding on SampleModels' `Employee` and
/// `Department`, against plain Swift classes and key-path tables.
enum KeyValueCodingBenchmarks: BenchmarkGroup {
    static let title = "Key-value coding"

    /// The number of objects cycled through by the per-object benchmarks (a power of two).
    static let poolSize = 64
    /// The number of employees of the department summed by `@sum`.
    static let departmentSize = 1_000

    static func makeBenchmarks() -> [Benchmark] {
        // 64 employees spread over eight departments; the same with the plain classes.
        let departments = (0..<8).map { Department(name: "Department \($0)", budget: 1_000_000) }
        let plainDepartments = (0..<8).map { PlainDepartment(name: "Department \($0)", budget: 1_000_000) }
        let employees = Pool((0..<poolSize).map { index in
            let employee = Employee(
                firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: Double(50_000 + index))
            employee.department = departments[index % departments.count]
            return employee
        })
        let plainEmployees = Pool((0..<poolSize).map { index in
            let employee = PlainEmployee(
                firstName: "First\(index)", lastName: "Last\(index)", employeeID: index, salary: Double(50_000 + index))
            employee.department = plainDepartments[index % plainDepartments.count]
            return employee
        })
        let uncheckedEmployees = Pool((0..<poolSize).map { UncheckedPlainEmployee(salary: Double(50_000 + $0)) })

        // One department of 1,000 employees for @sum; the same with the plain classes.
        let bigDepartment = Department(name: "Big", budget: 1_000_000)
        bigDepartment.employees = (0..<departmentSize).map { index in
            Employee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: Double(40_000 + index % 997))
        }
        let plainBigDepartment = PlainDepartment(name: "Big", budget: 1_000_000)
        plainBigDepartment.employees = (0..<departmentSize).map { index in
            PlainEmployee(firstName: "F\(index)", lastName: "L\(index)", employeeID: index, salary: Double(40_000 + index % 997))
        }

        checkBothSidesAgree(employees, plainEmployees, bigDepartment, plainBigDepartment)

        // A salary with a custom setter and getter, for the cost of `@CustomAttribute`'s hooks.
        let clamped = Pool((0..<poolSize).map { index in
            let employee = ClampedEmployee()
            employee.salary = Double(50_000 + index)
            return employee
        })

        return [
            Benchmark(
                name: "typed get through `@CustomAttribute` (getter hook)",
                target: .nanoseconds(40),
                baselineDescription: "`employee.salary` declared with `@Attribute` (no hooks)",
                isSupplementary: true,
                measured: { iterations in
                    clamped.readEach(iterations, readSalary)
                },
                baseline: { iterations in
                    employees.readEach(iterations, readSalary)
                }),
            Benchmark(
                name: "typed set through `@CustomAttribute` (setter and didSet hooks)",
                target: .nanoseconds(40),
                baselineDescription: "`employee.salary = x` declared with `@Attribute` (no hooks)",
                isSupplementary: true,
                measured: { iterations in
                    for i in 0..<iterations { clamped.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { employees.with(i) { writeSalary($0, Double(i)) } }
                }),
            Benchmark(
                name: "typed get `employee.salary`",
                target: .ratio(2),
                baselineDescription: "`PlainEmployee.salary`, a stored property of a final class in another module, read through the same kind of non-inlined function",
                measured: { iterations in
                    employees.readEach(iterations, readSalary)
                },
                baseline: { iterations in
                    plainEmployees.readEach(iterations, readSalary)
                }),
            Benchmark(
                name: "typed set `employee.salary = x`",
                target: .ratio(2),
                baselineDescription: "`PlainEmployee.salary = x` through the same kind of non-inlined function",
                measured: { iterations in
                    for i in 0..<iterations { employees.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { plainEmployees.with(i) { writeSalary($0, Double(i)) } }
                }),
            Benchmark(
                name: "typed get, against a bare load",
                target: .ratio(2),
                baselineDescription: "an `@exclusivity(unchecked)` stored property read in its own module: a bare load behind a non-inlined call, without the `swift_beginAccess` that `PlainEmployee.salary` pays",
                isSupplementary: true,
                measured: { iterations in
                    employees.readEach(iterations, readSalary)
                },
                baseline: { iterations in
                    uncheckedEmployees.readEach(iterations, readSalary)
                }),
            Benchmark(
                name: "typed set, against a bare store",
                target: .ratio(2),
                baselineDescription: "an `@exclusivity(unchecked)` stored property written in its own module: a bare store behind a non-inlined call",
                isSupplementary: true,
                measured: { iterations in
                    for i in 0..<iterations { employees.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { uncheckedEmployees.with(i) { writeSalary($0, Double(i)) } }
                }),
            Benchmark(
                name: "`value(forKey: \"department\")` (object)",
                target: .nanoseconds(40),
                baselineDescription: "`[String: PartialKeyPath<PlainEmployee>]` lookup, then `object[keyPath:]` as `Any`",
                measured: { iterations in
                    for i in 0..<iterations { employees.with(i) { blackHole(try! $0.value(forKey: "department")) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { plainEmployees.with(i) { blackHole($0.value(forKey: "department")) } }
                }),
            Benchmark(
                name: "`value(forKey: \"salary\")` (scalar)",
                target: .nanoseconds(40),
                baselineDescription: "`[String: PartialKeyPath<PlainEmployee>]` lookup, then `object[keyPath:]` as `Any`",
                measured: { iterations in
                    for i in 0..<iterations { employees.with(i) { blackHole(try! $0.value(forKey: "salary")) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { plainEmployees.with(i) { blackHole($0.value(forKey: "salary")) } }
                }),
            Benchmark(
                name: "`setValue(_:forKey: \"salary\")`",
                target: .nanoseconds(50),
                baselineDescription: "`[String: ReferenceWritableKeyPath<PlainEmployee, Double>]` lookup, `as? Double`, then `object[keyPath:] = value`",
                measured: { iterations in
                    for i in 0..<iterations { employees.with(i) { try! $0.setValue(Double(i), forKey: "salary") } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { plainEmployees.with(i) { $0.setDouble(Double(i), forKey: "salary") } }
                }),
            Benchmark(
                name: "`value(forKeyPath: \"department.name\")`",
                target: .nanoseconds(80),
                baselineDescription: "split at the dot, then two chained key-path-table lookups with `as? PlainDepartment` between them",
                measured: { iterations in
                    for i in 0..<iterations {
                        employees.with(i) { blackHole(try! $0.value(forKeyPath: "department.name")) }
                    }
                },
                baseline: { iterations in
                    for i in 0..<iterations {
                        plainEmployees.with(i) { blackHole(plainValue(of: $0, forTwoKeyPath: "department.name")) }
                    }
                }),
            Benchmark(
                name: "`value(forKeyPath: \"employees.@sum.salary\")`, 1,000 employees",
                target: .nanoseconds(30_000),
                baselineDescription: "a hand-written loop summing `PlainEmployee.salary` over `PlainDepartment.employees`",
                measured: { iterations in
                    for _ in 0..<iterations {
                        blackHole(try! identity(bigDepartment).value(forKeyPath: "employees.@sum.salary"))
                    }
                },
                baseline: { iterations in
                    for _ in 0..<iterations { blackHole(plainSumOfSalaries(in: identity(plainBigDepartment))) }
                }),
        ]
    }

    /// Stops the run when the two sides of a benchmark do not compute the same thing.
    private static func checkBothSidesAgree(
        _ employees: Pool<Employee>, _ plainEmployees: Pool<PlainEmployee>,
        _ bigDepartment: Department, _ plainBigDepartment: PlainDepartment
    ) {
        for index in 0..<poolSize {
            let employee = employees.objects[index], plain = plainEmployees.objects[index]
            precondition(readSalary(employee) == readSalary(plain))
            precondition((try? employee.value(forKey: "salary")) as? Double == plain.value(forKey: "salary") as? Double)
            precondition((try? employee.value(forKey: "department")) as? Department === employee.department)
            precondition(plain.value(forKey: "department") as? PlainDepartment === plain.department)
            precondition((try? employee.value(forKeyPath: "department.name")) as? String
                         == plainValue(of: plain, forTwoKeyPath: "department.name") as? String)
        }
        let employee = employees.objects[0], plain = plainEmployees.objects[0]
        let salary = employee.salary
        try! employee.setValue(1234.0, forKey: "salary")
        precondition(plain.setDouble(1234.0, forKey: "salary") && employee.salary == 1234 && plain.salary == 1234)
        employee.salary = salary
        plain.salary = salary
        precondition((try? bigDepartment.value(forKeyPath: "employees.@sum.salary")) as? Double
                     == plainSumOfSalaries(in: plainBigDepartment))
    }
}

// The typed accessors, each behind a call the optimizer keeps, so that both sides pay one call per
// operation and the difference is the property access itself. (The bare-load baseline's accessors
// are in PlainModels.)

@inline(never)
func readSalary(_ employee: Employee) -> Double { employee.salary }

@inline(never)
func readSalary(_ employee: PlainEmployee) -> Double { employee.salary }

@inline(never)
func readSalary(_ employee: ClampedEmployee) -> Double { employee.salary }

@inline(never)
func writeSalary(_ employee: ClampedEmployee, _ salary: Double) { employee.salary = salary }

/// An employee whose salary has custom accessors: a getter, a clamping setter and a `didSet`.
final class ClampedEmployee: ModelObject {
    @Attribute var raises = 0
    @CustomAttribute(
        get: { (_: ClampedEmployee, stored: Double) in stored },
        set: { (_: ClampedEmployee, newValue: Double) in max(0, newValue) },
        didSet: { employee, _ in employee.raises &+= 1 })
    var salary = 0.0
}

@inline(never)
func writeSalary(_ employee: Employee, _ salary: Double) { employee.salary = salary }

@inline(never)
func writeSalary(_ employee: PlainEmployee, _ salary: Double) { employee.salary = salary }
