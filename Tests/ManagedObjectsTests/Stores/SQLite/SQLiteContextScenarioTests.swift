import Foundation
import Testing
@testable import ManagedObjects

/// The shared context scenarios, run again over a SQLite store in a temporary directory: the
/// store must behave as the in-memory one does for the same calls.
@Suite struct SQLiteContextScenarioTests {
    private func overSQLite(_ body: () throws -> Void) rethrows {
        try TestStore.$kind.withValue(.sqlite) { try body() }
    }

    @Test func theStackUsesASQLiteStore() throws {
        try overSQLite {
            let stack = try ManagedTestStack()
            #expect(stack.sqliteStore != nil)
        }
    }

    @Test func deleteRules() throws {
        try overSQLite { try StoreContractScenarios.deleteRules() }
    }

    @Test func mergePolicies() throws {
        try overSQLite { try StoreContractScenarios.mergePolicies() }
    }

    @Test func aBackgroundContextSavesThroughTheSameStore() async throws {
        try await TestStore.$kind.withValue(.sqlite) {
            try await MergePolicyTests().theSameIsolationRulesAllowABackgroundContextFromTheCoordinator()
        }
    }

    @Test func errorPaths() throws {
        try overSQLite { try StoreContractScenarios.errorPaths() }
    }

    @Test func lifecycle() throws {
        try overSQLite { try StoreContractScenarios.lifecycle() }
    }

    @Test func notificationsAndUndo() throws {
        try overSQLite { try StoreContractScenarios.notificationsAndUndo() }
    }

    @Test func aFaultWhoseRowWasDeletedThrowsObjectNotFound() throws {
        try overSQLite {
            let stack = try ManagedTestStack()
            let ada = stack.employee("Ada")
            try stack.context.save()
            let other = stack.makeContext()
            let fault = other.object(with: ada.objectID)
            #expect(fault.isFault)
            stack.context.delete(ada)
            try stack.context.save()
            #expect(throws: PersistenceError.self) { try fault.fireFault() }
            do {
                try fault.fireFault()
            } catch let error as PersistenceError {
                #expect(error.code == .objectNotFound)
            }
            #expect(throws: PersistenceError.self) { try other.existingObject(with: ada.objectID) }
        }
    }
}
