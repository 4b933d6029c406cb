import Foundation

/// An error of a ``FetchedResultsController``: a request it cannot track, results whose
/// sections are not grouped, an index path or index title that names nothing, or a change it
/// could not follow.
///
/// ```swift
/// do { try controller.performFetch() }
/// catch FetchedResultsError.Code.sectionsOutOfOrder { … }   // sort by the section key first
/// ```
///
/// Corresponds to the `NSInvalidArgumentException`s and `NSRangeException`s that Core Data's
/// `NSFetchedResultsController` raises, and to the error its `performFetch()` returns for
/// section names out of order; differences: all of them are thrown, with a code each, in this
/// library's own domain.
public struct FetchedResultsError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    ///
    /// Corresponds to nothing in Core Data, which raises exceptions with messages instead.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The fetch request has no sort descriptors: a controller keeps its results in their
        /// order, so it needs one.
        ///
        /// Corresponds to Core Data's exception "An instance of NSFetchedResultsController
        /// requires a fetch request with sort descriptors".
        public static let missingSortDescriptors = Code(rawValue: 1)
        /// The fetch request has a negative fetch limit or offset.
        ///
        /// Corresponds to nothing in Core Data, which fetches with them but then tracks changes
        /// as if they were not there.
        public static let unsupportedFetchRequest = Code(rawValue: 2)
        /// Objects with one section name are not next to each other in the sorted results: the
        /// first sort descriptor must order the objects by section.
        ///
        /// Corresponds to the error Core Data's `performFetch()` returns: "The fetched object at
        /// index … has an out of order section name".
        public static let sectionsOutOfOrder = Code(rawValue: 3)
        /// An index path names no object of the results (or the controller has not fetched).
        ///
        /// Corresponds to Core Data's `NSRangeException` from `object(at:)`.
        public static let indexPathOutOfRange = Code(rawValue: 4)
        /// No section has the index title given.
        ///
        /// Corresponds to nothing in Core Data, whose `section(forSectionIndexTitle:at:)` raises.
        public static let unknownSectionIndexTitle = Code(rawValue: 5)
        /// The controller could not follow a change of its context: reading a changed object's
        /// sort keys, section name or predicate failed (``FetchedResultsError/underlyingError``
        /// says why), or the change put a section's objects apart. The controller then drops its
        /// results; ``FetchedResultsController/performFetch()`` starts again.
        ///
        /// Corresponds to nothing in Core Data, where the exception escapes from
        /// `processPendingChanges()`.
        public static let trackingFailed = Code(rawValue: 6)

        /// The code's name.
        public var description: String {
            switch self {
            case .missingSortDescriptors: "missingSortDescriptors"
            case .unsupportedFetchRequest: "unsupportedFetchRequest"
            case .sectionsOutOfOrder: "sectionsOutOfOrder"
            case .indexPathOutOfRange: "indexPathOutOfRange"
            case .unknownSectionIndexTitle: "unknownSectionIndexTitle"
            case .trackingFailed: "trackingFailed"
            default: "code \(rawValue)"
            }
        }

        /// Matches a `FetchedResultsError` with this code, for `catch FetchedResultsError.Code.sectionsOutOfOrder`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? FetchedResultsError)?.code == code
        }
    }

    /// What failed.
    public var code: Code
    /// A readable explanation.
    public var message: String
    /// The error that made this one: for ``Code/trackingFailed``, what reading a changed
    /// object threw (or a ``Code/sectionsOutOfOrder`` error).
    public var underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// `"FetchedResultsError.sectionsOutOfOrder: message"`, with the underlying error.
    public var description: String {
        var text = "FetchedResultsError.\(code): \(message)"
        if let underlyingError { text += " (\(underlyingError))" }
        return text
    }
}

extension FetchedResultsError: CustomNSError, LocalizedError {
    /// The error domain, `"ModelObjects.FetchedResultsError"`.
    public static var errorDomain: String { "ModelObjects.FetchedResultsError" }
    /// The code's number.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`, the underlying error under `NSUnderlyingErrorKey`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }
    /// The message.
    public var errorDescription: String? { message }
}
