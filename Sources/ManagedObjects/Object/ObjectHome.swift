/// What the objects of one entity in one context share: the entity and the context. An object
/// holds its home instead of both, one word for two in every object (a fetch makes a million
/// of them).
///
/// A context makes one home per entity of its objects (``ManagedObjectContext/home(for:)``) and
/// moves every object it lets go of (unregistered, or the context going away) to its entity's
/// home without a context (``EntityDescription/homeWithoutContext``), so a home's context is
/// never a dangling reference. Immutable once made.
final class ObjectHome {
    /// The entity of the objects.
    let entity: EntityDescription
    /// The context of the objects, held without reference counting (see the type's note); nil
    /// for objects in no context.
    let unmanagedContext: Unmanaged<ManagedObjectContext>?

    init(entity: EntityDescription, context: Unmanaged<ManagedObjectContext>?) {
        self.entity = entity
        self.unmanagedContext = context
    }
}

extension EntityDescription {
    /// The home of this entity's objects that are in no context: new objects not inserted yet,
    /// objects a context let go of. Made on first use and kept with the entity; the model
    /// drops it when it goes away (the home holds the entity).
    var homeWithoutContext: ObjectHome {
        contextlessHome.withLock { home in
            if let home { return home }
            let made = ObjectHome(entity: self, context: nil)
            // A home kept by an entity whose model is gone would never be dropped.
            if managedObjectModel != nil { home = made }
            return made
        }
    }

    /// Drops the home of objects in no context (the model is going away): the entity and its
    /// home then go when the last object of the entity does.
    func dropHomeWithoutContext() {
        contextlessHome.withLock { $0 = nil }
    }
}

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
