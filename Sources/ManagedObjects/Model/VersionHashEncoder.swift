import Foundation

/// Writes the schema-relevant fields of a description as a canonical byte string and hashes it.
///
/// Every field is written with a one-byte tag and, for strings and data, a big-endian length,
/// so no two different field lists encode to the same bytes. The encoding is this library's own
/// and is versioned by its first field: changing it changes every hash, which is what stores
/// compare, so do it only on purpose.
struct VersionHashEncoder {
    private var bytes: [UInt8]

    /// Starts an encoding for one kind of description (`"attribute"`, `"entity"`).
    init(kind: String) {
        bytes = []
        append(string: "ModelObjects.versionHash.1")
        append(string: kind)
    }

    mutating func append(string: String) {
        bytes.append(0x01)
        appendLength(string.utf8.count)
        bytes.append(contentsOf: string.utf8)
    }

    mutating func append(optionalString string: String?) {
        if let string {
            append(string: string)
        } else {
            bytes.append(0x00)
        }
    }

    mutating func append(bool: Bool) {
        bytes.append(bool ? 0x03 : 0x02)
    }

    mutating func append(integer: UInt64) {
        bytes.append(0x04)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: integer >> UInt64(shift)))
        }
    }

    mutating func append(data: Data) {
        bytes.append(0x05)
        appendLength(data.count)
        bytes.append(contentsOf: data)
    }

    /// Appends named hashes sorted by name, so the order of declaration does not matter.
    mutating func append(hashesByName: [(name: String, hash: Data)]) {
        append(integer: UInt64(hashesByName.count))
        for (name, hash) in hashesByName.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
            append(string: name)
            append(data: hash)
        }
    }

    private mutating func appendLength(_ length: Int) {
        let length = UInt32(clamping: length)
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
    }

    /// The SHA-256 digest of the fields appended so far.
    func finalize() -> Data {
        SHA256.hash(bytes)
    }
}
