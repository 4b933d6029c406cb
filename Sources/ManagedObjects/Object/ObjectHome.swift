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
