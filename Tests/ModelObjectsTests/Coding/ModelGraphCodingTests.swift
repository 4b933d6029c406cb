import Foundation
import ModelObjects
import SampleModels
import Testing

// Classes for the coding tests: a folder that owns its notes, notes that refer to each other,
// a subclass met through a relationship declared with its superclass, and an attribute that
// cannot be encoded.

final class CGFolder: ModelObject {
    @Attribute var title = ""
    @Attribute var color: String? = "blue"
    @Relationship var notes: Set<CGNote> = []
    @Relationship var pinned: CGNote?
    override class func ownsRelatedObjects(forKey key: String) -> Bool { key == "notes" }
}

class CGNote: ModelObject {
    @Attribute var text = ""
    @Relationship var folder: CGFolder?
    @Relationship var seeAlso: [CGNote] = []
}

final class CGChecklist: CGNote {
    @Attribute var done = false
}

/// References everywhere, even for what it owns: its notes are written where the folder is.
final class CGIndex: ModelObject {
    @Relationship var entries: [CGNote] = []
    @Relationship var folder: CGFolder?
    override class func relationshipCoding(forKey key: String) -> RelationshipCoding {
        key == "folder" ? .nested : .reference
    }
}

struct CGOpaque: Sendable { var bits = 0 }

final class CGUnencodable: ModelObject {
    @Attribute var opaque = CGOpaque()
}

@Suite struct ModelGraphCodingTests {
    /// A department whose employees point back at it, one managing the other.
    private func company() -> Department {
        let research = Department(name: "Research", budget: 1000)
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 100)
        let bob = Employee(firstName: "Bob", lastName: "Babbage", employeeID: 2, salary: 90)
        research.employees = [ada, bob]
        ada.department = research
        bob.department = research
        bob.manager = ada
        ada.directReports = [bob]
        return research
    }

    private func checkCompany(_ research: Department) throws {
        #expect(research.name == "Research" && research.budget == 1000)
        try #require(research.employees.count == 2)
        let ada = research.employees[0], bob = research.employees[1]
        #expect(ada.firstName == "Ada" && bob.lastName == "Babbage" && bob.salary == 90)
        #expect(ada.department === research && bob.department === research)
        #expect(bob.manager === ada)
        #expect(ada.directReports.count == 1 && ada.directReports.first === bob)
    }

    @Test func jsonRoundTripKeepsCyclesAndSharedObjects() throws {
        let data = try JSONEncoder().encode(company())
        let copy = try JSONDecoder().decode(ModelGraph<Department>.self, from: data).root
        try checkCompany(copy)
    }

    @Test func propertyListRoundTripKeepsCyclesAndSharedObjects() throws {
        let data = try PropertyListEncoder().encode(ModelGraph(root: company()))
        let copy = try PropertyListDecoder().decode(ModelGraph<Department>.self, from: data).root
        try checkCompany(copy)
    }

    @Test func ownedObjectsAreNestedAndOthersReferred() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let folder = CGFolder()
        folder.title = "Work"
        let note = CGNote()
        note.text = "Call"
        note.folder = folder
        folder.notes = [note]
        folder.pinned = note
        let json = try #require(String(data: try encoder.encode(folder), encoding: .utf8))
        // The folder owns its notes: the note is written there, and `pinned` refers to it.
        #expect(json == #"{"@id":0,"color":"blue","notes":[{"@id":1,"folder":{"@ref":0},"seeAlso":[],"text":"Call"}],"pinned":{"@ref":1},"title":"Work"}"#)
    }

    @Test func referencesMayPointForward() throws {
        let folder = CGFolder()
        let first = CGNote(), second = CGNote()
        first.text = "1"
        second.text = "2"
        folder.notes = [first, second]
        let index = CGIndex()
        index.entries = [second, first]
        index.folder = folder
        let data = try JSONEncoder().encode(index)
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains(#"{"@ref":"#))
        let copy = try JSONDecoder().decode(ModelGraph<CGIndex>.self, from: data).root
        #expect(copy.entries.map(\.text) == ["2", "1"])
        #expect(copy.folder?.notes.count == 2)
        #expect(copy.entries.allSatisfy { entry in copy.folder?.notes.contains(entry) == true })
    }

    @Test func subclassesRecordTheirClass() throws {
        let folder = CGFolder()
        let checklist = CGChecklist()
        checklist.done = true
        folder.notes = [checklist]
        let data = try JSONEncoder().encode(folder)
        #expect(String(data: data, encoding: .utf8)?.contains("CGChecklist") == true)
        let copy = try JSONDecoder().decode(ModelGraph<CGFolder>.self, from: data).root
        let decoded = try #require(copy.notes.first as? CGChecklist)
        #expect(decoded.done)
    }

    @Test func missingOptionalKeysKeepTheInitialValue() throws {
        let json = #"{"title":"T","notes":[]}"#
        let folder = try JSONDecoder().decode(ModelGraph<CGFolder>.self, from: Data(json.utf8)).root
        #expect(folder.title == "T" && folder.color == "blue" && folder.pinned == nil)
    }

    // MARK: - Errors

    private func decodingError(_ json: String) -> DecodingError? {
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(ModelGraph<CGFolder>.self, from: Data(json.utf8))
        }
    }

    @Test func anUnknownKeyIsRefused() throws {
        let error = try #require(decodingError(#"{"title":"T","notes":[],"colour":"red"}"#))
        guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.last?.stringValue == "colour")
    }

    @Test func aMissingKeyIsRefused() throws {
        let error = try #require(decodingError(#"{"notes":[]}"#))
        guard case .keyNotFound(let key, _) = error else { Issue.record("\(error)"); return }
        #expect(key.stringValue == "title")
    }

    @Test func aValueOfTheWrongTypeIsRefused() throws {
        let error = try #require(decodingError(#"{"title":7,"notes":[]}"#))
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
    }

    @Test func aReferenceToNoObjectIsRefused() throws {
        let error = try #require(decodingError(#"{"title":"T","notes":[],"pinned":{"@ref":9}}"#))
        guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.last?.stringValue == "pinned")
    }

    @Test func twoObjectsWithOneNumberAreRefused() throws {
        let error = try #require(
            decodingError(#"{"@id":0,"title":"T","notes":[{"@id":0,"text":"","seeAlso":[]}]}"#))
        guard case .dataCorrupted = error else { Issue.record("\(error)"); return }
    }

    @Test func aReferenceWithOtherKeysIsRefused() throws {
        let error = try #require(decodingError(#"{"@id":0,"title":"T","notes":[],"pinned":{"@ref":0,"text":""}}"#))
        guard case .dataCorrupted = error else { Issue.record("\(error)"); return }
    }

    @Test func aReferenceToAnObjectOfAnotherClassIsRefused() throws {
        let error = try #require(decodingError(#"{"@id":0,"title":"T","notes":[],"pinned":{"@ref":0}}"#))
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }
    }

    @Test func aClassThatIsNoSubclassIsRefused() throws {
        let error = try #require(
            decodingError(#"{"title":"T","notes":[{"@class":"ModelObjectsTests.CGFolder","title":"","notes":[]}]}"#))
        guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.last?.stringValue == "@class")
    }

    @Test func anAttributeThatIsNotEncodableIsRefused() {
        #expect(throws: EncodingError.self) {
            _ = try JSONEncoder().encode(CGUnencodable())
        }
    }
}
