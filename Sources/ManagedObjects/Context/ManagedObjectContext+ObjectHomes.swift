/// The homes a context's objects of one entity take, unretained: the context's own and the
/// entity's without a context (the context's `homes` and `homesWithoutContext` hold them).
struct EntityHomes {
    let entity: ObjectIdentifier
    let own: Unmanaged<ObjectHome>
    let withoutContext: Unmanaged<ObjectHome>
}

extension ManagedObjectContext {
    /// The homes of `entity`'s objects (see `EntityHomes`), made on first use; the last ones
    /// asked for are kept, so a fetch's objects find theirs by one comparison and no reference
    /// counting.
    @inline(__always)
    func homes(for entity: EntityDescription) -> EntityHomes {
        if let last = lastHomes, last.entity == ObjectIdentifier(entity) { return last }
        return makeHomes(for: entity)
    }

    private func makeHomes(for entity: EntityDescription) -> EntityHomes {
        let key = ObjectIdentifier(entity)
        let own = homes[key] ?? ObjectHome(entity: entity, context: Unmanaged.passUnretained(self))
        homes[key] = own
        let withoutContext = homesWithoutContext[key] ?? entity.homeWithoutContext
        homesWithoutContext[key] = withoutContext
        let made = EntityHomes(entity: key, own: Unmanaged.passUnretained(own), withoutContext: Unmanaged.passUnretained(withoutContext))
        lastHomes = made
        return made
    }

    /// The home of this context's objects of `entity`.
    func home(for entity: EntityDescription) -> ObjectHome { homes(for: entity).own.takeUnretainedValue() }

    /// Moves `object` to its entity's home without a context, when it is in this one's.
    func letGo(_ object: ManagedObject) {
        guard object.home.unmanagedContext?.toOpaque() == Unmanaged.passUnretained(self).toOpaque() else { return }
        object.home = homes(for: object.home.entity).withoutContext.takeUnretainedValue()
    }
}
