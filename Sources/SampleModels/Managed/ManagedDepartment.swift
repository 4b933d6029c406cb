import Foundation
import ManagedObjects

/// The managed counterpart of ``Department``. Its entity is `"Department"` in
/// ``SampleModel/makeModel()``; deleting a department deletes its employees.
open class ManagedDepartment: ManagedObject {
    /// The name; required, 1 to 60 characters.
    @Managed public var name: String
    /// The budget.
    @Managed public var budget: Decimal
    /// The employees; the inverse is ``ManagedEmployee/department``.
    @Managed public var employees: Set<ManagedEmployee>

    /// The sum of the employees' salaries, through key-value coding's collection operator.
    public var totalSalary: Double {
        ((try? value(forKeyPath: "employees.@sum.salary")) as? Double) ?? 0
    }
}
