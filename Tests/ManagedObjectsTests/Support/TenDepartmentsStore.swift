import Foundation
import Testing
@testable import ManagedObjects

/// A SQLite store in a new temporary directory (named after `prefix`) holding the records of
/// `saveTenDepartmentsOfTenEmployees(in:)`: its coordinator, the store, and the directory, which
/// the caller removes.
func makeSQLiteStoreOfTenDepartments(prefix: String) throws -> (PersistentStoreCoordinator, SQLiteStore, URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try makeTestModel())
    let store = try #require(
        try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("store.sqlite")) as? SQLiteStore)
    try saveTenDepartmentsOfTenEmployees(in: ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter()))
    return (coordinator, store, directory)
}
