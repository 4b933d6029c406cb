import Foundation
import ModelObjects
import SampleModels

/// Evaluating and filtering with a parsed `KeyValuePredicate`, and sorting with
/// `KeyPathSortDescriptor`s, against the same work written as Swift closures over typed
/// properties.
enum PredicateBenchmarks: BenchmarkGroup {
    static let title = "Predicates and sort descriptors"

    /// The number of employees evaluated, filtered and sorted.
    static let employeeCount = 10_000
    static let format = #"salary > 50000 AND lastName BEGINSWITH[c] "s""#

    static func makeBenchmarks() -> [Benchmark] {
        let lastNames = ["Smith", "stone", "Brown", "Sanchez", "Jones", "Taylor", "Schmidt", "Élan", "Wu", "Shaw"]
        let employees = (0..<employeeCount).map { index in
            Employee(
                firstName: "F\(index)", lastName: lastNames[index % lastNames.count] + "\(index % 7)",
                employeeID: index, salary: Double(30_000 + (index * 7_919) % 60_000))
        }
        let predicate = try! KeyValuePredicate(format: format)
        let closure: (Employee) -> Bool = { $0.salary > 50_000 && $0.lastName.lowercased().hasPrefix("s") }
        let descriptors = [KeyPathSortDescriptor(key: "lastName"), KeyPathSortDescriptor(key: "salary", ascending: false)]

        checkBothSidesAgree(employees, predicate, closure, descriptors)

        return [
            Benchmark(
                name: "predicate evaluate `\(format)`, 10,000 employees",
                target: .ratio(10),
                baselineDescription: "the closure `{ $0.salary > 50_000 && $0.lastName.lowercased().hasPrefix(\"s\") }` called on each employee",
                measured: { iterations in
                    var count = 0
                    for _ in 0..<iterations {
                        for employee in employees where (try? predicate.evaluate(with: employee)) == true { count &+= 1 }
                    }
                    blackHole(count)
                },
                baseline: { iterations in
                    var count = 0
                    let test = identity(closure)
                    for _ in 0..<iterations {
                        for employee in employees where test(employee) { count &+= 1 }
                    }
                    blackHole(count)
                }),
            Benchmark(
                name: "predicate `filtered(using:)`, 10,000 employees",
                target: .ratio(10),
                baselineDescription: "`employees.filter(closure)` with the same closure",
                measured: { iterations in
                    for _ in 0..<iterations { blackHole(try! identity(employees).filtered(using: predicate)) }
                },
                baseline: { iterations in
                    for _ in 0..<iterations { blackHole(identity(employees).filter(identity(closure))) }
                }),
            Benchmark(
                name: "predicate parse the format string",
                target: .nanoseconds(50_000),
                baselineDescription: "splitting the same string at its spaces with `split(separator:)`, for scale",
                isSupplementary: true,
                measured: { iterations in
                    for _ in 0..<iterations { blackHole(try! KeyValuePredicate(format: identity(format))) }
                },
                baseline: { iterations in
                    for _ in 0..<iterations { blackHole(identity(format).split(separator: " ")) }
                }),
            Benchmark(
                name: "sort descriptors `lastName`, `salary` descending, 10,000 employees",
                target: .ratio(10),
                baselineDescription: "`sorted { }` with a closure comparing `lastName` then `salary` (not stable)",
                measured: { iterations in
                    for _ in 0..<iterations { blackHole(try! identity(employees).sorted(using: descriptors)) }
                },
                baseline: { iterations in
                    for _ in 0..<iterations {
                        blackHole(identity(employees).sorted {
                            $0.lastName != $1.lastName ? $0.lastName < $1.lastName : $0.salary > $1.salary
                        })
                    }
                }),
        ]
    }

    /// Stops the run when the two sides of a benchmark do not compute the same thing.
    private static func checkBothSidesAgree(
        _ employees: [Employee], _ predicate: KeyValuePredicate, _ closure: (Employee) -> Bool,
        _ descriptors: [KeyPathSortDescriptor]
    ) {
        let filtered = try! employees.filtered(using: predicate)
        precondition(filtered == employees.filter(closure) && !filtered.isEmpty && filtered.count < employees.count)
        let sorted = try! employees.sorted(using: descriptors)
        let expected = employees.sorted {
            $0.lastName != $1.lastName ? $0.lastName < $1.lastName : $0.salary > $1.salary
        }
        precondition(zip(sorted, expected).allSatisfy { $0.lastName == $1.lastName && $0.salary == $1.salary })
    }
}
