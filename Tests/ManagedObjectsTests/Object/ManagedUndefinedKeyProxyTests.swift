import Foundation
import ManagedObjects
import ModelObjects
import Testing

/// A managed class that serves a key its entity does not model, `tags`, through the
/// undefined-key hooks.
final class TaggedNote: ManagedObject {
    var tagStorage: Set<String> = ["draft"]

    override func value(forUndefinedKey key: String) throws -> Any? {
        if key == "tags" { return tagStorage }
        return try super.value(forUndefinedKey: key)
    }

    override func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        guard key == "tags" else { return try super.setValue(value, forUndefinedKey: key) }
        tagStorage = Set((value as? Set<AnyHashable>)?.compactMap { $0.base as? String } ?? [])
    }
}

/// Mutable proxies of managed objects fall back to the undefined-key hooks for keys the entity
/// does not model, and still throw at once when nothing serves the key.
@Suite struct ManagedUndefinedKeyProxyTests {
    private func makeNote() throws -> TaggedNote {
        let model = try ManagedObjectModel {
            Entity("Note", class: TaggedNote.self) { Property("title", .string) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        return TaggedNote(context: context)
    }

    @Test func aSetProxyGoesThroughTheHooksForAKeyTheClassServes() throws {
        let note = try makeNote()
        let tags = try note.mutableSetValue(forKey: "tags")
        try tags.insert("urgent")
        #expect(note.tagStorage == ["draft", "urgent"])
        #expect(try tags.count() == 2)
    }

    @Test func aKeyNeitherModeledNorServedStillThrowsAtOnce() throws {
        let note = try makeNote()
        #expect { _ = try note.mutableSetValue(forKey: "noSuchKey") } throws: { error in
            KeyValueCodingError.Code.undefinedKey ~= error
        }
        #expect { _ = try note.mutableArrayValue(forKey: "noSuchKey") } throws: { error in
            KeyValueCodingError.Code.undefinedKey ~= error
        }
    }
}
