import Foundation

/// Serializes property-list trees as binary (`bplist00`) or XML property lists, and reads
/// either form back.
enum PropertyListEncoding {
    static func encode(_ value: PropertyListValue, format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        throw ArchiveError(.unsupportedOperation, message: "property-list writer not yet linked")
    }

    static func decode(_ data: Data) throws -> PropertyListValue {
        throw ArchiveError(.unsupportedOperation, message: "property-list reader not yet linked")
    }
}
