import Foundation

/// The part of a managed object's state that few objects ever hold: a fetched fault, of which
/// a fetch makes millions, carries one reference to it (nil) instead of its fields.
final class ManagedObjectRareState {
    /// Changes announced with `willChange…` and not yet completed, innermost last.
    var pendingChanges: [PendingManagedChange] = []
    /// The batch of a fetch with a batch size this fault belongs to; firing it loads the batch.
    var faultBatch: FaultBatch?
}

extension ManagedObject {
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
