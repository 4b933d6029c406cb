import Foundation
import Testing
@testable import ManagedObjects

/// The PostgreSQL server the tests run against: `MODELOBJECTS_POSTGRES_URL` (`.ci/postgres start`
/// sets it). Without it the PostgreSQL suites are skipped, the whole run saying so in one line
/// (``PostgreSQLServerRequirement``), unless `CI` is set: then they run and fail, so that CI
/// never passes them by skipping.
enum PostgreSQLTestServer {
    static let environmentKey = "MODELOBJECTS_POSTGRES_URL"

    /// The server's URL, when one is configured.
    static var url: URL? {
        ProcessInfo.processInfo.environment[environmentKey].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// Whether the PostgreSQL suites run: a server is configured, or this is CI.
    static var isEnabled: Bool {
        url != nil || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true
    }

    static let skipNote = "PostgreSQL tests skipped: MODELOBJECTS_POSTGRES_URL not set (start a server with .ci/postgres start)"

    /// The server's URL; throws in CI when none is configured.
    static func requireURL() throws -> URL {
        guard let url else {
            throw PersistenceError(
                .invalidStore, message: "CI is set but \(environmentKey) is not: the PostgreSQL tests must run in CI (see .ci/postgres)")
        }
        return url
    }

    /// `url` with another database, user or password.
    static func url(_ base: URL, database: String? = nil, password: String? = nil) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
        if let database { components.path = "/" + database }
        if let password { components.password = password }
        return components.url ?? base
    }
}

/// The PostgreSQL suites, skipped together when no server is configured.
@Suite(PostgreSQLServerRequirement(), .serialized)
enum PostgreSQLTests {}

/// Runs the suite it is attached to only when ``PostgreSQLTestServer/isEnabled``; otherwise
/// prints ``PostgreSQLTestServer/skipNote`` once and runs none of its tests. A condition trait
/// (`.enabled(if:)`) would report every suite and test of the hierarchy as skipped, a line each.
struct PostgreSQLServerRequirement: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard PostgreSQLTestServer.isEnabled else {
            print(PostgreSQLTestServer.skipNote)
            return
        }
        try await function()
    }
}

/// A new, empty database on the test server, dropped (with its connections) when released.
final class TemporaryPostgreSQLDatabase: Sendable {
    /// The database's URL.
    let url: URL
    let name: String
    private let adminURL: URL

    init() throws {
        adminURL = try PostgreSQLTestServer.requireURL()
        name = "mo_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: adminURL))
        try admin.execute("CREATE DATABASE \(name)")
        url = PostgreSQLTestServer.url(adminURL, database: name)
    }

    deinit {
        if let admin = try? PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: adminURL)) {
            try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// A connection to the database, for looking at what a store wrote.
    func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
    }

    /// Ends every other connection to the database, as a server restart would.
    func terminateConnections() throws {
        let admin = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: adminURL))
        try admin.run(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text(name)])
    }
}
