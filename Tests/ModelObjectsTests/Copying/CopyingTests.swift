import Foundation
import Testing
import ModelObjects
import SampleModels

/// A class that changes what a copy means: the copy gets a fresh ID.
final class Badge: ModelObject {
    @Attribute var label = ""
    @Attribute var serial = 0

    override func copy() -> Self {
        let copy = super.copy()
        copy.serial = 0
        return copy
    }
}

@Suite struct CopyTests {
    @Test func copyHasTheSameClassAndAttributes() {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 7, salary: 99)
        ada.age = 36
        let copy = ada.copy()
        #expect(copy !== ada)
        #expect(type(of: copy) == Employee.self)
        #expect(copy.firstName == "Ada" && copy.lastName == "Lovelace")
        #expect(copy.employeeID == 7 && copy.salary == 99 && copy.age == 36)
    }

    @Test func copySharesRelationships() {
        let department = Department(name: "R&D")
        let ada = Employee()
        ada.department = department
        department.employees = [ada]
        let copy = department.copy()
        #expect(copy.employees.count == 1)
        #expect(copy.employees[0] === ada)
        #expect(ada.copy().department === department)
    }

    @Test func copyIsIndependentOfTheOriginal() {
        let ada = Employee(firstName: "Ada", lastName: "L", employeeID: 1, salary: 1)
        let copy = ada.copy()
        copy.firstName = "Augusta"
        #expect(ada.firstName == "Ada")
    }

    @Test func classMayOverrideCopy() {
        let badge = Badge()
        badge.label = "Visitor"
        badge.serial = 42
        let copy = badge.copy()
        #expect(copy.label == "Visitor" && copy.serial == 0)
    }

    @Test func copiedObjectIsObservable() throws {
        let copy = Employee().copy()
        var seen: [Double] = []
        let token = try copy.observe(\.salary, options: [.new]) { _, change in seen.append(change.newValue ?? -1) }
        copy.salary = 5
        token.invalidate()
        #expect(seen == [5])
    }

    @Test func copyingProtocolIsAdopted() {
        let copying: any Copying = Employee()
        #expect(copying.copy() is Employee)
    }
}

@Suite struct DeepCopyTests {
    func makeDepartment() -> (Department, [Employee]) {
        let department = Department(name: "R&D", budget: 10)
        let boss = Employee(firstName: "Grace", lastName: "Hopper", employeeID: 1, salary: 3)
        let worker = Employee(firstName: "Alan", lastName: "Turing", employeeID: 2, salary: 2)
        let intern = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 3, salary: 1)
        for employee in [boss, worker, intern] { employee.department = department }
        department.employees = [boss, worker, intern]
        worker.manager = boss
        intern.manager = boss
        boss.directReports = [worker, intern]
        return (department, [boss, worker, intern])
    }

    @Test func deepCopyCopiesOwnedObjects() {
        let (department, originals) = makeDepartment()
        let copy = department.deepCopy()
        #expect(copy !== department)
        #expect(copy.name == "R&D" && copy.budget == 10)
        #expect(copy.employees.count == 3)
        for (copied, original) in zip(copy.employees, originals) {
            #expect(copied !== original)
            #expect(copied.fullName == original.fullName)
        }
    }

    @Test func copiesPointAtTheNewDepartment() {
        let (department, _) = makeDepartment()
        let copy = department.deepCopy()
        #expect(copy.employees.allSatisfy { $0.department === copy })
    }

    @Test func sharedReferencesInsideTheGraphStayShared() {
        let (department, _) = makeDepartment()
        let copy = department.deepCopy()
        let boss = copy.employees[0]
        #expect(copy.employees[1].manager === boss)
        #expect(copy.employees[2].manager === boss)
        #expect(boss.directReports.count == 2)
        #expect(boss.directReports[0] === copy.employees[1])
        #expect(boss.directReports[1] === copy.employees[2])
    }

    @Test func referencesOutOfTheGraphKeepPointingOut() {
        let (department, _) = makeDepartment()
        let outsider = Employee(firstName: "Outside", lastName: "Manager", employeeID: 9, salary: 0)
        department.employees[0].manager = outsider
        let copy = department.deepCopy()
        #expect(copy.employees[0].manager === outsider)
    }

    @Test func deepCopyOfAnObjectThatOwnsNothingIsACopy() {
        let ada = Employee(firstName: "Ada", lastName: "L", employeeID: 1, salary: 1)
        let department = Department()
        ada.department = department
        let copy = ada.deepCopy()
        #expect(copy !== ada && copy.firstName == "Ada")
        #expect(copy.department === department)
    }
}
