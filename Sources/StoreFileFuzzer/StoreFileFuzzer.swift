// A fuzz target for store files: every input, written as the file of a binary store (its JSON
// document) or of a SQLite store (the database file), chosen by the input's first byte, must open
// or throw a `PersistenceError`, never crash or hang; a store that opens must be usable: every
// entity counted, fetched (as objects, IDs and dictionaries, with and without values, in
// batches, sorted and filtered), each object's every property read (relationships followed),
// objects changed, inserted and deleted, saved, and the file opened again. Errors are expected
// (a record whose values break the model's constraints cannot be saved); crashes are bugs.
// `.ci/fuzz store` builds it with libFuzzer (`-sanitize=fuzzer,address`); built normally, it
// replays the files given on the command line, or writes seed stores.

import Foundation
import ManagedObjects
import ModelObjects

/// A directory of this process's own, for the store files each input becomes.
private let scratchDirectory: URL = {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("StoreFileFuzzer-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// The model every input's store is opened with: each attribute type, each kind of relationship,
/// inheritance and a uniqueness constraint.
func makeModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        Entity("Person", abstract: true) {
            Property("name", .string, optional: false, defaultValue: "", maximumLength: 40)
            Property("birthDate", .date)
        }
        Entity("Employee", parent: "Person", uniquenessConstraints: [["employeeID"]]) {
            Property("employeeID", .integer64, defaultValue: Int64(0))
            Property("level", .integer16, defaultValue: Int16(1), minimum: Int16(1), maximum: Int16(9))
            Property("vacationDays", .integer32, defaultValue: Int32(25))
            Property("salary", .double, defaultValue: 0.0, minimum: 0.0)
            Property("rating", .float)
            Property("bonus", .decimal)
            Property("isManager", .boolean, defaultValue: false)
            Property("badge", .uuid)
            Property("homepage", .uri)
            Property("photo", .binaryData)
            Property("tags", .transformable)
            Property("department", to: "Department", inverse: "employees")
            Property("manager", to: "Employee", inverse: "reports")
            Property("reports", to: "Employee", inverse: "manager", toMany: true, ordered: true)
        }
        Entity("Department") {
            Property("name", .string, optional: false, defaultValue: "R&D")
            Property("employees", to: "Employee", inverse: "department", toMany: true, deleteRule: .cascade)
        }
    }
}

/// The kinds of store an input can be the file of, by the input's first byte.
enum StoreKind: UInt8, CaseIterable {
    case binary = 0
    case sqlite = 1

    var type: PersistentStoreType { self == .binary ? .binary : .sqlite }
    var fileName: String { self == .binary ? "store.json" : "store.sqlite" }
}

/// Opens one input as a store file and, when it opens, uses the store, then opens it again.
func openAndUse(_ data: Data, model: ManagedObjectModel) {
    guard let selector = data.first else { return }
    let kind = StoreKind(rawValue: selector % 2) ?? .binary
    let file = scratchDirectory.appendingPathComponent(kind.fileName)
    defer {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: file.path + suffix))
        }
    }
    guard (try? data.dropFirst().write(to: file)) != nil else { return }
    if use(model, type: kind.type, at: file) {
        _ = use(model, type: kind.type, at: file)
    }
}

/// Reads everything the store holds, changes some of it and saves; whether the store opened.
func use(_ model: ManagedObjectModel, type: PersistentStoreType, at url: URL) -> Bool {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    guard (try? coordinator.addPersistentStore(type: type, at: url)) != nil else { return false }
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    defer { context.reset() }
    var everyObject: [ManagedObject] = []
    for entity in model.entities {
        var request = FetchRequest<ManagedObject>(entityName: entity.name)
        _ = try? context.count(for: request)
        _ = try? context.fetchObjectIDs(request)
        _ = try? context.fetchDictionaries(request)
        request.sortDescriptors = [KeyPathSortDescriptor(key: "name", ascending: false)]
        if entity.name == "Employee" {
            request.predicate = try? KeyValuePredicate(format: "salary > 10 OR department.name BEGINSWITH[cd] 'r' OR reports.@count > 0")
            _ = try? context.fetch(request)
            request.predicate = nil
            request.propertiesToFetch = ["salary", "department"]
            for object in (try? context.fetch(request)) ?? [] { _ = try? object.value(forKey: "salary") }
            request.propertiesToFetch = nil
            request.relationshipKeyPathsForPrefetching = ["department", "reports"]
        }
        var keysOnly = request
        keysOnly.includesPropertyValues = false
        keysOnly.fetchBatchSize = 2
        for object in (try? context.fetch(keysOnly)) ?? [] { read(object) }
        guard let objects = try? context.fetch(request) else { continue }
        for object in objects { read(object) }
        everyObject += objects
    }
    for (index, object) in everyObject.enumerated() {
        switch index % 3 {
        case 0: try? object.setValue("Changed \(index)", forKey: "name")
        case 1: context.delete(object)
        default: context.refresh(object, mergeChanges: index % 2 == 0)
        }
    }
    if let employee = try? context.insertNewObject(forEntityName: "Employee") {
        try? employee.setValue("New", forKey: "name")
        try? employee.setValue(Int64(everyObject.count + 1_000_000), forKey: "employeeID")
        try? employee.setValue(everyObject.first { $0.entity.name == "Department" }, forKey: "department")
    }
    if (try? context.save()) == nil { context.rollback() }
    return true
}

/// Reads every property of `object` (firing it), and the properties of the objects its
/// relationships reach.
func read(_ object: ManagedObject) {
    _ = try? object.validateForInsert()
    for property in object.entity.properties {
        guard let value = try? object.value(forKey: property.name) else { continue }
        switch value {
        case let related as ManagedObject: _ = try? related.value(forKey: "name")
        case let set as Set<ManagedObject>: for related in set { _ = try? related.value(forKey: "name") }
        case let array as [ManagedObject]: for related in array { _ = try? related.value(forKey: "name") }
        default: _ = "\(value)"
        }
    }
}

/// libFuzzer's entry point. The model is made for each input (a millisecond) rather than kept
/// in a global: the leak check then covers it, and sees no model outliving its stores.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let model = try? makeModel() { openAndUse(Data(bytes: bytes, count: count), model: model) }
    return 0
}

#if !FUZZING
/// Writes seed inputs: a store of each kind holding a department and a few employees with every
/// attribute set, and an empty one, each prefixed with its kind's byte.
func writeSeeds(to directory: URL, model: ManagedObjectModel) throws {
    for kind in StoreKind.allCases {
        for filled in [false, true] {
            let file = scratchDirectory.appendingPathComponent("seed-" + kind.fileName)
            // The coordinator and context go before the file is read: a SQLite store's file
            // holds everything once its last connection closes and folds the log in.
            try writeSeedStore(kind: kind, filled: filled, at: file, model: model)
            var seed = Data([kind.rawValue])
            seed.append(try Data(contentsOf: file))
            try seed.write(to: directory.appendingPathComponent("\(kind)-\(filled ? "filled" : "empty")"))
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(at: URL(fileURLWithPath: file.path + suffix))
            }
        }
    }
}

/// A store of `kind` at `file`, empty or holding a department and three employees with every
/// attribute set.
func writeSeedStore(kind: StoreKind, filled: Bool, at file: URL, model: ManagedObjectModel) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: kind.type, at: file)
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    defer { context.reset() }
    guard filled else { return }
    let department = try context.insertNewObject(forEntityName: "Department")
    try department.setValue("Research", forKey: "name")
    var manager: ManagedObject?
    for number in 1...3 {
        let employee = try context.insertNewObject(forEntityName: "Employee")
        try employee.setValue("Employee \(number)", forKey: "name")
        try employee.setValue(Date(timeIntervalSinceReferenceDate: Double(number) * 1e8), forKey: "birthDate")
        try employee.setValue(Int64(number), forKey: "employeeID")
        try employee.setValue(Int16(number), forKey: "level")
        try employee.setValue(Int32(20 + number), forKey: "vacationDays")
        try employee.setValue(Double(number) * 1_000.5, forKey: "salary")
        try employee.setValue(Float(number) / 2, forKey: "rating")
        try employee.setValue(Decimal(string: "12.34"), forKey: "bonus")
        try employee.setValue(number == 1, forKey: "isManager")
        try employee.setValue(UUID(), forKey: "badge")
        try employee.setValue(URL(string: "https://example.com/\(number)"), forKey: "homepage")
        try employee.setValue(Data([0, 1, 2, UInt8(number)]), forKey: "photo")
        try employee.setValue(["a", "b"] as NSArray, forKey: "tags")
        try employee.setValue(department, forKey: "department")
        try employee.setValue(manager, forKey: "manager")
        manager = manager ?? employee
    }
    try context.save()
}

@main
struct StoreFileFuzzer {
    static func main() throws {
        let model = try makeModel()
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--write-seeds", let directory = arguments.dropFirst().first {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try writeSeeds(to: url, model: model)
            return
        }
        for path in arguments {
            openAndUse(try Data(contentsOf: URL(fileURLWithPath: path)), model: model)
        }
    }
}
#endif
