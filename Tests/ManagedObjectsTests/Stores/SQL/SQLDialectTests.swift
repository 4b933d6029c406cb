import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// The SQL the shared translator writes in each dialect, pinned without a server.
@Suite struct SQLDialectTests {
    private func plan(_ format: String, dialect: SQLDialect, sort: [KeyPathSortDescriptor] = [], limit: Int = 0) throws -> SQLFetchPlan {
        let model = try makeTestModel()
        let entity = try #require(model.entity(named: "Employee"))
        let request = StoreFetchRequest(
            entity: entity, predicate: try KeyValuePredicate(format: format), sortDescriptors: sort, fetchLimit: limit)
        return try #require(SQLFetchPlan(request, schema: SQLSchema(model: model, dialect: dialect), storeIdentifier: "S"))
    }

    @Test func postgreSQLNumbersItsPlaceholdersWithTypesAndComparesStringsByTheirNFCForms() throws {
        let plan = try plan("salary > 100 AND firstName == 'Ada'", dialect: .postgreSQL)
        #expect(plan.condition == "(\"ZEMPLOYEE\".\"ZSALARY\" IS NOT NULL AND \"ZEMPLOYEE\".\"ZSALARY\" > $1::bigint) AND "
            + "normalize(\"ZEMPLOYEE\".\"ZFIRSTNAME\", NFC) IS NOT DISTINCT FROM normalize($2::text, NFC)")
        #expect(plan.bindings == [.integer(100), .text("Ada")])
        #expect(plan.appliedPredicate && plan.appliedSortAndLimit)
    }

    @Test func sqliteKeepsItsQuestionMarksAndComparisonFunction() throws {
        let plan = try plan("salary > 100 AND firstName ==[c] 'ada'", dialect: .sqlite)
        #expect(plan.condition == "(\"ZEMPLOYEE\".\"ZSALARY\" IS NOT NULL AND \"ZEMPLOYEE\".\"ZSALARY\" > ?) AND "
            + "mo_compare(?, \"ZEMPLOYEE\".\"ZFIRSTNAME\", \"ZEMPLOYEE\".\"Z_PK\")")
        #expect(plan.evaluatedComparisons.count == 1)
        #expect(SQLDialect.sqlite.comparisonFunction == SQLiteComparisonFunction.name)
    }

    @Test func postgreSQLLeavesStringMatchingToMemoryAndThenSortsInMemoryToo() throws {
        let plan = try plan(
            "salary > 100 AND firstName BEGINSWITH 'A'", dialect: .postgreSQL, sort: [KeyPathSortDescriptor(key: "salary")], limit: 2)
        #expect(!plan.appliedPredicate && !plan.appliedSortAndLimit)
        #expect(plan.orderAndLimit == " ORDER BY \"ZEMPLOYEE\".\"Z_PK\"")
    }

    @Test func postgreSQLSortsNilFirstAscendingAndLastDescendingWithALimitOfItsOwn() throws {
        let plan = try plan("TRUEPREDICATE", dialect: .postgreSQL, sort: [KeyPathSortDescriptor(key: "salary", ascending: false)], limit: 2)
        #expect(plan.condition == "TRUE")
        #expect(plan.orderAndLimit == " ORDER BY \"ZEMPLOYEE\".\"ZSALARY\" DESC NULLS LAST, \"ZEMPLOYEE\".\"Z_PK\" LIMIT 2 OFFSET 0")
        #expect(SQLDialect.postgreSQL.limit(0, offset: 3) == " LIMIT ALL OFFSET 3")
        #expect(SQLDialect.sqlite.limit(0, offset: 3) == " LIMIT -1 OFFSET 3")
    }

    @Test func theSchemaOfEachDialectHasItsOwnTypes() throws {
        let model = try SQLiteTypeTests.makeModel()
        let postgreSQL = SQLSchema(model: model, dialect: .postgreSQL).creationStatements
        #expect(postgreSQL.first == "CREATE SEQUENCE \"Z_SEQ_EVERYTHING\" AS bigint")
        #expect(postgreSQL.contains { $0.contains("\"ZSTRING\" text COLLATE \"C\"") && $0.contains("\"Z_PK\" bigint PRIMARY KEY") })
        let sqlite = SQLSchema(model: model, dialect: .sqlite).creationStatements
        #expect(sqlite.first?.hasPrefix("CREATE TABLE \"ZEVERYTHING\" (\"Z_PK\" INTEGER PRIMARY KEY") == true)
        #expect(!sqlite.contains { $0.contains("SEQUENCE") })
    }
}
