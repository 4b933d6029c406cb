import Foundation
import ManagedObjects
import Testing

/// Every misuse Foundation answers with NSInternalInconsistencyException throws an `UndoError`
/// and changes nothing.
@Suite struct UndoErrorTests {
    private func code(of body: () throws -> Void) -> UndoError.Code? {
        do {
            try body()
            return nil
        } catch let error as UndoError {
            return error.code
        } catch {
            return UndoError.Code(rawValue: -1)
        }
    }

    @Test func undoWithAnExplicitGroupOpenThrowsAndUndoesNothing() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        undoManager.beginUndoGrouping()
        note.setText("2")
        let log = NotificationLog(observing: undoManager)

        #expect(code { try undoManager.undo() } == .explicitGroupOpen)

        #expect(note.text == "2")
        #expect(undoManager.groupingLevel == 1)
        #expect(log.names.isEmpty)
        try undoManager.endUndoGrouping()
        try undoManager.undo()
        #expect(note.text == "1")
    }

    @Test func undoWithAnExplicitGroupNestedInTheAutomaticGroupThrows() {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.beginUndoGrouping()

        #expect(code { try undoManager.undo() } == .explicitGroupOpen)
        #expect(code { try undoManager.redo() } == .explicitGroupOpen)
        #expect(undoManager.groupingLevel == 2)
        #expect(note.text == "1")
    }

    @Test func redoWithAnExplicitGroupOpenThrows() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.endEventGroup()
        try undoManager.undo()
        undoManager.beginUndoGrouping()

        #expect(code { try undoManager.redo() } == .explicitGroupOpen)

        try undoManager.endUndoGrouping()
        #expect(undoManager.canRedo)
    }

    @Test func undoNestedGroupWithoutAClosedNestedGroupThrows() {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        undoManager.beginUndoGrouping()
        note.setText("1")

        #expect(code { try undoManager.undoNestedGroup() } == .explicitGroupOpen)
        #expect(note.text == "1")
    }

    @Test func endUndoGroupingWithNoOpenGroupThrows() {
        let undoManager = makeUndoManager()

        #expect(code { try undoManager.endUndoGrouping() } == .unbalancedEndGrouping)
        #expect(undoManager.groupingLevel == 0)
    }

    @Test func endUndoGroupingOnceTooOftenThrows() throws {
        let undoManager = makeUndoManager()
        undoManager.beginUndoGrouping()
        try undoManager.endUndoGrouping()

        #expect(code { try undoManager.endUndoGrouping() } == .unbalancedEndGrouping)
    }

    @Test func enableUndoRegistrationWithoutADisableThrows() throws {
        let undoManager = makeUndoManager()

        #expect(code { try undoManager.enableUndoRegistration() } == .unbalancedEnableRegistration)
        #expect(undoManager.isUndoRegistrationEnabled)

        undoManager.disableUndoRegistration()
        try undoManager.enableUndoRegistration()
        #expect(code { try undoManager.enableUndoRegistration() } == .unbalancedEnableRegistration)
    }

    @Test func undoOrRedoFromAHandlerThrows() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        var codes: [UndoError.Code?] = []
        undoManager.registerUndo(withTarget: journal) { journal in
            codes.append(code { try undoManager.undo() })
            codes.append(code { try undoManager.redo() })
            codes.append(code { try undoManager.undoNestedGroup() })
            undoManager.registerUndo(withTarget: journal) { _ in
                codes.append(code { try undoManager.redo() })
            }
        }
        undoManager.endEventGroup()

        try undoManager.undo()
        try undoManager.redo()

        #expect(codes == [.undoOrRedoInProgress, .undoOrRedoInProgress, .undoOrRedoInProgress, .undoOrRedoInProgress])
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func aHandlerCannotCloseTheGroupCollectingItsInverse() throws {
        let undoManager = makeUndoManager()
        let journal = Journal()
        var endCode: UndoError.Code?
        undoManager.registerUndo(withTarget: journal) { _ in
            endCode = code { try undoManager.endUndoGrouping() }
        }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(endCode == .unbalancedEndGrouping)
        #expect(undoManager.groupingLevel == 0)
        #expect(undoManager.invariantViolations.isEmpty)
    }

    @Test func groupsAHandlerLeavesOpenFoldIntoTheRedoGroup() throws {
        let undoManager = makeUndoManager()
        let note = Note("0", undoManager: undoManager)
        note.setText("1")
        undoManager.registerUndo(withTarget: note) { _ in undoManager.beginUndoGrouping() }
        undoManager.endEventGroup()

        try undoManager.undo()

        #expect(note.text == "0")
        #expect(undoManager.groupingLevel == 0)
        #expect(undoManager.invariantViolations.isEmpty)
        try undoManager.redo()
        #expect(note.text == "1")
    }

    @Test func errorsMatchByCodeInACatchClause() {
        let undoManager = makeUndoManager()
        var caught = false
        do {
            try undoManager.endUndoGrouping()
        } catch UndoError.Code.unbalancedEndGrouping {
            caught = true
        } catch {}
        #expect(caught)
    }

    @Test func errorsDescribeTheOperationAndTheRule() {
        let undoManager = makeUndoManager()
        undoManager.beginUndoGrouping()
        undoManager.beginUndoGrouping()

        do {
            try undoManager.undo()
            Issue.record("undo() should throw")
        } catch let error as UndoError {
            #expect(error.operation == "undo()")
            #expect(error.groupingLevel == 2)
            #expect(error.description.hasPrefix("UndoError.explicitGroupOpen in ModelUndoManager.undo() at grouping level 2: "))
            #expect(error.description.contains("endUndoGrouping()"))
            let bridged = error as NSError
            #expect(bridged.domain == UndoError.errorDomain)
            #expect(bridged.code == UndoError.Code.explicitGroupOpen.rawValue)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
