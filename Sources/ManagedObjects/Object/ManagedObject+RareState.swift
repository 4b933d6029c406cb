import Foundation

/// The part of a managed object's state that few objects ever hold: a fetched fault, of which
/// a fetch makes millions, carries one reference to it (nil) instead of its fields.
final class ManagedObjectRareState {
    /// Changes announced with `willChange…` and not yet completed, innermost last.
    var pendingChanges: [PendingManagedChange] = []
    /// The batch of a fetch with a batch size this fault belongs to, while the object's row
    /// state holds something else (a fault of a batch that also got a row from another fetch);
    /// firing it loads the batch.
    var faultBatch: FaultBatch?
    /// The object's row state while the object's own word holds this state instead (never
    /// `.rare`).
    var rowState: ManagedObjectRowState = .none
    /// The save slot, while the object also holds a snapshot or a fetched row (see
    /// `ManagedObject.saveSlot`); -1 for none.
    var saveSlot = -1
    /// `inverseMaintenanceDepth`, when it does not fit the object's byte.
    var inverseMaintenanceDepth: UInt16 = 0
    /// `changeRecordingDepth`, when it does not fit the object's byte.
    var changeRecordingDepth: UInt16 = 0
    /// `snapshotVersion`, when it does not fit the object's byte.
    var snapshotVersion: Int64 = 0
    /// Set while finding out whether the class overrides `primitiveValue(forKey:)` for a key.
    var primitiveProbe: PrimitiveProbe = .idle
    /// One more than the index of the property `validateAllModeledProperties()` is
    /// validating, 0 for none (see `ManagedObject.validatingProperty`).
    var validatingSlot: UInt16 = 0

    /// Whether the state holds nothing but the row state (which the object's word holds alone).
    var isEmpty: Bool {
        pendingChanges.isEmpty && faultBatch == nil && saveSlot < 0 && primitiveProbe == .idle && validatingSlot == 0
    }
}

/// A managed object's snapshot, the fetched row of a fault, its save slot, or the fetch batch
/// of a fault without a row, in one word (the cases share the references' spare bits), or the
/// rare state, which then holds the row state. An object mostly holds one of the four: a
/// fault's row becomes its snapshot when it fires, a batch's fault gets its row when its batch
/// loads, an inserted object has no snapshot until its save, when it gives up its save slot.
/// Should two meet all the same, a fetched row gives way (firing then reads the store), and a
/// save slot or a batch moves to the rare state. When the fetched row was read is held with the
/// row (`PropertyValueBuffer.rowRead`).
///
/// The cases hold buffers, not `PropertyValues`: an enum of optional references and an
/// integer takes a byte more than a word, and then two words.
enum ManagedObjectRowState {
    case none
    /// The persistent values last read from or saved to the store.
    case snapshot(PropertyValueBuffer)
    /// A snapshot without a buffer (of an object whose values have none).
    case emptySnapshot
    /// The row a fetch read for the fault.
    case fetchedRow(PropertyValueBuffer)
    /// The object's position among the inserted objects of the save in progress.
    case saveSlot(UInt32)
    /// The batch of a fetch with a batch size this fault belongs to, for a fault holding no
    /// row: a fetch makes thousands of these, each with no state of its own to allocate.
    case batch(FaultBatch)
    /// The state few objects need, holding the row state (in the object's word only).
    case rare(ManagedObjectRareState)
    /// When the compact row a fault holds in its value word was read (see
    /// `ObjectValueStorage`; in the object's word only).
    case compactRow(RowRead)
    /// The snapshot is the compact row the object holds as its values (see
    /// `ObjectValueStorage`; in the object's word only).
    case snapshotInValues
}

extension ManagedObject {
    /// The row state, wherever the object holds it: in its own word, or in the rare state when
    /// the word holds that. Never `.rare`.
    /// An object holding a compact row moves it into a buffer first (see
    /// `expandCompactRow()`): the row state read or written here is never `.compactRow` or
    /// `.snapshotInValues`.
    final var heldRowState: ManagedObjectRowState {
        @inline(__always) get {
            if valueStorage.isCompact { expandCompactRow() }
            if case .rare(let state) = rowState { return state.rowState }
            return rowState
        }
        @inline(__always) set {
            if valueStorage.isCompact { expandCompactRow() }
            if case .rare(let state) = rowState {
                state.rowState = newValue
            } else {
                rowState = newValue
            }
        }
    }

    /// The persistent values last read from or saved to the store, by property index; nil for
    /// an object never saved. Relationship entries hold objects (to-one) or object collections.
    /// Shares `values`' buffer until either is written. Setting one drops the fault's
    /// fetched row.
    package final var snapshot: PropertyValues? {
        get {
            switch heldRowState {
            case .snapshot(let buffer): return PropertyValues(buffer: buffer)
            case .emptySnapshot: return PropertyValues()
            case .none, .fetchedRow, .saveSlot, .batch, .rare, .compactRow, .snapshotInValues: return nil
            }
        }
        set {
            if let newValue {
                if case .saveSlot(let slot) = heldRowState { moveSaveSlotToRareState(Int(slot)) }
                moveBatchToRareState()
                heldRowState = newValue.storage.map(ManagedObjectRowState.snapshot) ?? .emptySnapshot
            } else {
                switch heldRowState {
                case .snapshot, .emptySnapshot: heldRowState = .none
                case .none, .fetchedRow, .saveSlot, .batch, .rare, .compactRow, .snapshotInValues: break
                }
            }
        }
        // Edited in place: the snapshot leaves the field while it changes, so that a write to
        // it does not copy its buffer for the field's reference.
        _modify {
            var snapshot: PropertyValues?
            switch heldRowState {
            case .snapshot(let buffer):
                snapshot = PropertyValues(buffer: buffer)
                heldRowState = .none
            case .emptySnapshot:
                snapshot = PropertyValues()
                heldRowState = .none
            case .none, .fetchedRow, .saveSlot, .batch, .rare, .compactRow, .snapshotInValues:
                break
            }
            defer { self.snapshot = snapshot }
            yield &snapshot
        }
    }

    /// The row a fetch (or a batch, a prefetch) read for this fault, already decoded into the
    /// entity's typed layout, with its version in `snapshotVersion`: firing adopts the buffer
    /// as its values and snapshot instead of reading the store again. Empty when the fault has
    /// no row, and once it fired. An object with a snapshot or a save slot takes no row (it is
    /// dropped: firing reads the store).
    package final var fetchedRow: PropertyValues {
        get {
            if case .fetchedRow(let buffer) = heldRowState { return PropertyValues(buffer: buffer) }
            return PropertyValues()
        }
        set {
            if let buffer = newValue.storage {
                if buffer.rowRead?.partial != nil { flags.insert(.mayHoldPartialRow) }
                switch heldRowState {
                case .none, .fetchedRow: heldRowState = .fetchedRow(buffer)
                case .batch:
                    // A fault of a batch given its row by another read stays in its batch.
                    moveBatchToRareState()
                    heldRowState = .fetchedRow(buffer)
                case .snapshot, .emptySnapshot, .saveSlot, .rare, .compactRow, .snapshotInValues: break
                }
            } else if case .fetchedRow = heldRowState {
                heldRowState = .none
            }
        }
    }

    /// Whether the fault holds a partial row: one a fetch with
    /// ``FetchRequest/propertiesToFetch`` read, holding only those properties. Firing does not
    /// adopt it: it reads the whole record.
    package final var holdsPartialRow: Bool {
        if case .fetchedRow(let buffer) = heldRowState { return buffer.rowRead?.partial != nil }
        return false
    }

    /// The fault's partial row, when it holds the value of the property at `index` and is still
    /// fresh (no save through the coordinator changed the record since, and it is younger than
    /// the context's staleness interval): the value is read from it without firing the fault.
    /// Nil otherwise (a loaded object, a whole row, another property, a stale row, no context).
    final func partialRow(holding index: Int) -> PropertyValues? {
        // This runs on every read of such a fault: the context is borrowed, and a row read
        // since which the coordinator saved nothing is fresh without a look at its record.
        guard flags.contains([.fault, .mayHoldPartialRow]), case .fetchedRow(let buffer) = heldRowState, let read = buffer.rowRead,
              read.partiallyHolds(index, of: objectID.entity), let unmanagedContext,
              unmanagedContext._withUnsafeGuaranteedRef({ context in
                  context.stalenessInterval < 0 && read.isCurrent(in: context.persistentStoreCoordinator.savedRecords)
                      || context.isFresh(read, of: objectID)
              })
        else { return nil }
        return PropertyValues(buffer: buffer)
    }

    /// The object's position among the inserted objects of the save in progress, where the
    /// save finds its permanent ID; -1 outside a save.
    final var saveSlot: Int {
        get {
            if case .saveSlot(let slot) = heldRowState { return Int(slot) }
            return rareState?.saveSlot ?? -1
        }
        set {
            if case .saveSlot = heldRowState { heldRowState = .none }
            if let rareState { rareState.saveSlot = -1 }
            guard newValue >= 0 else { return }
            moveBatchToRareState()
            switch heldRowState {
            case .none, .saveSlot:
                if let slot = UInt32(exactly: newValue) {
                    heldRowState = .saveSlot(slot)
                } else {
                    moveSaveSlotToRareState(newValue)
                }
            case .snapshot, .emptySnapshot, .fetchedRow, .batch, .rare, .compactRow, .snapshotInValues:
                moveSaveSlotToRareState(newValue)
            }
        }
    }

    /// The rare state, made if the object has none.
    private final func makeRareState() -> ManagedObjectRareState {
        if let rareState { return rareState }
        let state = ManagedObjectRareState()
        rareState = state
        return state
    }

    /// Lets go of the rare state when it holds nothing any more.
    private final func dropRareStateIfEmpty() {
        if let rareState, rareState.isEmpty, inverseDepthByte < .max, recordingDepthByte < .max, versionByte < .max {
            self.rareState = nil
        }
    }

    /// The record version `snapshot` came from; 0 for an object never saved. A byte of the
    /// object's up to 254 (records are rarely saved more often), the rare state beyond.
    package final var snapshotVersion: Int64 {
        @inline(__always) get {
            versionByte < .max ? Int64(versionByte) : rareState?.snapshotVersion ?? Int64(UInt8.max)
        }
        set {
            if newValue >= 0 && newValue < Int64(UInt8.max) {
                let wasWide = versionByte == .max
                versionByte = UInt8(newValue)
                if wasWide { dropRareStateIfEmpty() }
            } else {
                makeRareState().snapshotVersion = newValue
                versionByte = .max
            }
        }
    }

    /// Nonzero while the object's relationships are being edited to keep another object's
    /// inverse, or restored by undo: its own inverses are then not maintained again. A nesting
    /// depth (each level is a call): a byte of the object's, the rare state beyond.
    package final var inverseMaintenanceDepth: UInt16 {
        @inline(__always) get {
            inverseDepthByte < .max ? UInt16(inverseDepthByte) : rareState?.inverseMaintenanceDepth ?? UInt16(UInt8.max)
        }
        set {
            if newValue < UInt8.max {
                let wasDeep = inverseDepthByte == .max
                inverseDepthByte = UInt8(newValue)
                if wasDeep { dropRareStateIfEmpty() }
            } else {
                makeRareState().inverseMaintenanceDepth = newValue
                inverseDepthByte = .max
            }
        }
    }

    /// Nonzero while changes must not be recorded (inside `awakeFromFetch`); a nesting depth:
    /// a byte of the object's, the rare state beyond.
    package final var changeRecordingDepth: UInt16 {
        @inline(__always) get {
            recordingDepthByte < .max ? UInt16(recordingDepthByte) : rareState?.changeRecordingDepth ?? UInt16(UInt8.max)
        }
        set {
            if newValue < UInt8.max {
                let wasDeep = recordingDepthByte == .max
                recordingDepthByte = UInt8(newValue)
                if wasDeep { dropRareStateIfEmpty() }
            } else {
                makeRareState().changeRecordingDepth = newValue
                recordingDepthByte = .max
            }
        }
    }

    /// Set while finding out whether the class overrides ``primitiveValue(forKey:)`` for a key
    /// (once per class and entity: in the rare state).
    package final var primitiveProbe: PrimitiveProbe {
        get { rareState?.primitiveProbe ?? .idle }
        set {
            if newValue == .idle {
                guard let rareState else { return }
                rareState.primitiveProbe = .idle
                dropRareStateIfEmpty()
            } else {
                makeRareState().primitiveProbe = newValue
            }
        }
    }

    /// Keeps `slot` in the rare state, for an object whose row state holds something else.
    private final func moveSaveSlotToRareState(_ slot: Int) {
        if case .saveSlot = heldRowState { heldRowState = .none }
        if let rareState {
            rareState.saveSlot = slot
        } else {
            let state = ManagedObjectRareState()
            state.saveSlot = slot
            rareState = state
        }
    }

    /// The state few objects ever need (changes in progress, a fetch batch beside a row); made on
    /// first use.
    /// Held in the row state's word, and holding the row state meanwhile.
    final var rareState: ManagedObjectRareState? {
        get {
            if case .rare(let state) = rowState { return state }
            return nil
        }
        set {
            let held = heldRowState
            if let newValue {
                newValue.rowState = held
                rowState = .rare(newValue)
            } else {
                rowState = held
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
    /// Held in the row state's word (``ManagedObjectRowState/batch(_:)``) while the fault has
    /// no row, in the rare state otherwise.
    final var faultBatch: FaultBatch? {
        get {
            if case .batch(let batch) = heldRowState { return batch }
            return rareState?.faultBatch
        }
        set {
            if case .batch = heldRowState { heldRowState = .none }
            if let rareState, rareState.faultBatch != nil {
                rareState.faultBatch = nil
                dropRareStateIfEmpty()
            }
            guard let newValue else { return }
            if case .none = heldRowState {
                heldRowState = .batch(newValue)
            } else {
                makeRareState().faultBatch = newValue
            }
        }
    }

    /// Moves the batch the row state's word holds to the rare state, for a row state about to
    /// hold something else.
    private final func moveBatchToRareState() {
        guard case .batch(let batch) = heldRowState else { return }
        heldRowState = .none
        makeRareState().faultBatch = batch
    }

    /// The property ``validateAllModeledProperties()`` is validating: ``validateValue(_:forKey:)``
    /// takes it for its key without looking the name up. A hint only: nil when the index does
    /// not fit 16 bits.
    /// The hint lives in the rare state while validation calls ``validateValue(_:forKey:)``
    /// (the typed checks pass most values without it).
    final var validatingProperty: PropertyDescription? {
        get {
            guard let slot = rareState?.validatingSlot, slot > 0 else { return nil }
            let index = Int(slot) - 1
            return entity.properties.indices.contains(index) ? entity.properties[index] : nil
        }
        set {
            let slot = newValue.flatMap { UInt16(exactly: $0.index + 1) } ?? 0
            if slot == 0 {
                guard let rareState, rareState.validatingSlot != 0 else { return }
                rareState.validatingSlot = 0
                dropRareStateIfEmpty()
            } else {
                makeRareState().validatingSlot = slot
            }
        }
    }
}
