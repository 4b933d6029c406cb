import Foundation
import Synchronization

/// The identity of a managed object's record, the same in every context: what crosses threads
/// and tasks where objects cannot.
///
/// An object inserted into a context gets a temporary ID; its first save replaces it with a
/// permanent one that names the store and the row. IDs are values: compare them, hash them,
/// send them anywhere, and turn them back into objects with
/// ``ManagedObjectContext/object(with:)`` in the context of your own isolation domain.
///
/// Corresponds to Core Data's `NSManagedObjectID`; differences: a `Sendable` value type, and
/// equality compares the entity by name.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
    enum Key: Hashable, Sendable {
        /// A number unique in the process (see ``temporaryIDs``).
        case temporary(UInt64)
        case permanent(storeIdentifier: String, primaryKey: Int64)
    }

    /// The entity of the object.
    ///
    /// Corresponds to Core Data's `NSManagedObjectID.entity`.
    public let entity: EntityDescription
    let key: Key

    init(entity: EntityDescription, key: Key) {
        self.entity = entity
        self.key = key
    }

    /// The permanent ID of a record: what a ``PersistentStore`` gives the records it holds.
    ///
    /// Corresponds to `-[NSIncrementalStore newObjectIDForEntity:referenceObject:]`.
    public init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.init(entity: entity, key: .permanent(storeIdentifier: storeIdentifier, primaryKey: primaryKey))
    }

    /// A new temporary ID for an object of `entity`.
    static func temporary(for entity: EntityDescription) -> ManagedObjectID {
        ManagedObjectID(entity: entity, key: .temporary(temporaryIDs.add(1, ordering: .relaxed).newValue))
    }

    /// The last temporary number handed out; temporary IDs need only be unique in the process,
    /// and a counter costs far less than a random UUID.
    private static let temporaryIDs = Atomic<UInt64>(0)

    /// Names this process in temporary IDs' URIs, so that they never match another process's.
    static let processIdentifier = UUID().uuidString

    /// Whether the ID is temporary: the object has not been saved yet.
    ///
    /// Corresponds to Core Data's `NSManagedObjectID.isTemporaryID`.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The identifier of the store that holds the record; nil for a temporary ID.
    ///
    /// Corresponds to the identifier of Core Data's `NSManagedObjectID.persistentStore`.
    public var storeIdentifier: String? {
        if case .permanent(let store, _) = key { return store }
        return nil
    }

    /// The row's primary key in its store; nil for a temporary ID.
    public var primaryKey: Int64? {
        if case .permanent(_, let primaryKey) = key { return primaryKey }
        return nil
    }

    /// An archivable URI for the ID: `x-coredata://<store>/<Entity>/p<key>` for a permanent ID,
    /// `x-coredata:///<Entity>/t<process UUID>-<number>` for a temporary one.
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` reads it back.
    ///
    /// Corresponds to Core Data's `NSManagedObjectID.uriRepresentation()`.
    public func uriRepresentation() -> URL {
        let text: String
        switch key {
        case .temporary(let number): text = "x-coredata:///\(entity.name)/t\(Self.processIdentifier)-\(number)"
        case .permanent(let store, let primaryKey): text = "x-coredata://\(store)/\(entity.name)/p\(primaryKey)"
        }
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The URI representation as text.
    public var description: String { uriRepresentation().absoluteString }

    /// Whether two IDs name the same record: same entity name and the same key.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && (lhs.entity === rhs.entity || lhs.entity.name == rhs.entity.name)
    }

    /// Hashes the primary key or the temporary UUID (the entity name takes part in equality only).
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .temporary(let number): hasher.combine(number)
        case .permanent(_, let primaryKey): hasher.combine(primaryKey)
        }
    }
}
