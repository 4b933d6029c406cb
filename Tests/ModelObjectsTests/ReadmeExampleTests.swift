import Testing
import ModelObjects

/// The README's example, kept compiling and checked here. Keep the two in step.
enum ReadmeExample {
    final class Department: ModelObject {
        @Attribute var name = ""
        @Relationship var employees: [Employee] = []
        @Derived("employees.@sum.salary", compute: { (department: Department) in
            department.employees.reduce(0) { $0 + $1.salary }
        })
        var totalSalary: Double
    }

    final class Employee: ModelObject {
        @Attribute var firstName = ""
        @Attribute var salary = 0.0
        @Relationship var department: Department?
    }

    static func run(print: @escaping (Any...) -> Void) throws -> Department {
        let engineering = Department()
        let ada = Employee()
        try ada.setValue("Ada", forKey: "firstName")
        try ada.setValue(120_000, forKey: "salary")            // Int → Double, lossless
        try ada.setValue(engineering, forKey: "department")
        try ada.setValue("Engineering", forKeyPath: "department.name")

        let token = try engineering.observe("totalSalary", options: [.old, .new]) { _, change in
            print("total:", change.oldValue ?? 0, "→", change.newValue ?? 0)
        }
        try engineering.mutableArrayValue(forKey: "employees").append(ada)   // total: 0.0 → 120000.0
        ada.salary = 130_000                                                  // total: 120000.0 → 130000.0
        print(try engineering.value(forKeyPath: "employees.@avg.salary") ?? 0)  // 130000.0
        token.invalidate()
        return engineering
    }
}

@Suite struct ReadmeExampleTests {
    @Test func readmeExamplePrintsWhatTheCommentsSay() throws {
        final class Lines { var all: [String] = [] }
        let lines = Lines()
        let department = try ReadmeExample.run { (items: Any...) in
            lines.all.append(items.map { "\($0)" }.joined(separator: " "))
        }
        #expect(lines.all == ["total: 0.0 → 120000.0", "total: 120000.0 → 130000.0", "130000.0"])
        #expect(department.name == "Engineering")
    }
}
