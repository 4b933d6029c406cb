import Foundation
import Testing
@testable import ManagedObjects

/// `preservesValueInHistoryOnDeletion`, from the builder and from Xcode's model files.
@Suite struct AttributeHistoryPreservationTests {
    private func loadModel(attributes: String) throws -> ManagedObjectModel {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("History.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Note" syncable="YES">
                    \(attributes)
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        return try ManagedObjectModel(contentsOf: url)
    }

    @Test func builderSetsThePreservationFlagWhichDefaultsToFalse() throws {
        let model = try HistoryTestModel.make()
        let note = try #require(model.entity(named: "Note"))
        #expect(note.attributesByName["uuid"]?.preservesValueInHistoryOnDeletion == true)
        #expect(note.attributesByName["body"]?.preservesValueInHistoryOnDeletion == false)
        #expect(note.tombstoneAttributes.map(\.name) == ["uuid", "title"])
    }

    @Test func preservationDoesNotChangeTheVersionHash() throws {
        let plain = try ManagedObjectModel { Entity("Note") { Property("uuid", .uuid) } }
        let preserved = try ManagedObjectModel { Entity("Note") { Property("uuid", .uuid, preservesValueInHistoryOnDeletion: true) } }
        #expect(plain.versionHash == preserved.versionHash)
    }

    @Test func modelFilesReadPreserveAfterDeletion() throws {
        let model = try loadModel(attributes: """
            <attribute name="uuid" optional="YES" attributeType="UUID" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
            <attribute name="title" optional="YES" attributeType="String" preserveAfterDeletion="NO"/>
            <attribute name="body" optional="YES" attributeType="String"/>
            """)
        let note = try #require(model.entity(named: "Note"))
        #expect(note.attributesByName["uuid"]?.preservesValueInHistoryOnDeletion == true)
        #expect(note.attributesByName["title"]?.preservesValueInHistoryOnDeletion == false)
        #expect(note.attributesByName["body"]?.preservesValueInHistoryOnDeletion == false)
    }

    @Test func modelFilesRefuseAPreserveAfterDeletionThatIsNeitherYesNorNo() throws {
        expectModelError(.malformedModelFile) {
            try loadModel(attributes: #"<attribute name="uuid" attributeType="UUID" preserveAfterDeletion="maybe"/>"#)
        }
    }
}
