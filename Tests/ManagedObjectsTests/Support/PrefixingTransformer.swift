import Foundation
@testable import ManagedObjects

/// Writes `prefix:` before a string and reads back only its own prefix: registered again with
/// another prefix, it cannot read what it wrote before, which is how tests make a stored value
/// unreadable.
struct PrefixingTransformer: ValueTransforming {
    let prefix: String

    func transformedValue(_ value: Any) throws -> Data {
        guard let string = value as? String else { throw CocoaError(.coderInvalidValue) }
        return Data("\(prefix):\(string)".utf8)
    }

    func reverseTransformedValue(_ data: Data) throws -> Any {
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("\(prefix):") else { throw CocoaError(.coderReadCorrupt) }
        return String(text.dropFirst(prefix.count + 1))
    }

    /// Registers a transformer with `prefix` under a name no other test uses (`owner` and a
    /// UUID) and returns the name; the test unregisters it (`ValueTransformerRegistry.unregister`).
    static func registerUniquely(for owner: String, prefix: String) -> String {
        let name = "\(owner).\(UUID().uuidString)"
        ValueTransformerRegistry.register(PrefixingTransformer(prefix: prefix), forName: name)
        return name
    }
}
