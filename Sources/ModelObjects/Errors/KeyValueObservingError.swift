import Foundation

/// An error thrown by key-value observing.
///
/// Cocoa raises `NSRangeException` when an observer that is not registered is removed; this
/// library throws instead.
public struct KeyValueObservingError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The observer is not registered for the key path (with that context) on the object.
        public static let observerNotRegistered = Code(rawValue: 1)

        public var description: String {
            switch self {
            case .observerNotRegistered: "observerNotRegistered"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch KeyValueObservingError.Code.observerNotRegistered`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? KeyValueObservingError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The key path involved.
    public var keyPath: String
    /// The class of the observed object.
    public var className: String
    /// A readable explanation.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, keyPath: String, className: String, message: String) {
        self.code = code
        self.keyPath = keyPath
        self.className = className
        self.message = message
    }

    public var description: String {
        "KeyValueObservingError.\(code) [\(className)] key path '\(keyPath)': \(message)"
    }
}
