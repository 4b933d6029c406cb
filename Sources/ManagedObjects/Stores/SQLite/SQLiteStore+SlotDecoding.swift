import Foundation

/// What decoding a column straight into a slot did.
enum SlotDecodingOutcome {
    /// The value is in the slot.
    case stored
    /// The column holds something the store would not have written for the attribute's type.
    case refused
    /// The slot does not take the decoded value as it is (a conversion, a value transformer,
    /// an `Any` slot): the value goes through a `StoreValue`.
    case notHandled
}

extension SQLiteStore {
    /// Decodes `column` (of storage class `storage`, not NULL) as `decoding`
    /// into `slot` of the buffer at `base`, for the attribute types whose slot holds the
    /// decoded value in its own type: no `StoreValue` made and matched again per value. The
    /// checks are those of ``decode(_:at:_:as:)``, which every other pair of decoding and slot
    /// kind goes through (`.notHandled`).
    @inline(__always)
    static func decode(
        _ column: SQLiteColumn, _ storage: SQLiteStorageClass, as decoding: SQLSchema.Decoding,
        into slot: PropertyLayout.Slot, of base: UnsafeMutableRawPointer
    ) -> SlotDecodingOutcome {
        switch (decoding, slot.kind) {
        case (.double, .double):
            switch storage {
            case .real: slot.store(column.double, in: base)
            case .integer:
                guard let double = Double(exactly: column.int64) else { return .refused }
                slot.store(double, in: base)
            default: return .refused
            }
        case (.string, .string):
            guard storage == .text, let text = column.validText else { return .refused }
            slot.store(text, in: base)
        case (.integer(let min, let max), .int64):
            guard let integer = integer(column, storage), integer >= min && integer <= max else { return .refused }
            slot.store(integer, in: base)
        case (.integer(let min, let max), .int32):
            guard let integer = integer(column, storage), integer >= min && integer <= max else { return .refused }
            guard let narrow = Int32(exactly: integer) else { return .notHandled }
            slot.store(narrow, in: base)
        case (.integer(let min, let max), .int16):
            guard let integer = integer(column, storage), integer >= min && integer <= max else { return .refused }
            guard let narrow = Int16(exactly: integer) else { return .notHandled }
            slot.store(narrow, in: base)
        case (.boolean, .boolean):
            guard storage == .integer || storage == .real else { return .refused }
            switch column.double {
            case 0: slot.store(false, in: base)
            case 1: slot.store(true, in: base)
            default: return .refused
            }
        case (.date, .date):
            guard storage == .real || storage == .integer else { return .refused }
            slot.store(Date(timeIntervalSinceReferenceDate: column.double), in: base)
        default:
            return .notHandled
        }
        return .stored
    }

    /// The column as an integer: an integer as it is, a real only when it is a whole number
    /// `Int64` holds; nil for anything else.
    @inline(__always)
    private static func integer(_ column: SQLiteColumn, _ storage: SQLiteStorageClass) -> Int64? {
        switch storage {
        case .integer: column.int64
        case .real: Int64(exactly: column.double)
        default: nil
        }
    }
}
