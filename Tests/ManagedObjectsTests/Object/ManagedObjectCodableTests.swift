import Foundation
import ModelObjects
import SampleModels
import Testing

@testable import ManagedObjects

@Suite struct ManagedObjectCodableTests {
    /// A context on an in-memory store of the sample model, with one saved department.
    private struct Fixture {
        let context: ManagedObjectContext
        let research: ManagedDepartment

        init() throws {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try SampleModel.makeModel())
            try coordinator.addPersistentStore(type: .inMemory)
            context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
            research = ManagedDepartment(context: context)
            research.name = "Research"
            try context.save()
        }

        var researchURI: String { research.objectID.uriRepresentation().absoluteString }

        func insert(_ json: String) throws -> ManagedEmployee {
            try context.insertObject(ManagedEmployee.self, from: Data(json.utf8))
        }

        /// Inserting `json` must fail with a decoding error, leaving nothing inserted.
        func refusal(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> DecodingError? {
            let error = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { _ = try insert(json) }
            #expect(context.insertedObjects.isEmpty, sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func encodingWritesAttributesAndRelationshipsByObjectIDURIs() throws {
        let fixture = try Fixture()
        let ada = ManagedEmployee(context: fixture.context)
        ada.firstName = "Ada"
        ada.salary = 100
        ada.department = fixture.research
        try fixture.context.save()
        let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(ada)) as? [String: Any]
        let json = try #require(object)
        #expect(json["@entity"] as? String == "Employee")
        #expect(json["@id"] as? String == ada.objectID.uriRepresentation().absoluteString)
        #expect(json["firstName"] as? String == "Ada")
        #expect(json["salary"] as? Double == 100)
        #expect(json["department"] as? String == fixture.researchURI)
        #expect(json["directReports"] as? [String] == [])
        #expect(json["manager"] is NSNull)
        let department = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(fixture.research)) as? [String: Any]
        #expect(department?["employees"] as? [String] == [ada.objectID.uriRepresentation().absoluteString])
    }

    @Test func anEncodedObjectImportsAsANewObjectWithTheSameValues() throws {
        let fixture = try Fixture()
        let ada = ManagedEmployee(context: fixture.context)
        ada.firstName = "Ada"
        ada.age = 36
        ada.department = fixture.research
        try fixture.context.save()
        let copy = try fixture.context.insertObject(ManagedEmployee.self, from: try JSONEncoder().encode(ada))
        #expect(copy !== ada && copy.isInserted)
        #expect(copy.firstName == "Ada" && copy.age == 36 && copy.department === fixture.research)
        #expect(fixture.research.employees == [ada, copy])
        try fixture.context.save()
    }

    @Test func importInsertsNestedObjectsAndLinksExistingOnes() throws {
        let fixture = try Fixture()
        let boss = try fixture.insert("""
            {"firstName": "Grace", "salary": 200, "department": "\(fixture.researchURI)",
             "directReports": [{"firstName": "Alan", "department": "\(fixture.researchURI)"}]}
            """)
        #expect(boss.firstName == "Grace" && boss.salary == 200)
        let report = try #require(boss.directReports.first)
        #expect(report.firstName == "Alan" && report.manager === boss)
        #expect(fixture.research.employees == [boss, report])
        #expect(fixture.context.insertedObjects.count == 2)
    }

    @Test func aRequiredKeyWithoutDefaultMustBePresent() throws {
        let coordinator = PersistentStoreCoordinator(
            managedObjectModel: try ManagedObjectModel(classes: [CMReadmeDepartment.self, CMReadmeEmployee.self]))
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let error = #expect(throws: DecodingError.self) {
            _ = try context.insertObject(CMReadmeDepartment.self, from: Data(#"{"employees": []}"#.utf8))
        }
        guard case .keyNotFound(let key, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(key.stringValue == "name")
        #expect(context.insertedObjects.isEmpty)
    }

    @Test func anUnknownKeyIsRefused() throws {
        let error = try Fixture().refusal(#"{"firstName": "Ada", "nickname": "A"}"#)
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.last?.stringValue == "nickname")
    }

    @Test func aValueOfTheWrongTypeIsRefused() throws {
        let error = try Fixture().refusal(#"{"salary": "lots"}"#)
        guard case .typeMismatch? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func nullInANonOptionalAttributeIsRefused() throws {
        let error = try Fixture().refusal(#"{"firstName": null}"#)
        guard case .valueNotFound? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func aStringThatIsNoObjectIDIsRefused() throws {
        let error = try Fixture().refusal(#"{"department": "Research"}"#)
        guard case .dataCorrupted? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func aURIThatNamesNoObjectInsertsNothing() throws {
        let fixture = try Fixture()
        let error = fixture.refusal("""
            {"firstName": "Grace", "directReports": [{"firstName": "Alan"}],
             "department": "x-coredata://00000000-0000-0000-0000-000000000000/Department/p99"}
            """)
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.last?.stringValue == "department")
    }

    @Test func anObjectOfTheWrongEntityInsertsNothing() throws {
        let fixture = try Fixture()
        let error = fixture.refusal(#"{"firstName": "Grace", "manager": "\#(fixture.researchURI)"}"#)
        guard case .typeMismatch? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(fixture.research.employees.isEmpty)
    }

    @Test func anEntityNameOutsideTheExpectedOneIsRefused() throws {
        let error = try Fixture().refusal(#"{"@entity": "Department"}"#)
        guard case .dataCorrupted? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func decodingNeedsTheModelInUserInfo() {
        let error = #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(ManagedObjectPayload<ManagedEmployee>.self, from: Data("{}".utf8))
        }
        guard case .dataCorrupted? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test func plainManagedObjectPayloadsNameTheirEntity() throws {
        let fixture = try Fixture()
        let decoder = JSONDecoder()
        decoder.userInfo[.managedObjectModel] = fixture.context.persistentStoreCoordinator.managedObjectModel
        let payload = try decoder.decode(
            ManagedObjectPayload<ManagedObject>.self, from: Data(#"{"@entity": "Department", "name": "Ops"}"#.utf8))
        let ops = try payload.insert(into: fixture.context)
        #expect(ops.entity.name == "Department")
        #expect(try ops.value(forKey: "name") as? String == "Ops")
        let error = #expect(throws: DecodingError.self) {
            _ = try decoder.decode(ManagedObjectPayload<ManagedObject>.self, from: Data(#"{"name": "Ops"}"#.utf8))
        }
        guard case .keyNotFound? = error else { Issue.record("\(String(describing: error))"); return }
    }
}
