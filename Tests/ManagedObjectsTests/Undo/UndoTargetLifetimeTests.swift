import ManagedObjects
import Testing

/// Targets are not retained; actions can be removed per target.
@Suite struct UndoTargetLifetimeTests {
    @Test func theUndoManagerDoesNotKeepATargetAlive() {
        let undoManager = makeUndoManager()
        weak var weakJournal: Journal?
        do {
            let journal = Journal()
            weakJournal = journal
            undoManager.registerUndo(withTarget: journal) { $0.entries.append("undone") }
            undoManager.endEventGroup()
        }

        #expect(weakJournal == nil)
        #expect(undoManager.canUndo)
    }

    @Test func actionsOfADeallocatedTargetAreSkipped() throws {
        let undoManager = makeUndoManager()
        let survivor = Journal()
        do {
            let doomed = Journal()
            undoManager.registerUndo(withTarget: survivor) { $0.entries.append("first") }
            undoManager.registerUndo(withTarget: doomed) { $0.entries.append("never") }
            undoManager.registerUndo(withTarget: survivor) { $0.entries.append("last") }
            undoManager.endEventGroup()
        }

        try undoManager.undo()

        #expect(survivor.entries == ["last", "first"])
    }

    @Test func anObjectRegisteringUndoOnItselfFormsNoCycle() {
        weak var weakNote: Note?
        let undoManager = makeUndoManager()
        do {
            let note = Note("0", undoManager: undoManager)
            weakNote = note
            note.setText("1")
            undoManager.endEventGroup()
        }

        #expect(weakNote == nil)
    }

    @Test func removeAllActionsWithTargetRemovesOnlyThatTargetsActions() throws {
        let undoManager = makeUndoManager()
        let kept = Journal()
        let removed = Journal()
        undoManager.registerUndo(withTarget: kept) { $0.entries.append("kept 1") }
        undoManager.registerUndo(withTarget: removed) { $0.entries.append("removed 1") }
        undoManager.endEventGroup()
        undoManager.beginUndoGrouping()
        undoManager.registerUndo(withTarget: removed) { $0.entries.append("removed 2") }
        undoManager.beginUndoGrouping()
        undoManager.registerUndo(withTarget: kept) { $0.entries.append("kept 2") }
        try undoManager.endUndoGrouping()
        try undoManager.endUndoGrouping()

        undoManager.removeAllActions(withTarget: removed)

        #expect(undoManager.invariantViolations.isEmpty)
        try undoManager.undo()
        try undoManager.undo()
        #expect(kept.entries == ["kept 2", "kept 1"])
        #expect(removed.entries.isEmpty)
    }

    @Test func removingATargetsActionsDiscardsGroupsLeftEmpty() throws {
        let undoManager = makeUndoManager()
        let kept = Note("0", undoManager: undoManager)
        kept.setText("1")
        undoManager.endEventGroup()
        let removed = Journal()
        undoManager.registerUndo(withTarget: removed) { $0.entries.append("removed") }
        undoManager.setActionName("Removed")
        undoManager.endEventGroup()

        undoManager.removeAllActions(withTarget: removed)

        #expect(undoManager.invariantViolations.isEmpty)
        #expect(undoManager.undoMenuItemTitle == "Undo")
        try undoManager.undo()
        #expect(kept.text == "0")
        #expect(!undoManager.canUndo)
    }

    @Test func removeAllActionsWithTargetAlsoClearsTheRedoStackAndOpenGroups() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        try undoManager.undo()
        #expect(undoManager.canRedo)
        undoManager.beginUndoGrouping()
        undoManager.registerUndo(withTarget: note) { _ in }

        undoManager.removeAllActions(withTarget: note)

        #expect(!undoManager.canUndo)
        #expect(!undoManager.canRedo)
        try undoManager.endUndoGrouping()
        #expect(!undoManager.canUndo)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func removingTheActionsOfATargetFromItsOwnUndoHandlerIsSafe() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        undoManager.registerUndo(withTarget: journal) { journal in
            undoManager.removeAllActions(withTarget: journal)
            journal.entries.append("second")
        }
        undoManager.registerUndo(withTarget: journal) { journal in
            undoManager.registerUndo(withTarget: journal) { _ in }
            journal.entries.append("first")
        }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(journal.entries == ["first", "second"])
        #expect(!undoManager.canRedo)
        #expect(undoManager.invariantViolations.isEmpty)
    }
}
