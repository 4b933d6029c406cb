import Foundation
import ManagedObjects

/// The managed counterpart of ``Department``. Its entity is `"Department"` in
/// ``SampleModel/makeModel()`` and in `ManagedObjectModel(classes:)`; deleting a department deletes its employees.
open class ManagedDepartment: ManagedObject {
    /// The entity is `"Department"`.
    open override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Department") }

    /// The name; required, 1 to 60 characters.
    @Managed(.required, minimumLength: 1, maximumLength: 60, defaultValue: "") public var name: String
    /// The budget.
    @Managed(defaultValue: 0) public var budget: Decimal
    /// The employees; the inverse is ``ManagedEmployee/department``.
    @Managed(inverse: \ManagedEmployee.department, deleteRule: .cascade) public var employees: Set<ManagedEmployee>

    /// The sum of the employees' salaries, through key-value coding's collection operator.
    public var totalSalary: Double {
        ((try? value(forKeyPath: "employees.@sum.salary")) as? Double) ?? 0
    }
}
