import Foundation
import ModelObjects

/// An error of a context, a coordinator or a store: an object that cannot be found, a merge
/// conflict, an object used in the wrong context, a store that cannot be opened or written.
///
/// ```swift
/// do { try context.save() }
/// catch PersistenceError.Code.mergeConflict { … }          // someone saved first
/// catch let error as ValidationError { print(error.failures) }
/// ```
///
/// Codes reuse Core Data's numbers where it has one. Bridges to `NSError` in Cocoa's domain;
/// a store file that is truncated, damaged or of another format (``isCorruptFile``) bridges, as
/// Core Data reports it, to `NSFileReadCorruptFileError` (259) with the file under
/// `NSFilePath`, keeping ``code`` under ``detailCodeKey``.
///
/// Corresponds to the `NSCocoaErrorDomain` errors Core Data reports from `save()`,
/// `existingObject(with:)` and `addPersistentStore`; differences: one Swift type, with the
/// objects and the SQL attached where they help.
public struct PersistenceError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value, Core Data's where it has one.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// No record exists for an object ID, or a fault's record was deleted
        /// (`NSManagedObjectReferentialIntegrityError`, 133000). Core Data crashes firing such a
        /// fault ("could not fulfill a fault"); this library throws.
        public static let objectNotFound = Code(rawValue: 133_000)
        /// Objects in different contexts were related, or an object was given to a context it
        /// does not belong to (`NSManagedObjectContextLockingError`'s neighbour, 132000).
        public static let objectInWrongContext = Code(rawValue: 132_000)
        /// A save found records changed by someone else since this context read them, and the
        /// merge policy is ``MergePolicy/error`` (`NSManagedObjectMergeError`, 133020).
        public static let mergeConflict = Code(rawValue: 133_020)
        /// A save would give two objects the same values of a uniqueness constraint, and the
        /// merge policy is ``MergePolicy/error`` (`NSManagedObjectConstraintMergeError`,
        /// 133021): ``PersistenceError/constraintConflicts`` lists them.
        public static let constraintConflict = Code(rawValue: 133_021)
        /// The coordinator has no store for the objects being saved or fetched
        /// (`NSPersistentStoreSaveError`'s neighbour, 134060).
        public static let noPersistentStore = Code(rawValue: 134_060)
        /// A store could not be opened: missing, corrupt, or of another type
        /// (`NSPersistentStoreInvalidTypeError`, 134000).
        public static let invalidStore = Code(rawValue: 134_000)
        /// The store was written with a model that differs from the one given
        /// (`NSPersistentStoreIncompatibleVersionHashError`, 134100).
        public static let incompatibleModel = Code(rawValue: 134_100)
        /// Writing to the store failed (`NSPersistentStoreSaveError`, 134030).
        public static let saveFailed = Code(rawValue: 134_030)
        /// Reading from the store failed (`NSPersistentStoreOperationError`, 134070), or the
        /// store refused a record whose values break the model (NULL in a required attribute,
        /// a value of another type or range): ``PersistenceError/objectID`` and
        /// ``PersistenceError/key`` name the record and the attribute.
        public static let operationFailed = Code(rawValue: 134_070)
        /// A migration could not be made (`NSMigrationError`, 134110).
        public static let migrationFailed = Code(rawValue: 134_110)
        /// An object ID's URI is not one this coordinator made.
        public static let invalidObjectID = Code(rawValue: 134_200)

        /// The number.
        public var description: String { "\(rawValue)" }

        /// Matches a `PersistenceError` with this code, for `catch PersistenceError.Code.mergeConflict`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? PersistenceError)?.code == code
        }
    }

    /// One record in conflict during a save. For a child context's save, the conflict is a
    /// difference between the values the child read and the parent's current ones, and the
    /// versions are the store's (``newVersion`` nil when the parent deleted the object).
    ///
    /// Corresponds to Core Data's `NSMergeConflict`.
    public struct Conflict: Sendable, CustomStringConvertible {
        /// The object's ID.
        public var objectID: ManagedObjectID
        /// The record version the context read (0 for an object it never read).
        ///
        /// Corresponds to `NSMergeConflict.oldVersionNumber`.
        public var oldVersion: Int64
        /// The record version now in the store; nil when the record was deleted.
        ///
        /// Corresponds to `NSMergeConflict.newVersionNumber` (0 for a deleted record).
        public var newVersion: Int64?

        /// `"<ID>: read version 2, store has 3"`.
        public var description: String {
            "\(objectID): read version \(oldVersion), store has \(newVersion.map(String.init) ?? "no record")"
        }
    }

    /// What failed.
    public var code: Code
    /// A readable explanation.
    public var message: String
    /// The object concerned, when there is one.
    public var objectID: ManagedObjectID?
    /// The property concerned, when there is one: for a record the store refuses to read, the
    /// attribute whose stored value breaks the model.
    public var key: String?
    /// The records in conflict, for ``Code/mergeConflict``.
    public var conflicts: [Conflict]
    /// The uniqueness conflicts, for ``Code/constraintConflict``.
    ///
    /// Corresponds to the `NSConstraintConflict`s under `"conflictList"`.
    public var constraintConflicts: [ConstraintConflict] = []
    /// The SQL statement that failed, for SQLite stores.
    public var sql: String?
    /// The store file concerned, when the failure is the file's.
    public var fileURL: URL?
    /// Whether the store file is truncated, damaged or not a store of its type at all. Such an
    /// error bridges to `NSFileReadCorruptFileError` (259), as Core Data reports it.
    public var isCorruptFile: Bool
    /// SQLite's extended result code, for SQLite failures (`SQLITE_NOTADB` 26, `SQLITE_CORRUPT` 11, …).
    public var sqliteResultCode: Int?

    /// Creates an error.
    public init(
        _ code: Code, message: String, objectID: ManagedObjectID? = nil, key: String? = nil, conflicts: [Conflict] = [],
        sql: String? = nil, fileURL: URL? = nil, isCorruptFile: Bool = false, sqliteResultCode: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.objectID = objectID
        self.key = key
        self.conflicts = conflicts
        self.sql = sql
        self.fileURL = fileURL
        self.isCorruptFile = isCorruptFile
        self.sqliteResultCode = sqliteResultCode
    }

    /// `"PersistenceError 133020: message"`, with the object, key, file and SQL when known (the
    /// file once: not again when the message names it).
    public var description: String {
        var text = "PersistenceError \(code.rawValue): \(message)"
        if let objectID { text += " [\(objectID)]" }
        if let key { text += " [key: \(key)]" }
        if let fileURL, !message.contains(fileURL.path) { text += " [file \(fileURL.path)]" }
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}

extension PersistenceError: CustomNSError, LocalizedError {
    /// The `NSError` user-info key holding ``code``'s number, always present, so it survives a
    /// corrupt file bridging to 259 (`"ModelObjectsPersistenceErrorCode"`).
    public static let detailCodeKey = "ModelObjectsPersistenceErrorCode"

    /// Cocoa's error domain, where Core Data's codes live.
    public static var errorDomain: String { NSCocoaErrorDomain }
    /// `NSFileReadCorruptFileError` (259) for a corrupt store file, as Core Data reports it;
    /// the code's number otherwise.
    public var errorCode: Int { isCorruptFile ? CocoaError.Code.fileReadCorruptFile.rawValue : code.rawValue }
    /// The message; the conflicts under `"conflictList"`, the file under `NSFilePath` and
    /// SQLite's result code under `NSSQLiteErrorDomain`, as Core Data gives them; the key under
    /// `NSValidationErrorKey`; ``code``'s number under ``detailCodeKey``.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, Self.detailCodeKey: code.rawValue]
        if !conflicts.isEmpty { info["conflictList"] = conflicts.map(\.description) }
        if !constraintConflicts.isEmpty { info["conflictList"] = constraintConflicts.map(\.description) }
        if let fileURL {
            info[NSFilePathErrorKey] = fileURL.path
            info[NSURLErrorKey] = fileURL
        }
        if let sqliteResultCode { info["NSSQLiteErrorDomain"] = sqliteResultCode }
        if let key { info[ValidationError.validationKeyErrorKey] = key }
        return info
    }
    /// The message.
    public var errorDescription: String? { message }
}
