import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct ModelObjectIdentityTests {
    @Test func objectIsEqualToItself() {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)
        #expect(ada == ada)
        #expect(ada.hashValue == ada.hashValue)
    }

    @Test func objectsWithEqualValuesAreNotEqual() {
        let first = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)
        let second = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 0)
        #expect(first != second)
    }

    @Test func equalityIgnoresChangesToValues() {
        let ada = Employee()
        var set: Set<Employee> = [ada]
        ada.firstName = "Changed"
        ada.salary = 99
        #expect(set.contains(ada))
        set.insert(ada)
        #expect(set.count == 1)
    }

    @Test func hashIsTheObjectIdentity() {
        let ada = Employee()
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(ada))
        #expect(ada.hashValue == hasher.finalize())
    }

    @Test func distinctObjectsLiveSideBySideInASet() {
        let projects: Set<Project> = [Project(name: "Same"), Project(name: "Same"), Project(name: "Same")]
        #expect(projects.count == 3)
    }

    @Test func objectsOfDifferentClassesCompareByIdentity() {
        let employee: ModelObject = Employee()
        let department: ModelObject = Department()
        #expect(employee != department)
        #expect(AnyHashable(employee) != AnyHashable(department))
        #expect(AnyHashable(employee) == AnyHashable(employee))
    }

    @Test func descriptionNamesTheClassAndTheObjectsAddress() {
        let ada = Employee()
        let address = String(UInt(bitPattern: ObjectIdentifier(ada)), radix: 16)
        #expect(ada.description == "<SampleModels.Employee: 0x\(address)>")
        #expect(Team().description.hasPrefix("<ModelObjectsTests.Team: "))
    }
}
