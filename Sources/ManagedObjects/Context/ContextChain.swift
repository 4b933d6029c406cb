/// How a context is linked to the other contexts of its chain: the parent it saves into (for a
/// child context), the children that read through it, and the temporary IDs that became
/// permanent while other contexts of the chain may still name objects by them.
struct ContextChain {
    /// The parent context as this context's store; nil for a context of a coordinator.
    var parentStore: ParentContextStore?
    /// The child contexts made on this one, held weakly: a child keeps its parent alive, not
    /// the other way round.
    var children: [WeakContext] = []
    /// Temporary IDs made permanent (by a save to the store or ``ManagedObjectContext/obtainPermanentIDs(for:)``)
    /// since a child was made in the chain: relationship faults and fetched rows of a child may
    /// still hold the temporary ones. Kept only in chains of more than one context.
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]

    /// The ID `id` names now: its permanent ID when it was a temporary one made permanent.
    func currentID(for id: ManagedObjectID) -> ManagedObjectID {
        id.isTemporaryID ? permanentIDs[id] ?? id : id
    }
}

/// A context held without keeping it alive.
struct WeakContext {
    weak var context: ManagedObjectContext?
}
