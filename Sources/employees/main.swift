// The Employee/Department demo: `swift run employees`.
//
// It walks through the library on the sample models: key-value coding, key-value observing,
// validation, archiving and copying.

import Foundation
import ModelObjects
import SampleModels

func section(_ title: String) {
    print("\n== \(title)")
}

func show(_ label: String, _ value: Any?) {
    print("  \(label): \(value.map { "\($0)" } ?? "nil")")
}

do {
    let engineering = Department(name: "Engineering", budget: Decimal(string: "1250000.50") ?? 0)
    let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 120_000)
    let grace = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 135_000)
    let alan = Employee(firstName: "Alan", lastName: "Turing", employeeID: 3, salary: 110_000)

    section("Key-value coding")
    try ada.setValue(engineering, forKey: "department")
    try ada.setValue(36, forKey: "age")
    try ada.setValue(125_000, forKey: "salary")            // Int converts losslessly to Double
    show("ada.value(forKey: \"fullName\")", try ada.value(forKey: "fullName"))
    show("ada.value(forKeyPath: \"department.name\")", try ada.value(forKeyPath: "department.name"))
    show("ada.dictionaryWithValues(forKeys:)",
         try ada.dictionaryWithValues(forKeys: ["firstName", "age", "salary"]).sorted { $0.key < $1.key })
    do {
        try ada.setValue("lots", forKey: "salary")
    } catch {
        show("setValue(\"lots\", forKey: \"salary\") throws", error)
    }
    do {
        _ = try ada.value(forKey: "shoeSize")
    } catch {
        show("value(forKey: \"shoeSize\") throws", error)
    }
    try ada.setValue(nil, forKey: "salary")                 // Employee maps nil salary to 0
    show("after setValue(nil, forKey: \"salary\")", ada.salary)
    ada.salary = 125_000

    section("Key-value observing")
    let salaryToken = try ada.observe(\.salary, options: [.old, .new]) { employee, change in
        print("  \(employee.firstName)'s salary: \(change.oldValue ?? 0) -> \(change.newValue ?? 0)")
    }
    let nameToken = ada.observe("fullName", options: [.old, .new]) { _, change in
        print("  fullName: \(change.oldValue ?? "nil") -> \(change.newValue ?? "nil")")
    }
    let departmentNameToken = ada.observe("department.name", options: [.old, .new]) { _, change in
        print("  department.name: \(change.oldValue ?? "nil") -> \(change.newValue ?? "nil")")
    }
    let employeesToken = engineering.observe("employees", options: [.new, .old]) { _, change in
        let names = ((change.newValue ?? change.oldValue) as? [Employee])?.map(\.fullName) ?? []
        print("  employees: \(change.kind) at \(Array(change.indexes ?? [])) \(names)")
    }
    let totalToken = engineering.observe("totalSalary", options: [.new]) { _, change in
        print("  totalSalary: \(change.newValue ?? "nil")")
    }
    ada.salary = 130_000
    ada.lastName = "King"
    engineering.name = "Research"
    grace.department = engineering                          // plain model objects keep no inverses
    alan.department = engineering
    let staff = try engineering.mutableArrayValue(forKey: "employees")
    try staff.append(contentsOf: [ada, grace])
    try staff.insert(alan, at: 1)
    grace.salary = 140_000
    try staff.remove(at: 0)
    ada.salary = 1                                          // no longer in the department's total
    salaryToken.invalidate()
    _ = (nameToken, departmentNameToken, employeesToken, totalToken)

    section("Validation")
    var proposedAge: Any? = -3
    do {
        try ada.validateValue(&proposedAge, forKey: "age")
    } catch {
        show("validateValue(-3, forKey: \"age\") throws", error)
    }
    let kid = Employee(firstName: "Tom", lastName: "Sawyer", employeeID: 9, salary: -5)
    kid.age = 12
    kid.hasDriversLicense = true
    do {
        try kid.validateForUpdate()
    } catch let error as ValidationError {
        print("  validateForUpdate() found \(error.failures.count) problems (code \(error.code.rawValue)):")
        for failure in error.failures { print("   - [\(failure.code.rawValue)] \(failure.message)") }
    }

    section("Archiving")
    let data = try KeyedArchiver.archivedData(withRootObject: engineering)
    show("keyed archive of the department (bytes)", data.count)
    if let restored = try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data) {
        show("restored department", restored.name)
        show("restored employees", restored.employees.map(\.fullName))
        show("their department is the restored one", restored.employees.allSatisfy { $0.department === restored })
    }
    let classic = try SequentialArchiver.archivedData(withRootObject: grace)
    let graceAgain = try SequentialUnarchiver.unarchivedObject(ofClass: Employee.self, from: classic)
    show("classic archive round trip", graceAgain?.fullNameAndID)

    section("Copying")
    let shallow = engineering.copy()
    show("copy shares employees", shallow.employees.first === engineering.employees.first)
    let deep = engineering.deepCopy()
    show("deep copy copies employees", deep.employees.first !== engineering.employees.first)
    show("copied employees point at the copy", deep.employees.allSatisfy { $0.department === deep })
} catch {
    print("error: \(error)")
    exit(1)
}
