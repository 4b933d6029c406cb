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
    /// The store and number of an ID in one word: the number of the store's interned identity
    /// (``StoreIdentity/address``, 0 for a temporary ID) in the top 16 bits, the primary key or
    /// the temporary number in the low 48 (sign-extended when read). An ID is then two words
    /// (every managed object stores one), and comparing or hashing one compares or hashes
    /// one word, never a string or a reference.
    ///
    /// A key that does not fit (a number outside ±2⁴⁷, a store numbered 65,535 or more) is
    /// interned in a table for the process instead (see ``WideKeys``): its word then holds
    /// `0xFFFF` in the top bits and the entry's index. Equal keys always have equal words.
    package struct Key: Hashable, Sendable {
        /// The packed word.
        private let bits: UInt64

        /// The top 16 bits of a key interned in ``WideKeys``.
        private static let wideTag: UInt64 = 0xFFFF

        /// The key of `number` in the store whose identity's ``StoreIdentity/address`` is
        /// `store` (0 for a temporary key).
        @inline(__always)
        init(store: UInt, number: Int64) {
            let low = UInt64(bitPattern: number) & 0xFFFF_FFFF_FFFF
            if store < UInt(Self.wideTag), (number << 16) >> 16 == number {
                bits = UInt64(store) << 48 | low
            } else {
                bits = Self.wideTag << 48 | WideKeys.index(store: store, number: number)
            }
        }

        /// The ``StoreIdentity/address`` of the store's interned identity, 0 for a temporary
        /// key.
        @inline(__always)
        var store: UInt {
            let tag = bits >> 48
            return tag == Self.wideTag ? WideKeys.key(at: bits & 0xFFFF_FFFF_FFFF).store : UInt(tag)
        }

        /// The primary key, or the temporary number's bits.
        @inline(__always)
        var number: Int64 {
            if bits >> 48 == Self.wideTag { return WideKeys.key(at: bits & 0xFFFF_FFFF_FFFF).number }
            return Int64(bitPattern: bits << 16) >> 16
        }

        /// A temporary key: a number unique in the process (see ``temporaryIDs``).
        static func temporary(_ number: UInt64) -> Key {
            Key(store: 0, number: Int64(bitPattern: number))
        }

        /// A permanent key naming the store by its identifier (interned here).
        static func permanent(storeIdentifier: String, primaryKey: Int64) -> Key {
            Key(store: StoreIdentity.interned(storeIdentifier).address, number: primaryKey)
        }

        /// Whether the key is temporary.
        var isTemporary: Bool { bits >> 48 == 0 }

        /// The packed word, whose low bits are the low bits of the number (or of a wide key's
        /// index): a cheap spread for small tables keyed by keys.
        @inline(__always)
        var word: UInt64 { bits }

        /// The temporary number, for a temporary key.
        var temporaryNumber: UInt64? { isTemporary ? UInt64(bitPattern: number) : nil }

        /// The store's identifier; nil for a temporary key.
        var storeIdentifier: String? { StoreIdentity.identity(at: store)?.identifier }

        /// Hashes the word (equal keys have equal words).
        package func hash(into hasher: inout Hasher) {
            hasher.combine(bits)
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

    /// Hashes the key's word: the store and the primary key or the temporary number (the
    /// entity takes part in equality only).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}

/// The keys of object IDs that do not fit a key's word (see ``ManagedObjectID/Key``), interned
/// for the process and never freed: a key's word then holds the entry's index. Only numbers
/// outside ±2⁴⁷ and stores past the 65,534th take an entry.
enum WideKeys {
    private struct State {
        var keys: [(store: UInt, number: Int64)] = []
        var indexes: [WideKey: UInt64] = [:]
    }

    private struct WideKey: Hashable {
        let store: UInt
        let number: Int64
    }

    private static let state = Mutex(State())

    /// The index of the entry of `number` in `store`, made if there is none.
    static func index(store: UInt, number: Int64) -> UInt64 {
        state.withLock { state in
            let key = WideKey(store: store, number: number)
            if let index = state.indexes[key] { return index }
            let index = UInt64(state.keys.count)
            state.keys.append((store, number))
            state.indexes[key] = index
            return index
        }
    }

    /// The entry at `index`.
    static func key(at index: UInt64) -> (store: UInt, number: Int64) {
        state.withLock { state in
            // Indexes come only from `index(store:number:)`, so the entry exists.
            let position = Int(index)
            return position < state.keys.count ? state.keys[position] : (0, 0)
        }
    }
}

/// A store identifier interned for the process: IDs hold it instead of the string, so that
/// equal identifiers are one object and compare by identity. Interned identities are never
/// freed (one per store identifier the process meets).
final class StoreIdentity: Sendable {
    /// The store's identifier.
    let identifier: String

    /// The identity's number, which IDs keep (see ``ManagedObjectID/Key``): its place in the
    /// order in which identifiers were interned, from 1 (0 is a temporary ID's). A number, not
    /// a reference: comparing IDs then loads no reference, so it retains and releases nothing.
    let address: UInt

    private init(identifier: String, address: UInt) {
        self.identifier = identifier
        self.address = address
    }

    /// The identity whose ``address`` is `address`; nil for 0 (and for a number no identity has).
    static func identity(at address: UInt) -> StoreIdentity? {
        guard address > 0 else { return nil }
        // Interned identities are never freed, so the unretained one is always valid.
        if let last = last.load(ordering: .acquiring)?.takeUnretainedValue(), last.address == address { return last }
        return table.withLock { table in
            address <= UInt(table.byAddress.count) ? table.byAddress[Int(address) - 1] : nil
        }
    }

    private struct Table {
        var byIdentifier: [String: StoreIdentity] = [:]
        /// The identities in the order interned: the one of number `n` at `n - 1`.
        var byAddress: [StoreIdentity] = []
    }

    private static let table = Mutex(Table())

    /// The identity interned last: a store makes its IDs one after another with its own
    /// identifier string, which compares equal to this one's without reading its characters.
    private static let last = Atomic<Unmanaged<StoreIdentity>?>(nil)

    /// The one identity of `identifier`.
    static func interned(_ identifier: String) -> StoreIdentity {
        // Interned identities are never freed, so the unretained one is always valid.
        if let last = last.load(ordering: .acquiring)?.takeUnretainedValue(), last.identifier == identifier { return last }
        let identity = table.withLock { table in
            if let identity = table.byIdentifier[identifier] { return identity }
            let identity = StoreIdentity(identifier: identifier, address: UInt(table.byAddress.count + 1))
            table.byIdentifier[identifier] = identity
            table.byAddress.append(identity)
            return identity
        }
        last.store(Unmanaged.passUnretained(identity), ordering: .releasing)
        return identity
    }
}
