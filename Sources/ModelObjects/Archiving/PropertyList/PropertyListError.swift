import Foundation

/// An error thrown while reading or writing a property list: data that is not a property list,
/// a corrupt or hostile binary or XML property list, or a value that the chosen format cannot
/// represent.
///
/// The readers never trap on bad input: every failure is reported as one of these, with the
/// byte offset in the input where the problem was found when there is one.
///
/// Match errors by code:
/// ```swift
/// do { _ = try PropertyListValue(decoding: data) }
/// catch PropertyListError.Code.corruptPropertyList { … }
/// ```
public struct PropertyListError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The data is damaged: truncated, an offset or object reference out of range, a
        /// malformed object, a malformed XML document or an invalid value in an XML element.
        public static let corruptPropertyList = Code(rawValue: 1)
        /// The data is not a property list in a format this library reads (binary `bplist00`
        /// or XML), for example a later binary version or an OpenStep text property list.
        public static let unsupportedFormat = Code(rawValue: 2)
        /// The property list holds an object of a kind this library does not support, such as
        /// a binary set or null, or a UTF-8 string object of a later binary version.
        public static let unsupportedObjectType = Code(rawValue: 3)
        /// Arrays and dictionaries are nested deeper than the reader's or writer's limit.
        public static let nestingTooDeep = Code(rawValue: 4)
        /// A binary property list's object references form a cycle (an array containing
        /// itself, directly or not).
        public static let cyclicReference = Code(rawValue: 5)
        /// The property list exceeds a size limit, for example objects shared so many times
        /// that the value tree would be far larger than the data.
        public static let limitExceeded = Code(rawValue: 6)
        /// A value cannot be written in the requested format, for example a date that is not
        /// finite in an XML property list.
        public static let unrepresentableValue = Code(rawValue: 7)

        public var description: String {
            switch self {
            case .corruptPropertyList: "corruptPropertyList"
            case .unsupportedFormat: "unsupportedFormat"
            case .unsupportedObjectType: "unsupportedObjectType"
            case .nestingTooDeep: "nestingTooDeep"
            case .cyclicReference: "cyclicReference"
            case .limitExceeded: "limitExceeded"
            case .unrepresentableValue: "unrepresentableValue"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch PropertyListError.Code.nestingTooDeep`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? PropertyListError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The byte offset in the input where the problem was found, when reading.
    public var offset: Int?
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, offset: Int? = nil, message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String {
        var text = "PropertyListError.\(code)"
        if let offset { text += " at byte \(offset)" }
        text += ": \(message)"
        return text
    }
}

extension PropertyListError: LocalizedError {
    public var errorDescription: String? { description }
}

extension PropertyListError {
    static func corrupt(_ message: String, at offset: Int?) -> PropertyListError {
        PropertyListError(.corruptPropertyList, offset: offset, message: message)
    }
}

/// Limits shared by the property-list readers and writers, so that whatever is written can be
/// read back.
package enum PropertyListLimits {
    /// How deeply arrays and dictionaries may nest: a container may sit inside at most this
    /// many enclosing containers minus one. 512 nested arrays are accepted, 513 are not.
    package static let maximumDepth = 512
}
