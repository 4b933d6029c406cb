import Foundation
import ModelObjects
import SampleModels

let engineering = Department(name: "Engineering", budget: 1_000_000)
let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 120_000)
try ada.setValue(engineering, forKey: "department")
print(try ada.value(forKeyPath: "department.name") ?? "nil")
