import Foundation

/// The property-list entry points of the archivers: a tree to binary (`bplist00`) or XML bytes,
/// and either form back, with reader failures reported as archive corruption.
enum PropertyListEncoding {
    static func encode(_ value: PropertyListValue, format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        do {
            return try value.encodedData(as: format == .xml ? .xml : .binary)
        } catch let error as PropertyListError {
            throw ArchiveError(.invalidValue, message: "the archive cannot be written as a property list: \(error)")
        }
    }

    static func decode(_ data: Data) throws -> PropertyListValue {
        do {
            return try PropertyListValue.decode(data).value
        } catch let error as PropertyListError {
            throw ArchiveError(.corruptArchive, message: "not a readable property list: \(error)")
        }
    }
}

extension PropertyListDictionary: ExpressibleByArrayLiteral {
    /// A dictionary from entries in order, as archives are written: `[(key: "$class", value: …)]`.
    /// A repeated key keeps its first place and takes the later value.
    package init(arrayLiteral entries: (key: String, value: PropertyListValue)...) {
        self.init(entries.map { ($0.key, $0.value) })
    }

    /// A dictionary from entries in order.
    init(entries: [(key: String, value: PropertyListValue)]) {
        self.init(checkingEntries: entries)
    }
}
