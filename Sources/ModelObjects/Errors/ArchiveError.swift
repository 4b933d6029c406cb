import Foundation

/// An error thrown while archiving or unarchiving: a corrupt or hostile archive, a missing or
/// wrong-typed value, a class the unarchiver does not know, a value the archiver cannot encode.
///
/// Decoding never traps on bad input: truncated or mutated bytes, dangling or self-referencing
/// UIDs, absurd counts and deep nesting all end in an `ArchiveError`.
///
/// Codes reuse Cocoa's numbers where Cocoa has them (`NSCoderReadCorruptError` 4864,
/// `NSCoderValueNotFoundError` 4865, `NSCoderInvalidValueError` 4866).
public struct ArchiveError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The data is not a well-formed archive (`NSCoderReadCorruptError`).
        public static let corruptArchive = Code(rawValue: 4864)
        /// A value asked for is missing (`NSCoderValueNotFoundError`).
        public static let valueNotFound = Code(rawValue: 4865)
        /// A value cannot be encoded (`NSCoderInvalidValueError`).
        public static let invalidValue = Code(rawValue: 4866)
        /// The archive names a class this process does not know or is not allowed to decode.
        public static let unknownClass = Code(rawValue: 4870)
        /// A decoded value does not have the type asked for.
        public static let typeMismatch = Code(rawValue: 4871)
        /// Objects are nested deeper than the unarchiver allows.
        public static let nestingTooDeep = Code(rawValue: 4872)
        /// The operation needs the other kind of coder (keyed or sequential).
        public static let unsupportedOperation = Code(rawValue: 4873)

        public var description: String {
            switch self {
            case .corruptArchive: "corruptArchive"
            case .valueNotFound: "valueNotFound"
            case .invalidValue: "invalidValue"
            case .unknownClass: "unknownClass"
            case .typeMismatch: "typeMismatch"
            case .nestingTooDeep: "nestingTooDeep"
            case .unsupportedOperation: "unsupportedOperation"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch ArchiveError.Code.unknownClass`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ArchiveError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The key being encoded or decoded, when there is one.
    public var key: String?
    /// The class name involved, for unknown classes and type mismatches.
    public var className: String?
    /// A readable explanation, with the byte offset for corrupt property lists.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, key: String? = nil, className: String? = nil, message: String) {
        self.code = code
        self.key = key
        self.className = className
        self.message = message
    }

    public var description: String {
        var text = "ArchiveError.\(code)"
        if let className { text += " [\(className)]" }
        if let key { text += " key '\(key)'" }
        return text + ": \(message)"
    }
}

extension ArchiveError: CustomNSError, LocalizedError {
    /// Cocoa's error domain, `NSCocoaErrorDomain`.
    public static var errorDomain: String { NSCocoaErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
    public var errorDescription: String? { description }
}
