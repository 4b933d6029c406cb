/// The objects a context has registered, by ID, held without retaining them: an unchanged
/// object goes away when nobody else holds it (it removes itself in its `deinit`), so fetching a
/// million objects and dropping them gives the memory back. The context's inserted, updated and
/// deleted sets hold changed objects strongly.
///
/// An open-addressing table of object references alone (one word per slot): an object's key is
/// its own ``ManagedObject/objectID``, so the table stores no copy of it, and finding a slot
/// mixes the ID's number with one multiplication instead of running the standard hasher. Every
/// object is registered under its current ID: the context takes an object out before changing
/// its ID and puts it back after.
struct ObjectRegistry {
    /// At least `minimumCapacity` slots (or none), at most three quarters used; linear
    /// probing. Any number of slots, not only powers of two: a fetch reserves exactly the room
    /// its objects need (a million objects take 1.33 million slots, not 2.1 million), and a
    /// slot is found from the ID's mixed number by a multiplication, not a mask.
    private var slots: ContiguousArray<Unmanaged<ManagedObject>?> = []
    /// The number of registered objects.
    private(set) var count = 0

    /// Mixed into every slot position, so that keys chosen to collide in one process do not in
    /// another.
    private static let seed = UInt64.random(in: .min ... .max) | 1

    private static let minimumCapacity = 16

    /// The number of slots.
    var capacity: Int { slots.count }

    /// The slot where probing for `id` starts, in a table of `capacity` slots: the high word
    /// of the mixed number times the capacity, which spreads the mixed numbers evenly over
    /// any number of slots.
    @inline(__always)
    private static func home(of id: ManagedObjectID, capacity: Int) -> Int {
        home(of: id.key, capacity: capacity)
    }

    /// The slot where probing for an ID whose key is `key` starts (see `home(of:capacity:)`).
    @inline(__always)
    private static func home(of key: ManagedObjectID.Key, capacity: Int) -> Int {
        let mixed = (UInt64(bitPattern: key.number) ^ seed) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: (mixed ^ (mixed >> 29)).multipliedFullWidth(by: UInt64(capacity)).high)
    }

    /// The slot after `position`, wrapping around.
    @inline(__always)
    private func next(after position: Int) -> Int {
        let next = position + 1
        return next == slots.count ? 0 : next
    }

    /// The slot holding the object registered under `id`, or nil.
    @inline(__always)
    private func slot(of id: ManagedObjectID) -> Int? {
        guard count > 0 else { return nil }
        var position = Self.home(of: id, capacity: slots.count)
        while let entry = slots[position] {
            if entry._withUnsafeGuaranteedRef({ $0.objectID == id }) { return position }
            position = next(after: position)
        }
        return nil
    }

    /// The object registered under `id`.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { slot(of: id).flatMap { slots[$0]?.takeUnretainedValue() } }
        set {
            if let object = newValue {
                insert(object, id: id)
            } else if let position = slot(of: id) {
                removeSlot(at: position)
            }
        }
    }

    /// Registers `object`, whose ID is `id`, replacing the object registered under it. Unlike
    /// the subscript's setter, it takes no reference to `object` for the call.
    mutating func insert(_ object: ManagedObject, id: ManagedObjectID) {
        if let position = slot(of: id) {
            slots[position] = Unmanaged.passUnretained(object)
            return
        }
        insertNew(object, id: id)
    }

    /// Registers `object`, whose ID is `id`, which no registered object has (the caller
    /// checked): one probe for a free slot, without first looking for an entry to replace.
    mutating func insertNew(_ object: ManagedObject, id: ManagedObjectID) {
        if (count + 1) * 4 > slots.count * 3 { resize(to: Swift.max(Self.minimumCapacity, slots.count * 2)) }
        var position = Self.home(of: id, capacity: slots.count)
        while slots[position] != nil { position = next(after: position) }
        slots[position] = Unmanaged.passUnretained(object)
        count += 1
    }

    /// Registers `objects`, whose IDs no registered object has and which are all different
    /// (the caller checked), growing the table once, to the room they need.
    mutating func insertNew(_ objects: [Unmanaged<ManagedObject>]) {
        guard !objects.isEmpty else { return }
        reserveCapacity(count + objects.count)
        for object in objects {
            object._withUnsafeGuaranteedRef { insertNew($0, id: $0.objectID) }
        }
    }

    /// The slot holding `object`, which is registered under `id` if at all: probing from `id`'s
    /// home slot comparing references, so that no other object is read (each would be a cache
    /// miss in a large table). Nil when `object` is not registered under `id`.
    func position(of object: ManagedObject, registeredAs id: ManagedObjectID.Key) -> Int? {
        guard count > 0 else { return nil }
        let target = Unmanaged.passUnretained(object).toOpaque()
        var position = Self.home(of: id, capacity: slots.count)
        while let entry = slots[position] {
            if entry.toOpaque() == target { return position }
            position = next(after: position)
        }
        return nil
    }

    /// Whether renaming `renamed` registered objects is cheaper as one rebuild of the table
    /// (`rename(at:objects:to:)`, which reads only the objects that keep their IDs) than one
    /// removal and insertion each (which read the objects along each probe run): when they are
    /// at least half the table.
    func prefersRebuild(renaming renamed: Int) -> Bool {
        renamed >= 64 && renamed * 2 >= count
    }

    /// Registers `objects[i]`, found at slot `positions[i]` (see `position(of:registeredAs:)`),
    /// under `ids[i]` instead, in one rebuild of the table: the renamed objects go straight to
    /// free slots from their new IDs (which must all differ, and differ from their old ones),
    /// without reading them; the other objects are placed again from their own IDs, each
    /// giving way to a renamed object with the same ID (as `insert(_:id:)` replaces it).
    ///
    /// - Complexity: O(`capacity`), reading only the objects not renamed.
    mutating func rename(at positions: [Int], objects: [ManagedObject], to ids: [ManagedObjectID]) {
        precondition(positions.count == objects.count && objects.count <= ids.count, "renames of unequal lengths")
        guard !positions.isEmpty else { return }
        var remaining = slots
        slots = ContiguousArray(repeating: nil, count: Swift.max(slots.count, Self.capacity(for: count)))
        count = 0
        for position in positions { remaining[position] = nil }
        objects.withUnsafeBufferPointer { objects in
            ids.withUnsafeBufferPointer { ids in
                for index in objects.indices {
                    var position = Self.home(of: ids[index], capacity: slots.count)
                    while slots[position] != nil { position = next(after: position) }
                    slots[position] = Unmanaged.passUnretained(objects[index])
                    count += 1
                }
            }
        }
        for case let entry? in remaining {
            let id = entry._withUnsafeGuaranteedRef { $0.objectID }
            if slot(of: id) != nil { continue }
            var position = Self.home(of: id, capacity: slots.count)
            while slots[position] != nil { position = next(after: position) }
            slots[position] = entry
            count += 1
        }
    }

    /// How far `position` is past `start`, going forward and wrapping around.
    @inline(__always)
    private func distance(from start: Int, to position: Int) -> Int {
        let distance = position - start
        return distance >= 0 ? distance : distance + slots.count
    }

    /// Empties the slot at `position`, moving later entries of its probe run back so that
    /// every entry stays reachable from its home slot.
    private mutating func removeSlot(at position: Int) {
        var hole = position
        var next = next(after: position)
        while let entry = slots[next] {
            let home = entry._withUnsafeGuaranteedRef { Self.home(of: $0.objectID, capacity: slots.count) }
            // The entry may move into the hole when its home is not cyclically in (hole, next].
            if distance(from: home, to: next) >= distance(from: hole, to: next) {
                slots[hole] = entry
                hole = next
            }
            next = self.next(after: next)
        }
        slots[hole] = nil
        count -= 1
        // The table never shrinks by itself: once most objects have gone (a large fetch
        // dropped), rebuild it at its new size so its memory comes back too. Amortized O(1): a
        // rebuild follows at least seven removals per remaining object.
        if slots.count > 4096 && count < slots.count / 8 { resize(to: Self.capacity(for: count)) }
    }

    /// Rehashes every entry into `capacity` slots.
    private mutating func resize(to capacity: Int) {
        let old = slots
        slots = ContiguousArray(repeating: nil, count: capacity)
        for case let entry? in old {
            var position = entry._withUnsafeGuaranteedRef { Self.home(of: $0.objectID, capacity: capacity) }
            while slots[position] != nil { position = next(after: position) }
            slots[position] = entry
        }
    }

    /// The fewest slots that hold `count` entries at most three quarters full (at least the
    /// minimum).
    static func capacity(for count: Int) -> Int {
        Swift.max(minimumCapacity, (count * 4 + 2) / 3)
    }

    /// Every registered object, retained for the caller.
    var values: [ManagedObject] { slots.compactMap { $0?.takeUnretainedValue() } }

    /// Makes room for `capacity` objects in all: the fewest slots that hold them three
    /// quarters full, or twice the slots when that is more (so that reserving again and again
    /// for a few more stays amortized O(1)).
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity * 4 > slots.count * 3 else { return }
        resize(to: Swift.max(Self.capacity(for: capacity), slots.count * 2))
    }

    /// Forgets `object` if it is the one registered under its ID; called from its `deinit`,
    /// so it must not retain it.
    mutating func remove(_ object: ManagedObject, id: ManagedObjectID) {
        guard let position = slot(of: id), slots[position]?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else {
            return
        }
        removeSlot(at: position)
    }

    /// Forgets everything.
    mutating func removeAll() {
        slots = []
        count = 0
    }

    /// Checks the table's invariants: the count matches, the load stays at most three
    /// quarters, and every entry is reachable from its home slot with no empty slot between.
    func checkInvariants() -> Bool {
        guard !slots.isEmpty else { return count == 0 }
        var seen = 0
        for (position, entry) in slots.enumerated() {
            guard let entry else { continue }
            seen += 1
            var probe = entry._withUnsafeGuaranteedRef { Self.home(of: $0.objectID, capacity: slots.count) }
            while probe != position {
                if slots[probe] == nil { return false }
                probe = next(after: probe)
            }
        }
        return seen == count && count * 4 <= slots.count * 3
    }
}
