import Testing
import ModelObjects
import SampleModels

@Test func placeholder() throws {
    let e = Employee()
    #expect(try e.value(forKey: "salary") as? Double == 0)
}
