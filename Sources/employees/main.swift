// The Employee/Department demo: `swift run employees`.
//
// It walks through the library on the sample models: key-value coding, key-value observing,
// validation, archiving and copying; managed objects in a context (inserts, inverse
// relationships, an invalid change and its errors, a save, an undo, a child context as a scratch
// pad); and a SQLite store: save, reopen, a predicate fetch, faults firing, a lightweight migration.
//
//     swift run employees [--store PATH]     (PATH: a SQLite file; a temporary one by default)
//     swift run employees --postgres URL     (also the persistence part on a PostgreSQL database:
//                                             postgresql://user:password@host:port/database)

import Foundation
import ManagedObjects
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
    let nameToken = try ada.observe("fullName", options: [.old, .new]) { _, change in
        print("  fullName: \(change.oldValue ?? "nil") -> \(change.newValue ?? "nil")")
    }
    let departmentNameToken = try ada.observe("department.name", options: [.old, .new]) { _, change in
        print("  department.name: \(change.oldValue ?? "nil") -> \(change.newValue ?? "nil")")
    }
    let employeesToken = try engineering.observe("employees", options: [.new, .old]) { _, change in
        let names = ((change.newValue ?? change.oldValue) as? [Employee])?.map(\.fullName) ?? []
        print("  employees: \(change.kind) at \(Array(change.indexes ?? [])) \(names)")
    }
    let totalToken = try engineering.observe("totalSalary", options: [.new]) { _, change in
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

    section("Managed objects")
    let model = try SampleModel.makeModel()
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .inMemory)
    let context = ManagedObjectContext(coordinator: coordinator)
    context.undoManager = ModelUndoManager()
    let research = ManagedDepartment(context: context)
    research.name = "Research"
    let managedAda = ManagedEmployee(context: context)
    managedAda.firstName = "Ada"
    managedAda.lastName = "Lovelace"
    managedAda.salary = 120_000
    let managedGrace = try context.insertNewObject(forEntityName: "Employee")   // by entity name
    try managedGrace.setValuesForKeys(["firstName": "Grace", "lastName": "Hopper", "salary": 135_000])
    managedAda.department = research                        // the inverse follows at once
    try research.mutableSetValue(forKey: "employees").insert(managedGrace)
    show("research.employees", research.employees.map(\.fullName).sorted())
    show("grace's department (inverse)", (try managedGrace.value(forKeyPath: "department.name")) ?? "nil")
    show("research.totalSalary", research.totalSalary)
    show("inserted objects", context.insertedObjects.count)
    try context.save()
    show("after save: ada's ID is temporary", managedAda.objectID.isTemporaryID)
    show("ada's ID", managedAda.objectID)

    managedAda.salary = -1                                  // below the model's minimum
    managedAda.age = 12
    managedAda.hasDriversLicense = true
    do {
        try context.save()
    } catch let error as ValidationError {
        print("  save() refused, \(error.failures.count) problems (code \(error.code.rawValue)):")
        for failure in error.failures { print("   - [\(failure.code.rawValue)] \(failure.message)") }
    }
    context.rollback()
    show("after rollback: ada's salary", managedAda.salary)

    context.undoManager?.removeAllActions()
    managedAda.department = nil
    context.undoManager?.setActionName("Remove from Department")
    context.processPendingChanges()                         // closes the undo group
    show("research.employees after the change", research.employees.map(\.fullName).sorted())
    show("undo menu title", context.undoManager?.undoMenuItemTitle ?? "")
    try context.undoManager?.undo()
    show("research.employees after undo", research.employees.map(\.fullName).sorted())
    show("ada's department after undo", managedAda.department?.name ?? "nil")
    try context.save()

    section("Live fetched results")
    let byLastName = try FetchedResultsController(
        fetchRequest: FetchRequest<ManagedEmployee>(entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "lastName")]),
        managedObjectContext: context, sectionNameKeyPath: "lastName")
    let tableLog = ChangePrinter()
    byLastName.delegate = tableLog
    try byLastName.performFetch()
    show("sections", byLastName.sections?.map(\.name) ?? [])
    let managedAlan = ManagedEmployee(context: context)
    managedAlan.firstName = "Alan"
    managedAlan.lastName = "Turing"
    managedAlan.salary = 110_000
    managedAda.lastName = "Byron"                           // moves her to a new section
    context.processPendingChanges()                         // the controller reports the diff
    show("sections after the change", byLastName.sections?.map(\.name) ?? [])
    byLastName.delegate = nil                               // quiet from here on
    context.rollback()

    section("Child contexts")
    // A child context is a scratch pad: edits there reach the parent only when it saves.
    let editor = ManagedObjectContext(parent: context)
    if let draft = try editor.existingObject(with: managedAda.objectID) as? ManagedEmployee {
        draft.salary = 200_000
        editor.rollback()                                   // cancelled: the parent never sees it
        show("ada's salary after a cancelled edit", managedAda.salary)
        draft.salary = 150_000
        try editor.save()                                   // into the parent, not the store
        show("ada's salary after the editor saved", managedAda.salary)
        show("the parent has unsaved changes", context.hasChanges)
    }
    try context.save()                                      // now the store has it

    context.delete(research)                                // cascades to the employees
    context.processPendingChanges()
    show("deleted objects (cascade)", context.deletedObjects.count)
    try context.save()
    show("registered objects after saving the delete", context.registeredObjects.count)

    section("Persistence (SQLite)")
    let arguments = CommandLine.arguments
    let storeURL: URL
    if let index = arguments.firstIndex(of: "--store"), index + 1 < arguments.count {
        storeURL = URL(fileURLWithPath: arguments[index + 1])
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("employees-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storeURL = directory.appendingPathComponent("Employees.sqlite")
    }
    show("store file", storeURL.path)
    do {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel(version: 1))
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: .lightweightMigration)
        let writer = ManagedObjectContext(coordinator: coordinator)
        let existing = try writer.count(for: FetchRequest<ManagedEmployee>(entityName: "Employee"))
        if existing == 0 {
            for (index, name) in ["Research", "Sales", "Operations"].enumerated() {
                let department = ManagedDepartment(context: writer)
                department.name = name
                department.budget = Decimal(100_000 * (index + 1))
                for member in 0..<10 {
                    let employee = ManagedEmployee(context: writer)
                    employee.firstName = ["Ada", "Grace", "Alan", "Edsger", "Barbara"][member % 5]
                    employee.lastName = "\(name)-\(member)"
                    employee.employeeID = Int64(index * 100 + member)
                    employee.salary = Double(90_000 + 5_000 * member)
                    employee.department = department
                }
            }
            try writer.save()
            show("saved", "3 departments, 30 employees")
        } else {
            show("found in the file", "\(existing) employees (run again without --store for a fresh file)")
        }
    }
    // Reopen the file with a new coordinator and context.
    let reopened = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel(version: 1))
    try reopened.addPersistentStore(type: .sqlite, at: storeURL)
    let reader = ManagedObjectContext(coordinator: reopened)
    var wellPaid = FetchRequest<ManagedEmployee>(
        entityName: "Employee",
        predicate: try KeyValuePredicate(format: "salary >= %d AND department.name BEGINSWITH[c] %@", 125_000, "r"),
        sortDescriptors: [KeyPathSortDescriptor(key: "salary", ascending: false)])
    wellPaid.fetchBatchSize = 2
    let found = try reader.fetch(wellPaid)
    show("fetched with \"salary >= 125000 AND department.name BEGINSWITH[c] 'r'\"", found.count)
    show("faults before reading", found.map(\.isFault))
    show("first one", "\(found.first?.fullName ?? "-"), \(found.first?.salary ?? 0)")
    show("faults after reading one (its batch of 2 loaded together)", found.map(\.isFault))
    show("their department (a to-one fault, fired on read)", found.first?.department?.name ?? "-")

    // Version 2 of the model adds Employee.email and a Project entity: migrate on open.
    let model2 = try SampleModel.makeModel(version: 2)
    do {
        let strict = PersistentStoreCoordinator(managedObjectModel: model2)
        _ = try strict.addPersistentStore(type: .sqlite, at: storeURL)
    } catch {
        show("opening with version 2, no migration", error)
    }
    let migrated = PersistentStoreCoordinator(managedObjectModel: model2)
    try migrated.addPersistentStore(type: .sqlite, at: storeURL, options: .lightweightMigration)
    let migratedContext = ManagedObjectContext(coordinator: migrated)
    let everyone = try migratedContext.fetch(FetchRequest<ManagedEmployee>(
        entityName: "Employee", sortDescriptors: [KeyPathSortDescriptor(key: "employeeID")]))
    show("after migration: employees kept", everyone.count)
    if let first = everyone.first {
        show("the new email attribute of \(first.fullName)", (try first.value(forKey: "email")) ?? "nil")
        try first.setValue("ada@example.com", forKey: "email")
    }
    let project = try migratedContext.insertNewObject(forEntityName: "Project")
    try project.setValue("Analytical Engine", forKey: "title")
    try migratedContext.save()
    show("saved an email and a Project in the migrated store", try migratedContext.count(for: FetchRequest<ManagedObject>("Project")))
    if let index = arguments.firstIndex(of: "--postgres"), index + 1 < arguments.count {
        try postgreSQLDemo(url: arguments[index + 1])
    }
} catch {
    print("error: \(error)")
    exit(1)
}

/// Prints each change set a fetched-results controller reports, as a table view would apply it.
final class ChangePrinter: FetchedResultsControllerDelegate {
    func controller(_ controller: FetchedResultsController<ManagedEmployee>, didChangeContentWith changes: FetchedResultsChangeSet) {
        for line in changes.description.split(separator: "\n") { print("  \(line)") }
    }
}

/// The persistence part on a PostgreSQL database: one coordinator saves, a second one (as
/// another process would) reads the records and merges the first one's next save, announced
/// through `LISTEN`/`NOTIFY`.
func postgreSQLDemo(url string: String) throws {
    section("Persistence (PostgreSQL)")
    guard let url = URL(string: string), ["postgresql", "postgres"].contains(url.scheme ?? "") else {
        print("error: --postgres needs a postgresql:// URL")
        exit(1)
    }
    show("server", "\(url.host ?? "localhost"):\(url.port ?? 5432)\(url.path)")   // never the password
    let model = try SampleModel.makeModel(version: 1)
    let writing = PersistentStoreCoordinator(managedObjectModel: model)
    try writing.addPersistentStore(type: .postgreSQL, at: url)
    let reading = PersistentStoreCoordinator(managedObjectModel: model)
    guard let readingStore = try reading.addPersistentStore(type: .postgreSQL, at: url) as? PostgreSQLStore else { return }
    let listener = try readingStore.makeChangeListener()

    let writer = ManagedObjectContext(coordinator: writing)
    let department = ManagedDepartment(context: writer)
    let name = "Research \(UUID().uuidString.prefix(8))"
    department.name = name
    department.budget = 250_000
    for member in 0..<5 {
        let employee = ManagedEmployee(context: writer)
        employee.firstName = ["Ada", "Grace", "Alan", "Edsger", "Barbara"][member]
        employee.lastName = "Postgres-\(member)"
        employee.employeeID = Int64(10_000 + member)
        employee.salary = Double(100_000 + 10_000 * member)
        employee.department = department
    }
    try writer.save()
    show("saved by the first coordinator", "1 department, 5 employees")

    let reader = ManagedObjectContext(coordinator: reading)
    let staff = try reader.fetch(FetchRequest<ManagedEmployee>(
        entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == %@", name),
        sortDescriptors: [KeyPathSortDescriptor(key: "salary", ascending: false)]))
    show("read by the second coordinator, best paid first", staff.map(\.firstName))

    let raised = try writer.fetch(FetchRequest<ManagedEmployee>(
        entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == %@ AND firstName == 'Ada'", name)))
    for employee in raised { employee.salary += 50_000 }
    try writer.save()
    if let changes = try listener.nextChanges(waitingUpTo: 5) {
        reader.mergeChanges(fromContextDidSave: changes)
        let ada = staff.first { $0.firstName == "Ada" }
        show("the second coordinator merged the raise it was told of", ada?.salary ?? 0)
    } else {
        show("no change announced within 5 s", "-")
    }
}
