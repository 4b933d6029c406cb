import Foundation
import ManagedObjects

/// The managed object model of the sample: departments and their employees.
public enum SampleModel {
    /// Makes the model: `Department` (name, budget, employees) and `Employee` (the fields of
    /// ``Employee``), classes ``ManagedDepartment`` and ``ManagedEmployee``.
    ///
    /// - Throws: ``ModelError`` (it does not, unless the description below is broken).
    public static func makeModel() throws -> ManagedObjectModel {
        try makeModel(version: 1)
    }

    /// Makes version 1 (see ``makeModel()``) or version 2 of the model: version 2 adds an
    /// optional `email` to `Employee` and a `Project` entity with a title, for the migration
    /// part of the demo.
    ///
    /// - Throws: ``ModelError`` (it does not, unless the description below is broken).
    public static func makeModel(version: Int) throws -> ManagedObjectModel {
        let extraEmployeeProperties = version >= 2 ? [Property("email", .string)] : []
        let extraEntities = version >= 2 ? [Entity("Project") { Property("title", .string) }] : []
        return try ManagedObjectModel(entities: [
            Entity("Department", class: ManagedDepartment.self) {
                Property("name", .string, optional: false, defaultValue: "", minimumLength: 1, maximumLength: 60)
                Property("budget", .decimal, defaultValue: Decimal(0))
                Property("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
            },
            Entity("Employee", class: ManagedEmployee.self, properties: [
                Property("firstName", .string, optional: false, defaultValue: ""),
                Property("lastName", .string, optional: false, defaultValue: ""),
                Property("employeeID", .integer64, defaultValue: Int64(0)),
                Property("salary", .double, defaultValue: 0.0, minimum: 0.0),
                Property("age", .integer16, minimum: Int16(16), maximum: Int16(120)),
                Property("hasDriversLicense", .boolean, defaultValue: false),
                Property("startDate", .date, defaultValue: Date(timeIntervalSinceReferenceDate: 0)),
                Property("department", to: "Department", inverse: "employees", deleteRule: .nullify),
                Property("manager", to: "Employee", inverse: "directReports", deleteRule: .nullify),
                Property("directReports", to: "Employee", inverse: "manager", toMany: true, ordered: true),
            ] + extraEmployeeProperties),
        ] + extraEntities)
    }
}
