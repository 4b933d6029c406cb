import Foundation
import ModelObjects

/// A sample model class: a department with a budget and an ordered list of employees.
open class Department: ModelObject {
    /// The department's name.
    @Attribute public var name = ""
    /// The yearly budget, kept exactly.
    @Attribute public var budget: Decimal = 0
    /// The employees of the department, in order.
    @Relationship public var employees: [Employee] = []

    /// The sum of the employees' salaries. Observers hear when an employee is added or removed
    /// and when any current employee's salary changes.
    @Derived("employees.@sum.salary", compute: { (department: Department) in
        department.employees.reduce(0) { $0 + $1.salary }
    })
    public var totalSalary: Double

    /// A department owns its employees: a deep copy copies them too.
    open override class func ownsRelatedObjects(forKey key: String) -> Bool {
        key == "employees" || super.ownsRelatedObjects(forKey: key)
    }

    /// Creates a department with the given name and budget.
    public convenience init(name: String, budget: Decimal = 0) {
        self.init()
        self.name = name
        self.budget = budget
    }
}
