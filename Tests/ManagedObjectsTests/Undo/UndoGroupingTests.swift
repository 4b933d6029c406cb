import Foundation
import ManagedObjects
import Testing

/// Automatic event groups, explicit groups, nesting, and undoing a nested group.
@Suite struct UndoGroupingTests {
    @Test func theFirstRegistrationOpensAnAutomaticGroup() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        #expect(undoManager.groupingLevel == 0)

        note.setText("a")
        note.setText("b")

        #expect(undoManager.groupingLevel == 1)
        #expect(undoManager.isEventGroupOpen)
        #expect(undoManager.canUndo)
    }

    @Test func endEventGroupClosesTheAutomaticGroupSoEventsUndoSeparately() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        note.setText("2")

        #expect(undoManager.endEventGroup())
        note.setText("3")
        #expect(undoManager.endEventGroup())

        #expect(undoManager.groupingLevel == 0)
        try undoManager.undo()
        #expect(note.text == "2")
        try undoManager.undo()
        #expect(note.text == "0")
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func endEventGroupWithNoAutomaticGroupDoesNothing() {
        let undoManager = makeUndoManager()
        let log = NotificationLog(observing: undoManager)

        #expect(!undoManager.endEventGroup())

        #expect(log.names.isEmpty)
        #expect(!undoManager.canUndo)
    }

    @Test func endEventGroupLeavesAnExplicitGroupOpen() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        note.setText("a")

        #expect(!undoManager.endEventGroup())

        #expect(undoManager.groupingLevel == 1)
        #expect(!undoManager.isEventGroupOpen)
        try undoManager.endUndoGrouping()
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func endEventGroupWaitsUntilExplicitGroupsInsideItAreClosed() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")  // opens the automatic group
        undoManager.beginUndoGrouping()
        note.setText("2")

        #expect(!undoManager.endEventGroup())
        #expect(undoManager.groupingLevel == 2)
        try undoManager.endUndoGrouping()
        #expect(undoManager.endEventGroup())

        #expect(undoManager.groupingLevel == 0)
        try undoManager.undo()
        #expect(note.text == "0")
        #expect(!undoManager.canUndo)
    }

    @Test func endUndoGroupingAlsoClosesTheAutomaticGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")

        try undoManager.endUndoGrouping()

        #expect(undoManager.groupingLevel == 0)
        #expect(!undoManager.isEventGroupOpen)
        try undoManager.undo()
        #expect(note.text == "0")
    }

    @Test func anExplicitGroupIsUndoneAsOneStep() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)

        undoManager.beginUndoGrouping()
        note.setText("1")
        note.setText("2")
        try undoManager.endUndoGrouping()

        #expect(undoManager.groupingLevel == 0)
        try undoManager.undo()
        #expect(note.text == "0")
        #expect(!undoManager.canUndo)
    }

    @Test func nestedGroupsFoldIntoTheirParent() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        func register(_ step: String) {
            undoManager.registerUndo(withTarget: journal) { $0.entries.append(step) }
        }

        undoManager.beginUndoGrouping()
        register("a")
        undoManager.beginUndoGrouping()
        #expect(undoManager.groupingLevel == 2)
        register("b")
        undoManager.beginUndoGrouping()
        register("c")
        try undoManager.endUndoGrouping()
        try undoManager.endUndoGrouping()
        register("d")
        try undoManager.endUndoGrouping()

        try undoManager.undo()

        #expect(journal.entries == ["d", "c", "b", "a"])
        #expect(!undoManager.canUndo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func anExplicitGroupInsideTheAutomaticGroupFoldsIntoIt() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.beginUndoGrouping()
        note.setText("2")
        try undoManager.endUndoGrouping()
        note.setText("3")
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(note.text == "0")
        #expect(!undoManager.canUndo)
    }

    @Test func emptyGroupsAreDiscarded() throws {
        let undoManager = makeUndoManager()
        undoManager.beginUndoGrouping()
        undoManager.beginUndoGrouping()
        try undoManager.endUndoGrouping()
        try undoManager.endUndoGrouping()

        #expect(!undoManager.canUndo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func anEmptyGroupDoesNotHideThePreviousStep() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        undoManager.beginUndoGrouping()
        try undoManager.endUndoGrouping()

        try undoManager.undo()

        #expect(note.text == "0")
    }

    @Test func undoNestedGroupReversesOnlyTheGroupLastClosedInsideTheOpenGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        undoManager.beginUndoGrouping()
        note.setText("1")
        undoManager.beginUndoGrouping()
        note.setText("2")
        note.setText("3")
        try undoManager.endUndoGrouping()

        try undoManager.undoNestedGroup()

        #expect(note.text == "1")
        #expect(undoManager.groupingLevel == 1)
        #expect(undoManager.canRedo)
        try undoManager.endUndoGrouping()
        try undoManager.undo()
        #expect(note.text == "0")
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func undoNestedGroupWithNoOpenGroupReversesTheTopGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        note.setText("2")
        undoManager.endEventGroup()

        try undoManager.undoNestedGroup()

        #expect(note.text == "1")
        try undoManager.redo()
        #expect(note.text == "2")
    }

    @Test func undoNestedGroupClosesALoneAutomaticGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")

        try undoManager.undoNestedGroup()

        #expect(note.text == "0")
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func withoutGroupsByEventExplicitGroupsCollectRegistrations() throws {
        let undoManager = makeUndoManager()
        undoManager.groupsByEvent = false
        let note = Note("0", undoManager: undoManager)

        undoManager.beginUndoGrouping()
        note.setText("1")
        try undoManager.endUndoGrouping()

        try undoManager.undo()
        #expect(note.text == "0")
    }

    @Test func registeringWithNoGroupOpenAndGroupsByEventOffStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let undoManager = ModelUndoManager(notificationCenter: NotificationCenter())
            undoManager.groupsByEvent = false
            let journal = Journal()
            undoManager.registerUndo(withTarget: journal) { _ in }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("no undo group is open and groupsByEvent is false"))
    }

    @Test func aCheckpointObserverRegistersPendingChangesIntoTheGroupBeingClosed() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        var pending: [String] = []
        // Like a context: changes are recorded as pending and registered at the checkpoint.
        let observer = CheckpointObserver(undoManager) {
            for text in pending { note.setText(text) }
            pending.removeAll()
        }
        note.setText("1")
        pending = ["2"]

        undoManager.endEventGroup()

        #expect(note.text == "2")
        try undoManager.undo()
        #expect(note.text == "0")
        _ = observer
    }

    @Test func endEventGroupCalledFromTheCheckpointDoesNotCloseTwice() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        var nestedResults: [Bool] = []
        // A context's processPendingChanges() runs on checkpoints and itself ends the event.
        let observer = CheckpointObserver(undoManager) {
            nestedResults.append(undoManager.endEventGroup())
        }
        note.setText("1")

        #expect(undoManager.endEventGroup())
        note.setText("2")
        try undoManager.endUndoGrouping()

        #expect(nestedResults == [false, false])
        #expect(undoManager.groupingLevel == 0)
        try undoManager.undo()
        #expect(note.text == "1")
        #expect(undoManager.invariantViolations.isEmpty)
        _ = observer
    }
}
