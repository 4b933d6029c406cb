/// The objects a context changed since its last objects-did-change notification (new objects
/// whose insertion is not announced yet aside; see `ManagedObjectFlags.insertionUnannounced`).
///
/// A set that flags its members (`ManagedObjectFlags.updateUnannounced`): a change to an object
/// already in it, as every change after an object's first one is, costs a flag test instead of
/// hashing the object and looking it up. The flag is set exactly while the object is in the set;
/// every way out of the set goes through this type, which clears it.
struct UnannouncedUpdates {
    /// The objects.
    private(set) var objects: Set<ManagedObject> = []

    /// Adds `object`; does nothing when it is in already.
    @inline(__always)
    mutating func insert(_ object: ManagedObject) {
        if object.flags.contains(.updateUnannounced) { return }
        object.flags.insert(.updateUnannounced)
        // `update(with:)` hands back no member to release, as `insert` does.
        objects.update(with: object)
    }

    /// Takes every object out, clearing their flags.
    mutating func removeAll() {
        guard !objects.isEmpty else { return }
        for object in objects { object.flags.remove(.updateUnannounced) }
        objects = []
    }

    /// Takes `removed` out, clearing their flags; objects of `removed` that are not in are left
    /// as they are.
    mutating func subtract(_ removed: [ManagedObject]) {
        guard !objects.isEmpty else { return }
        for object in removed where objects.remove(object) != nil { object.flags.remove(.updateUnannounced) }
    }
}
