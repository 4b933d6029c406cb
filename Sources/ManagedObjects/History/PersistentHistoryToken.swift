import Foundation
import ModelObjects

/// A bookmark in a store's persistent history: the last transaction a reader has seen. Keep it
/// (in a file, in user defaults) and fetch what came after it next time.
///
/// ```swift
/// let token = try coordinator.currentPersistentHistoryToken()
/// let data = try JSONEncoder().encode(token)                  // or token.archivedData()
/// // … later, maybe in another process:
/// let saved = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
/// let transactions = try context.fetchHistory(.fetchHistory(after: saved))
/// ```
///
/// A token names its store (by ``storeIdentifier``) and a transaction number there; numbers
/// grow with every transaction and are never reused, even after history is deleted. Tokens of
/// one store compare by their numbers (`<`: the later transaction is the greater); tokens of
/// different stores sort by store identifier.
///
/// A token is a class so that the library's `KeyedArchiver` can archive it (as Core Data's
/// `NSSecureCoding` token is archived with `NSKeyedArchiver`); it is immutable and `Sendable`.
/// Reading an archive that holds one needs the class known to the unarchiver:
/// ``init(archivedData:)`` registers it for every unarchiver; before reading a token inside
/// another archive without having called it, call
/// `KeyedUnarchiver.setClass(PersistentHistoryToken.self, forClassName: PersistentHistoryToken.archivedClassName)`.
///
/// Corresponds to Core Data's `NSPersistentHistoryToken`; differences: one store per token
/// (Core Data's may span the coordinator's stores), Codable, and comparable.
public final class PersistentHistoryToken: Hashable, Comparable, Sendable, Codable, Coding, CustomStringConvertible {
    /// The identifier of the store whose history the token marks.
    public let storeIdentifier: String
    /// The number of the last transaction seen (0: none, before the first one).
    public let transactionNumber: Int64

    /// The class name archives give tokens: `"ManagedObjects.PersistentHistoryToken"`.
    public static let archivedClassName = "ManagedObjects.PersistentHistoryToken"

    /// Creates a token for transaction `transactionNumber` of the store `storeIdentifier`.
    ///
    /// Stores make tokens; make one yourself only to rebuild one you stored by its parts.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Whether two tokens mark the same transaction of the same store.
    public static func == (lhs: PersistentHistoryToken, rhs: PersistentHistoryToken) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionNumber == rhs.transactionNumber
    }

    /// Whether `lhs` marks an earlier transaction than `rhs` of the same store; tokens of
    /// different stores are ordered by store identifier, so that any tokens sort.
    public static func < (lhs: PersistentHistoryToken, rhs: PersistentHistoryToken) -> Bool {
        (lhs.storeIdentifier, lhs.transactionNumber) < (rhs.storeIdentifier, rhs.transactionNumber)
    }

    /// Hashes the store identifier and the number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionNumber)
    }

    /// `"<store>#<number>"`.
    public var description: String { "\(storeIdentifier)#\(transactionNumber)" }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey {
        case storeIdentifier, transactionNumber
    }

    /// Decodes a token, refusing an empty store identifier or a negative number.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for such values; what the decoder throws.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let store = try container.decode(String.self, forKey: .storeIdentifier)
        let number = try container.decode(Int64.self, forKey: .transactionNumber)
        guard !store.isEmpty, number >= 0 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a persistent history token: \(store)#\(number)"))
        }
        self.storeIdentifier = store
        self.transactionNumber = number
    }

    /// Encodes the store identifier and the number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(transactionNumber, forKey: .transactionNumber)
    }

    // MARK: - Archiving

    /// Writes the token to a keyed archive (`storeIdentifier`, `transactionNumber`).
    ///
    /// Corresponds to `-[NSPersistentHistoryToken encodeWithCoder:]`.
    public func encode(with coder: Coder) {
        coder.encode(storeIdentifier, forKey: CodingKeys.storeIdentifier.rawValue)
        coder.encode(transactionNumber, forKey: CodingKeys.transactionNumber.rawValue)
    }

    /// Reads a token from a keyed archive.
    ///
    /// - Throws: `ArchiveError.Code.valueNotFound` without a store identifier,
    ///   `ArchiveError.Code.invalidValue` for a negative number; what the coder throws.
    ///
    /// Corresponds to `-[NSPersistentHistoryToken initWithCoder:]`.
    public init(coder: Coder) throws {
        guard let store = try coder.decodeObject(of: String.self, forKey: CodingKeys.storeIdentifier.rawValue), !store.isEmpty else {
            throw ArchiveError(
                .valueNotFound, key: CodingKeys.storeIdentifier.rawValue, className: Self.archivedClassName,
                message: "a persistent history token needs its store identifier")
        }
        let number = try coder.decodeInt64(forKey: CodingKeys.transactionNumber.rawValue)
        guard number >= 0 else {
            throw ArchiveError(
                .invalidValue, key: CodingKeys.transactionNumber.rawValue, className: Self.archivedClassName,
                message: "a persistent history token's transaction number cannot be negative (\(number))")
        }
        storeIdentifier = store
        transactionNumber = number
    }

    /// The token as a keyed archive (a binary property list), the root object under `root`.
    ///
    /// - Throws: What `KeyedArchiver.finishEncoding()` throws.
    ///
    /// Corresponds to `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`.
    public func archivedData() throws -> Data {
        let archiver = KeyedArchiver()
        archiver.setClassName(Self.archivedClassName, for: PersistentHistoryToken.self)
        archiver.encode(self, forKey: "root")
        return try archiver.finishEncoding()
    }

    /// Reads a token from an archive made by ``archivedData()``, allowing no other class.
    ///
    /// - Throws: `ArchiveError` for data that is not such an archive
    ///   (`ArchiveError.Code.typeMismatch` when its root is something else).
    ///
    /// Corresponds to `NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from:)`.
    public convenience init(archivedData data: Data) throws {
        // Registered for every unarchiver: the name maps to this class alone, whoever reads it.
        KeyedUnarchiver.setClass(PersistentHistoryToken.self, forClassName: Self.archivedClassName)
        let root = try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(PersistentHistoryToken.self)], from: data)
        guard let token = root as? PersistentHistoryToken else {
            throw ArchiveError(
                .typeMismatch, key: "root", className: Self.archivedClassName,
                message: "the archive's root is \(root.map { "\(type(of: $0))" } ?? "nil"), not a persistent history token")
        }
        self.init(storeIdentifier: token.storeIdentifier, transactionNumber: token.transactionNumber)
    }
}
