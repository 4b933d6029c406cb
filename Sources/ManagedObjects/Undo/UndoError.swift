import Foundation

/// An error thrown by ``ModelUndoManager`` when it is used out of order: undoing while a group
/// opened with ``ModelUndoManager/beginUndoGrouping()`` is still open, ending a group that was
/// never begun, enabling registration that was never disabled, or starting an undo from inside
/// an undo.
///
/// Foundation's `UndoManager` raises `NSInternalInconsistencyException` in these cases; this
/// library throws instead and leaves the undo manager as it was.
///
/// Match errors by code:
/// ```swift
/// do { try undoManager.undo() }
/// catch UndoError.Code.explicitGroupOpen { try undoManager.endUndoGrouping() }
/// ```
public struct UndoError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `undo()`, `redo()` or `undoNestedGroup()` was called while a group opened with
        /// `beginUndoGrouping()` is still open. Close it with `endUndoGrouping()` first.
        public static let explicitGroupOpen = Code(rawValue: 1)
        /// `endUndoGrouping()` was called with no open group to close.
        public static let unbalancedEndGrouping = Code(rawValue: 2)
        /// `enableUndoRegistration()` was called with no `disableUndoRegistration()` in effect.
        public static let unbalancedEnableRegistration = Code(rawValue: 3)
        /// `undo()`, `redo()` or `undoNestedGroup()` was called from an undo or redo handler.
        public static let undoOrRedoInProgress = Code(rawValue: 4)

        public var description: String {
            switch self {
            case .explicitGroupOpen: "explicitGroupOpen"
            case .unbalancedEndGrouping: "unbalancedEndGrouping"
            case .unbalancedEnableRegistration: "unbalancedEnableRegistration"
            case .undoOrRedoInProgress: "undoOrRedoInProgress"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch UndoError.Code.explicitGroupOpen`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? UndoError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The method that was called, such as `"undo()"`.
    public var operation: String
    /// The undo manager's ``ModelUndoManager/groupingLevel`` when the error was thrown.
    public var groupingLevel: Int
    /// A readable explanation that names the rule and how to satisfy it.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, operation: String, groupingLevel: Int, message: String) {
        self.code = code
        self.operation = operation
        self.groupingLevel = groupingLevel
        self.message = message
    }

    public var description: String {
        "UndoError.\(code) in ModelUndoManager.\(operation) at grouping level \(groupingLevel): \(message)"
    }
}

extension UndoError: CustomNSError, LocalizedError {
    /// The error domain, `"ModelObjects.UndoError"`: Cocoa reports these cases as exceptions, so
    /// there is no Cocoa domain or number to reuse.
    public static var errorDomain: String { "ModelObjects.UndoError" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
    public var errorDescription: String? { description }
}
