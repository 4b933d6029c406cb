import Foundation
import ModelObjects
import Testing

/// A model class with state it does not declare: a plain stored property, the transient
/// property of a `ModelObject` (SwiftData's `@Transient`).
final class CTSketch: ModelObject {
    @Attribute var title = ""
    var thumbnailCache: Data? = Data([1])
}

/// What is not declared is neither encoded nor accepted by decoding.
@Suite struct TransientCodingTests {
    @Test func undeclaredStoredPropertiesAreNotEncoded() throws {
        let sketch = CTSketch()
        sketch.title = "Bridge"
        sketch.thumbnailCache = Data([9, 9])
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(sketch)) as? [String: Any]
        #expect(json?["title"] as? String == "Bridge")
        #expect(json?["thumbnailCache"] == nil)
    }

    @Test func decodingGivesUndeclaredPropertiesTheirInitialValue() throws {
        let sketch = CTSketch()
        sketch.thumbnailCache = Data([9, 9])
        let copy = try JSONDecoder().decode(ModelGraph<CTSketch>.self, from: try JSONEncoder().encode(sketch)).root
        #expect(copy.thumbnailCache == Data([1]))
    }

    @Test func aKeyOfAnUndeclaredPropertyIsRefused() throws {
        let json = #"{"title":"Bridge","thumbnailCache":"AQ=="}"#
        let error = #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(ModelGraph<CTSketch>.self, from: Data(json.utf8))
        }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.last?.stringValue == "thumbnailCache")
    }
}
