import ManagedObjects
import Testing

// The example of `ModelUndoManager`'s documentation, kept compiling and checked.

private final class ExampleNote { var text = "" }

private func setText(_ text: String, of note: ExampleNote, undoManager: ModelUndoManager) {
    let old = note.text
    undoManager.registerUndo(withTarget: note) { note in
        setText(old, of: note, undoManager: undoManager)  // registers the redo
    }
    undoManager.setActionName("Typing")
    note.text = text
}

@Suite struct UndoDocumentationExampleTests {
    @Test func theDocumentedExampleUndoesAndRedoesTyping() throws {
        let undoManager = ModelUndoManager()
        let note = ExampleNote()
        setText("Hello", of: note, undoManager: undoManager)
        undoManager.endEventGroup()
        #expect(undoManager.undoMenuItemTitle == "Undo Typing")
        try undoManager.undo()
        #expect(note.text == "")
        #expect(undoManager.redoMenuItemTitle == "Redo Typing")
        try undoManager.redo()
        #expect(note.text == "Hello")
    }
}
