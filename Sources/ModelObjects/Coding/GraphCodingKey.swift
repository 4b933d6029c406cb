/// The keys of an encoded model object: its declared keys, and the few of the graph's own.
///
/// Corresponds to nothing in Cocoa; the keyed archiver's `$class` and `CF$UID` play the part of
/// ``classKey`` and ``referenceKey``.
package struct GraphCodingKey: CodingKey, Hashable {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(_ key: String) { stringValue = key }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }

    /// The number of an object that the graph refers to elsewhere.
    package static let identifier = GraphCodingKey("@id")
    /// A reference to an object encoded elsewhere in the graph, by its ``identifier``.
    package static let reference = GraphCodingKey("@ref")
    /// The class of an object whose class is a subclass of the relationship's declared one.
    package static let classKey = GraphCodingKey("@class")
}
