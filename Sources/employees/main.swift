import Foundation
import ModelObjects
import SampleModels

let engineering = Department(name: "Engineering", budget: 1_000_000)
let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 120_000)
try ada.setValue(engineering, forKey: "department")
print(try ada.value(forKeyPath: "department.name") ?? "nil")
let t1 = try ada.observe(\.salary, options: [.old, .new, .prior]) { e, c in print("salary", c.kind, c.oldValue as Any, c.newValue as Any, c.isPrior) }
ada.salary = 130_000
let t2 = ada.observe("fullName", options: [.old, .new]) { e, c in print("fullName", c) }
ada.firstName = "Augusta"
let t3 = ada.observe("department.name", options: [.old, .new]) { e, c in print("dept.name", c) }
engineering.name = "R&D"
let sales = Department(name: "Sales")
ada.department = sales
engineering.name = "Old"
sales.name = "Sales2"
let t4 = engineering.observe("employees", options: [.old, .new]) { e, c in print("employees", c) }
try engineering.mutableArrayValue(forKey: "employees").append(ada)
try engineering.mutableArrayValue(forKey: "employees").remove(at: 0)
_ = (t1, t2, t3, t4)
