import Foundation
import ModelObjects

/// A sample model class: an employee of a ``Department``, with a manager and direct reports.
///
/// Used by the `employees` demo and by the tests; it follows the Model Object Implementation
/// Guide's Employee.
open class Employee: ModelObject {
    /// The employee's given name.
    @Attribute public var firstName = ""
    /// The employee's family name.
    @Attribute public var lastName = ""
    /// A number unique within the company.
    @Attribute public var employeeID = 0
    /// The yearly salary; nil through key-value coding sets 0.
    @Attribute public var salary = 0.0
    /// The age in years, when known.
    @Attribute public var age: Int? = nil
    /// Whether the employee holds a driver's license.
    @Attribute public var hasDriversLicense = false
    /// The first day of employment.
    @Attribute public var startDate = Date(timeIntervalSinceReferenceDate: 0)
    /// The department the employee works in.
    @Relationship public var department: Department?
    /// The employee's manager.
    @Relationship public var manager: Employee?
    /// The employees this one manages, in order.
    @Relationship public var directReports: [Employee] = []

    /// First and last name, separated by a space.
    @Derived("firstName", "lastName", compute: { (employee: Employee) in
        "\(employee.firstName) \(employee.lastName)"
    })
    public var fullName: String

    /// The full name followed by the employee ID in parentheses.
    @Derived("lastName", "firstName", "employeeID", compute: { (employee: Employee) in
        "\(employee.firstName) \(employee.lastName) (\(employee.employeeID))"
    })
    public var fullNameAndID: String

    /// The name of the employee's department, or nil.
    @Derived("department.name", compute: { (employee: Employee) in employee.department?.name })
    public var departmentName: String?

    /// Creates an employee with the given names, ID and salary.
    public convenience init(firstName: String, lastName: String, employeeID: Int, salary: Double) {
        self.init()
        self.firstName = firstName
        self.lastName = lastName
        self.employeeID = employeeID
        self.salary = salary
    }

    /// Validates `age` (greater than zero; nil passes) and `salary` (not negative).
    open override class func validator(forKey key: String) -> KeyValueValidator? {
        switch key {
        case "age":
            return KeyValueValidator { (_: Employee, age: inout Int?) in
                if let value = age, value <= 0 {
                    throw ValidationError(key: "age", value: value, message: "Age must be greater than zero")
                }
            }
        case "salary":
            return KeyValueValidator { (_: Employee, salary: inout Double) in
                if salary < 0 {
                    throw ValidationError(key: "salary", value: salary, message: "Salary must not be negative")
                }
            }
        default:
            return super.validator(forKey: key)
        }
    }

    /// Adds the inter-property rule of the Model Object Implementation Guide: nobody under 16
    /// holds a driver's license.
    open override func validateForUpdate() throws {
        var errors: [any Error] = []
        do { try super.validateForUpdate() } catch { errors.append(error) }
        if let age, age < 16, hasDriversLicense {
            errors.append(ValidationError(
                .managedObjectValidation, object: self,
                message: "\(fullName) is \(age) and cannot hold a driver's license"))
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Maps nil for `salary` to 0, as the seed's `setNilValueForKey:` does for `bounds`.
    open override func setNilValueForKey(_ key: String) throws {
        if key == "salary" {
            salary = 0
        } else {
            try super.setNilValueForKey(key)
        }
    }
}
