import Foundation
import ManagedObjects
import Testing

/// The notifications posted by each operation, in order, with the undo manager as object.
@Suite struct UndoNotificationTests {
    @Test func theFirstRegistrationPostsDidOpenOnly() {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)
        let note = Note(undoManager: undoManager)

        note.setText("a")
        note.setText("b")

        #expect(log.names == ["didOpen"])
    }

    @Test func beginningATopLevelGroupPostsDidOpen() {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)

        undoManager.beginUndoGrouping()

        #expect(log.names == ["didOpen"])
    }

    @Test func beginningANestedGroupPostsACheckpointFirst() {
        let undoManager = makeUndoManager()
        undoManager.beginUndoGrouping()
        let log = NotificationLog(observing: undoManager)

        undoManager.beginUndoGrouping()

        #expect(log.names == ["checkpoint", "didOpen"])
    }

    @Test func endingAGroupPostsCheckpointWillCloseDidClose() throws {
        let undoManager = makeUndoManager()
        undoManager.beginUndoGrouping()
        let log = NotificationLog(observing: undoManager)

        try undoManager.endUndoGrouping()

        #expect(log.names == ["checkpoint", "willClose", "didClose"])
    }

    @Test func endingTheEventPostsTheSameAsEndingAGroup() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        let log = NotificationLog(observing: undoManager)

        undoManager.endEventGroup()

        #expect(log.names == ["checkpoint", "willClose", "didClose"])
    }

    @Test func undoPostsAroundTheRedoGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.endEventGroup()
        let log = NotificationLog(observing: undoManager)

        try undoManager.undo()

        #expect(log.names == [
            "checkpoint", "willUndo", "didOpen", "checkpoint", "willClose", "didClose", "didUndo",
        ])
    }

    @Test func undoClosesTheAutomaticGroupBeforeItsOwnCheckpoint() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        let log = NotificationLog(observing: undoManager)

        try undoManager.undo()

        #expect(log.names == [
            "checkpoint", "willClose", "didClose",
            "checkpoint", "willUndo", "didOpen", "checkpoint", "willClose", "didClose", "didUndo",
        ])
    }

    @Test func redoPostsAroundTheNewUndoGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.endEventGroup()
        try undoManager.undo()
        let log = NotificationLog(observing: undoManager)

        try undoManager.redo()

        #expect(log.names == [
            "checkpoint", "willRedo", "didOpen", "checkpoint", "willClose", "didClose", "didRedo",
        ])
    }

    @Test func undoWithNothingToUndoPostsOnlyTheCheckpoint() throws {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)

        try undoManager.undo()

        #expect(log.names == ["checkpoint"])
    }

    @Test func readingCanRedoPostsACheckpoint() {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)

        _ = undoManager.canRedo
        _ = undoManager.canUndo

        #expect(log.names == ["checkpoint"])
    }

    @Test func readingCanRedoFromACheckpointObserverDoesNotRecurse() {
        let undoManager = makeUndoManager()
        var answers: [Bool] = []
        let observer = CheckpointObserver(undoManager) { answers.append(undoManager.canRedo) }

        _ = undoManager.canRedo

        #expect(answers == [false])
        _ = observer
    }

    @Test func aPendingChangeRegisteredAtTheRedoCheckpointClearsTheRedoStack() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        try undoManager.undo()
        var pending: [String] = ["edited"]
        let observer = CheckpointObserver(undoManager) {
            for text in pending { note.setText(text) }
            pending.removeAll()
        }

        try undoManager.redo()

        #expect(note.text == "edited")
        #expect(!undoManager.canRedo)
        try undoManager.undo()
        #expect(note.text == "0")
        _ = observer
    }

    @Test func theObjectOfEveryNotificationIsTheUndoManager() throws {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.endEventGroup()
        try undoManager.undo()
        try undoManager.redo()

        #expect(!log.objects.isEmpty)
        #expect(log.objects.allSatisfy { $0 == ObjectIdentifier(undoManager) })
    }

    @Test func notificationsGoToTheUndoManagersCenterOnly() {
        let center = NotificationCenter()
        let first = ModelUndoManager(notificationCenter: center)
        let second = ModelUndoManager(notificationCenter: center)
        let log = NotificationLog(observing: first)

        second.beginUndoGrouping()

        #expect(log.names.isEmpty)
        #expect(first.notificationCenter === center)
    }

    @Test func notificationNamesAreFoundations() {
        #expect(ModelUndoManager.checkpointNotification.rawValue == "NSUndoManagerCheckpointNotification")
        #expect(ModelUndoManager.willUndoChangeNotification.rawValue == "NSUndoManagerWillUndoChangeNotification")
        #expect(ModelUndoManager.didUndoChangeNotification.rawValue == "NSUndoManagerDidUndoChangeNotification")
        #expect(ModelUndoManager.willRedoChangeNotification.rawValue == "NSUndoManagerWillRedoChangeNotification")
        #expect(ModelUndoManager.didRedoChangeNotification.rawValue == "NSUndoManagerDidRedoChangeNotification")
        #expect(ModelUndoManager.didOpenUndoGroupNotification.rawValue == "NSUndoManagerDidOpenUndoGroupNotification")
        #expect(ModelUndoManager.willCloseUndoGroupNotification.rawValue == "NSUndoManagerWillCloseUndoGroupNotification")
        #expect(ModelUndoManager.didCloseUndoGroupNotification.rawValue == "NSUndoManagerDidCloseUndoGroupNotification")
    }
}
