import Foundation
import ManagedObjects

/// The managed counterpart of ``Employee``: the same fields, kept by a context and saved to a
/// store. Its entity is `"Employee"` in ``SampleModel/makeModel()`` and in
/// `ManagedObjectModel(classes:)`.
open class ManagedEmployee: ManagedObject {
    /// The entity is `"Employee"`.
    open override class var entityDeclaration: EntityDeclaration { EntityDeclaration(name: "Employee") }

    /// The first name.
    @Managed(.required, defaultValue: "") public var firstName: String
    /// The last name.
    @Managed(.required, defaultValue: "") public var lastName: String
    /// The employee's number.
    @Managed(defaultValue: 0) public var employeeID: Int64
    /// The yearly salary; at least 0.
    @Managed(minimum: 0, defaultValue: 0) public var salary: Double
    /// The age in years, if known; 16 to 120.
    @Managed(minimum: 16, maximum: 120) public var age: Int16?
    /// Whether the employee holds a driver's license.
    @Managed(defaultValue: false) public var hasDriversLicense: Bool
    /// The first day at work.
    @Managed(defaultValue: Date(timeIntervalSinceReferenceDate: 0)) public var startDate: Date
    /// The department; its inverse is ``ManagedDepartment/employees``.
    @Managed public var department: ManagedDepartment?
    /// The manager; the inverse is ``directReports``.
    @Managed(inverse: \ManagedEmployee.directReports) public var manager: ManagedEmployee?
    /// The people this employee manages, in order.
    @Managed public var directReports: [ManagedEmployee]

    /// "First Last".
    public var fullName: String { "\(firstName) \(lastName)" }

    /// A new employee starts today.
    open override func awakeFromInsert() {
        super.awakeFromInsert()
        try? setPrimitiveValue(Date(), forKey: "startDate")
    }

    /// The model's checks, plus: no driver's license under 16.
    open override func validateForUpdate() throws {
        var errors: [any Error] = []
        do { try super.validateForUpdate() } catch { errors.append(error) }
        if let age, age < 16, hasDriversLicense {
            errors.append(ValidationError(
                .managedObjectValidation, object: self, message: "\(fullName) is \(age) and cannot hold a driver's license"))
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// The same checks as an update.
    open override func validateForInsert() throws {
        try validateForUpdate()
    }
}
