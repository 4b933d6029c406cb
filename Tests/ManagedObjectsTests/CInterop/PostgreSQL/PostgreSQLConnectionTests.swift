import Foundation
import Testing
@testable import ManagedObjects

@Suite struct PostgreSQLConfigurationTests {
    @Test func readsEveryPartOfTheURL() throws {
        let url = try #require(URL(string: "postgresql://ann:s%40cret@db.example:6543/shop?sslmode=require&connect_timeout=5"))
        let configuration = try PostgreSQLConfiguration(url: url)
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.user == "ann")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "shop")
        #expect(configuration.sslMode == "require")
        #expect(configuration.connectTimeout == 5)
        #expect(configuration.serverDescription == "postgresql://ann@db.example:6543/shop")
        #expect(!configuration.description.contains("cret"))
    }

    @Test(arguments: [
        "sqlite:///tmp/x", "postgresql://host:5432", "postgresql://host/a/b", "postgresql://host/db?sslmode=sometimes",
        "postgresql://host/db?sslcert=x", "postgresql://host/db?connect_timeout=soon",
    ])
    func refusesURLsItCannotUse(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect {
            try PostgreSQLConfiguration(url: url)
        } throws: { error in
            (error as? PostgreSQLError)?.kind == .invalidURL && (error as? PostgreSQLError)?.persistenceError(.operationFailed).code == .invalidStore
        }
    }

    @Test func messagesLeaveThePasswordOut() throws {
        let url = try #require(URL(string: "postgresql://ann:hunter2@host/db?sslmode=bogus"))
        do {
            _ = try PostgreSQLConfiguration(url: url)
            Issue.record("the URL was accepted")
        } catch let error as PostgreSQLError {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("ann@host"))
        }
    }
}

extension PostgreSQLTests {
    @Suite struct ConnectionTests {
        @Test func runsStatementsWithEveryKindOfParameter() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (i bigint, s text, b bytea, d double precision)")
            let blob = Data([0, 1, 0xFF, 0x5C, 0x78])
            try connection.run(
                "INSERT INTO t VALUES ($1, $2, $3, $4)", [.text("-42"), .text("héllo"), .binary(blob), .null])
            let result = try connection.run("SELECT i, s, b, d FROM t")
            #expect(result.rowCount == 1)
            #expect(result.int64(0, 0) == -42)
            #expect(result.text(0, 1) == "héllo")
            #expect(result.text(0, 2) == "\\x0001ff5c78")
            #expect(result.isNull(0, 3))
            #expect(result.text(5, 0) == nil)
        }

        @Test func readsEveryTypeInBinaryFormat() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            let uuid = UUID()
            let result = try connection.run(
                "SELECT -7::smallint, -70000::integer, $1::bigint, -0.1::double precision, 1.5::real, true, false, "
                    + "'héllo'::text, '\\x00ff5c'::bytea, $2::uuid, NULL::bigint, '-1234.5678'::numeric, 0::numeric, "
                    + "'0.00012'::numeric, '120000'::numeric",
                [.text(String(Int64.min)), .text(uuid.uuidString)], resultFormat: .binary)
            #expect(result.format == .binary)
            #expect(result.int64(0, 0) == -7)
            #expect(result.int64(0, 1) == -70_000)
            #expect(result.int64(0, 2) == Int64.min)
            #expect(result.double(0, 3) == -0.1)
            #expect(result.double(0, 4) == 1.5)
            #expect(result.boolean(0, 5) == true)
            #expect(result.boolean(0, 6) == false)
            #expect(result.text(0, 7) == "héllo")
            #expect(result.textEquals(0, 7, "héllo"))
            #expect(!result.textEquals(0, 7, "hello"))
            #expect(result.bytes(0, 8) == Data([0, 0xFF, 0x5C]))
            #expect(result.uuid(0, 9) == uuid)
            #expect(result.int64(0, 10) == nil && result.isNull(0, 10))
            #expect(result.numericText(0, 11) == "-1234.5678")
            #expect(result.numericText(0, 12) == "0")
            #expect(result.numericText(0, 13) == "0.00012")
            #expect(result.numericText(0, 14) == "120000")
        }

        /// A binary value read as another type (a `text` as an integer, an `integer` as a UUID)
        /// reads as nil, never as the bytes reinterpreted.
        @Test func aBinaryValueOfAnotherTypeReadsAsNil() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            let result = try connection.run("SELECT 'abc'::text, 5::integer, 2::smallint", resultFormat: .binary)
            #expect(result.int64(0, 0) == nil)
            #expect(result.double(0, 0) == nil)
            #expect(result.boolean(0, 1) == nil)
            #expect(result.uuid(0, 1) == nil)
            #expect(result.double(0, 2) == nil)
            #expect(result.numericText(0, 2) == nil)
            #expect(result.valueDescription(0, 1) == "a binary value of 4 bytes")
            #expect(result.int64(3, 0) == nil, "a row outside the result")
        }

        @Test func numericBinaryFormRefusesMalformedDigits() {
            // One digit of 10,000 (digits are base 10,000, so at most 9,999).
            let bytes: [UInt8] = [0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10]
            #expect(bytes.withUnsafeBytes { PostgreSQLResult.numericText(binary: $0) } == nil)
            // NaN's sign.
            let nan: [UInt8] = [0, 0, 0, 0, 0xC0, 0, 0, 0]
            #expect(nan.withUnsafeBytes { PostgreSQLResult.numericText(binary: $0) } == nil)
            // A digit count the bytes do not hold.
            let short: [UInt8] = [0, 2, 0, 0, 0, 0, 0, 0, 0, 1]
            #expect(short.withUnsafeBytes { PostgreSQLResult.numericText(binary: $0) } == nil)
        }

        @Test func preparesEachStatementOnce() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            for value in 1...3 {
                let result = try connection.run("SELECT $1::bigint + 1", [.text(String(value))])
                #expect(result.int64(0, 0) == Int64(value + 1))
            }
            let prepared = try connection.run("SELECT count(*) FROM pg_prepared_statements")
            #expect(prepared.int64(0, 0) == 2)
        }

        @Test func aWrongPasswordIsAConnectionErrorNamingTheServerNotThePassword() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let wrong = PostgreSQLTestServer.url(database.url, password: "not-the-password")
            do {
                _ = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: wrong))
                Issue.record("connected with a wrong password")
            } catch let error as PostgreSQLError {
                #expect(error.kind == .connectionFailed)
                #expect(error.message.contains("password authentication failed"))
                let reported = error.persistenceError(.operationFailed)
                #expect(reported.code == .connectionFailed)
                #expect(reported.message.contains(database.name))
                #expect(reported.message.contains(":\(database.url.port ?? 0)/"))
                #expect(!reported.description.contains("not-the-password"))
            }
        }

        @Test func aMissingDatabaseIsAConnectionErrorNamingIt() throws {
            let base = try PostgreSQLTestServer.requireURL()
            let missing = PostgreSQLTestServer.url(base, database: "mo_no_such_database")
            #expect {
                try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: missing))
            } throws: { error in
                guard let error = error as? PostgreSQLError else { return false }
                return error.kind == .connectionFailed && error.message.contains("mo_no_such_database")
                    && error.persistenceError(.operationFailed).message.contains("mo_no_such_database")
            }
        }

        @Test func noServerIsAConnectionError() throws {
            let url = try #require(URL(string: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"))
            #expect {
                try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
            } throws: { error in
                (error as? PostgreSQLError)?.kind == .connectionFailed
                    && (error as? PostgreSQLError)?.persistenceError(.operationFailed).message.contains("127.0.0.1:1/none") == true
            }
        }

        @Test func aRefusedStatementCarriesItsSQLStateAndSQL() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            #expect {
                try connection.run("SELECT * FROM no_such_table")
            } throws: { error in
                guard let error = error as? PostgreSQLError else { return false }
                return error.kind == .statementFailed && error.sqlState == "42P01" && error.sql == "SELECT * FROM no_such_table"
                    && !error.isConnectionFailure
            }
        }

        @Test func textHoldingNULIsRefusedBeforeItIsSent() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            #expect {
                try connection.run("SELECT $1::text", [.text("a\u{0}b")])
            } throws: { error in
                (error as? PostgreSQLError)?.kind == .invalidValue
            }
        }

        @Test func aTransactionThatThrowsIsRolledBack() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (i bigint)")
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try connection.transaction {
                    try connection.run("INSERT INTO t VALUES (1)")
                    throw Stop()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try connection.run("SELECT count(*) FROM t").int64(0, 0) == 0)
        }

        @Test func aConnectionEndedByTheServerReportsALostConnection() throws {
            let database = try TemporaryPostgreSQLDatabase()
            let connection = try database.connect()
            try connection.run("SELECT 1")
            try database.terminateConnections()
            #expect {
                try connection.run("SELECT 1")
            } throws: { error in
                guard let error = error as? PostgreSQLError else { return false }
                return error.isConnectionFailure && error.persistenceError(.operationFailed).code == .connectionFailed
            }
            #expect(!connection.isOpen)
        }
    }
}
