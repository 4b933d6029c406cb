import Foundation
import ModelObjects
import Testing
@testable import ManagedObjects

/// Fetches translated to SQL must select exactly what in-memory evaluation selects over the
/// same records, and say honestly when they did not translate.
@Suite struct SQLiteFetchTests {
    /// A SQLite stack with 12 employees, some with nil names, and the objects read back.
    private func makeData() throws -> (ManagedTestStack, SQLiteStore, [TestEmployee], ManagedObjectContext) {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let names: [String?] = ["Ada", "Grace", "alan", nil, "Édouard", "Barbara", "Ada", "Zoe", "ann%", "a_b", nil, "Linus"]
        for (index, name) in names.enumerated() {
            let employee = stack.employee(name ?? "", salary: Double(index * 1000) + 0.5)
            employee.firstName = name
            employee.lastName = index.isMultiple(of: 3) ? nil : "L\(index)"
            employee.age = Int16(20 + index * 3)
        }
        try stack.context.save()
        let store = try #require(stack.sqliteStore)
        let entity = try #require(stack.model.entity(named: "Employee"))
        let (_, context) = try stack.reopened()
        let objects = try store.records(of: entity, includesSubentities: true).map {
            try #require(try context.existingObject(with: $0.objectID) as? TestEmployee)
        }
        return (stack, store, objects, context)
    }

    static let translated: [String] = [
        "firstName == 'Ada'", "firstName != 'Ada'", "firstName == nil", "firstName != nil", "nil == lastName",
        "salary > 3000", "salary >= 3000.5", "salary < 3000", "salary <= 3000.5", "3000 < salary", "age == 29",
        "age != 29", "age BETWEEN {26, 35}", "age IN {20, 23, 99}", "firstName IN {'Ada', 'Zoe', 'Nobody'}",
        "firstName BEGINSWITH 'A'", "firstName BEGINSWITH 'a'", "firstName ENDSWITH 'a'", "firstName CONTAINS 'ar'",
        "firstName CONTAINS '%'", "firstName CONTAINS '_'", "firstName BEGINSWITH 'É'",
        "NOT (salary > 3000)", "NOT (lastName == 'L1')", "NOT lastName BEGINSWITH 'L'",
        "salary > 1000 AND (firstName == 'Ada' OR lastName == nil)", "TRUEPREDICATE", "FALSEPREDICATE",
        "firstName < 'B'", "firstName >= 'a'", "lastName != nil AND NOT (age > 40 OR age < 25)",
        "department.name == 'Research'", "department.name != 'Research'", "department == nil", "department != nil",
        "nil != department", "department.name BEGINSWITH 'R' OR salary < 2000", "NOT department.name == 'Research'",
        "NOT (department.name < 'S' OR department.name > 'T')",
        // String comparisons with options, LIKE and MATCHES: evaluated by `mo_compare`.
        "firstName ==[c] 'ada'", "firstName BEGINSWITH[cd] 'e'", "firstName BEGINSWITH[c] 'é'", "firstName ENDSWITH[d] 'e'",
        "firstName CONTAINS[c] 'AR'", "firstName LIKE 'A*'", "firstName LIKE[c] 'a?a'", "firstName LIKE 'ann%'",
        "firstName MATCHES 'A.*'", "firstName MATCHES[c] '[a-c].*'", "firstName IN[c] {'ADA', 'zoe'}",
        "firstName !=[c] 'ada'", "NOT firstName LIKE[c] '*a*'",
        "department.name ==[c] 'research'", "NOT department.name BEGINSWITH[c] 'r'",
        // Through a to-many relationship: subqueries over its members.
        "ANY projects.title == 'X'", "ALL projects.title BEGINSWITH 'C'", "NONE projects.title ==[c] 'x'",
        "projects.@count == 0", "projects.@count > 1", "firstName CONTAINS ''",
    ]

    static let notTranslated: [String] = [
        "department.budget > 1000", "ANY projects.budget > 3", "salary == 'x'", "firstName == 3",
        "SUBQUERY(projects, $p, $p.title == 'X').@count > 0", "ANY department.employees.firstName == 'Ada'",
        "firstName ==[c] 3", "salary ==[c] 'x'", "lastName ==[cd] nil",
    ]

    @Test(arguments: translated)
    func translatedPredicatesSelectWhatInMemoryEvaluationSelects(_ format: String) throws {
        let (stack, store, objects, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let predicate = try KeyValuePredicate(format: format)
        let expected = try objects.filter { try predicate.evaluate(with: $0) }.map(\.objectID)
        let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate))
        #expect(result.appliedPredicate, "\(format) should translate")
        #expect(result.records.map(\.objectID) == expected, "\(format)")
    }

    @Test(arguments: notTranslated)
    func otherPredicatesReturnASupersetAndSaySo(_ format: String) throws {
        let (stack, store, objects, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let predicate = try KeyValuePredicate(format: format)
        let expected = Set(try objects.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
        let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate, fetchLimit: 2))
        #expect(!result.appliedPredicate, "\(format) should not translate")
        #expect(!result.appliedSortAndLimit)
        #expect(expected.isSubset(of: Set(result.records.map(\.objectID))), "\(format)")
    }

    @Test func partOfAnAndIsAppliedAndTheRestLeftToTheContext() throws {
        let (stack, store, _, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let predicate = try KeyValuePredicate(format: "salary > 5000 AND department.budget > 1000")
        let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate))
        #expect(!result.appliedPredicate)
        #expect(result.records.count == 7)  // salary > 5000 only
    }

    @Test func aMatchesPatternThatDoesNotCompileIsLeftToMemoryWhichThrows() throws {
        let (stack, store, objects, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        // The parser refuses such a pattern; a comparison made in code accepts it and throws when evaluated.
        let predicate = KeyValuePredicate.comparison(
            KeyValuePredicate.Comparison(.keyPath("firstName"), .matches, .constant("[a-")))
        let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate))
        #expect(!result.appliedPredicate)
        #expect(result.records.count == objects.count)
        #expect(throws: KeyValuePredicateError.self) { try context.fetch(FetchRequest<TestEmployee>(entityName: "Employee", predicate: predicate)) }
    }

    @Test func aFetchFilteredByMoCompareIsOneStatement() throws {
        let (stack, store, _, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let predicate = try KeyValuePredicate(format: "firstName BEGINSWITH[c] 'a'")
        var result: StoreFetchResult?
        let statements = try store.recordingSQL { result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)) }
        #expect(statements.count == 1, "the rows only: \(statements)")
        #expect(statements.first?.contains("mo_compare") == true, "\(statements)")
        // Reading a matched record's to-many relationship later selects by its key.
        let id = try #require(result?.records.first?.objectID)
        let projects = try #require(entity.relationshipsByName["projects"])
        let reading = try store.recordingSQL { _ = try store.relatedObjectIDs(of: id, through: projects) }
        #expect(reading.count == 1 && !reading[0].contains("mo_compare"), "\(reading)")
    }

    @Test func caseAndDiacriticInsensitiveComparisonsFilterInSQLWithUnicodeFolding() throws {
        let (stack, store, objects, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        // "EDOUARD" matches "Édouard" only with both options; SQLite's own LIKE and lower() fold ASCII only.
        for (format, count) in [("firstName ==[cd] 'EDOUARD'", 1), ("firstName ==[c] 'EDOUARD'", 0), ("firstName ==[c] 'ÉDOUARD'", 1)] {
            let predicate = try KeyValuePredicate(format: format)
            let statements = try #require(stack.sqliteStore).recordingSQL {
                let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate))
                #expect(result.appliedPredicate, "\(format)")
                #expect(result.records.count == count, "\(format)")
            }
            #expect(statements.first?.contains("mo_compare") == true, "\(format)")
            #expect(try objects.filter { try predicate.evaluate(with: $0) }.count == count, "\(format)")
        }
    }

    @Test func sortsLimitsAndOffsetsMatchInMemorySorting() throws {
        let (stack, store, objects, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let sorts = [KeyPathSortDescriptor(key: "lastName", ascending: false), KeyPathSortDescriptor(key: "age")]
        let predicate = try KeyValuePredicate(format: "salary > 1000")
        let expected = try objects.filter { try predicate.evaluate(with: $0) }.sorted(using: sorts).map(\.objectID)
        let all = try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate, sortDescriptors: sorts))
        #expect(all.appliedSortAndLimit)
        #expect(all.records.map(\.objectID) == expected)
        let page = try store.fetch(StoreFetchRequest(
            entity: entity, predicate: predicate, sortDescriptors: sorts, fetchLimit: 3, fetchOffset: 2))
        #expect(page.records.map(\.objectID) == Array(expected[2..<5]))
        let offsetOnly = try store.fetch(StoreFetchRequest(entity: entity, sortDescriptors: sorts, fetchOffset: 10))
        #expect(offsetOnly.records.count == 2)

        let localized = try store.fetch(StoreFetchRequest(
            entity: entity, sortDescriptors: [KeyPathSortDescriptor(key: "firstName", comparison: .caseInsensitive)], fetchLimit: 1))
        #expect(!localized.appliedSortAndLimit)
        #expect(localized.records.count == objects.count)
    }

    @Test func aFetchIsOneStatementLeavingToManyRelationshipsOut() throws {
        let (stack, store, _, context) = try makeData()
        defer { withExtendedLifetime(context) {} }
        let entity = try #require(stack.model.entity(named: "Employee"))
        let before = store.statementCount
        let result = try store.fetch(StoreFetchRequest(entity: entity, predicate: try KeyValuePredicate(format: "salary > 1000")))
        #expect(store.statementCount - before == 1)
        let toMany = Set(entity.relationships.filter(\.isToMany).map(\.index))
        #expect(!result.records.isEmpty && result.records.allSatisfy { $0.omittedRelationships == toMany })
    }

    /// Key paths through a to-one relationship run in SQL on saved rows; a fetch that must see
    /// unsaved changes of the related objects matches them in memory instead.
    @Test func toOneKeyPathsSeePendingChangesOfRelatedObjects() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let research = stack.department("Research")
        let sales = stack.department("Sales")
        for (name, department) in [("Ada", research), ("Grace", research), ("Alan", sales)] {
            stack.employee(name).department = department
        }
        _ = stack.employee("Nobody")
        try stack.context.save()
        let request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name == 'R&D'"))
        #expect(try stack.context.fetch(request).isEmpty)
        research.name = "R&D"
        #expect(Set(try stack.context.fetch(request).compactMap(\.firstName)) == ["Ada", "Grace"])
        #expect(try stack.context.count(for: request) == 2)
        var saved = request
        saved.includesPendingChanges = false
        #expect(try stack.context.fetch(saved).isEmpty)
        let other = FetchRequest<TestEmployee>(entityName: "Employee", predicate: try KeyValuePredicate(format: "department.name != 'Sales'"))
        let reader = stack.makeContext()
        #expect(Set(try reader.fetch(other).compactMap(\.firstName)) == ["Ada", "Grace", "Nobody"])
    }
}

/// Translations that must not change meaning: a constant on the left of `IN`, and table names
/// that look like the translator's own aliases.
@Suite struct SQLiteTranslationEdgeTests {
    @Test func aConstantOnTheLeftOfInIsNotTurnedAround() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        let research = stack.department("Research")
        stack.employee("Ada").department = research
        try stack.context.save()
        let store = try #require(stack.sqliteStore)
        let entity = try #require(stack.model.entity(named: "Employee"))
        let reference = StoreObjectReference(objectID: research.objectID)
        for (format, translates) in [("%@ IN department", false), ("%@ == department", true), ("department IN %@", true)] {
            let argument: Any = format.hasPrefix("department IN") ? [reference] : reference
            let predicate = try KeyValuePredicate(format: format, argumentArray: [argument])
            #expect(try store.fetch(StoreFetchRequest(entity: entity, predicate: predicate)).appliedPredicate == translates, "\(format)")
        }
    }

    @Test func stringComparisonsInSQLFollowSwiftsCanonicalEquivalence() throws {
        let stack = try TestStore.$kind.withValue(.sqlite) { try ManagedTestStack() }
        // Decomposed and composed "été", a line break that is one character, the Kelvin sign
        // (canonically "K"), plain ASCII.
        for name in ["e\u{301}te\u{301}", "\u{E9}t\u{E9}", "a\r\nb", "\u{212A}ate", "Kate", "plain", "f"] {
            _ = stack.employee(name)
        }
        try stack.context.save()
        let store = try #require(stack.sqliteStore)
        let reader = stack.makeContext()
        let all = try reader.fetch(FetchRequest<TestEmployee>(entityName: "Employee"))
        let cases: [(String, [Any])] = [
            ("firstName == %@", ["\u{E9}t\u{E9}"]), ("firstName == %@", ["e\u{301}te\u{301}"]), ("firstName == 'Kate'", []),
            ("firstName != 'Kate'", []), ("firstName IN %@", [["Kate", "plain"]]), ("firstName < 'f'", []), ("firstName >= 'f'", []),
            ("firstName BETWEEN {'a', 'f'}", []), ("firstName BEGINSWITH 'e'", []), ("firstName BEGINSWITH %@", ["a\r"]),
            ("firstName CONTAINS %@", ["\r"]), ("firstName ENDSWITH 'te'", []), ("NOT firstName == 'Kate'", []),
        ]
        for (format, arguments) in cases {
            let predicate = try KeyValuePredicate(format: format, argumentArray: arguments)
            let expected = Set(try predicate.filter(all).map(\.objectID))
            let request = FetchRequest<TestEmployee>(entityName: "Employee", predicate: predicate)
            var fetched: Set<ManagedObjectID> = []
            let statements = try store.recordingSQL { fetched = Set(try reader.fetchObjectIDs(request)) }
            #expect(fetched == expected, "\(format) \(arguments)")
            #expect(statements.count == 1, "answered by the store alone: \(format)")
        }
    }

    @Test func entitiesNamedLikeTheTranslatorsAliasesSelectWhatMemorySelects() throws {
        let model = try ManagedObjectModel {
            Entity("_Member") {
                Property("title", .string)
                Property("parent", to: "_Member", inverse: "children")
                Property("children", to: "_Member", inverse: "parent", toMany: true)
            }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let root = try writer.insertNewObject(forEntityName: "_Member")
        try root.setValue("root", forKey: "title")
        for title in ["a", "b"] {
            let child = try writer.insertNewObject(forEntityName: "_Member")
            try child.setValue(title, forKey: "title")
            try child.setValue(root, forKey: "parent")
        }
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "_Member"))
        for format in ["ANY children.title == 'a'", "parent.title == 'root'", "children.@count == 2"] {
            let predicate = try KeyValuePredicate(format: format)
            let expected = Set(try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            let fetched = Set(try reader.fetch(FetchRequest<ManagedObject>(entityName: "_Member", predicate: predicate)).map(\.objectID))
            #expect(fetched == expected, "\(format)")
            #expect(!expected.isEmpty, "\(format)")
        }
        var request = FetchRequest<ManagedObject>(entityName: "_Member")
        request.sortDescriptors = [KeyPathSortDescriptor(key: "parent.title", ascending: false), KeyPathSortDescriptor(key: "title")]
        let expectedOrder = try all.sorted(using: request.sortDescriptors).map(\.objectID)
        #expect(try reader.fetch(request).map(\.objectID) == expectedOrder)
    }
}
