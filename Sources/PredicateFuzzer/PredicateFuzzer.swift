// A fuzz target for predicates: every input must parse or throw; what parses must print, parse
// back from its printed form to an equal predicate, and evaluate (or throw) against a model
// object graph, dictionaries, arrays and plain values, with and without substitution variables,
// never crashing or hanging. `.ci/fuzz predicate` builds it with libFuzzer
// (`-sanitize=fuzzer,address`) and runs it with PredicateFormat.dict, so mutations use the
// format's keywords; built normally, it replays the files given on the command line, or writes
// the seed predicates.

import Foundation
import ModelObjects
import SampleModels

/// Parses, prints, reparses and evaluates one input; errors are expected, crashes are bugs, and
/// so is a printed form that does not parse back to an equal predicate.
func exercise(_ data: Data) {
    let format = String(decoding: data, as: UTF8.self)
    let graph = SampleGraph()
    defer { graph.breakCycles() }
    let arguments = formatArguments(for: format, graph: graph)
    guard let predicate = try? KeyValuePredicate(format: format, argumentArray: arguments) else { return }
    _ = predicate.description
    _ = String(reflecting: predicate)
    // Arguments may be objects whose description does not parse (as in Cocoa), and one-element
    // compounds print as their element: the round trip holds for the others.
    if arguments.isEmpty {
        checkRoundTrip(predicate)
    }
    for target in graph.targets {
        _ = try? predicate.evaluate(with: target, substitutionVariables: graph.variables)
    }
    _ = try? predicate.evaluate(with: graph.employee)
    _ = try? predicate.filter(graph.department.employees, substitutionVariables: graph.variables)
    let substituted = predicate.withSubstitutionVariables(graph.variables)
    _ = substituted.predicateFormat
    _ = try? substituted.evaluate(with: graph.employee)
}

/// Traps unless the printed form of `predicate` parses back to an equal predicate that prints
/// the same.
func checkRoundTrip(_ predicate: KeyValuePredicate) {
    let printed = predicate.predicateFormat
    let reparsed: KeyValuePredicate
    do {
        reparsed = try KeyValuePredicate(format: printed)
    } catch {
        preconditionFailure("the printed form \(printed.debugDescription) does not parse: \(error)")
    }
    precondition(reparsed.predicateFormat == printed, "\(printed.debugDescription) prints back as \(reparsed.predicateFormat.debugDescription)")
    precondition(containsSingleElementCompound(predicate) || reparsed == predicate, "\(printed.debugDescription) parses back to a different predicate")
}

/// Whether the tree has an `AND` or `OR` of fewer than two predicates, which prints as its
/// equivalent.
func containsSingleElementCompound(_ predicate: KeyValuePredicate) -> Bool {
    switch predicate {
    case .and(let predicates), .or(let predicates):
        predicates.count < 2 || predicates.contains(where: containsSingleElementCompound)
    case .not(let inner):
        containsSingleElementCompound(inner)
    case .comparison(let comparison):
        containsSingleElementCompound(comparison.leftExpression) || containsSingleElementCompound(comparison.rightExpression)
    case .truePredicate, .falsePredicate:
        false
    }
}

func containsSingleElementCompound(_ expression: KeyValueExpression) -> Bool {
    switch expression {
    case .subquery(let collection, _, let predicate):
        containsSingleElementCompound(collection) || containsSingleElementCompound(predicate)
    case .keyPathOn(let base, _):
        containsSingleElementCompound(base)
    case .aggregate(let elements):
        elements.contains(where: containsSingleElementCompound)
    case .constant, .evaluatedObject, .keyPath, .variable:
        false
    }
}

/// One argument per `%` specifier of the format, of the type the specifier asks for, so that
/// formats with specifiers parse: a key for `%K`, an integer for `%d`, a double for `%f`, and for
/// `%@` values of every kind in turn.
func formatArguments(for format: String, graph: SampleGraph) -> [Any?] {
    let objects: [Any?] = [
        "Ada", 42, 2.5, nil, graph.employee, [1, 2, 3], Date(timeIntervalSinceReferenceDate: 0),
        Decimal(string: "1.5") as Any, true, ["a": 1] as [String: Int], Set(["x"]), graph.department.employees,
    ]
    var arguments: [Any?] = []
    var scalars = format.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
        guard scalar == "%" else { continue }
        var letters = ""
        while let next = scalars.next() {
            letters.unicodeScalars.append(next)
            if next != "l" && next != "h" && next != "q" && next != "z" && next != "t" { break }
        }
        switch letters.last {
        case "@": arguments.append(objects[arguments.count % objects.count])
        case "K": arguments.append(["salary", "department.name", "employees", "@count"][arguments.count % 4])
        case "d", "i", "u", "D", "U", "x", "X", "o", "c": arguments.append(arguments.count - 2)
        case "f", "e", "g", "E", "G", "a", "A": arguments.append(Double(arguments.count) + 0.5)
        case .some: arguments.append("x")
        case nil: break
        }
    }
    return arguments
}

/// The objects a predicate is evaluated with: a department of three employees with managers
/// and reports, dictionaries, arrays, plain values, and variables for `$NAME` and the like.
struct SampleGraph {
    let department = Department(name: "Engineering", budget: Decimal(string: "1000000.5") ?? 0)
    let employee: Employee
    let targets: [Any?]
    let variables: [String: Any?]

    init() {
        let names = [("Ada", "Lovelace", 36), ("Grace", "Hopper", 45), ("Émile", "Zola", 15)]
        for (index, (first, last, age)) in names.enumerated() {
            let employee = Employee(firstName: first, lastName: last, employeeID: index + 1, salary: 100_000 + 10_000 * Double(index))
            employee.age = age
            employee.hasDriversLicense = index != 2
            employee.startDate = Date(timeIntervalSinceReferenceDate: 86_400 * Double(index))
            employee.department = department
            department.employees.append(employee)
        }
        employee = department.employees[0]
        employee.directReports = Array(department.employees.dropFirst())
        for report in employee.directReports { report.manager = employee }
        let dictionary: [String: Any] = [
            "name": "Ada", "age": 36, "salary": 2.5, "tags": ["a", "b"], "flag": true, "none": NSNull(),
            "date": Date(timeIntervalSinceReferenceDate: 0), "budget": Decimal(string: "0.1") as Any,
            "nested": ["a": ["b": [1, 2, 3]]], "employees": department.employees, "department": department,
            "numbers": [1, 2.5, -3, Int.max, Double.greatestFiniteMagnitude] as [Any], "set": Set([1, 2, 3]),
        ]
        targets = [
            department, dictionary, [dictionary, ["name": "Grace"]] as [Any],
            [1, 2.5, "a", "B", NSNull(), true, [1, 2], ["k": "v"], Date(timeIntervalSinceReferenceDate: 1)] as [Any],
            "abcdef", 42, -0.5, nil, Set(["a", "b"]), Decimal(string: "12.5") as Any, Date(timeIntervalSinceReferenceDate: 5),
        ]
        variables = [
            "NAME": "Lovelace", "MIN": 10, "MAX": 1e300, "LOW": 1, "HIGH": 50, "DEPT": "Engineering", "P": "A.*",
            "PREFIX": "a", "VAR": nil, "M": employee, "e": department.employees, "LIST": [1, "a", nil] as [Any?],
        ]
    }

    /// Clears the relationships, which are strong both ways (as in Cocoa), so that the graph is
    /// freed and the sanitizer's leak check reports only real leaks.
    func breakCycles() {
        for employee in department.employees {
            employee.department = nil
            employee.manager = nil
            employee.directReports = []
        }
        department.employees = []
    }
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    exercise(Data(bytes: bytes, count: count))
    return 0
}

#if !FUZZING
/// Valid predicates from the predicate tests, to seed the fuzzer's corpus with every construct
/// the grammar has.
let seedPredicates = [
    "a == 1", "a = 1", "a != 1", "a <> 1", "a < 2.5", "a <= 1e-05", "a =< 1 && b => 2", "a > 5e+20", "a >= 0",
    "a BEGINSWITH 'x'", "a endswith 'y'", "a Contains 'z'", "name LIKE[c] 'a*?'", "name MATCHES '[A-Z].*'",
    "a IN {1, 2.5, 'x', TRUE}", "a IN {1, {2, 3}}", "a IN {}", "age BETWEEN {20, 30}", "age BETWEEN {$LOW, $HIGH}",
    "name ==[cd] 'émile'", "name BEGINSWITH[n] 'A'", "name CONTAINS[cdn] 'ZO'", "'vela' IN lastName", "SELF IN[c] 'abcdef'",
    "a == 1 AND b == 2 AND c == 3", "a == 1 && b == 2 || c == 3", "(a == 1 OR b == 2) AND c == 3",
    "NOT a == 1 AND b == 2", "!(a == 1 || b == 2)", "not not a == 1", "((a == 1))", "TRUEPREDICATE",
    "falsepredicate", "NOT TRUEPREDICATE OR FALSEPREDICATE", "ANY employees.lastName == 'Smith'",
    "some directReports.lastName == 'Zola'", "ALL employees.salary > 10", "NONE employees.lastName BEGINSWITH 'H'",
    "NOT ANY employees.salary > 5", "employees.@count > 1", "employees.@avg.salary < 1000", "employees.@sum.salary == 215000",
    "employees.@max.salary == 120000", "employees.@min.age < 20", "@count == 3", "SELF == 2", "SELF.name == 'x'",
    "SELF == SELF", "department.name == 'Engineering'", "#in == 1", "#SELF.size == 1", "box.first == 1",
    "a == 'single' OR b == \"double\"", #"a == "q\"uote\\d\n\t\u00e9""#, #"a == 'it\'s'"#, "a == -42",
    "a == 0x1F OR b == 0o17 OR c == 0b101", "a == 123456789012345678901234567890", "a == -9223372036854775808",
    "a == 9223372036854775807", "a == 18446744073709551615", "a == yes AND b == NO AND c == nil AND d == NULL",
    "a == CAST(0, \"NSDate\")", "a == CAST('1.10', 'NSDecimalNumber')", "a == CAST(-12.25, 'NSDecimalNumber')",
    "a BETWEEN {CAST(0, 'NSDate'), CAST(100, 'NSDate')}", "a == CAST('nan', 'NSNumber')", "SELF < 1e300",
    "lastName == $NAME AND salary > $MIN", "department.name == $DEPT AND salary > $MIN", "manager == $M",
    "SELF MATCHES $P", "ANY employees.lastName BEGINSWITH[cd] $PREFIX", "a == $VAR", "$VAR == 1",
    "SUBQUERY(employees, $e, $e.salary > 10 AND $e.lastName == $NAME).@count > 0",
    "SUBQUERY(employees, $e, $e == SELF).@count > 0", "SUBQUERY(employees, $e, TRUEPREDICATE) == {}",
    "SUBQUERY(directReports, $x, SUBQUERY($x.department.employees, $y, $y.salary > $x.salary).@count == 1).@count == 1",
    "$e.department.name == 'x'", "SELF IN directReports", "department.employees CONTAINS SELF",
    "department.budget == CAST('1000000.5', 'NSDecimalNumber')", "department.budget < 1000000.6",
    "nested.a.b.@count == 3", "tags CONTAINS 'b' AND tags.@count == 2", "numbers.@sum > 0", "ANY numbers < 0",
    "name == 'Ünïcødé 🎉'", "a == '\\u0001 control'", "age == nil", "startDate > CAST(86400.5, 'NSDate')",
    "%K == %@", "salary > %d AND lastName BEGINSWITH[c] %@", "a == %f", "SELF IN %@", "%K.name == %@",
    "name == %@ AND age > %d", "ANY directReports == %@", "department == %@",
]

@main
struct PredicateFuzzer {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--write-seeds", let directory = arguments.dropFirst().first {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (index, predicate) in seedPredicates.enumerated() {
                try Data(predicate.utf8).write(to: url.appendingPathComponent("seed-\(index)"))
            }
            return
        }
        for path in arguments {
            exercise(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }
}
#endif
