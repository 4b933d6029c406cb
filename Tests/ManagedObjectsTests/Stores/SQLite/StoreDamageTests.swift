import Foundation
import ModelObjects
import SampleModels
import Testing
@testable import ManagedObjects

/// One kind of damage done to a SQLite store file of the sample model, between two sessions.
struct StoreDamage: CustomTestStringConvertible, Sendable {
    enum Kind: Sendable {
        /// SQL run on the closed file through a connection of its own.
        case sql(String)
        /// The file cut to this many bytes.
        case truncate(Int)
        /// Bytes written at an offset of the file.
        case overwrite(offset: Int, bytes: [UInt8])
        /// `count` bytes of the table pages (every page after the first) flipped at random.
        case flips(seed: UInt64, count: Int)
    }

    /// What a session over the damaged file must meet.
    enum Expected: Sendable {
        /// Typed errors, or a session whose saved changes are in the file.
        case typedErrorOrCorrectAnswer
        /// This error first, its message naming where the damage is, by both paths.
        case error(PersistenceError.Code, naming: String)
        /// A reference to a record that is not there: reading it by key throws
        /// `objectNotFound`; the typed accessors read defaults, and the session's edits (which
        /// clear or replace such references) save correctly.
        case danglingReference

        /// A file SQLite cannot read as a database.
        static let invalidStore = Expected.error(.invalidStore, naming: "is not a valid SQLite store")
    }

    let name: String
    let kind: Kind
    let expected: Expected

    var testDescription: String { name }

    init(_ name: String, _ kind: Kind, _ expected: Expected = .typedErrorOrCorrectAnswer) {
        self.name = name
        self.kind = kind
        self.expected = expected
    }

    init(_ name: String, sql: String, _ expected: Expected = .typedErrorOrCorrectAnswer) {
        self.init(name, .sql(sql), expected)
    }

    /// The table: truncation, header, metadata, keys, foreign keys, versions, types, schema,
    /// and random flips with fixed seeds.
    static let all: [StoreDamage] = [
        // An empty file is a new store: the session's changes are saved into it.
        StoreDamage("truncated to nothing", .truncate(0)),
        StoreDamage("truncated inside the header", .truncate(60), .invalidStore),
        StoreDamage("truncated to the first page", .truncate(4096), .invalidStore),
        StoreDamage("truncated to two pages", .truncate(8192), .invalidStore),
        StoreDamage("magic string overwritten", .overwrite(offset: 0, bytes: Array("SQLite format 4".utf8)), .invalidStore),
        StoreDamage("page size field zero", .overwrite(offset: 16, bytes: [0, 0]), .invalidStore),
        StoreDamage("page count field huge", .overwrite(offset: 28, bytes: [0x7F, 0xFF, 0xFF, 0xFF]), .invalidStore),
        StoreDamage("schema cookie changed", .overwrite(offset: 40, bytes: [0x12, 0x34, 0x56, 0x78])),
        StoreDamage("metadata rows deleted", sql: "DELETE FROM Z_METADATA", .error(.invalidStore, naming: "Z_METADATA")),
        StoreDamage("metadata table dropped", sql: "DROP TABLE Z_METADATA", .error(.invalidStore, naming: "did not write")),
        StoreDamage("metadata values garbled", sql: "UPDATE Z_METADATA SET Z_VALUE = x'00FF00FF'", .error(.invalidStore, naming: "Z_METADATA")),
        StoreDamage("key counter text", sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many'", .error(.saveFailed, naming: "counter of Employee")),
        StoreDamage("key counter real", sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 2.5", .error(.saveFailed, naming: "counter of Employee")),
        StoreDamage("key counter negative", sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = -5"),
        StoreDamage("key counter at the maximum", sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807"),
        StoreDamage("dangling manager", sql: "UPDATE ZEMPLOYEE SET ZMANAGER = 999 WHERE ZMANAGER IS NOT NULL", .danglingReference),
        StoreDamage("dangling department", sql: "UPDATE ZEMPLOYEE SET ZDEPARTMENT = 777", .danglingReference),
        StoreDamage("manager row deleted", sql: "DELETE FROM ZEMPLOYEE WHERE ZFIRSTNAME = 'Ada'", .danglingReference),
        StoreDamage("text manager", sql: "UPDATE ZEMPLOYEE SET ZMANAGER = 'boss' WHERE ZMANAGER IS NOT NULL",
                    .error(.operationFailed, naming: "holds the text \"boss\" in Employee.manager")),
        StoreDamage("negative manager", sql: "UPDATE ZEMPLOYEE SET ZMANAGER = -1 WHERE ZMANAGER IS NOT NULL",
                    .error(.operationFailed, naming: "holds the integer -1 in Employee.manager")),
        StoreDamage("real department", sql: "UPDATE ZEMPLOYEE SET ZDEPARTMENT = 1.5",
                    .error(.operationFailed, naming: "holds the real 1.5 in Employee.department")),
        StoreDamage("blob department", sql: "UPDATE ZEMPLOYEE SET ZDEPARTMENT = x'01'",
                    .error(.operationFailed, naming: "holds a blob of 1 bytes in Employee.department")),
        StoreDamage("manager of oneself", sql: "UPDATE ZEMPLOYEE SET ZMANAGER = Z_PK"),
        StoreDamage("order column text", sql: "UPDATE ZEMPLOYEE SET Z_FOK_MANAGER = 'first'"),
        StoreDamage("negative primary key", sql: "UPDATE ZEMPLOYEE SET Z_PK = -Z_PK WHERE ZMANAGER IS NULL",
                    .error(.operationFailed, naming: "a row of \"ZEMPLOYEE\" holds the integer -")),
        StoreDamage("primary key zero", sql: "UPDATE ZDEPARTMENT SET Z_PK = 0 WHERE Z_PK = 1",
                    .error(.operationFailed, naming: "a row of \"ZDEPARTMENT\" holds the integer 0 in Z_PK")),
        StoreDamage("Z_ENT names another entity", sql: "UPDATE ZEMPLOYEE SET Z_ENT = 'Department' WHERE Z_PK = 2",
                    .error(.operationFailed, naming: "the record 2 in \"ZEMPLOYEE\" names the entity Department")),
        StoreDamage("Z_ENT names no entity", sql: "UPDATE ZEMPLOYEE SET Z_ENT = 'Nobody' WHERE Z_PK = 3",
                    .error(.operationFailed, naming: "row 3 of \"ZEMPLOYEE\" names an entity the model does not have")),
        StoreDamage("version text", sql: "UPDATE ZEMPLOYEE SET Z_OPT = 'v2'"),
        StoreDamage("required text null", sql: "UPDATE ZEMPLOYEE SET ZFIRSTNAME = NULL", .error(.operationFailed, naming: "Employee.firstName")),
        StoreDamage("version at the maximum", sql: "UPDATE ZEMPLOYEE SET Z_OPT = 9223372036854775807"),
        // The model's startDate is optional (the Swift property is not): NULL is a value, which
        // the typed accessor reads as the reference date.
        StoreDamage("optional date null", sql: "UPDATE ZEMPLOYEE SET ZSTARTDATE = NULL"),
        StoreDamage("text in a date", sql: "UPDATE ZEMPLOYEE SET ZSTARTDATE = 'yesterday'", .error(.operationFailed, naming: "Employee.startDate")),
        StoreDamage("text in a double", sql: "UPDATE ZEMPLOYEE SET ZSALARY = 'plenty'", .error(.operationFailed, naming: "Employee.salary")),
        StoreDamage("Int16 out of range", sql: "UPDATE ZEMPLOYEE SET ZAGE = 100000", .error(.operationFailed, naming: "Employee.age")),
        StoreDamage("huge real in an Int16", sql: "UPDATE ZEMPLOYEE SET ZAGE = 1e300", .error(.operationFailed, naming: "Employee.age")),
        StoreDamage("text in an Int64", sql: "UPDATE ZEMPLOYEE SET ZEMPLOYEEID = 'old'", .error(.operationFailed, naming: "Employee.employeeID")),
        StoreDamage("blob in a string", sql: "UPDATE ZDEPARTMENT SET ZNAME = x'FFFE00'", .error(.operationFailed, naming: "Department.name")),
        StoreDamage("text in a decimal", sql: "UPDATE ZDEPARTMENT SET ZBUDGET = 'lots'",
                    .error(.operationFailed, naming: "Department.budget")),
        StoreDamage("text in a boolean", sql: "UPDATE ZEMPLOYEE SET ZHASDRIVERSLICENSE = 'yes'", .error(.operationFailed, naming: "Employee.hasDriversLicense")),
        StoreDamage("salary column dropped", sql: "ALTER TABLE ZEMPLOYEE DROP COLUMN ZSALARY",
                    .error(.operationFailed, naming: "no such column: ZEMPLOYEE.ZSALARY")),
        StoreDamage("manager column dropped", sql: "DROP INDEX ZEMPLOYEE_ZMANAGER; ALTER TABLE ZEMPLOYEE DROP COLUMN ZMANAGER",
                    .error(.operationFailed, naming: "no such column: ZEMPLOYEE.ZMANAGER")),
        StoreDamage("department table dropped", sql: "DROP TABLE ZDEPARTMENT", .error(.operationFailed, naming: "no such table: ZDEPARTMENT")),
        StoreDamage("employee table renamed", sql: "ALTER TABLE ZEMPLOYEE RENAME TO ZPEOPLE", .error(.operationFailed, naming: "no such table: ZEMPLOYEE")),
    ] + (1...40).map { seed in
        StoreDamage("random flips, seed \(seed)", .flips(seed: UInt64(seed), count: seed <= 20 ? 8 : 64))
    }
}

/// A store of the sample model that tests damage, then open, fetch, fire, edit and save through
/// key-value coding or the typed accessors of ``ManagedEmployee`` and ``ManagedDepartment``.
///
/// Four employees (Ada manages Grace and Linus, Grace manages Alan) in two departments.
struct DamagedStore {
    let directory: TemporaryDirectory
    let model: ManagedObjectModel
    var url: URL { directory.file() }

    /// The undamaged file, made once: each test copies it.
    private static let template: TemporaryDirectory? = {
        guard let directory = try? TemporaryDirectory(), let model = try? SampleModel.makeModel() else { return nil }
        do {
            try populate(at: directory.file(), model: model)
            let connection = try SQLiteConnection(path: directory.file().path, create: false)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            return nil
        }
        return directory
    }()

    init() throws {
        directory = try TemporaryDirectory()
        model = try SampleModel.makeModel()
        let template = try #require(Self.template)
        try FileManager.default.copyItem(at: template.file(), to: directory.file())
    }

    private static func populate(at url: URL, model: ManagedObjectModel) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let engineering = ManagedDepartment(context: context), sales = ManagedDepartment(context: context)
        engineering.name = "Engineering"
        engineering.budget = 1000
        sales.name = "Sales"
        func employee(_ first: String, _ number: Int64, _ department: ManagedDepartment, manager: ManagedEmployee?) -> ManagedEmployee {
            let employee = ManagedEmployee(context: context)
            employee.firstName = first
            employee.lastName = "Example"
            employee.employeeID = number
            employee.salary = Double(number) * 1000
            employee.age = 30
            employee.startDate = Date(timeIntervalSinceReferenceDate: 86_400 * Double(number))
            employee.department = department
            employee.manager = manager
            return employee
        }
        let ada = employee("Ada", 1, engineering, manager: nil)
        let grace = employee("Grace", 2, engineering, manager: ada)
        _ = employee("Linus", 3, sales, manager: ada)
        _ = employee("Alan", 4, sales, manager: grace)
        try context.save()
    }

    /// Applies `damage` to the closed file.
    func apply(_ damage: StoreDamage) throws {
        let connection = try SQLiteConnection(path: url.path, create: false)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        switch damage.kind {
        case .sql(let sql):
            try connection.execute(sql)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return
        default:
            break
        }
        var bytes = [UInt8](try Data(contentsOf: url))
        switch damage.kind {
        case .sql:
            return
        case .truncate(let count):
            bytes = Array(bytes.prefix(count))
        case .overwrite(let offset, let replacement):
            for (position, byte) in replacement.enumerated() where offset + position < bytes.count {
                bytes[offset + position] = byte
            }
        case .flips(let seed, let count):
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            var generator = SplitMix64(seed: seed)
            guard bytes.count > pageSize else { return }
            for _ in 0..<count {
                let offset = pageSize + Int(generator.next() % UInt64(bytes.count - pageSize))
                bytes[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
        }
        try Data(bytes).write(to: url)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// What a session over the damaged file met: the errors of each step, by step.
    struct Session {
        var errors: [(step: String, error: any Error)] = []
        /// Whether every step ran without error.
        var clean: Bool { errors.isEmpty }
        /// What the session saved, to compare with the file: salaries and managers by number.
        var savedSalaries: [ManagedObjectID: Double] = [:]
        var clearedManagers: [ManagedObjectID] = []
        var deleted: ManagedObjectID?
        var renamedDepartment: String?
        var inserted: ManagedObjectID?
    }

    /// Opens the file, fetches, fires every fault, edits and saves through key-value coding
    /// (`typed` false) or the typed accessors; records every error thrown, going on where it can.
    func session(typed: Bool) -> Session {
        var session = Session()
        func attempt<T>(_ step: String, _ body: () throws -> T) -> T? {
            do { return try body() } catch {
                session.errors.append((step, error))
                return nil
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        guard attempt("open", { try coordinator.addPersistentStore(type: .sqlite, at: url) }) != nil else { return session }
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let byNumber = [KeyPathSortDescriptor(key: "employeeID")]
        guard let employees = attempt("fetch", {
            try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee", sortDescriptors: byNumber))
        }) else { return session }
        let departments = attempt("fetch", {
            try context.fetch(FetchRequest<ManagedDepartment>(entityName: "Department", sortDescriptors: [KeyPathSortDescriptor(key: "name")]))
        }) ?? []
        if typed {
            for employee in employees { Self.readTyped(employee) }
            for department in departments { Self.readTyped(department) }
        } else {
            for object in employees as [ManagedObject] + departments {
                for property in object.entity.properties {
                    guard let value = attempt("fire", { try object.value(forKey: property.name) }) else { continue }
                    for related in ManagedObject.objects(inCollection: value) + [(value as? ManagedObject)].compactMap({ $0 }) {
                        _ = attempt("fire related", { try related.value(forKey: related.entity.attributes[0].name) })
                    }
                }
            }
        }

        // Edits: a raise for everyone, the first loses their manager, the second moves to the
        // first department, the last leaves, the first department is renamed.
        var raised: [(ManagedEmployee, Double)] = []
        for employee in employees {
            if typed {
                employee.salary += 1
                raised.append((employee, employee.salary))
            } else if let salary = attempt("edit", { try employee.value(forKey: "salary") }) as? Double {
                if attempt("edit", { try employee.setValue(salary + 1, forKey: "salary") }) != nil { raised.append((employee, salary + 1)) }
            }
        }
        if let first = employees.first {
            if typed { first.manager = nil } else { _ = attempt("edit", { try first.setValue(nil, forKey: "manager") }) }
        }
        if employees.count > 1, let department = departments.first {
            if typed {
                employees[1].department = department
            } else {
                _ = attempt("edit", { try employees[1].setValue(department, forKey: "department") })
            }
        }
        if employees.count > 2, let last = employees.last { context.delete(last) }
        if let department = departments.first {
            if typed { department.name = "Renamed" } else { _ = attempt("edit", { try department.setValue("Renamed", forKey: "name") }) }
        }
        let hedy = ManagedEmployee(context: context)
        if typed {
            hedy.firstName = "Hedy"
            hedy.manager = employees.first
        } else {
            _ = attempt("edit", { try hedy.setValue("Hedy", forKey: "firstName") })
            _ = attempt("edit", { try hedy.setValue(employees.first, forKey: "manager") })
        }
        if attempt("save", { try context.save() }) != nil {
            for (employee, salary) in raised where !employee.isDeleted && employee.managedObjectContext != nil {
                session.savedSalaries[employee.objectID] = salary
            }
            if let first = employees.first, first.managedObjectContext != nil { session.clearedManagers.append(first.objectID) }
            if employees.count > 2, let last = employees.last { session.deleted = last.objectID }
            session.renamedDepartment = departments.isEmpty ? nil : "Renamed"
            session.inserted = hedy.objectID
        } else {
            // The context stays usable: it rolls back and fetches again.
            context.rollback()
            _ = attempt("fetch after rollback", { try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee")) })
        }
        return session
    }

    static func readTyped(_ employee: ManagedEmployee) {
        _ = (employee.firstName, employee.lastName, employee.employeeID, employee.salary, employee.age)
        _ = (employee.hasDriversLicense, employee.startDate, employee.fullName)
        if let manager = employee.manager { _ = (manager.firstName, manager.startDate, manager.directReports.count) }
        if let department = employee.department { _ = (department.name, department.budget, department.employees.count) }
        for report in employee.directReports { _ = (report.salary, report.startDate, report.manager?.employeeID) }
    }

    static func readTyped(_ department: ManagedDepartment) {
        _ = (department.name, department.budget, department.totalSalary)
        for employee in department.employees { _ = (employee.salary, employee.startDate, employee.department?.name) }
    }

    /// Checks that what a clean session saved is in the file.
    func verify(_ session: Session) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employees = try context.fetch(FetchRequest<ManagedEmployee>(entityName: "Employee"))
        let byID = Dictionary(employees.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, salary) in session.savedSalaries { #expect(byID[id]?.salary == salary) }
        for id in session.clearedManagers { #expect(byID[id] != nil && byID[id]?.manager == nil) }
        if let deleted = session.deleted { #expect(byID[deleted] == nil) }
        if let inserted = session.inserted { #expect(byID[inserted]?.firstName == "Hedy") }
        if let renamed = session.renamedDepartment {
            let names = try context.fetch(FetchRequest<ManagedDepartment>(entityName: "Department")).map(\.name)
            #expect(names.contains(renamed))
        }
    }
}

/// Whether `error` is one of the library's typed errors.
func isTypedError(_ error: any Error) -> Bool {
    error is PersistenceError || error is KeyValueCodingError || error is ValidationError || error is ModelError
}

/// A fixed-seed generator, so that the random damage is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Every damage in ``StoreDamage/all``, through open, fetch, fire, edit and save, by key and
/// through typed accessors: a typed error, or a session whose saved changes are in the file;
/// never a trap.
@Suite struct StoreDamageTests {
    @Test(arguments: StoreDamage.all, [false, true])
    func damageGivesATypedErrorOrACorrectAnswer(damage: StoreDamage, typed: Bool) throws {
        let store = try DamagedStore()
        try store.apply(damage)
        let session = store.session(typed: typed)
        for (step, error) in session.errors {
            #expect(isTypedError(error), "\(step): \(type(of: error)) \(error)")
        }
        switch damage.expected {
        case .typedErrorOrCorrectAnswer:
            break
        case .error(let code, let naming):
            let first = try #require(session.errors.first?.error as? PersistenceError)
            #expect(first.code == code)
            #expect(first.description.contains(naming), "\(first)")
        case .danglingReference:
            if typed {
                #expect(session.clean, "\(session.errors.map { "\($0.step): \($0.error)" })")
            } else {
                #expect(session.errors.contains { ($0.error as? PersistenceError)?.code == .objectNotFound })
                #expect(!session.errors.contains { $0.step == "save" }, "\(session.errors.map { "\($0.step): \($0.error)" })")
            }
        }
        if session.clean || !session.errors.contains(where: { $0.step == "save" }) && session.inserted != nil {
            try store.verify(session)
        }
    }

    /// Fetches of IDs and of dictionaries read keys without reading records: they refuse a
    /// key that is not a positive integer too.
    @Test(arguments: ["UPDATE ZEMPLOYEE SET Z_PK = -Z_PK WHERE ZFIRSTNAME = 'Alan'", "UPDATE ZEMPLOYEE SET Z_PK = 0 WHERE ZFIRSTNAME = 'Alan'"])
    func fetchesOfIDsAndDictionariesRefuseKeysThatAreNotPositive(damage: String) throws {
        let store = try DamagedStore()
        try store.apply(StoreDamage("key", sql: damage))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        try coordinator.addPersistentStore(type: .sqlite, at: store.url)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let request = FetchRequest<ManagedEmployee>(entityName: "Employee")
        let error = #expect(throws: PersistenceError.self) { try context.fetchObjectIDs(request) }
        #expect(error?.code == .operationFailed)
        #expect(error?.description.contains("in Z_PK, which is not a positive integer") == true)
        #expect((#expect(throws: PersistenceError.self) { try context.fetchDictionaries(request) })?.code == .operationFailed)
    }

    /// In a table of several entities, a row naming an entity of another table is refused by
    /// fetches of objects and of IDs alike, naming the row; so is a to-one naming an entity
    /// that is not its destination.
    @Test func aRowNamingAnEntityOfAnotherTableIsRefused() throws {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel {
            Entity("Shape", abstract: true) { Property("name", .string) }
            Entity("Square", parent: "Shape") { Property("side", .double) }
            Entity("Circle", parent: "Shape") { Property("radius", .double) }
            Entity("Label") { Property("text", .string) }
            Entity("Owner") { Property("shape", to: "Shape") }
        }
        let probe = try SQLiteProbe(directory: directory, model: model)
        let square = try probe.insert(try #require(model.entity(named: "Square")))
        try probe.insert(try #require(model.entity(named: "Owner"))) { $0[0] = .toOne(square) }
        let connection = try SQLiteConnection(path: directory.file().path, create: false)
        try connection.execute("UPDATE ZSHAPE SET Z_ENT = 'Label'; UPDATE ZOWNER SET ZSHAPE_ENT = 'Label'")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        for fetch in [{ _ = try context.fetch(FetchRequest<ManagedObject>("Shape")) }, { _ = try context.fetchObjectIDs(FetchRequest<ManagedObject>("Shape")) }] {
            let error = #expect(throws: PersistenceError.self) { try fetch() }
            #expect(error?.code == .operationFailed)
            #expect(error?.description.contains("names the entity Label, whose records are in \"ZLABEL\"") == true, "\(String(describing: error))")
        }
        let error = #expect(throws: PersistenceError.self) { try context.fetch(FetchRequest<ManagedObject>("Owner")) }
        #expect(error?.description.contains("names the entity Label in Owner.shape, which is not Shape") == true, "\(String(describing: error))")
    }

    /// A join-table row whose owner is not a key is refused when a to-many relationship is read
    /// through it (from the side whose owner column it damages).
    @Test(arguments: ["Z_1", "Z_2"])
    func aJoinTableRowThatIsNotAKeyIsRefused(column: String) throws {
        let directory = try TemporaryDirectory()
        let model = try makeTestModel()
        let probe = try SQLiteProbe(directory: directory, model: model)
        let employee = try #require(model.entity(named: "Employee")), project = try #require(model.entity(named: "Project"))
        let members = try #require(project.relationshipsByName["members"])
        let ada = try probe.insert(employee), grace = try probe.insert(employee)
        try probe.insert(project) { $0[members.index] = .toMany([ada, grace]) }
        try probe.insert(project) { $0[members.index] = .toMany([ada]) }
        let joins = try probe.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_*' AND name <> 'Z_METADATA' AND name <> 'Z_PRIMARYKEY'")
        #expect(joins.count == 1)
        let connection = try SQLiteConnection(path: directory.file().path, create: false)
        for join in joins { try connection.execute("UPDATE \"\(join)\" SET \(column) = 'key ' || Z_1 || '-' || Z_2") }
        // One side reads the damaged column as its owner's key (the other side's join skips the row).
        var errors: [PersistenceError] = []
        for entity in [employee, project] {
            do { _ = try probe.store.records(of: entity, includesSubentities: true) } catch let error as PersistenceError { errors.append(error) }
        }
        #expect(errors.count == 1)
        #expect(errors.first?.code == .operationFailed)
        #expect(errors.first?.description.contains("which are not both primary keys") == true, "\(errors)")
    }
}
