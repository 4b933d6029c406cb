import Observation
import ModelObjects
import PlainModels
import SampleModels

/// The Observation framework's side of model objects: typed reads outside tracking scopes, and
/// sets of objects a tracking scope has read, beside the same work on an `@Observable` class.
/// (The typed get and set against a plain stored property are in the key-value coding group.)
enum ObservationBenchmarks: BenchmarkGroup {
    static let title = "Observation"

    static func makeBenchmarks() -> [Benchmark] {
        let tracked = Pool((0..<64).map { _ in TrackedEmployee() })
        let observable = Pool((0..<64).map { _ in ObservablePlainEmployee() })
        // Objects read once inside a tracking scope: their sets notify the registrar (the
        // tracking itself ends at the first set, as Observation's onChange does).
        let read = Pool((0..<64).map { _ in TrackedEmployee() })
        let observableRead = Pool((0..<64).map { _ in ObservablePlainEmployee() })
        for index in 0..<64 {
            withObservationTracking { _ = read.objects[index].salary } onChange: {}
            withObservationTracking { _ = observableRead.objects[index].salary } onChange: {}
        }
        return [
            Benchmark(
                name: "typed get outside a tracking scope",
                target: .ratio(1.2),
                baselineDescription: "an `@Observable` class's getter",
                measured: { iterations in
                    tracked.readEach(iterations, readSalary)
                },
                baseline: { iterations in
                    observable.readEach(iterations, readSalary)
                }),
            Benchmark(
                name: "typed set of an object a tracking scope read",
                target: .ratio(1.0),
                baselineDescription: "the same on an `@Observable` class",
                measured: { iterations in
                    for i in 0..<iterations { read.with(i) { writeSalary($0, Double(i)) } }
                },
                baseline: { iterations in
                    for i in 0..<iterations { observableRead.with(i) { writeSalary($0, Double(i)) } }
                }),
            Benchmark(
                name: "track a read with `withObservationTracking`, then set (onChange fires)",
                target: .ratio(1.0),
                baselineDescription: "the same on an `@Observable` class",
                measured: { iterations in
                    for i in 0..<iterations {
                        tracked.with(i) { employee in
                            withObservationTracking { _ = readSalary(employee) } onChange: {}
                            writeSalary(employee, Double(i))
                        }
                    }
                },
                baseline: { iterations in
                    for i in 0..<iterations {
                        observable.with(i) { employee in
                            withObservationTracking { _ = readSalary(employee) } onChange: {}
                            writeSalary(employee, Double(i))
                        }
                    }
                }),
        ]
    }
}

/// An employee with only the salary, as `ObservablePlainEmployee` has.
final class TrackedEmployee: ModelObject {
    @Attribute var salary = 0.0
}

@inline(never)
func readSalary(_ employee: TrackedEmployee) -> Double { employee.salary }

@inline(never)
func writeSalary(_ employee: TrackedEmployee, _ salary: Double) { employee.salary = salary }

@inline(never)
func readSalary(_ employee: ObservablePlainEmployee) -> Double { employee.salary }

@inline(never)
func writeSalary(_ employee: ObservablePlainEmployee, _ salary: Double) { employee.salary = salary }
