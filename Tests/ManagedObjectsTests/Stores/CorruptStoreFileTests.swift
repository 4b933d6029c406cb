import Foundation
import Testing
@testable import ManagedObjects

/// A store file that is truncated, zero-filled, garbage, of another format or damaged throws an
/// error naming the file that bridges to `NSFileReadCorruptFileError` (259), as Core Data
/// reports it, with the library's own code kept as a detail.
@Suite struct CorruptStoreFileTests {
    /// The error adding a store of `type` at `url` throws.
    func openError(_ type: PersistentStoreType, at url: URL) throws -> PersistenceError {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        do {
            try coordinator.addPersistentStore(type: type, at: url)
        } catch let error as PersistenceError {
            #expect(coordinator.persistentStores.isEmpty)
            return error
        }
        throw PersistenceError(.operationFailed, message: "the store opened")
    }

    func expectCorruptFile(_ error: PersistenceError, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let bridged = error as NSError
        #expect(error.code == .invalidStore, sourceLocation: sourceLocation)
        #expect(error.isCorruptFile, sourceLocation: sourceLocation)
        #expect(error.fileURL == url, sourceLocation: sourceLocation)
        #expect(error.description.components(separatedBy: url.path).count == 2, "the path once", sourceLocation: sourceLocation)
        #expect(bridged.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(bridged.code == NSFileReadCorruptFileError, sourceLocation: sourceLocation)
        #expect(bridged.userInfo[NSFilePathErrorKey] as? String == url.path, sourceLocation: sourceLocation)
        #expect(bridged.userInfo[PersistenceError.detailCodeKey] as? Int == 134_000, sourceLocation: sourceLocation)
    }

    /// A SQLite store holding a few saved records, closed.
    func savedSQLiteStore(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            for index in 0..<200 {
                let employee = try context.insertNewObject(forEntityName: "Employee")
                try employee.setValue("Employee \(index)", forKey: "firstName")
            }
            try context.save()
        }
        try? FileManager.default.removeItem(at: directory.file("Store.sqlite-wal"))
        try? FileManager.default.removeItem(at: directory.file("Store.sqlite-shm"))
        return url
    }

    @Test func truncatedSQLiteStore() throws {
        let directory = try TemporaryDirectory()
        let url = try savedSQLiteStore(in: directory)
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 3).write(to: url)
        expectCorruptFile(try openError(.sqlite, at: url), url)
    }

    @Test func zeroFilledSQLiteStore() throws {
        let directory = try TemporaryDirectory()
        try Data(count: 16_384).write(to: directory.file())
        expectCorruptFile(try openError(.sqlite, at: directory.file()), directory.file())
    }

    @Test func randomGarbageSQLiteStore() throws {
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: directory.file())
        let error = try openError(.sqlite, at: directory.file())
        expectCorruptFile(error, directory.file())
        #expect(((error as NSError).userInfo["NSSQLiteErrorDomain"] as? Int).map { $0 & 0xFF } == 26)  // SQLITE_NOTADB
    }

    @Test func nonSQLiteFileOpenedAsSQLiteStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Store.json")
        try Data(#"{"format": "not a database", "records": []}"#.utf8).write(to: url)
        expectCorruptFile(try openError(.sqlite, at: url), url)
    }

    @Test func damagedBinaryStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Store.binary")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            try context.insertNewObject(forEntityName: "Employee").setValue("Ada", forKey: "firstName")
            try context.save()
        }
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
        expectCorruptFile(try openError(.binary, at: url), url)
        try Data(count: 4096).write(to: url)
        expectCorruptFile(try openError(.binary, at: url), url)
        try Data(#"{"format": "other"}"#.utf8).write(to: url)
        expectCorruptFile(try openError(.binary, at: url), url)
    }

    /// A binary store holding one department with a budget, its JSON text edited by `edit`.
    func editedBinaryStore(in directory: TemporaryDirectory, _ edit: (String) -> String) throws -> URL {
        let url = directory.file("Store.binary")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            let department = try context.insertNewObject(forEntityName: "Department")
            try department.setValue("Research", forKey: "name")
            try department.setValue(Decimal(string: "12.5"), forKey: "budget")
            try context.save()
        }
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        let edited = edit(text)
        #expect(edited != text, "the edit changed nothing")
        try Data(edited.utf8).write(to: url)
        return url
    }

    @Test(arguments: [
        ("\"entity\":\"Department\"", "\"entity\":\"Ghost\""),
        ("\"_0\":\"12.5\"", "\"_0\":\"twelve\""),
        ("\"nextPrimaryKey\":2", "\"nextPrimaryKey\":1"),
        ("\"nextPrimaryKey\":2", "\"nextPrimaryKey\":-5"),
    ])
    func binaryStoreWithBadContentIsACorruptFile(find: String, replacement: String) throws {
        let directory = try TemporaryDirectory()
        let url = try editedBinaryStore(in: directory) { $0.replacingOccurrences(of: find, with: replacement) }
        expectCorruptFile(try openError(.binary, at: url), url)
    }

    @Test func unreadableStoreLocationIsNotACorruptFile() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("Folder.binary")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = try openError(.binary, at: folder)
        #expect(!binary.isCorruptFile && (binary as NSError).code == 134_000)

        let blocker = directory.file("NotAFolder")
        try Data("x".utf8).write(to: blocker)
        let sqlite = try openError(.sqlite, at: blocker.appendingPathComponent("Store.sqlite"))
        #expect(!sqlite.isCorruptFile && (sqlite as NSError).code != NSFileReadCorruptFileError)
    }

    @Test func storeOfAnUnavailableTypeIsNotACorruptFile() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
        do {
            try coordinator.addPersistentStore(type: PersistentStoreType(rawValue: "Nope"))
            Issue.record("expected an error")
        } catch let error as PersistenceError {
            #expect(!error.isCorruptFile)
            #expect((error as NSError).code == 134_000)
        }
    }
}
