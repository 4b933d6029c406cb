// A fuzz target for model files and the stores built from them: every input, read as the
// `contents` XML of an Xcode model version, must load or throw a `ModelError`, never crash or
// hang, and a model that loads must be usable: objects of each of its entities inserted with their
// default values, saved to an in-memory, a binary and a SQLite store (the schema made from the
// model's names and types), fetched back, counted, fetched through the model's own fetch request
// templates, deleted, and the files opened again. Errors are expected (a model whose defaults
// break its own constraints cannot save); crashes are bugs. `.ci/fuzz model` builds it with
// libFuzzer (`-sanitize=fuzzer,address`); built normally, it replays the files given on the
// command line, or writes seed models.

import Foundation
import ManagedObjects
import ModelObjects

/// A directory of this process's own, for the files each input writes.
private let scratchDirectory: URL = {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("ModelFileFuzzer-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// Loads one input as a model file and, when it loads, uses the model with every file store.
func loadAndUse(_ data: Data) {
    let contents = scratchDirectory.appendingPathComponent("contents")
    guard (try? data.write(to: contents)) != nil,
          let model = try? ManagedObjectModel(contentsOf: contents)
    else { return }
    _ = model.description
    for entity in model.entities {
        _ = entity.description
        _ = entity.subentities
        for relationship in entity.relationships { _ = relationship.inverseRelationship }
    }
    for configuration in model.configurations { _ = model.entities(forConfigurationName: configuration) }

    use(model, type: .inMemory, at: nil)
    let binaryFile = scratchDirectory.appendingPathComponent("store.json")
    let sqliteFile = scratchDirectory.appendingPathComponent("store.sqlite")
    use(model, type: .binary, at: binaryFile)
    use(model, type: .sqlite, at: sqliteFile)
    // Opened again: the files the first pass wrote must read back with the same model.
    use(model, type: .binary, at: binaryFile)
    use(model, type: .sqlite, at: sqliteFile)
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: sqliteFile.path + suffix))
    }
    try? FileManager.default.removeItem(at: binaryFile)
}

/// Inserts an object of each concrete entity, saves, fetches, deletes and saves again.
func use(_ model: ManagedObjectModel, type: PersistentStoreType, at url: URL?) {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    guard (try? coordinator.addPersistentStore(type: type, at: url)) != nil else { return }
    let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    defer { context.reset() }
    for entity in model.entities where !entity.isAbstract {
        let object = ManagedObject(entity: entity, insertInto: context)
        for property in entity.properties {
            _ = try? object.value(forKey: property.name)
        }
        _ = try? object.validateForInsert()
    }
    if (try? context.save()) == nil { context.rollback() }
    for entity in model.entities {
        let request = FetchRequest<ManagedObject>(entityName: entity.name)
        _ = try? context.count(for: request)
        _ = try? context.fetchObjectIDs(request)
        _ = try? context.fetchDictionaries(request)
        guard let objects = try? context.fetch(request) else { continue }
        for object in objects {
            for property in entity.properties { _ = try? object.value(forKey: property.name) }
        }
    }
    for template in model.fetchRequestTemplatesByName.values {
        guard let request = try? template.fetchRequest() else { continue }
        _ = try? context.fetch(request)
        _ = try? context.count(for: request)
    }
    for entity in model.entities where !entity.isAbstract {
        for object in (try? context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))) ?? [] {
            context.delete(object)
        }
    }
    if (try? context.save()) == nil { context.rollback() }
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    loadAndUse(Data(bytes: bytes, count: count))
    return 0
}

#if !FUZZING
/// Model files to seed the fuzzer's corpus: every attribute type, each relationship kind and
/// delete rule, inheritance, constraints, indexes, fetch request templates, fetched properties
/// and configurations.
let seedModels: [String: String] = [
    "company": """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
        <entity name="Person" isAbstract="YES">
            <attribute name="birthDate" optional="YES" attributeType="Date" minDateTimeInterval="-3124137600"/>
            <attribute name="name" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="^[A-Z].*" defaultValueString="Ann"/>
        </entity>
        <entity name="Employee" parentEntity="Person">
            <attribute name="badge" optional="YES" attributeType="UUID"/>
            <attribute name="bonus" optional="YES" attributeType="Decimal" defaultValueString="0.5"/>
            <attribute name="employeeID" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="homepage" optional="YES" attributeType="URI"/>
            <attribute name="isManager" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <attribute name="level" attributeType="Integer 16" defaultValueString="1" minValueString="1" maxValueString="9" usesScalarValueType="YES"/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="rating" optional="YES" attributeType="Float" defaultValueString="2.5" usesScalarValueType="YES"/>
            <attribute name="salary" attributeType="Double" defaultValueString="0.0" minValueString="0" maxValueString="1000000" usesScalarValueType="YES"/>
            <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
            <attribute name="startDate" optional="YES" attributeType="Date" defaultDateTimeInterval="0"/>
            <attribute name="vacationDays" attributeType="Integer 32" defaultValueString="25" usesScalarValueType="YES"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
            <relationship name="manager" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Employee" inverseName="reports" inverseEntity="Employee"/>
            <relationship name="reports" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Employee" inverseName="manager" inverseEntity="Employee"/>
            <fetchedProperty name="colleagues" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Employee" predicateString="department == $FETCH_SOURCE.department"/>
            </fetchedProperty>
            <fetchIndex name="bySalary">
                <fetchIndexElement property="salary" type="Binary" order="descending"/>
            </fetchIndex>
        </entity>
        <entity name="Department">
            <attribute name="budget" optional="YES" attributeType="Decimal" defaultValueString="1000.25"/>
            <attribute name="name" attributeType="String" defaultValueString="R&amp;D"/>
            <relationship name="employees" optional="YES" toMany="YES" maxCount="50" deletionRule="Cascade" ordered="YES" destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="name"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <fetchRequest name="wellPaid" entity="Employee" predicateString="salary &gt; 100000 AND name BEGINSWITH[cd] 'a'" fetchLimit="10" fetchBatchSize="20" includeSubentities="NO" returnObjectsAsFaults="NO" returnDistinctResults="YES"/>
        <fetchRequest name="allDepartments" entity="Department"/>
        <configuration name="People">
            <memberEntity name="Person"/>
            <memberEntity name="Employee"/>
        </configuration>
    </model>
    """,
    "single": """
    <?xml version="1.0" encoding="UTF-8"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Note">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="rank" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
            <attribute name="id" optional="YES" attributeType="UUID"/>
            <attribute name="tags" optional="YES" attributeType="Transformable"/>
        </entity>
    </model>
    """,
    "tree": """
    <?xml version="1.0" encoding="UTF-8"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Node">
            <attribute name="label" attributeType="String" defaultValueString="root"/>
            <relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Node" inverseName="children" inverseEntity="Node"/>
            <relationship name="children" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Node" inverseName="parent" inverseEntity="Node"/>
            <relationship name="links" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="linkedFrom" inverseEntity="Node"/>
            <relationship name="linkedFrom" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="links" inverseEntity="Node"/>
        </entity>
        <entity name="Leaf" parentEntity="Node">
            <attribute name="weight" attributeType="Double" defaultValueString="1.5" usesScalarValueType="YES"/>
        </entity>
    </model>
    """,
]

@main
struct ModelFileFuzzer {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--write-seeds", let directory = arguments.dropFirst().first {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (name, text) in seedModels {
                try Data(text.utf8).write(to: url.appendingPathComponent(name))
            }
            return
        }
        for path in arguments {
            loadAndUse(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }
}
#endif
