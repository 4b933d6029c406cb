import ManagedObjects
import Testing

/// Action names and the menu titles built from them.
@Suite struct UndoActionNameTests {
    @Test func withNothingToUndoTitlesAreBare() {
        let undoManager = makeUndoManager()

        #expect(undoManager.undoActionName == "")
        #expect(undoManager.redoActionName == "")
        #expect(undoManager.undoMenuItemTitle == "Undo")
        #expect(undoManager.redoMenuItemTitle == "Redo")
    }

    @Test func aNamedStepShowsInTheUndoTitle() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)

        note.setText("a")
        undoManager.setActionName("Typing")

        #expect(undoManager.undoActionName == "Typing")
        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
        undoManager.endEventGroup()
        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
    }

    @Test func anUnnamedStepShowsABareTitle() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)

        note.setText("a")
        undoManager.endEventGroup()

        #expect(undoManager.undoActionName == "")
        #expect(undoManager.undoMenuItemTitle == "Undo")
    }

    @Test func theNameMovesToTheRedoTitleOnUndoAndBackOnRedo() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.setActionName("Typing")
        undoManager.endEventGroup()

        try undoManager.undo()
        #expect(undoManager.undoMenuItemTitle == "Undo")
        #expect(undoManager.redoActionName == "Typing")
        #expect(undoManager.redoMenuItemTitle == "Redo Typing")

        try undoManager.redo()
        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
        #expect(undoManager.redoMenuItemTitle == "Redo")
    }

    @Test func eachStepKeepsItsOwnName() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.setActionName("Typing")
        undoManager.endEventGroup()
        note.setText("b")
        undoManager.setActionName("Paste")
        undoManager.endEventGroup()

        #expect(undoManager.undoMenuItemTitle == "Undo Paste")
        try undoManager.undo()
        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
        #expect(undoManager.redoMenuItemTitle == "Redo Paste")
    }

    @Test func anEmptyNameRemovesTheName() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.setActionName("Typing")

        undoManager.setActionName("")

        #expect(undoManager.undoMenuItemTitle == "Undo")
    }

    @Test func namingAfterTheGroupClosedNamesTheTopStep() {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.endEventGroup()

        undoManager.setActionName("Typing")

        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
    }

    @Test func namingInsideANestedGroupNamesTheTopLevelGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        undoManager.beginUndoGrouping()
        undoManager.beginUndoGrouping()
        note.setText("a")
        undoManager.setActionName("Move")
        try undoManager.endUndoGrouping()
        try undoManager.endUndoGrouping()

        #expect(undoManager.undoMenuItemTitle == "Undo Move")
    }

    @Test func namesAreIgnoredWhileRegistrationIsDisabled() throws {
        let undoManager = makeUndoManager()
        let note = Note(undoManager: undoManager)
        note.setText("a")
        undoManager.setActionName("Typing")
        undoManager.endEventGroup()

        undoManager.disableUndoRegistration()
        undoManager.setActionName("Merge")
        try undoManager.enableUndoRegistration()

        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
    }

    @Test(arguments: [("", "Undo", "Redo"), ("Paste", "Undo Paste", "Redo Paste")])
    func menuTitlesForAnActionName(name: String, undoTitle: String, redoTitle: String) {
        let undoManager = makeUndoManager()
        #expect(undoManager.undoMenuTitle(forUndoActionName: name) == undoTitle)
        #expect(undoManager.redoMenuTitle(forUndoActionName: name) == redoTitle)
    }
}
