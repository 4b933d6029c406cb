import ManagedObjects
import Testing

/// Undo reverses the most recent group, last registration first; redo re-applies it; the stacks
/// move groups between them.
@Suite struct UndoRedoTests {
    @Test func undoRestoresTheValueBeforeASingleChange() throws {
        let undoManager = makeUndoManager()
        let note = Note("draft", undoManager: undoManager)

        note.setText("final")
        undoManager.endEventGroup()
        try undoManager.undo()

        #expect(note.text == "draft")
        #expect(!undoManager.canUndo)
        #expect(undoManager.canRedo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func redoReappliesTheUndoneChange() throws {
        let undoManager = makeUndoManager()
        let note = Note("draft", undoManager: undoManager)
        note.setText("final")
        undoManager.endEventGroup()

        try undoManager.undo()
        try undoManager.redo()

        #expect(note.text == "final")
        #expect(undoManager.canUndo)
        #expect(!undoManager.canRedo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func undoRunsTheActionsOfAGroupLastRegisteredFirst() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        for step in ["a", "b", "c"] {
            undoManager.registerUndo(withTarget: journal) { $0.entries.append(step) }
        }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(journal.entries == ["c", "b", "a"])
        #expect(!undoManager.canUndo)
    }

    @Test func oneUndoReversesEveryChangeOfTheEvent() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        note.setText("2")
        note.setText("3")
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(note.text == "0")
        try undoManager.redo()
        #expect(note.text == "3")
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func successiveUndosWalkBackOneEventAtATimeAndRedosWalkForward() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        for text in ["1", "2", "3"] {
            note.setText(text)
            undoManager.endEventGroup()
        }

        var undone: [String] = []
        while undoManager.canUndo {
            try undoManager.undo()
            undone.append(note.text)
        }
        var redone: [String] = []
        while undoManager.canRedo {
            try undoManager.redo()
            redone.append(note.text)
        }

        #expect(undone == ["2", "1", "0"])
        #expect(redone == ["1", "2", "3"])
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func undoClosesTheOpenAutomaticGroupFirst() throws {
        let undoManager = makeUndoManager()
        let note = Note("draft", undoManager: undoManager)
        note.setText("final")
        #expect(undoManager.isEventGroupOpen)

        try undoManager.undo()

        #expect(note.text == "draft")
        #expect(undoManager.groupingLevel == 0)
        #expect(!undoManager.isEventGroupOpen)
        #expect(undoManager.canRedo)
    }

    @Test func actionsRegisteredWhileUndoingLandOnTheRedoStack() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        var sawUndoing = false
        undoManager.registerUndo(withTarget: journal) { journal in
            sawUndoing = undoManager.isUndoing && !undoManager.isRedoing
            journal.entries.append("undo")
            undoManager.registerUndo(withTarget: journal) { $0.entries.append("redo") }
        }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(sawUndoing)
        #expect(!undoManager.isUndoing)
        #expect(!undoManager.canUndo)
        #expect(undoManager.canRedo)
        try undoManager.redo()
        #expect(journal.entries == ["undo", "redo"])
    }

    @Test func actionsRegisteredWhileRedoingLandOnTheUndoStack() throws {
        let undoManager = makeUndoManager()
        let note = Note("draft", undoManager: undoManager)
        note.setText("final")
        undoManager.endEventGroup()
        try undoManager.undo()
        #expect(!undoManager.canUndo)

        try undoManager.redo()

        #expect(note.text == "final")
        #expect(undoManager.canUndo)
        try undoManager.undo()
        #expect(note.text == "draft")
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func isRedoingIsTrueOnlyWhileTheRedoHandlersRun() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        var states: [String] = []
        undoManager.registerUndo(withTarget: journal) { journal in
            undoManager.registerUndo(withTarget: journal) { _ in
                states.append("undoing=\(undoManager.isUndoing) redoing=\(undoManager.isRedoing)")
            }
        }
        undoManager.endEventGroup()

        try undoManager.undo()
        try undoManager.redo()

        #expect(states == ["undoing=false redoing=true"])
        #expect(!undoManager.isRedoing)
    }

    @Test func aNewRegistrationClearsTheRedoStack() throws {
        let undoManager = makeUndoManager()
        let note = Note("a", undoManager: undoManager)
        note.setText("b")
        undoManager.endEventGroup()
        try undoManager.undo()
        #expect(undoManager.canRedo)

        note.setText("c")

        #expect(!undoManager.canRedo)
        try undoManager.redo()  // nothing to redo
        #expect(note.text == "c")
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func registrationsWhileRedoingKeepTheRemainingRedoGroups() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        note.setText("2")
        undoManager.endEventGroup()

        try undoManager.undo()
        try undoManager.undo()
        try undoManager.redo()
        try undoManager.redo()

        #expect(note.text == "2")
    }

    @Test func undoAndRedoWithEmptyStacksDoNothing() throws {
        let undoManager = makeUndoManager()

        try undoManager.undo()
        try undoManager.redo()

        #expect(!undoManager.canUndo)
        #expect(!undoManager.canRedo)
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func undoWithoutRegisteringTheInverseLeavesNothingToRedo() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        undoManager.registerUndo(withTarget: journal) { $0.entries.append("undone") }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(journal.entries == ["undone"])
        #expect(!undoManager.canRedo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func groupingLevelCountsTheRedoGroupWhileUndoing() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        var level = -1
        undoManager.registerUndo(withTarget: journal) { _ in level = undoManager.groupingLevel }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(level == 1)
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func removeAllActionsEmptiesBothStacks() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        note.setText("2")
        undoManager.endEventGroup()
        try undoManager.undo()

        undoManager.removeAllActions()

        #expect(!undoManager.canUndo)
        #expect(!undoManager.canRedo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func removeAllActionsKeepsOpenGroupsBalanced() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        undoManager.beginUndoGrouping()
        note.setText("1")

        undoManager.removeAllActions()

        #expect(undoManager.groupingLevel == 1)
        #expect(!undoManager.canUndo)
        try undoManager.endUndoGrouping()
        #expect(!undoManager.canUndo)
        #expect(undoManager.groupingLevel == 0)
    }
}
