import Foundation

extension PostgreSQLStore {
    /// Decodes a value in binary format (`bytes`, not NULL) as `decoding` into `slot` of the
    /// buffer at `base`, for the attribute types whose slot holds the decoded value in its own
    /// type: no `StoreValue` made and matched again per value. The checks are those of
    /// ``decode(_:_:_:as:)`` (the same lengths, ranges and values), which every other pair of
    /// decoding and slot kind goes through (`.notHandled`).
    @inline(__always)
    static func decode(
        binary bytes: UnsafeRawBufferPointer, as decoding: SQLSchema.Decoding, into slot: PropertyLayout.Slot,
        of base: UnsafeMutableRawPointer
    ) -> SlotDecodingOutcome {
        switch (decoding, slot.kind) {
        case (.double, .double):
            guard let double = PostgreSQLResult.binaryDouble(bytes) else { return .refused }
            slot.store(double, in: base)
        case (.date, .date):
            guard let seconds = PostgreSQLResult.binaryDouble(bytes) else { return .refused }
            slot.store(Date(timeIntervalSinceReferenceDate: seconds), in: base)
        case (.string, .string):
            // A text value's binary form is its UTF-8 (the server checked it on the way in).
            slot.store(String(decoding: bytes, as: UTF8.self), in: base)
        case (.integer(let min, let max), .int64):
            guard let integer = PostgreSQLResult.binaryInteger(bytes), integer >= min && integer <= max else { return .refused }
            slot.store(integer, in: base)
        case (.integer(let min, let max), .int32):
            guard let integer = PostgreSQLResult.binaryInteger(bytes), integer >= min && integer <= max else { return .refused }
            guard let narrow = Int32(exactly: integer) else { return .notHandled }
            slot.store(narrow, in: base)
        case (.integer(let min, let max), .int16):
            guard let integer = PostgreSQLResult.binaryInteger(bytes), integer >= min && integer <= max else { return .refused }
            guard let narrow = Int16(exactly: integer) else { return .notHandled }
            slot.store(narrow, in: base)
        case (.boolean, .boolean):
            guard bytes.count == 1 else { return .refused }
            switch bytes[0] {
            case 0: slot.store(false, in: base)
            case 1: slot.store(true, in: base)
            default: return .refused
            }
        default:
            return .notHandled
        }
        return .stored
    }
}
