/// A change of a managed object that its context records for undo, kept as data instead of a
/// closure over a weakly held target.
///
/// The action holds its object strongly, as Core Data's undo manager keeps strong references
/// to changed managed objects: a weak reference moves an object's reference count into a side
/// table, which slows every later retain and release of it, and registering a closure
/// allocates per change. ``ModelUndoManager/removeAllActions(withTarget:)`` removes these
/// actions like any other, by their object.
struct ManagedUndoAction {
    /// What the action does to its object.
    enum Operation {
        /// Puts a property back (``ManagedObject/reverse(_:of:)``).
        case reverse(PropertyDescription, ManagedChangeReversal)
        /// Takes an inserted object out of its context again.
        case undoInsertion
        /// Inserts the object again (a redone insertion).
        case insert
        /// Takes a deleted object back, as inserted or updated when it was.
        case undoDeletion(wasInserted: Bool, wasUpdated: Bool)
        /// Deletes the object again (a redone deletion).
        case delete
    }

    /// The object the action changes.
    let object: ManagedObject
    let operation: Operation
    /// How the insertion and deletion operations reach the context whose sets they change;
    /// they are skipped once it is gone.
    private let handle: ContextUndoHandle?

    /// The context whose sets the insertion and deletion operations change; nil once it is gone.
    var context: ManagedObjectContext? { handle?.context }

    init(object: ManagedObject, operation: Operation, context: ManagedObjectContext?) {
        self.object = object
        self.operation = operation
        handle = context?.undoHandle
    }

    /// Performs the operation.
    func perform() {
        switch operation {
        case .reverse(let property, let reversal): object.reverse(reversal, of: property)
        case .undoInsertion: context?.undoInsertion(of: object)
        case .insert: context?.insert(object)
        case .undoDeletion(let wasInserted, let wasUpdated): context?.undoDeletion(of: object, wasInserted: wasInserted, wasUpdated: wasUpdated)
        case .delete: context?.delete(object)
        }
    }
}

/// A context as the undo actions of its insertions and deletions reach it: cleared by the
/// context's `deinit`, so that an undo manager outliving its context skips them.
///
/// A reference of its own rather than a weak reference to the context: a weak reference moves
/// the context's reference count into a side table, which makes every later retain and release
/// of the context slower, and each action would pay for making and destroying its own.
final class ContextUndoHandle {
    /// The context; nil once it is gone. SAFETY: unretained, and cleared by the context's
    /// `deinit` before it is freed, so it never dangles; read and written only in the
    /// context's isolation domain.
    @exclusivity(unchecked) unowned(unsafe) var context: ManagedObjectContext?

    init() {}
}
