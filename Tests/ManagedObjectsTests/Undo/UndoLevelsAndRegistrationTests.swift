import ManagedObjects
import Testing

/// The levels-of-undo limit, and disabling registration.
@Suite struct UndoLevelsAndRegistrationTests {
    /// Makes `count` one-change steps, "1" … "count", on a note starting at "0".
    private func makeSteps(_ count: Int, limit: Int) -> (ModelUndoManager, Note) {
        let undoManager = makeUndoManager()
        undoManager.levelsOfUndo = limit
        let note = Note("0", undoManager: undoManager)
        for step in 1...count {
            note.setText(String(step))
            undoManager.endEventGroup()
        }
        return (undoManager, note)
    }

    private func undoAll(_ undoManager: ModelUndoManager, _ note: Note) throws -> [String] {
        var texts: [String] = []
        while undoManager.canUndo {
            try undoManager.undo()
            texts.append(note.text)
        }
        return texts
    }

    @Test func levelsOfUndoIsUnlimitedByDefault() throws {
        let (undoManager, note) = makeSteps(5, limit: 0)
        #expect(undoManager.levelsOfUndo == 0)

        #expect(try undoAll(undoManager, note) == ["4", "3", "2", "1", "0"])
    }

    @Test func groupsBeyondTheLimitDropTheOldest() throws {
        let (undoManager, note) = makeSteps(5, limit: 2)

        #expect(undoManager.invariantViolations.isEmpty)
        #expect(try undoAll(undoManager, note) == ["4", "3"])
    }

    @Test func loweringTheLimitDropsOldGroupsAtOnce() throws {
        let (undoManager, note) = makeSteps(5, limit: 0)

        undoManager.levelsOfUndo = 3

        #expect(undoManager.invariantViolations.isEmpty)
        #expect(try undoAll(undoManager, note) == ["4", "3", "2"])
    }

    @Test func theRedoStackIsHeldToTheLimitToo() throws {
        let (undoManager, note) = makeSteps(4, limit: 0)
        _ = try undoAll(undoManager, note)

        undoManager.levelsOfUndo = 2

        #expect(undoManager.invariantViolations.isEmpty)
        var texts: [String] = []
        while undoManager.canRedo {
            try undoManager.redo()
            texts.append(note.text)
        }
        #expect(texts == ["1", "2"])
    }

    @Test func aNegativeLimitMeansNoLimit() {
        let undoManager = makeUndoManager()
        undoManager.levelsOfUndo = -3
        #expect(undoManager.levelsOfUndo == 0)
    }

    @Test func registrationsAreIgnoredWhileDisabled() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)

        undoManager.disableUndoRegistration()
        note.setText("1")
        try undoManager.enableUndoRegistration()

        #expect(undoManager.isUndoRegistrationEnabled)
        #expect(!undoManager.canUndo)
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func disablingNestsAndNeedsAsManyEnables() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)

        undoManager.disableUndoRegistration()
        undoManager.disableUndoRegistration()
        try undoManager.enableUndoRegistration()
        #expect(!undoManager.isUndoRegistrationEnabled)
        note.setText("1")
        try undoManager.enableUndoRegistration()
        #expect(undoManager.isUndoRegistrationEnabled)
        note.setText("2")
        undoManager.endEventGroup()

        try undoManager.undo()
        #expect(note.text == "1")
        #expect(!undoManager.canUndo)
    }

    @Test func disabledRegistrationDuringUndoLeavesNothingToRedo() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()

        undoManager.disableUndoRegistration()
        try undoManager.undo()
        try undoManager.enableUndoRegistration()

        #expect(note.text == "0")
        #expect(!undoManager.canRedo)
    }

    @Test func removeAllActionsReenablesRegistration() {
        let undoManager = makeUndoManager()
        undoManager.disableUndoRegistration()
        undoManager.disableUndoRegistration()

        undoManager.removeAllActions()

        #expect(undoManager.isUndoRegistrationEnabled)
    }

    @Test func removeAllActionsWithTargetLeavesRegistrationDisabled() {
        let undoManager = makeUndoManager()
        undoManager.disableUndoRegistration()

        undoManager.removeAllActions(withTarget: Journal())

        #expect(!undoManager.isUndoRegistrationEnabled)
    }
}
