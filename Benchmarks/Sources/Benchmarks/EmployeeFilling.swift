import ManagedObjects
import SampleModels

/// Makes 10 departments and `count` employees in `context` (names, ID, salary 40,000 to 40,996,
/// department), unsaved: what every benchmark that inserts through a context fills it with.
func fillEmployees(_ context: ManagedObjectContext, count: Int) {
    let departments = (0..<10).map { index -> ManagedDepartment in
        let department = ManagedDepartment(context: context)
        department.name = "Department \(index)"
        return department
    }
    for index in 0..<count {
        let employee = ManagedEmployee(context: context)
        employee.firstName = "First\(index)"
        employee.lastName = "Last\(index)"
        employee.employeeID = Int64(index)
        employee.salary = Double(40_000 + index % 997)
        employee.department = departments[index % 10]
    }
}
