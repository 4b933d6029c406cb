import Foundation

// A struct rather than an enum, like the error codes: Core Data has added attribute types over
// the years (UUID, URI, composite), and a struct lets this library do the same without breaking
// clients that switch over the type. Switch with a `default` case.

/// The kind of value an attribute holds, with Core Data's raw values and the Swift type of the value.
///
/// The Swift type is what a managed object stores for the attribute and what
/// ``AttributeDescription/defaultValue`` holds: `.integer16` is `Int16`, `.decimal` is `Decimal`,
/// `.date` is `Date`, `.uri` is `URL`. Transformable attributes store any value and keep it as
/// `Data` through a ``ValueTransforming`` transformer.
///
/// ```swift
/// let type = AttributeType.integer32
/// type.rawValue       // 200
/// type.valueType      // Int32.self
/// type.xcodeName      // "Integer 32"
/// ```
///
/// Corresponds to Core Data's `NSAttributeType`; differences: a struct with static constants rather
/// than an enum, and no `composite` type.
public struct AttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric value, as Core Data's.
    ///
    /// Corresponds to `NSAttributeType.rawValue`.
    public var rawValue: UInt
    /// Creates a type from its numeric value.
    ///
    /// Corresponds to `NSAttributeType(rawValue:)`; differences: never fails; unknown values are kept.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// No type: allowed only for transient attributes (`NSUndefinedAttributeType`, 0).
    ///
    /// Corresponds to Core Data's `NSAttributeType.undefinedAttributeType`.
    public static let undefined = AttributeType(rawValue: 0)
    /// A 16-bit integer, `Int16` (`NSInteger16AttributeType`, 100).
    ///
    /// Corresponds to Core Data's `NSAttributeType.integer16AttributeType`.
    public static let integer16 = AttributeType(rawValue: 100)
    /// A 32-bit integer, `Int32` (`NSInteger32AttributeType`, 200).
    ///
    /// Corresponds to Core Data's `NSAttributeType.integer32AttributeType`.
    public static let integer32 = AttributeType(rawValue: 200)
    /// A 64-bit integer, `Int64` (`NSInteger64AttributeType`, 300).
    ///
    /// Corresponds to Core Data's `NSAttributeType.integer64AttributeType`.
    public static let integer64 = AttributeType(rawValue: 300)
    /// A decimal number, `Decimal` (`NSDecimalAttributeType`, 400).
    ///
    /// Corresponds to Core Data's `NSAttributeType.decimalAttributeType`.
    public static let decimal = AttributeType(rawValue: 400)
    /// A double-precision floating-point number, `Double` (`NSDoubleAttributeType`, 500).
    ///
    /// Corresponds to Core Data's `NSAttributeType.doubleAttributeType`.
    public static let double = AttributeType(rawValue: 500)
    /// A single-precision floating-point number, `Float` (`NSFloatAttributeType`, 600).
    ///
    /// Corresponds to Core Data's `NSAttributeType.floatAttributeType`.
    public static let float = AttributeType(rawValue: 600)
    /// A string, `String` (`NSStringAttributeType`, 700).
    ///
    /// Corresponds to Core Data's `NSAttributeType.stringAttributeType`.
    public static let string = AttributeType(rawValue: 700)
    /// A Boolean, `Bool` (`NSBooleanAttributeType`, 800).
    ///
    /// Corresponds to Core Data's `NSAttributeType.booleanAttributeType`.
    public static let boolean = AttributeType(rawValue: 800)
    /// A date, `Date` (`NSDateAttributeType`, 900).
    ///
    /// Corresponds to Core Data's `NSAttributeType.dateAttributeType`.
    public static let date = AttributeType(rawValue: 900)
    /// Bytes, `Data` (`NSBinaryDataAttributeType`, 1000).
    ///
    /// Corresponds to Core Data's `NSAttributeType.binaryDataAttributeType`.
    public static let binaryData = AttributeType(rawValue: 1000)
    /// A UUID, `UUID` (`NSUUIDAttributeType`, 1100).
    ///
    /// Corresponds to Core Data's `NSAttributeType.UUIDAttributeType`.
    public static let uuid = AttributeType(rawValue: 1100)
    /// A URL, `URL` (`NSURIAttributeType`, 1200).
    ///
    /// Corresponds to Core Data's `NSAttributeType.URIAttributeType`.
    public static let uri = AttributeType(rawValue: 1200)
    /// Any value, stored as `Data` through a ``ValueTransforming`` transformer
    /// (`NSTransformableAttributeType`, 1800).
    ///
    /// Corresponds to Core Data's `NSAttributeType.transformableAttributeType`.
    public static let transformable = AttributeType(rawValue: 1800)
    /// A managed object ID (`NSObjectIDAttributeType`, 2000); used by fetch expressions.
    ///
    /// Corresponds to Core Data's `NSAttributeType.objectIDAttributeType`.
    public static let objectID = AttributeType(rawValue: 2000)

    /// Every type this library knows, in raw-value order.
    ///
    /// Corresponds to nothing in Core Data.
    public static let allKnown: [AttributeType] = [
        .undefined, .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean,
        .date, .binaryData, .uuid, .uri, .transformable, .objectID,
    ]

    /// The Swift type of the attribute's values; nil for undefined, transformable and object-ID
    /// attributes, whose values may be of any type.
    ///
    /// Corresponds to the attribute value classes Core Data documents per type (`NSNumber`,
    /// `NSString`, …); differences: Swift value types.
    public var valueType: Any.Type? {
        switch self {
        case .integer16: Int16.self
        case .integer32: Int32.self
        case .integer64: Int64.self
        case .decimal: Decimal.self
        case .double: Double.self
        case .float: Float.self
        case .string: String.self
        case .boolean: Bool.self
        case .date: Date.self
        case .binaryData: Data.self
        case .uuid: UUID.self
        case .uri: URL.self
        default: nil
        }
    }

    /// Whether the type is an integer type (16, 32 or 64 bits).
    ///
    /// Corresponds to nothing in Core Data.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// Whether the type is a number: an integer, decimal, double or float. Numbers (and dates)
    /// take ``AttributeDescription/minimumValue`` and ``AttributeDescription/maximumValue``.
    ///
    /// Corresponds to nothing in Core Data.
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }

    /// The name Xcode's model editor writes in a model file (`"Integer 16"`, `"Binary"`); nil for a
    /// type Xcode has no name for.
    ///
    /// Corresponds to the `attributeType` attribute of Xcode's model XML.
    public var xcodeName: String? {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binaryData: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "Object ID"
        default: nil
        }
    }

    /// Creates the type Xcode's model editor writes under `name`, or nil for a name it does not know.
    ///
    /// Corresponds to how Core Data's model compiler reads `attributeType` in Xcode's model XML.
    public init?(xcodeName name: String) {
        guard let type = Self.allKnown.first(where: { $0.xcodeName == name }) else { return nil }
        self = type
    }

    /// A name for the type: the constant's name (`"integer16"`), or the raw value for unknown types.
    ///
    /// Corresponds to nothing in Core Data, whose enum prints its raw value.
    public var description: String {
        switch self {
        case .undefined: "undefined"
        case .integer16: "integer16"
        case .integer32: "integer32"
        case .integer64: "integer64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .binaryData: "binaryData"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        case .objectID: "objectID"
        default: "AttributeType(\(rawValue))"
        }
    }
}
