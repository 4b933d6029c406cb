import Testing
import ManagedObjects

@Test func managedObjectsReexportsModelObjects() {
    #expect(ModelObject().declaredKeys.isEmpty)
}
