import Foundation

/// The part of a managed object's state that few objects ever hold: a fetched fault, of which
/// a fetch makes millions, carries one reference to it (nil) instead of its fields.
final class ManagedObjectRareState {
    /// Changes announced with `willChange…` and not yet completed, innermost last.
    var pendingChanges: [PendingManagedChange] = []
    /// The batch of a fetch with a batch size this fault belongs to; firing it loads the batch.
    var faultBatch: FaultBatch?
    /// When the fault's fetched row was read, while the object also needs this state.
    var rowRead: RowRead?
}

/// A managed object's side state in one word (the enum's cases share the references' spare
/// bits): nothing, the read of a fault's fetched row (what most fetched faults hold), or the
/// rare state, which then holds the read.
enum ManagedObjectSideState {
    case none
    case read(RowRead)
    case rare(ManagedObjectRareState)
}

extension ManagedObject {
    /// The state few objects ever need (changes in progress, a fetch batch); made on first use.
    final var rareState: ManagedObjectRareState? {
        get {
            if case .rare(let state) = sideState { return state }
            return nil
        }
        set {
            let read = cachedRecordRead
            if let newValue {
                newValue.rowRead = read
                sideState = .rare(newValue)
            } else {
                sideState = read.map(ManagedObjectSideState.read) ?? .none
            }
        }
    }

    /// When the fault's `fetchedRow` was read: firing checks it against the saves of the
    /// coordinator's other contexts and the context's ``ManagedObjectContext/stalenessInterval``.
    final var cachedRecordRead: RowRead? {
        get {
            switch sideState {
            case .none: return nil
            case .read(let read): return read
            case .rare(let state): return state.rowRead
            }
        }
        set {
            if case .rare(let state) = sideState {
                state.rowRead = newValue
            } else {
                sideState = newValue.map(ManagedObjectSideState.read) ?? .none
            }
        }
    }

    /// Changes announced with `willChange…` and not yet completed, innermost last.
    package final var pendingChanges: [PendingManagedChange] {
        get { rareState?.pendingChanges ?? [] }
        set {
            if let rareState {
                rareState.pendingChanges = newValue
            } else if !newValue.isEmpty {
                let state = ManagedObjectRareState()
                state.pendingChanges = newValue
                rareState = state
            }
        }
    }

    /// The batch of a fetch with a batch size this fault belongs to; firing it loads the batch.
    final var faultBatch: FaultBatch? {
        get { rareState?.faultBatch }
        set {
            if let rareState {
                rareState.faultBatch = newValue
            } else if let newValue {
                let state = ManagedObjectRareState()
                state.faultBatch = newValue
                rareState = state
            }
        }
    }

    /// The property ``validateAllModeledProperties()`` is validating: ``validateValue(_:forKey:)``
    /// takes it for its key without looking the name up. A hint only: nil when the index does
    /// not fit ``validatingSlot``.
    final var validatingProperty: PropertyDescription? {
        get {
            let index = Int(validatingSlot) - 1
            return entity.properties.indices.contains(index) ? entity.properties[index] : nil
        }
        set { validatingSlot = newValue.flatMap { UInt16(exactly: $0.index + 1) } ?? 0 }
    }
}
