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
    /// The store and number of an ID: the store's interned identity (nil for a temporary ID)
    /// and the primary key, or the temporary number. Two words, so an ID is three, and
    /// comparing or hashing one never touches a string.
    struct Key: Hashable, Sendable {
        /// The address of the store's interned identity (``StoreIdentity``, never freed), 0 for
        /// a temporary ID. An address, not a reference: comparing IDs then loads no reference,
        /// so it retains and releases nothing.
        let store: UInt
        /// The primary key, or the temporary number's bits.
        let number: Int64

        /// A temporary key: a number unique in the process (see ``temporaryIDs``).
        static func temporary(_ number: UInt64) -> Key {
            Key(store: 0, number: Int64(bitPattern: number))
        }

        /// A permanent key naming the store by its identifier (interned here).
        static func permanent(storeIdentifier: String, primaryKey: Int64) -> Key {
            Key(store: StoreIdentity.interned(storeIdentifier).address, number: primaryKey)
        }

        /// Whether the key is temporary.
        var isTemporary: Bool { store == 0 }

        /// The temporary number, for a temporary key.
        var temporaryNumber: UInt64? { store == 0 ? UInt64(bitPattern: number) : nil }

        /// The store's identifier; nil for a temporary key.
        var storeIdentifier: String? { StoreIdentity.identity(at: store)?.identifier }

        func hash(into hasher: inout Hasher) {
            hasher.combine(number)
        }
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
    public var isTemporaryID: Bool { key.isTemporary }

    /// The identifier of the store that holds the record; nil for a temporary ID.
    ///
    /// Corresponds to the identifier of Core Data's `NSManagedObjectID.persistentStore`.
    public var storeIdentifier: String? { key.storeIdentifier }

    /// The row's primary key in its store; nil for a temporary ID.
    public var primaryKey: Int64? { key.isTemporary ? nil : key.number }

    /// An archivable URI for the ID: `x-coredata://<store>/<Entity>/p<key>` for a permanent ID,
    /// `x-coredata:///<Entity>/t<process UUID>-<number>` for a temporary one.
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` reads it back.
    ///
    /// Corresponds to Core Data's `NSManagedObjectID.uriRepresentation()`.
    public func uriRepresentation() -> URL {
        let text: String
        if let store = key.storeIdentifier {
            text = "x-coredata://\(store)/\(entity.name)/p\(key.number)"
        } else {
            text = "x-coredata:///\(entity.name)/t\(Self.processIdentifier)-\(UInt64(bitPattern: key.number))"
        }
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The URI representation as text.
    public var description: String { uriRepresentation().absoluteString }

    /// Whether two IDs name the same record: same entity name and the same key.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && (lhs.entity === rhs.entity || lhs.entity.name == rhs.entity.name)
    }

    /// Hashes the primary key or the temporary number (the entity and store take part in
    /// equality only).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key.number)
    }
}

/// A store identifier interned for the process: IDs hold it instead of the string, so that
/// equal identifiers are one object and compare by identity. Interned identities are never
/// freed (one per store identifier the process meets).
final class StoreIdentity: Sendable {
    /// The store's identifier.
    let identifier: String

    private init(identifier: String) {
        self.identifier = identifier
    }

    /// The identity's address, which IDs keep.
    var address: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    /// The identity at `address` (from ``address``); nil for 0.
    static func identity(at address: UInt) -> StoreIdentity? {
        // Interned identities are never freed, so the address stays valid.
        UnsafeRawPointer(bitPattern: address).map { Unmanaged<StoreIdentity>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let table = Mutex<[String: StoreIdentity]>([:])

    /// The identity interned last: a store makes its IDs one after another with its own
    /// identifier string, which compares equal to this one's without reading its characters.
    private static let last = Atomic<Unmanaged<StoreIdentity>?>(nil)

    /// The one identity of `identifier`.
    static func interned(_ identifier: String) -> StoreIdentity {
        // Interned identities are never freed, so the unretained one is always valid.
        if let last = last.load(ordering: .acquiring)?.takeUnretainedValue(), last.identifier == identifier { return last }
        let identity = table.withLock { table in
            if let identity = table[identifier] { return identity }
            let identity = StoreIdentity(identifier: identifier)
            table[identifier] = identity
            return identity
        }
        last.store(Unmanaged.passUnretained(identity), ordering: .releasing)
        return identity
    }
}
