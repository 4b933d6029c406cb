import Foundation

/// An error thrown while archiving or unarchiving: a corrupt or hostile archive, a missing or
/// wrong-typed value, a class the unarchiver does not know, a value the archiver cannot encode.
///
/// Decoding never traps on bad input: truncated or mutated bytes, dangling or self-referencing
/// UIDs, absurd counts and deep nesting all end in an `ArchiveError`.
///
/// ``code`` is the library's reason, finer than Foundation's. Bridged to `NSError`, the error
/// carries the code Foundation reports for the same failure, so Cocoa code that checks
/// `NSCoderReadCorruptError` (4864) recognises it: a corrupt archive, an unknown class, a class
/// outside the allowed set, a type mismatch and too-deep nesting all bridge to 4864, as
/// Foundation's `NSKeyedUnarchiver` reports them; a missing value to `NSCoderValueNotFoundError`
/// (4865) and a value that cannot be encoded to `NSCoderInvalidValueError` (4866). The finer
/// code stays in the `NSError`'s user info under ``detailCodeKey``.
///
/// ```swift
/// catch ArchiveError.Code.classNotAllowed { … }                        // the finer reason
/// catch let error as NSError where error.code == NSCoderReadCorruptError { … }  // as in Cocoa
/// ```
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
        /// The archive names a class this process does not know. Bridges to
        /// `NSCoderReadCorruptError` (4864), as Foundation reports it.
        public static let unknownClass = Code(rawValue: 4870)
        /// A decoded value does not have the type asked for. Bridges to
        /// `NSCoderReadCorruptError` (4864), as Foundation reports it.
        public static let typeMismatch = Code(rawValue: 4871)
        /// Objects are nested deeper than the unarchiver allows. Bridges to
        /// `NSCoderReadCorruptError` (4864).
        public static let nestingTooDeep = Code(rawValue: 4872)
        /// The operation needs the other kind of coder (keyed or sequential): a programming
        /// error, which Foundation raises as an exception. Bridges to its own number.
        public static let unsupportedOperation = Code(rawValue: 4873)
        /// The archive holds an object of a class outside the unarchiver's allowed classes
        /// (``KeyedUnarchiver/allowedClasses``); the object was never created. Bridges to
        /// `NSCoderReadCorruptError` (4864), as Foundation reports it.
        public static let classNotAllowed = Code(rawValue: 4874)

        /// The code Foundation reports for this kind of failure, which the error bridges to.
        public var cocoaCode: Int {
            switch self {
            case .unknownClass, .typeMismatch, .nestingTooDeep, .classNotAllowed: Code.corruptArchive.rawValue
            default: rawValue
            }
        }

        public var description: String {
            switch self {
            case .corruptArchive: "corruptArchive"
            case .valueNotFound: "valueNotFound"
            case .invalidValue: "invalidValue"
            case .unknownClass: "unknownClass"
            case .typeMismatch: "typeMismatch"
            case .nestingTooDeep: "nestingTooDeep"
            case .unsupportedOperation: "unsupportedOperation"
            case .classNotAllowed: "classNotAllowed"
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
    /// The `NSError` user-info key holding ``code``'s number, always present, so the library's
    /// finer reason survives bridging to Foundation's code (`"ModelObjectsArchiveErrorCode"`).
    public static let detailCodeKey = "ModelObjectsArchiveErrorCode"

    /// Cocoa's error domain, `NSCocoaErrorDomain`.
    public static var errorDomain: String { NSCocoaErrorDomain }
    /// Foundation's code for the failure (``Code/cocoaCode``): 4864, 4865 or 4866.
    public var errorCode: Int { code.cocoaCode }
    /// The description (also under `NSDebugDescription`, where Foundation puts its text) and
    /// ``code``'s number under ``detailCodeKey``.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSDebugDescriptionErrorKey: description,
         Self.detailCodeKey: code.rawValue]
    }
    public var errorDescription: String? { description }
}
