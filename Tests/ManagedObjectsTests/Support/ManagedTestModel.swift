import Foundation
import ManagedObjects

/// Records life-cycle hook calls, in order, for the hook-timing tests.
final class HookLog {
    var entries: [String] = []
}

final class TestDepartment: ManagedObject {
    @Managed var name: String?
    @Managed var budget: Decimal
    @Managed var employees: Set<TestEmployee>
    @Managed var manager: TestEmployee?
}

final class TestEmployee: ManagedObject {
    @Managed var firstName: String?
    @Managed var lastName: String?
    @Managed var salary: Double
    @Managed var age: Int16
    @Managed var department: TestDepartment?
    @Managed var projects: Set<TestProject>
    @Managed var managedDepartment: TestDepartment?

    /// Not modeled: an ordinary key-value-coding property of the class.
    @Attribute var nickname = ""

    var log: HookLog?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        log?.entries.append("awakeFromInsert")
        try? setPrimitiveValue("New", forKey: "lastName")
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        log?.entries.append("awakeFromFetch")
    }

    override func willSave() {
        super.willSave()
        log?.entries.append("willSave \(isInserted ? "inserted" : isDeleted ? "deleted" : "updated")")
    }

    override func didSave() {
        super.didSave()
        log?.entries.append("didSave")
    }

    override func willTurnIntoFault() {
        log?.entries.append("willTurnIntoFault")
    }

    override func didTurnIntoFault() {
        log?.entries.append("didTurnIntoFault isFault=\(isFault)")
    }

    override func prepareForDeletion() {
        log?.entries.append("prepareForDeletion department=\(department?.name ?? "nil")")
    }
}

final class TestProject: ManagedObject {
    @Managed var title: String?
    @Managed var members: Set<TestEmployee>
    @Managed var milestones: [TestMilestone]
}

final class TestMilestone: ManagedObject {
    @Managed var title: String?
    @Managed var project: TestProject?
}

/// The model the managed-object tests share: departments and employees (one to many, and a
/// one-to-one manager), projects and employees (many to many), ordered milestones, people and
/// passports without classes (one to one), and constraint-laden records.
func makeTestModel(
    employeesRule: DeleteRule = .nullify, departmentRule: DeleteRule = .nullify, milestonesRule: DeleteRule = .cascade
) throws -> ManagedObjectModel {
    try ManagedObjectModel {
        Entity("Department", class: TestDepartment.self) {
            Property("name", .string, optional: false, minimumLength: 1, maximumLength: 40)
            Property("budget", .decimal, defaultValue: Decimal(0))
            Property("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: employeesRule)
            Property("manager", to: "Employee", inverse: "managedDepartment", deleteRule: .nullify)
        }
        Entity("Employee", class: TestEmployee.self) {
            Property("firstName", .string)
            Property("lastName", .string)
            Property("salary", .double, defaultValue: 0.0, minimum: 0.0)
            Property("age", .integer16, defaultValue: 30, minimum: 16, maximum: 99)
            Property("department", to: "Department", inverse: "employees", deleteRule: departmentRule)
            Property("projects", to: "Project", inverse: "members", toMany: true)
            Property("managedDepartment", to: "Department", inverse: "manager")
        }
        Entity("Project", class: TestProject.self) {
            Property("title", .string)
            Property("members", to: "Employee", inverse: "projects", toMany: true, maxCount: 3)
            Property("milestones", to: "Milestone", inverse: "project", toMany: true, ordered: true, deleteRule: milestonesRule)
        }
        Entity("Milestone", class: TestMilestone.self) {
            Property("title", .string)
            Property("project", to: "Project", inverse: "milestones")
        }
        Entity("Person") {
            Property("name", .string)
            Property("passport", to: "Passport", inverse: "owner", deleteRule: .cascade)
            Property("scratch", .string, transient: true)
        }
        Entity("Passport") {
            Property("number", .string, pattern: "[A-Z]{2}[0-9]{4}")
            Property("owner", to: "Person", inverse: "passport")
        }
        Entity("Record") {
            Property("code", .string, optional: false, minimumLength: 2, maximumLength: 4, pattern: "[A-Z]+")
            Property("count", .integer32, defaultValue: 1, minimum: 1, maximum: 10)
            Property("when", .date, minimum: Date(timeIntervalSinceReferenceDate: 0),
                     maximum: Date(timeIntervalSinceReferenceDate: 1_000_000))
            Property("tags", to: "Tag", inverse: "record", toMany: true, minCount: 1, maxCount: 2, optional: false)
        }
        Entity("Tag") {
            Property("label", .string)
            Property("record", to: "Record", inverse: "tags")
        }
    }
}

/// A coordinator with a store over the test model (in memory, or SQLite in a temporary
/// directory, or PostgreSQL in a new database, while ``TestStore/kind`` says so), and a
/// context on it.
struct ManagedTestStack {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let center: NotificationCenter
    /// The SQLite store's directory, removed when the last copy of the stack goes.
    let directory: TemporaryDirectory?
    /// The PostgreSQL store's database, dropped when the last copy of the stack goes.
    let database: TemporaryPostgreSQLDatabase?

    init(
        employeesRule: DeleteRule = .nullify, departmentRule: DeleteRule = .nullify, undo: Bool = false
    ) throws {
        model = try makeTestModel(employeesRule: employeesRule, departmentRule: departmentRule)
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        (directory, database) = try TestStore.addStore(to: coordinator)
        center = NotificationCenter()
        context = ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
        if undo { context.undoManager = ModelUndoManager(notificationCenter: center) }
    }

    /// A second context on the same coordinator.
    func makeContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, notificationCenter: center)
    }

    func department(_ name: String, in context: ManagedObjectContext? = nil) -> TestDepartment {
        let department = TestDepartment(context: context ?? self.context)
        department.name = name
        return department
    }

    func employee(_ firstName: String, salary: Double = 1000, in context: ManagedObjectContext? = nil) -> TestEmployee {
        let employee = TestEmployee(context: context ?? self.context)
        employee.firstName = firstName
        employee.salary = salary
        return employee
    }
}

/// Collects the notifications of one name posted to a center.
// SAFETY: `recorded` is only touched under `lock`.
final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Notification] = []
    private var token: (any NSObjectProtocol)?
    private let center: NotificationCenter

    init(_ name: Notification.Name, center: NotificationCenter) {
        self.center = center
        token = center.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
            guard let self else { return }
            self.lock.withLock { self.recorded.append(notification) }
        }
    }

    deinit {
        if let token { center.removeObserver(token) }
    }

    var notifications: [Notification] { lock.withLock { recorded } }

    func objects(_ key: String, at index: Int) -> Set<ManagedObject> {
        notifications[index].userInfo?[key] as? Set<ManagedObject> ?? []
    }
}

/// The validation failures a save of `context` throws, as (code, key) sorted by key: empty when
/// the save succeeds, `[(-1, nil)]` when it throws something other than a `ValidationError`.
func validationFailures(saving context: ManagedObjectContext) -> [(code: Int, key: String?)] {
    do {
        try context.save()
        return []
    } catch let error as ValidationError {
        let failures = error.code == .multipleErrors ? error.failures : [error]
        return failures.map { ($0.code.rawValue, $0.key) }.sorted { ($0.key ?? "") < ($1.key ?? "") }
    } catch {
        return [(-1, nil)]
    }
}

/// Inserts into `context` a department named `name` with `count` employees, the employee at
/// each index named by `employeeName`; the test model's usual graph for saves and fetches.
@discardableResult
func insertDepartment(
    _ name: String, employees count: Int, named employeeName: (Int) -> String, into context: ManagedObjectContext
) -> TestDepartment {
    let department = TestDepartment(context: context)
    department.name = name
    for index in 0..<count {
        let employee = TestEmployee(context: context)
        employee.firstName = employeeName(index)
        employee.department = department
    }
    return department
}

/// Inserts into `context` and saves ten departments `D0`…`D9` of ten employees each, the store
/// tests' usual records: employee `member` of department `index` is `E<index>-<member>`, last
/// name `L<member>`, aged `20 + member`, with a salary of `1,000 × member`.
func saveTenDepartmentsOfTenEmployees(in context: ManagedObjectContext) throws {
    for index in 0..<10 {
        let department = TestDepartment(context: context)
        department.name = "D\(index)"
        for member in 0..<10 {
            let employee = TestEmployee(context: context)
            employee.firstName = "E\(index)-\(member)"
            employee.lastName = "L\(member)"
            employee.salary = Double(member * 1_000)
            employee.age = Int16(20 + member)
            employee.department = department
        }
    }
    try context.save()
}
