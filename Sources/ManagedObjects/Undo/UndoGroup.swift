/// One registered undo operation: a handler and the target it is sent to.
///
/// The target is held weakly. Foundation keeps an unowned (unretained) reference so that an
/// object registering undo on itself forms no retain cycle; a weak reference keeps that and turns
/// Foundation's dangling-pointer crash, when the target dies before the undo, into a skipped
/// action.
struct UndoAction {
    /// The object the handler receives, or nil once it has been deallocated.
    private(set) weak var target: AnyObject?
    private let invoke: () -> Void

    init<Target: AnyObject>(target: Target, handler: @escaping (Target) -> Void) {
        self.target = target
        // The closure captures the typed target weakly, so no cast from `AnyObject` is needed.
        invoke = { [weak target] in
            guard let target else { return }
            handler(target)
        }
    }

    /// Sends the handler to the target if the target is still alive.
    func perform() { invoke() }
}

/// An entry of a group: a single action, or a nested group folded into its parent.
enum UndoEntry {
    case action(UndoAction)
    /// A change a context recorded for one of its objects.
    case managed(ManagedUndoAction)
    case group(UndoGroup)
}

/// A group of undo operations reversed together by one undo or redo.
///
/// Entries are kept in registration order and performed last-first. Nested groups are entries
/// of their parent; empty groups are never stored.
struct UndoGroup {
    var entries: [UndoEntry] = []
    /// The name shown in "Undo <name>"; empty when none was set.
    var actionName = ""

    var isEmpty: Bool { entries.isEmpty }

    /// Performs every action, the last registered first, nested groups likewise.
    ///
    /// - Complexity: O(*n*), where *n* is the number of actions in the group and its subgroups.
    func perform() {
        for entry in entries.reversed() {
            switch entry {
            case .action(let action): action.perform()
            case .managed(let action): action.perform()
            case .group(let group): group.perform()
            }
        }
    }

    /// Removes the actions sent to `target`, and nested groups left empty by that.
    mutating func removeActions(withTarget target: AnyObject) {
        entries = entries.compactMap { entry in
            switch entry {
            case .action(let action):
                return action.target === target ? nil : entry
            case .managed(let action):
                return action.object === target ? nil : entry
            case .group(var group):
                group.removeActions(withTarget: target)
                return group.isEmpty ? nil : .group(group)
            }
        }
    }

    /// Whether this group and every nested group hold at least one entry.
    var hasNoEmptyGroups: Bool {
        !entries.isEmpty && entries.allSatisfy { entry in
            if case .group(let group) = entry { return group.hasNoEmptyGroups }
            return true
        }
    }
}

/// A group that is still collecting registrations.
struct OpenUndoGroup {
    enum Kind {
        /// Opened by `beginUndoGrouping()`; closed only by `endUndoGrouping()`.
        case explicit
        /// Opened by the first registration while no group was open (`groupsByEvent`); closed by
        /// `endEventGroup()`, `endUndoGrouping()`, or before an undo or redo.
        case automatic
        /// Opened by the undo manager around an undo or redo to collect the inverse operations.
        case undoRedo
    }

    let kind: Kind
    var group = UndoGroup()

    init(_ kind: Kind) { self.kind = kind }
}
