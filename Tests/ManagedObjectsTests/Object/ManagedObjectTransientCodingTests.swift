import Foundation
import Testing

@testable import ManagedObjects

final class MTNote: ManagedObject {
    @Managed(.required, defaultValue: "") var text: String
    @Managed(.transient) var draft: String?
}

/// Transient properties are in-memory state: a managed object's encoding leaves them out and
/// an import refuses them.
@Suite struct ManagedObjectTransientCodingTests {
    private func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(classes: [MTNote.self]))
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    @Test func encodingLeavesTransientPropertiesOut() throws {
        let context = try context()
        let note = MTNote(context: context)
        note.text = "Buy tea"
        note.draft = "Buy te"
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(note)) as? [String: Any]
        #expect(json?["text"] as? String == "Buy tea")
        #expect(json?.keys.contains("draft") == false)
    }

    @Test func anEncodedObjectImportsWithoutItsTransientValue() throws {
        let context = try context()
        let note = MTNote(context: context)
        note.text = "Buy tea"
        note.draft = "Buy te"
        let copy = try context.insertObject(MTNote.self, from: try JSONEncoder().encode(note))
        #expect(copy.text == "Buy tea")
        #expect(copy.draft == nil)
    }

    @Test func aPayloadThatSetsATransientPropertyIsRefused() throws {
        let context = try context()
        let error = #expect(throws: DecodingError.self) {
            _ = try context.insertObject(MTNote.self, from: Data(#"{"text":"Buy tea","draft":"Buy te"}"#.utf8))
        }
        guard case .dataCorrupted(let details)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(details.codingPath.last?.stringValue == "draft")
        #expect(details.debugDescription.contains("transient"))
        #expect(context.insertedObjects.isEmpty)
    }
}
