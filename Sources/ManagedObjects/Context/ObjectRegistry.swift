/// The objects a context has registered, by ID, held without retaining them: an unchanged
/// object goes away when nobody else holds it (it removes itself in its `deinit`), so fetching a
/// million objects and dropping them gives the memory back. The context's inserted, updated and
/// deleted sets hold changed objects strongly.
struct ObjectRegistry {
    private var objects: [ManagedObjectID: Unmanaged<ManagedObject>] = [:]

    /// The object registered under `id`.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { objects[id]?.takeUnretainedValue() }
        set { objects[id] = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// Every registered object, retained for the caller.
    var values: [ManagedObject] { objects.values.map { $0.takeUnretainedValue() } }

    /// Makes room for `capacity` objects in all, at least doubling the table when it grows
    /// (so that reserving again and again for a few more stays amortized O(1)).
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > objects.capacity else { return }
        objects.reserveCapacity(Swift.max(capacity, objects.capacity * 2))
    }

    /// The number of registered objects.
    var count: Int { objects.count }

    /// Forgets `object` if it is the one registered under its ID; called from its `deinit`,
    /// so it must not retain it.
    mutating func remove(_ object: ManagedObject, id: ManagedObjectID) {
        guard let position = objects.index(forKey: id),
              objects[position].value.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        else { return }
        objects.remove(at: position)
        // A dictionary never shrinks by itself: once most objects have gone (a large fetch
        // dropped), rebuild the table at its new size so its memory comes back too. Amortized
        // O(1): a rebuild follows at least seven removals per remaining object.
        if objects.capacity > 4096 && objects.count < objects.capacity / 8 {
            var smaller = [ManagedObjectID: Unmanaged<ManagedObject>](minimumCapacity: objects.count * 2)
            for (key, value) in objects { smaller[key] = value }
            objects = smaller
        }
    }

    /// Forgets everything.
    mutating func removeAll() {
        objects = [:]
    }
}
