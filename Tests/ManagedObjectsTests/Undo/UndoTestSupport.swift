import Foundation
import ManagedObjects
import Synchronization

/// An undo manager posting to a center of its own, so parallel tests never see each other's
/// notifications.
func makeUndoManager() -> ModelUndoManager {
    ModelUndoManager(notificationCenter: NotificationCenter())
}

/// A model object whose setter registers its own undo, as model code does: undoing a change
/// makes the setter register the redo.
final class Note {
    let undoManager: ModelUndoManager
    private(set) var text: String

    init(_ text: String = "", undoManager: ModelUndoManager) {
        self.text = text
        self.undoManager = undoManager
    }

    func setText(_ newText: String) {
        let oldText = text
        undoManager.registerUndo(withTarget: self) { note in note.setText(oldText) }
        text = newText
    }
}

/// A target that records, in order, which of its undo handlers ran.
final class Journal {
    var entries: [String] = []
}

/// The notifications an undo manager posts, recorded in order by short name.
final class NotificationLog {
    private final class Storage: Sendable {
        let names = Mutex<[String]>([])
        let objects = Mutex<[ObjectIdentifier?]>([])
    }

    private let storage = Storage()
    private let center: NotificationCenter
    private var token: (any NSObjectProtocol)?

    init(observing undoManager: ModelUndoManager) {
        center = undoManager.notificationCenter
        let storage = storage
        token = center.addObserver(forName: nil, object: undoManager, queue: nil) { notification in
            let label = Self.label(for: notification.name)
            let object = notification.object.map { ObjectIdentifier($0 as AnyObject) }
            storage.names.withLock { $0.append(label) }
            storage.objects.withLock { $0.append(object) }
        }
    }

    deinit {
        if let token { center.removeObserver(token) }
    }

    /// The short names recorded so far.
    var names: [String] { storage.names.withLock { $0 } }
    /// The identity of each notification's object.
    var objects: [ObjectIdentifier?] { storage.objects.withLock { $0 } }

    func clear() {
        storage.names.withLock { $0.removeAll() }
        storage.objects.withLock { $0.removeAll() }
    }

    private static func label(for name: Notification.Name) -> String {
        switch name {
        case ModelUndoManager.checkpointNotification: "checkpoint"
        case ModelUndoManager.willUndoChangeNotification: "willUndo"
        case ModelUndoManager.didUndoChangeNotification: "didUndo"
        case ModelUndoManager.willRedoChangeNotification: "willRedo"
        case ModelUndoManager.didRedoChangeNotification: "didRedo"
        case ModelUndoManager.didOpenUndoGroupNotification: "didOpen"
        case ModelUndoManager.willCloseUndoGroupNotification: "willClose"
        case ModelUndoManager.didCloseUndoGroupNotification: "didClose"
        default: name.rawValue
        }
    }
}

/// Calls `body` for each checkpoint the undo manager posts, on the posting thread, like a
/// managed object context processing its pending changes.
final class CheckpointObserver {
    private final class Handler: @unchecked Sendable {
        // SAFETY: the undo manager posts synchronously on the test's own thread, which owns the
        // closure; the handler is never called from another thread.
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private let center: NotificationCenter
    private var token: (any NSObjectProtocol)?

    init(_ undoManager: ModelUndoManager, body: @escaping () -> Void) {
        center = undoManager.notificationCenter
        let handler = Handler(body)
        token = center.addObserver(
            forName: ModelUndoManager.checkpointNotification, object: undoManager, queue: nil
        ) { _ in handler.body() }
    }

    deinit {
        if let token { center.removeObserver(token) }
    }
}
