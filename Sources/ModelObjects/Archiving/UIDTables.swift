/// The archive writer's maps from objects and strings to their UIDs: open-addressing tables
/// with cheap hashes, because an archive looks up every object and string it writes, and
/// `Dictionary`'s seeded SipHash cost more than the rest of writing a string.
///
/// Neither table faces hostile keys: objects are the archived graph's, compared by identity,
/// and strings come from the objects being archived.
struct ObjectUIDTable {
    private var keys: [UInt]
    private var values: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 64)
        values = Array(repeating: 0, count: 64)
        mask = 63
    }

    /// The slot of `key` (an object's address, never 0), or of the empty slot where it goes.
    @inline(__always)
    private func slot(of key: UInt) -> Int {
        // Fibonacci hashing: the high half of the product mixes every bit of the address.
        var slot = Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
        return slot
    }

    subscript(identifier: ObjectIdentifier) -> UInt64? {
        get {
            let key = UInt(bitPattern: identifier)
            let slot = slot(of: key)
            return keys[slot] == 0 ? nil : values[slot]
        }
        set {
            // Entries are only added: the writer never forgets an object.
            guard let newValue else { return }
            let key = UInt(bitPattern: identifier)
            let slot = slot(of: key)
            if keys[slot] == 0 {
                keys[slot] = key
                count += 1
            }
            values[slot] = newValue
            if count * 2 > keys.count { grow() }
        }
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        mask = keys.count - 1
        for (key, value) in zip(oldKeys, oldValues) where key != 0 {
            let slot = slot(of: key)
            keys[slot] = key
            values[slot] = value
        }
    }
}

/// Strings to UIDs, hashed over their UTF-8 bytes and confirmed with `==`.
struct StringUIDTable {
    /// A slot: the hash (0 for an empty slot), the UID and the string, side by side so that a
    /// probe touches one cache line.
    private struct Slot {
        var hash: UInt64 = 0
        var uid: UInt64 = 0
        var string = ""
    }

    private var slots: [Slot]
    private var mask: Int
    private var count = 0

    init() {
        slots = Array(repeating: Slot(), count: 1024)
        mask = 1023
    }

    /// A hash of the string's UTF-8 bytes, never 0 (which marks empty slots). Strings that are
    /// equal (`==`) but spelled with different scalars hash differently, so each keeps its own
    /// UID and comes back with its own scalars, as the binary writer keeps their bytes apart.
    @inline(__always)
    private static func hash(_ string: String) -> UInt64 {
        var string = string
        return string.withUTF8 { bytes in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
            var offset = 0
            let raw = UnsafeRawBufferPointer(bytes)
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                hash ^= hash >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = (hash ^ tail) &* 0x9E37_79B9_7F4A_7C15
            // Fold the well-mixed high half into the low bits, which pick the slot.
            hash ^= hash >> 32
            hash = hash &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            return hash == 0 ? 1 : hash
        }
    }

    @inline(__always)
    private func slot(of string: String, hash: UInt64) -> Int {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot].hash != 0 && !(slots[slot].hash == hash && slots[slot].string == string) {
            slot = (slot + 1) & mask
        }
        return slot
    }

    subscript(string: String) -> UInt64? {
        get {
            let slot = slot(of: string, hash: Self.hash(string))
            return slots[slot].hash == 0 ? nil : slots[slot].uid
        }
        set {
            guard let newValue else { return }
            let hash = Self.hash(string)
            let slot = slot(of: string, hash: hash)
            if slots[slot].hash == 0 { count += 1 }
            slots[slot] = Slot(hash: hash, uid: newValue, string: string)
            if count * 2 > slots.count { grow() }
        }
    }

    /// The UID of `string`, or the one `make` gives it the first time.
    @inline(__always)
    mutating func uid(for string: String, _ make: () -> UInt64) -> UInt64 {
        let hash = Self.hash(string)
        let slot = slot(of: string, hash: hash)
        if slots[slot].hash != 0 { return slots[slot].uid }
        let uid = make()
        slots[slot] = Slot(hash: hash, uid: uid, string: string)
        count += 1
        if count * 2 > slots.count { grow() }
        return uid
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        for entry in old where entry.hash != 0 {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[slot].hash != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}
