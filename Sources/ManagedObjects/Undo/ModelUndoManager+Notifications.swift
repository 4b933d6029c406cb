import Foundation

// The names carry Foundation's string values, so code that compares raw names, or observes by
// name string, keeps working when ported. swift-corelibs-foundation declares none of them, and
// they live on this type, so they never collide with Apple's `NSNotification.Name` constants.
extension ModelUndoManager {
    /// Posted before a group is closed (so observers can register their pending changes into
    /// it), when a nested group is opened, before an undo or redo, and when ``canRedo`` is read.
    ///
    /// The object is the undo manager; there is no `userInfo`. A managed object context observes
    /// it to process its pending changes.
    ///
    /// Corresponds to Foundation's `NSUndoManagerCheckpoint`
    /// (`"NSUndoManagerCheckpointNotification"`); differences: none in content.
    public static let checkpointNotification = Notification.Name("NSUndoManagerCheckpointNotification")

    /// Posted before the actions of a group are undone, by ``undo()`` and ``undoNestedGroup()``.
    ///
    /// Corresponds to Foundation's `NSUndoManagerWillUndoChange`.
    public static let willUndoChangeNotification = Notification.Name("NSUndoManagerWillUndoChangeNotification")

    /// Posted after the actions of a group have been undone and the redo group has been closed.
    ///
    /// Corresponds to Foundation's `NSUndoManagerDidUndoChange`.
    public static let didUndoChangeNotification = Notification.Name("NSUndoManagerDidUndoChangeNotification")

    /// Posted before the actions of a group are redone, by ``redo()``.
    ///
    /// Corresponds to Foundation's `NSUndoManagerWillRedoChange`.
    public static let willRedoChangeNotification = Notification.Name("NSUndoManagerWillRedoChangeNotification")

    /// Posted after the actions of a group have been redone and the new undo group has been
    /// closed.
    ///
    /// Corresponds to Foundation's `NSUndoManagerDidRedoChange`.
    public static let didRedoChangeNotification = Notification.Name("NSUndoManagerDidRedoChangeNotification")

    /// Posted after a group is opened: by ``beginUndoGrouping()``, by the first registration
    /// when no group is open, and around the actions of an undo or redo.
    ///
    /// Corresponds to Foundation's `NSUndoManagerDidOpenUndoGroup`.
    public static let didOpenUndoGroupNotification = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")

    /// Posted just before a group is closed, after the checkpoint.
    ///
    /// Corresponds to Foundation's `NSUndoManagerWillCloseUndoGroup`; differences: no `userInfo`
    /// (Foundation may add `NSUndoManagerGroupIsDiscardableKey`; discardable groups are not
    /// supported).
    public static let willCloseUndoGroupNotification = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")

    /// Posted after a group has been closed and filed: onto a stack when it was a top-level
    /// group, into its parent when it was nested.
    ///
    /// Corresponds to Foundation's `NSUndoManagerDidCloseUndoGroup`.
    public static let didCloseUndoGroupNotification = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}
