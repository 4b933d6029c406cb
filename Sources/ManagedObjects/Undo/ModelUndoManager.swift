import Foundation

/// A recorder of operations that reverses changes on request and then re-applies them: the undo
/// manager of a managed object context, usable on its own for any object graph.
///
/// Register the inverse of each change as it is made; ``undo()`` performs the inverses of the
/// most recent group, last registered first, and the registrations those handlers make are
/// collected into a group on the redo stack, which ``redo()`` performs the same way.
///
/// ```swift
/// final class Note { var text = "" }
///
/// func setText(_ text: String, of note: Note, undoManager: ModelUndoManager) {
///     let old = note.text
///     undoManager.registerUndo(withTarget: note) { note in
///         setText(old, of: note, undoManager: undoManager)   // registers the redo
///     }
///     undoManager.setActionName("Typing")
///     note.text = text
/// }
///
/// let undoManager = ModelUndoManager()
/// let note = Note()
/// setText("Hello", of: note, undoManager: undoManager)
/// undoManager.endEventGroup()          // what a context's processPendingChanges() does
/// undoManager.undoMenuItemTitle        // "Undo Typing"
/// try undoManager.undo()               // note.text == ""
/// try undoManager.redo()               // note.text == "Hello"
/// ```
///
/// ## Groups and events
/// Every undo or redo reverses a whole top-level group. With ``groupsByEvent`` on (the default),
/// the first registration made while no group is open opens an *automatic* group. On Apple
/// platforms the run loop closes that group at the end of each event; Linux programs have no
/// such loop, so the owner closes it by calling ``endEventGroup()``. A managed object context
/// does this at the end of `processPendingChanges()`, so the changes between two calls form one
/// undoable step. ``undo()`` and ``redo()`` close an open automatic group first.
///
/// ``beginUndoGrouping()`` and ``endUndoGrouping()`` bracket *explicit* groups; opened inside
/// another group, an explicit group nests, and when closed it folds into its parent, so that the
/// parent's undo reverses it too. Undoing while an explicit group is open is an error
/// (``UndoError/Code-swift.struct/explicitGroupOpen``): close it first, or undo just the group
/// that was last closed inside it with ``undoNestedGroup()``. Groups that end up empty are
/// discarded.
///
/// ## Notifications
/// The undo manager posts Foundation's notifications (the `…Notification` constants on this
/// type) to ``notificationCenter`` with itself as the object, synchronously, in this order:
/// - First registration while no group is open: didOpenUndoGroup.
/// - ``beginUndoGrouping()``: checkpoint (only when nesting inside an open group), didOpenUndoGroup.
/// - ``endUndoGrouping()``, ``endEventGroup()``: checkpoint, willCloseUndoGroup, didCloseUndoGroup.
/// - ``undo()``: the close of an open automatic group (as above), checkpoint, then, if there is
///   something to undo: willUndoChange, didOpenUndoGroup, the handlers run, checkpoint,
///   willCloseUndoGroup, didCloseUndoGroup, didUndoChange. ``redo()`` alike with
///   willRedoChange and didRedoChange.
/// - Reading ``canRedo``: checkpoint.
///
/// The checkpoint before every close is where observers register undo for pending changes;
/// a checkpoint observer must not open or close groups itself.
///
/// ## Target lifetime
/// Like Foundation's, this undo manager does not retain targets, so an object can register undo
/// on itself without a retain cycle. Foundation keeps an unowned reference and crashes if the
/// target dies first; this one keeps a weak reference and skips the actions of a target that no
/// longer exists. The handler closure itself is retained until its group is performed or
/// removed: refer to the target through the handler's argument, not by capturing it.
/// Call ``removeAllActions(withTarget:)`` when an object leaves the graph. The actions a
/// ``ManagedObjectContext`` records for its objects' changes, insertions and deletions are the
/// exception: they hold the objects strongly, as Core Data's undo manager keeps strong references
/// to changed managed objects, until they are performed or removed.
///
/// ## Concurrency
/// An undo manager is confined to one isolation domain, like the managed object context that
/// owns it, and is not `Sendable`. Notifications are posted and handlers run on the caller's
/// thread.
///
/// Corresponds to Foundation's `UndoManager` (`NSUndoManager`); differences:
/// - Named `ModelUndoManager` so it never collides with Foundation's class when both are
///   imported; swift-corelibs-foundation's `UndoManager` is unimplemented on Linux.
/// - No run loop: the automatic group is closed by ``endEventGroup()`` (called by the owner)
///   instead of at the end of each run-loop pass; there is no `runLoopModes`.
/// - Misuse that Foundation reports by raising `NSInternalInconsistencyException` throws an
///   ``UndoError`` and leaves the undo manager unchanged, so ``undo()``, ``redo()``,
///   ``undoNestedGroup()``, ``endUndoGrouping()`` and ``enableUndoRegistration()`` are
///   `throws`. ``undo()`` with a single explicit group open throws, where Foundation silently
///   closes it (Apple documents closing it first as required).
/// - Registering with no group open while ``groupsByEvent`` is false stops the program with a
///   message, as Foundation's exception would; it is the one trap.
/// - Targets are held weakly rather than unowned; actions whose target is gone are skipped.
/// - Only closure-based registration: no `registerUndo(withTarget:selector:object:)`, no
///   `prepare(withInvocationTarget:)` (there is no Objective-C runtime on Linux).
/// - Menu titles are English ("Undo", "Redo"), not localized; the class is `final`, so
///   ``undoMenuTitle(forUndoActionName:)`` cannot be overridden.
/// - No discardable actions, action user info, `LocalizedStringResource` action names, or
///   `undoCount`/`redoCount`.
/// - Not `@MainActor`: it belongs to whatever isolation domain owns it.
public final class ModelUndoManager {
    /// The center the undo manager posts its notifications to.
    public let notificationCenter: NotificationCenter

    // The state below is read or written by every registration (a context registers one for
    // each change of each object): dynamic exclusivity checks are off for it, each costing more
    // than the read it guards. SAFETY: an undo manager belongs to one isolation domain (it is
    // not `Sendable`), and no access to these properties spans a call that could reach them
    // again (notifications are posted and handlers run between accesses, never inside one).

    /// Closed top-level groups, oldest first; the last is what `undo()` reverses.
    @exclusivity(unchecked) private var undoStack: [UndoGroup] = []
    /// Groups collected while undoing, oldest first; the last is what `redo()` performs.
    @exclusivity(unchecked) private var redoStack: [UndoGroup] = []
    /// The open groups, outermost first. While undoing or redoing, the first is the `.undoRedo`
    /// group collecting the inverse operations.
    @exclusivity(unchecked) private var openGroups: [OpenUndoGroup] = []
    /// The groups that were open when `undoNestedGroup()` started, set aside until it ends.
    private var suspendedGroups: [OpenUndoGroup] = []
    /// The number of `disableUndoRegistration()` calls not yet balanced.
    @exclusivity(unchecked) private var disableCount = 0
    /// The maximum number of groups per stack; 0 for no limit.
    private var undoLevelLimit = 0
    /// Nonzero while the checkpoint before a close is being delivered: a close requested by an
    /// observer then (a context's `processPendingChanges()` calling `endEventGroup()`) must not
    /// close the group the outer call is about to close.
    private var closingDepth = 0
    /// Nonzero while a checkpoint is being delivered, so that an observer reading `canRedo`
    /// does not post another one.
    private var checkpointDepth = 0

    /// Creates an undo manager with empty stacks that posts its notifications to
    /// `notificationCenter`.
    ///
    /// Corresponds to Foundation's `UndoManager.init()`; differences: the notification center
    /// can be chosen (Foundation always uses the default center).
    public init(notificationCenter: NotificationCenter = .default) {
        self.notificationCenter = notificationCenter
    }

    // MARK: - Registering undo operations

    /// Records a closure that reverses a change to `target`; ``undo()`` calls it with `target`.
    ///
    /// The action joins the innermost open group. When no group is open and ``groupsByEvent``
    /// is true, it opens an automatic group that stays open until ``endEventGroup()``,
    /// ``endUndoGrouping()``, ``undo()`` or ``redo()``. Registering outside an undo or redo
    /// clears the redo stack, since the redo groups no longer apply to the new state. While
    /// undoing, the action goes to the redo group being collected; while redoing, to the new
    /// undo group. Nothing is recorded while registration is disabled.
    ///
    /// ```swift
    /// let oldName = employee.name
    /// undoManager.registerUndo(withTarget: employee) { $0.name = oldName }
    /// employee.name = "Ada"
    /// ```
    ///
    /// The target is not retained: if it is deallocated before the undo, the action is skipped.
    /// The handler is retained until the action is performed or removed, so reach the target
    /// through the handler's argument rather than capturing it.
    ///
    /// - Precondition: a group is open, or ``groupsByEvent`` is true. Registering with no group
    ///   open and automatic grouping off stops the program, as Foundation raises.
    /// - Complexity: amortized O(1), plus the removal of the redo stack when it is cleared.
    ///
    /// Corresponds to Foundation's `UndoManager.registerUndo(withTarget:handler:)`; differences:
    /// the target is held weakly rather than unowned.
    public func registerUndo<Target: AnyObject>(
        withTarget target: Target, handler: @escaping (Target) -> Void
    ) {
        guard isUndoRegistrationEnabled else { return }
        register(.action(UndoAction(target: target, handler: handler)), targetType: Target.self)
    }

    /// Records a change a context made to one of its objects: what
    /// ``registerUndo(withTarget:handler:)`` does, for an action that holds its object strongly
    /// and allocates no closure. Nothing is recorded while registration is disabled.
    func registerUndo(_ action: @autoclosure () -> ManagedUndoAction) {
        guard isUndoRegistrationEnabled else { return }
        register(.managed(action()), targetType: ManagedObject.self)
    }

    /// Records a change a context made to one of its objects, as `registerUndo(_:)` does,
    /// for a caller that has checked ``isUndoRegistrationEnabled``: the action is moved into its
    /// group, not copied.
    func registerManagedUndo(_ action: consuming ManagedUndoAction) {
        register(.managed(action), targetType: ManagedObject.self)
    }

    /// Adds `entry` to the innermost open group, opening an automatic one when none is. The
    /// entry is consumed: appended without a copy (and a destroy of the caller's).
    private func register(_ entry: consuming UndoEntry, targetType: Any.Type) {
        if !isUndoing && !isRedoing && !redoStack.isEmpty { redoStack.removeAll() }
        if let innermost = openGroups.indices.last {
            openGroups[innermost].group.entries.append(entry)
            return
        }
        guard groupsByEvent else {
            preconditionFailure(
                "ModelUndoManager.registerUndo(withTarget:handler:) on \(targetType): no undo group is open "
                    + "and groupsByEvent is false; call beginUndoGrouping() before registering")
        }
        var automatic = OpenUndoGroup(.automatic)
        automatic.group.entries.append(entry)
        openGroups.append(automatic)
        post(Self.didOpenUndoGroupNotification)
    }

    /// Clears the undo and redo stacks and re-enables registration.
    ///
    /// Open groups stay open, so the calls that will close them still balance, but lose their
    /// actions and names.
    ///
    /// Corresponds to Foundation's `UndoManager.removeAllActions()`; differences: none known.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for index in openGroups.indices { openGroups[index].group = UndoGroup() }
        for index in suspendedGroups.indices { suspendedGroups[index].group = UndoGroup() }
        disableCount = 0
    }

    /// Removes every action sent to `target` from the undo and redo stacks and the open
    /// groups, and discards the groups this leaves empty.
    ///
    /// Call it when an object leaves the graph, so that undo never reaches it. It does not
    /// re-enable registration.
    ///
    /// - Complexity: O(*n*), where *n* is the number of recorded actions.
    ///
    /// Corresponds to Foundation's `UndoManager.removeAllActions(withTarget:)`; differences: the
    /// target must be an object.
    public func removeAllActions(withTarget target: AnyObject) {
        func prune(_ stack: inout [UndoGroup]) {
            stack = stack.compactMap { group in
                var group = group
                group.removeActions(withTarget: target)
                return group.isEmpty ? nil : group
            }
        }
        prune(&undoStack)
        prune(&redoStack)
        for index in openGroups.indices { openGroups[index].group.removeActions(withTarget: target) }
        for index in suspendedGroups.indices { suspendedGroups[index].group.removeActions(withTarget: target) }
    }

    // MARK: - Enabling and disabling registration

    /// Whether registrations are recorded: true unless a ``disableUndoRegistration()`` is in
    /// effect.
    ///
    /// Corresponds to Foundation's `UndoManager.isUndoRegistrationEnabled`.
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording registrations until a matching ``enableUndoRegistration()``.
    ///
    /// Calls nest: each needs its own ``enableUndoRegistration()``. A context disables
    /// registration while it applies changes that must not be undoable, such as merges.
    ///
    /// Corresponds to Foundation's `UndoManager.disableUndoRegistration()`.
    public func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances one ``disableUndoRegistration()``; registration resumes when every disable has
    /// been balanced.
    ///
    /// - Throws: ``UndoError`` with code ``UndoError/Code-swift.struct/unbalancedEnableRegistration``
    ///   when no disable is in effect.
    ///
    /// Corresponds to Foundation's `UndoManager.enableUndoRegistration()`; differences: throws
    /// where Foundation raises `NSInternalInconsistencyException`.
    public func enableUndoRegistration() throws {
        guard disableCount > 0 else {
            throw error(
                .unbalancedEnableRegistration, in: "enableUndoRegistration()",
                "undo registration is not disabled; each enableUndoRegistration() must balance a "
                    + "disableUndoRegistration()")
        }
        disableCount -= 1
    }

    // MARK: - Grouping

    /// The number of open groups: 0 when none is open. While undoing or redoing it counts the
    /// group collecting the inverse operations.
    ///
    /// Corresponds to Foundation's `UndoManager.groupingLevel`.
    public var groupingLevel: Int { openGroups.count }

    /// Whether the first registration made while no group is open opens an automatic group
    /// (true by default).
    ///
    /// Turn it off to manage every group with ``beginUndoGrouping()`` and ``endUndoGrouping()``;
    /// registering with no group open then stops the program.
    ///
    /// Corresponds to Foundation's `UndoManager.groupsByEvent`; differences: the automatic group
    /// is closed by ``endEventGroup()`` rather than by the run loop.
    @exclusivity(unchecked) public var groupsByEvent = true

    /// Whether the automatic group opened by a registration is open.
    public var isEventGroupOpen: Bool {
        openGroups.first?.kind == .automatic
    }

    /// Opens an explicit group: the actions registered until the matching ``endUndoGrouping()``
    /// are undone together.
    ///
    /// Opened inside another group (an automatic or explicit one), the group nests and folds
    /// into its parent when closed. Posts a checkpoint first when nesting, then
    /// didOpenUndoGroup.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// undoManager.setActionName("Move")
    /// // … changes that register undo …
    /// try undoManager.endUndoGrouping()
    /// ```
    ///
    /// Corresponds to Foundation's `UndoManager.beginUndoGrouping()`.
    public func beginUndoGrouping() {
        if !openGroups.isEmpty { postCheckpoint() }
        openGroups.append(OpenUndoGroup(.explicit))
        post(Self.didOpenUndoGroupNotification)
    }

    /// Closes the innermost open group: a nested group folds into its parent; a top-level group
    /// goes onto the undo stack, dropping the oldest groups beyond ``levelsOfUndo``.
    ///
    /// It also closes the automatic group. Posts checkpoint, willCloseUndoGroup and
    /// didCloseUndoGroup. A group with no actions is discarded.
    ///
    /// - Throws: ``UndoError`` with code ``UndoError/Code-swift.struct/unbalancedEndGrouping``
    ///   when no group is open (or, inside an undo or redo handler, when the only open group is
    ///   the one the undo manager opened around the handlers).
    ///
    /// Corresponds to Foundation's `UndoManager.endUndoGrouping()`; differences: throws where
    /// Foundation raises `NSInternalInconsistencyException`.
    public func endUndoGrouping() throws {
        let operation = "endUndoGrouping()"
        try checkGroupToEnd(operation)
        closingDepth += 1
        postCheckpoint()
        closingDepth -= 1
        try checkGroupToEnd(operation)
        finishClosingInnermostGroup()
    }

    /// Closes the automatic group if it is the only open group; the owner of the undo manager
    /// calls this where Foundation's run loop would end the event.
    ///
    /// A managed object context calls it at the end of `processPendingChanges()`, so each batch
    /// of changes becomes one undoable step. It does nothing, and returns false, when no
    /// automatic group is open, when explicit groups are open inside it (it is closed by a
    /// later call, once they are), while undoing or redoing, and when called by an observer
    /// of the checkpoint that precedes a close. Posts checkpoint, willCloseUndoGroup and
    /// didCloseUndoGroup when it closes the group.
    ///
    /// - Returns: whether the automatic group was closed.
    ///
    /// Corresponds to the end of a run-loop pass for Foundation's `UndoManager` with
    /// `groupsByEvent` on; Foundation has no such method.
    @discardableResult
    public func endEventGroup() -> Bool {
        guard closingDepth == 0, isOnlyAutomaticGroupOpen else { return false }
        closingDepth += 1
        postCheckpoint()
        closingDepth -= 1
        guard isOnlyAutomaticGroupOpen else { return false }
        finishClosingInnermostGroup()
        return true
    }

    // MARK: - Undo and redo

    /// Whether there is anything to undo: a group on the undo stack, or actions in an open
    /// group.
    ///
    /// True does not mean ``undo()`` will succeed: an explicit group may have to be closed
    /// first.
    ///
    /// Corresponds to Foundation's `UndoManager.canUndo`.
    public var canUndo: Bool {
        let userGroups = isUndoing || isRedoing ? suspendedGroups : openGroups
        return !undoStack.isEmpty || userGroups.contains { !$0.group.isEmpty }
    }

    /// Whether there is a group on the redo stack.
    ///
    /// Reading it posts a checkpoint first (as Foundation does), so that observers register
    /// their pending changes, which clears the redo stack, before the answer is given.
    ///
    /// Corresponds to Foundation's `UndoManager.canRedo`.
    public var canRedo: Bool {
        if checkpointDepth == 0 { postCheckpoint() }
        return !redoStack.isEmpty
    }

    /// Whether the undo manager is performing the actions of an ``undo()`` or
    /// ``undoNestedGroup()``; registrations made meanwhile go to the redo stack.
    ///
    /// Corresponds to Foundation's `UndoManager.isUndoing`.
    @exclusivity(unchecked) public private(set) var isUndoing = false

    /// Whether the undo manager is performing the actions of a ``redo()``; registrations made
    /// meanwhile go to the undo stack without clearing the redo stack.
    ///
    /// Corresponds to Foundation's `UndoManager.isRedoing`.
    @exclusivity(unchecked) public private(set) var isRedoing = false

    /// Closes the automatic group if it is open, then reverses the most recent group: its
    /// actions run last registered first, and what they register becomes a group on the redo
    /// stack, with the undone group's action name.
    ///
    /// Does nothing (after the checkpoint) when there is nothing to undo. See the type's
    /// discussion for the notifications.
    ///
    /// - Throws: ``UndoError`` with code ``UndoError/Code-swift.struct/explicitGroupOpen`` when a
    ///   group opened with ``beginUndoGrouping()`` is open (close it, or use
    ///   ``undoNestedGroup()``), and ``UndoError/Code-swift.struct/undoOrRedoInProgress`` when
    ///   called from an undo or redo handler. Nothing has been undone or redone when it throws.
    /// - Complexity: O(*n*) in the actions of the group, plus the handlers' own work.
    ///
    /// Corresponds to Foundation's `UndoManager.undo()`; differences: throws instead of raising
    /// `NSInternalInconsistencyException`, and also when the open group is a single explicit
    /// group, which Foundation closes silently.
    public func undo() throws {
        let operation = "undo()"
        try prepareTopLevelUndoOrRedo(operation)
        guard let group = undoStack.popLast() else { return }
        perform(group, undoing: true)
    }

    /// Closes the automatic group if it is open, then performs the most recent group on the
    /// redo stack: its actions run last registered first, and what they register becomes a new
    /// group on the undo stack, with the redone group's action name.
    ///
    /// Does nothing (after the checkpoint) when there is nothing to redo, which includes the
    /// case where an observer of that checkpoint registered pending changes.
    ///
    /// - Throws: ``UndoError`` with code ``UndoError/Code-swift.struct/explicitGroupOpen`` when a
    ///   group opened with ``beginUndoGrouping()`` is open, and
    ///   ``UndoError/Code-swift.struct/undoOrRedoInProgress`` when called from an undo or redo
    ///   handler. Nothing has been undone or redone when it throws.
    ///
    /// Corresponds to Foundation's `UndoManager.redo()`; differences: throws instead of raising
    /// `NSInternalInconsistencyException`.
    public func redo() throws {
        let operation = "redo()"
        try prepareTopLevelUndoOrRedo(operation)
        guard let group = redoStack.popLast() else { return }
        perform(group, undoing: false)
    }

    /// Reverses the last group closed inside the innermost open group, or, with no group open,
    /// the most recent group on the undo stack; the inverse operations become one group on the
    /// redo stack.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()          // outer
    /// undoManager.beginUndoGrouping()          // inner
    /// // … registrations …
    /// try undoManager.endUndoGrouping()        // inner closes into outer
    /// try undoManager.undoNestedGroup()        // reverses only the inner group
    /// try undoManager.endUndoGrouping()        // outer
    /// ```
    ///
    /// When only the automatic group is open and its last entry is not a closed nested group,
    /// it is closed and undone, as ``undo()`` would.
    ///
    /// - Throws: ``UndoError`` with code ``UndoError/Code-swift.struct/explicitGroupOpen`` when
    ///   the innermost open group does not end with a closed nested group (register nothing
    ///   after the ``endUndoGrouping()`` of the group to undo), and
    ///   ``UndoError/Code-swift.struct/undoOrRedoInProgress`` when called from an undo or redo
    ///   handler.
    ///
    /// Corresponds to Foundation's `UndoManager.undoNestedGroup()`; differences: throws instead of
    /// raising `NSInternalInconsistencyException`.
    public func undoNestedGroup() throws {
        let operation = "undoNestedGroup()"
        try checkNotUndoingOrRedoing(operation)
        _ = try nestedUndoPlan(operation)
        postCheckpoint()
        switch try nestedUndoPlan(operation) {
        case .topOfStack:
            guard let group = undoStack.popLast() else { return }
            perform(group, undoing: true)
        case .nestedGroup(let group):
            openGroups[openGroups.count - 1].group.entries.removeLast()
            suspendedGroups = openGroups
            openGroups = []
            perform(group, undoing: true)
            openGroups = suspendedGroups
            suspendedGroups = []
        case .closeAutomaticGroup:
            finishClosingInnermostGroup()
            guard let group = undoStack.popLast() else { return }
            perform(group, undoing: true)
        }
    }

    /// The maximum number of top-level groups kept on each stack; 0 (the default) keeps all.
    ///
    /// When closing a group takes the undo stack past the limit, the oldest groups are dropped.
    /// Lowering the limit drops old groups from both stacks at once. Negative values are taken
    /// as 0.
    ///
    /// Corresponds to Foundation's `UndoManager.levelsOfUndo`; differences: the redo stack is
    /// held to the same limit.
    public var levelsOfUndo: Int {
        get { undoLevelLimit }
        set {
            undoLevelLimit = max(0, newValue)
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    // MARK: - Action names

    /// Names the group that undo would reverse: the outermost open group (the redo group being
    /// collected, inside an undo handler), or, with no group open, the group on top of the undo
    /// stack. An empty name removes it.
    ///
    /// Ignored while registration is disabled, as in Foundation, so that changes made with
    /// registration off do not rename the previous step.
    ///
    /// ```swift
    /// undoManager.setActionName("Rename")
    /// undoManager.undoMenuItemTitle   // "Undo Rename"
    /// ```
    ///
    /// Corresponds to Foundation's `UndoManager.setActionName(_:)`; differences: there is no
    /// `LocalizedStringResource` variant.
    public func setActionName(_ actionName: String) {
        guard isUndoRegistrationEnabled else { return }
        if !openGroups.isEmpty {
            openGroups[0].group.actionName = actionName
        } else if let top = undoStack.indices.last {
            undoStack[top].actionName = actionName
        }
    }

    /// The name of the group undo would reverse, or "" when it has none or there is nothing to
    /// undo.
    ///
    /// Corresponds to Foundation's `UndoManager.undoActionName`.
    public var undoActionName: String {
        let userGroups = isUndoing || isRedoing ? suspendedGroups : openGroups
        if let outermost = userGroups.first, !outermost.group.isEmpty {
            return outermost.group.actionName
        }
        return undoStack.last?.actionName ?? ""
    }

    /// The name of the group redo would perform, or "" when it has none or there is nothing to
    /// redo.
    ///
    /// Corresponds to Foundation's `UndoManager.redoActionName`.
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// The title of an Undo menu item: "Undo <name>", or "Undo" when ``undoActionName`` is
    /// empty.
    ///
    /// Corresponds to Foundation's `UndoManager.undoMenuItemTitle`; differences: not localized.
    public var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The title of a Redo menu item: "Redo <name>", or "Redo" when ``redoActionName`` is
    /// empty.
    ///
    /// Corresponds to Foundation's `UndoManager.redoMenuItemTitle`; differences: not localized.
    public var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The Undo menu title for an action name: "Undo <name>", or "Undo" for an empty name.
    ///
    /// Corresponds to Foundation's `UndoManager.undoMenuTitle(forUndoActionName:)`; differences:
    /// English only, and not overridable.
    public func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The Redo menu title for an action name: "Redo <name>", or "Redo" for an empty name.
    ///
    /// Corresponds to Foundation's `UndoManager.redoMenuTitle(forUndoActionName:)`; differences:
    /// English only, and not overridable.
    public func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: - Machinery

    private var isOnlyAutomaticGroupOpen: Bool {
        openGroups.count == 1 && openGroups[0].kind == .automatic
    }

    private func checkNotUndoingOrRedoing(_ operation: String) throws {
        guard !isUndoing && !isRedoing else {
            throw error(
                .undoOrRedoInProgress, in: operation,
                "called from a handler while \(isUndoing ? "undoing" : "redoing"); undo and redo do not nest")
        }
    }

    private func checkNoExplicitGroupOpen(_ operation: String) throws {
        guard openGroups.isEmpty || isOnlyAutomaticGroupOpen else {
            throw error(
                .explicitGroupOpen, in: operation,
                "a group opened with beginUndoGrouping() is still open; close it with endUndoGrouping() "
                    + "first, or use undoNestedGroup() to undo the group last closed inside it")
        }
    }

    private func checkGroupToEnd(_ operation: String) throws {
        guard let innermost = openGroups.last, innermost.kind != .undoRedo else {
            throw error(
                .unbalancedEndGrouping, in: operation,
                "no open undo group to close; each endUndoGrouping() must balance a beginUndoGrouping() "
                    + "or close the automatic group")
        }
    }

    /// The checks and the closing of the automatic group shared by `undo()` and `redo()`.
    private func prepareTopLevelUndoOrRedo(_ operation: String) throws {
        try checkNotUndoingOrRedoing(operation)
        try checkNoExplicitGroupOpen(operation)
        if isOnlyAutomaticGroupOpen { closeAutomaticGroup() }
        postCheckpoint()
        // Observers of the checkpoint may have registered pending changes, reopening the
        // automatic group, or (against the rules) opened a group of their own.
        if isOnlyAutomaticGroupOpen { closeAutomaticGroup() }
        guard openGroups.isEmpty else {
            try checkNoExplicitGroupOpen(operation)
            throw error(.explicitGroupOpen, in: operation, "a checkpoint observer left an undo group open")
        }
    }

    private func closeAutomaticGroup() {
        closingDepth += 1
        postCheckpoint()
        closingDepth -= 1
        guard isOnlyAutomaticGroupOpen else { return }
        finishClosingInnermostGroup()
    }

    private enum NestedUndoPlan {
        case topOfStack
        case nestedGroup(UndoGroup)
        case closeAutomaticGroup
    }

    private func nestedUndoPlan(_ operation: String) throws -> NestedUndoPlan {
        guard let innermost = openGroups.last else { return .topOfStack }
        if case .group(let nested)? = innermost.group.entries.last { return .nestedGroup(nested) }
        if isOnlyAutomaticGroupOpen { return .closeAutomaticGroup }
        throw error(
            .explicitGroupOpen, in: operation,
            "the innermost open group does not end with a closed nested group; close the group to undo "
                + "with endUndoGrouping() and register nothing before undoNestedGroup()")
    }

    /// Posts willCloseUndoGroup, files the innermost open group, posts didCloseUndoGroup. The
    /// caller has posted the checkpoint.
    private func finishClosingInnermostGroup() {
        post(Self.willCloseUndoGroupNotification)
        guard let closing = openGroups.popLast() else { return }
        if !closing.group.isEmpty {
            if let parent = openGroups.indices.last {
                openGroups[parent].group.entries.append(.group(closing.group))
            } else {
                undoStack.append(closing.group)
                trim(&undoStack)
            }
        }
        post(Self.didCloseUndoGroupNotification)
    }

    /// Runs the actions of `group` inside a group that collects what they register, and files
    /// that group on the other stack. The caller has removed `group` from its stack and set
    /// aside the groups that were open.
    private func perform(_ group: UndoGroup, undoing: Bool) {
        post(undoing ? Self.willUndoChangeNotification : Self.willRedoChangeNotification)
        if undoing { isUndoing = true } else { isRedoing = true }
        openGroups = [OpenUndoGroup(.undoRedo)]
        post(Self.didOpenUndoGroupNotification)

        group.perform()

        postCheckpoint()
        post(Self.willCloseUndoGroupNotification)
        // Groups a handler left open fold into the collecting group rather than being lost.
        var collected = UndoGroup()
        for open in openGroups.reversed() {
            var parent = open.group
            if !collected.isEmpty { parent.entries.append(.group(collected)) }
            collected = parent
        }
        if !group.actionName.isEmpty { collected.actionName = group.actionName }
        openGroups = []
        if !collected.isEmpty {
            if undoing {
                redoStack.append(collected)
                trim(&redoStack)
            } else {
                undoStack.append(collected)
                trim(&undoStack)
            }
        }
        post(Self.didCloseUndoGroupNotification)
        if undoing { isUndoing = false } else { isRedoing = false }
        post(undoing ? Self.didUndoChangeNotification : Self.didRedoChangeNotification)
    }

    private func trim(_ stack: inout [UndoGroup]) {
        guard undoLevelLimit > 0, stack.count > undoLevelLimit else { return }
        stack.removeFirst(stack.count - undoLevelLimit)
    }

    private func postCheckpoint() {
        checkpointDepth += 1
        defer { checkpointDepth -= 1 }
        post(Self.checkpointNotification)
    }

    private func post(_ name: Notification.Name) {
        notificationCenter.post(name: name, object: self)
    }

    private func error(_ code: UndoError.Code, in operation: String, _ message: String) -> UndoError {
        UndoError(code, operation: operation, groupingLevel: groupingLevel, message: message)
    }
}

@available(*, unavailable, message: "an undo manager is confined to the isolation domain that owns it, like its context")
extension ModelUndoManager: Sendable {}

extension ModelUndoManager {
    /// The rules the stacks and groups must satisfy between calls; empty when they all hold.
    /// Tests call it after every mutation.
    package var invariantViolations: [String] {
        var violations: [String] = []
        if !undoStack.allSatisfy(\.hasNoEmptyGroups) { violations.append("empty group on the undo stack") }
        if !redoStack.allSatisfy(\.hasNoEmptyGroups) { violations.append("empty group on the redo stack") }
        if undoLevelLimit > 0 && undoStack.count > undoLevelLimit { violations.append("undo stack past levelsOfUndo") }
        if undoLevelLimit > 0 && redoStack.count > undoLevelLimit { violations.append("redo stack past levelsOfUndo") }
        if disableCount < 0 { violations.append("negative disable count") }
        if isUndoing && isRedoing { violations.append("undoing and redoing at once") }
        if closingDepth != 0 || checkpointDepth != 0 { violations.append("close or checkpoint still in progress") }
        for (index, open) in openGroups.enumerated() where index > 0 && open.kind != .explicit {
            violations.append("\(open.kind) group nested at level \(index + 1)")
        }
        let performing = isUndoing || isRedoing
        if performing != (openGroups.first?.kind == .undoRedo) {
            violations.append("undo/redo group open outside an undo or redo")
        }
        if !performing && !suspendedGroups.isEmpty { violations.append("groups still set aside") }
        return violations
    }
}
