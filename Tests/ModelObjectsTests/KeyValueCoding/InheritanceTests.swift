import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct InheritanceTests {
    // MARK: - Sample models

    @Test func employeeKeysInDeclarationOrder() {
        let employee = Employee()
        #expect(employee.declaredKeys == [
            "firstName", "lastName", "employeeID", "salary", "age", "hasDriversLicense", "startDate",
            "department", "manager", "directReports", "fullName", "fullNameAndID", "departmentName",
        ])
        #expect(employee.attributeKeys == [
            "firstName", "lastName", "employeeID", "salary", "age", "hasDriversLicense", "startDate",
        ])
        #expect(employee.relationshipKeys == ["department", "manager", "directReports"])
        #expect(employee.derivedKeys == ["fullName", "fullNameAndID", "departmentName"])
    }

    @Test func departmentKeys() {
        let department = Department()
        #expect(department.declaredKeys == ["name", "budget", "employees", "totalSalary"])
        #expect(department.attributeKeys == ["name", "budget"])
        #expect(department.relationshipKeys == ["employees"])
        #expect(department.derivedKeys == ["totalSalary"])
    }

    @Test func relationshipKeysIncludeEveryKindOfRelationship() {
        let company = Company()
        #expect(company.relationshipKeys == ["departments", "teams", "orderedTeams", "headquarters"])
        #expect(company.attributeKeys == ["name"])
        #expect(Team().relationshipKeys == ["projects", "members"])
    }

    @Test func baseModelObjectDeclaresNoKeys() {
        let object = ModelObject()
        #expect(object.declaredKeys.isEmpty)
        #expect(object.attributeKeys.isEmpty)
        #expect(object.relationshipKeys.isEmpty)
        #expect(object.derivedKeys.isEmpty)
    }

    @Test func plainPropertiesAreNotDeclaredKeys() {
        let portfolio = Portfolio()
        #expect(portfolio.declaredKeys == ["projects", "archived"])
        #expect(!AllTypes().declaredKeys.contains("plainCounter"))
        #expect(!AllTypes().declaredKeys.contains("forwardedString"))
    }

    // MARK: - Three-level chain

    @Test func eachLevelListsSuperclassKeysFirst() {
        #expect(Vehicle().declaredKeys == ["wheels", "name"])
        #expect(Car().declaredKeys == ["wheels", "name", "brand", "owner"])
        #expect(SportsCar().declaredKeys == ["wheels", "name", "brand", "owner", "topSpeed", "badge"])
        #expect(Truck().declaredKeys == ["wheels", "name", "brand", "owner", "payload"])
    }

    @Test func keyKindsAreInheritedInOrder() {
        let car = SportsCar()
        #expect(car.attributeKeys == ["wheels", "name", "brand", "topSpeed"])
        #expect(car.relationshipKeys == ["owner"])
        #expect(car.derivedKeys == ["badge"])
    }

    @Test func subclassKeysAreNotInTheSuperclassOrSiblings() {
        let vehicle = Vehicle()
        let error = expectKVCError(.undefinedKey) { _ = try vehicle.value(forKey: "brand") }
        #expect(error?.className == "ModelObjectsTests.Vehicle")
        expectKVCError(.undefinedKey) { _ = try Car().value(forKey: "topSpeed") }
        expectKVCError(.undefinedKey) { _ = try Truck().value(forKey: "topSpeed") }
        expectKVCError(.undefinedKey) { _ = try SportsCar().value(forKey: "payload") }
        #expect(!Employee().declaredKeys.contains("bonus"))
    }

    @Test func inheritedKeysAreReadAndSetOnTheSubclassInstance() throws {
        let car = SportsCar()
        try car.setValue(3, forKey: "wheels")
        try car.setValue("Roadster", forKey: "name")
        try car.setValue("Acme", forKey: "brand")
        try car.setValue(250, forKey: "topSpeed")
        #expect(car.wheels == 3)
        #expect(car.name == "Roadster")
        #expect(car.brand == "Acme")
        #expect(car.topSpeed == 250)
        #expect(sameValue(try car.value(forKey: "wheels"), 3))
        #expect(sameValue(try car.value(forKey: "brand"), "Acme"))
        #expect(sameValue(try car.value(forKey: "badge"), "Acme 250"))
    }

    @Test func inheritedRelationshipWorksThroughKeyPaths() throws {
        let car = SportsCar()
        let owner = Employee(firstName: "Ada", lastName: "", employeeID: 1, salary: 0)
        try car.setValue(owner, forKey: "owner")
        #expect(car.owner === owner)
        #expect(sameValue(try car.value(forKeyPath: "owner.firstName"), "Ada"))
        try car.setValue("Grace", forKeyPath: "owner.firstName")
        #expect(owner.firstName == "Grace")
    }

    @Test func subclassInstancesAreUsedThroughSuperclassReferences() throws {
        let vehicle: Vehicle = SportsCar()
        try vehicle.setValue("Acme", forKey: "brand")
        #expect(sameValue(try vehicle.value(forKey: "brand"), "Acme"))
        #expect(vehicle.declaredKeys.count == 6)
    }

    @Test func derivedKeyOfASubclassIsReadOnly() {
        let car = SportsCar()
        let error = expectKVCError(.readOnlyKey) { try car.setValue("x", forKey: "badge") }
        #expect(error?.className == "ModelObjectsTests.SportsCar")
    }

    @Test func sampleModelSubclassAddsItsKeysAfterInheritedOnes() throws {
        let manager = Manager()
        #expect(manager.declaredKeys == Employee().declaredKeys + ["bonus", "totalCompensation"])
        #expect(manager.attributeKeys.last == "bonus")
        #expect(manager.derivedKeys == ["fullName", "fullNameAndID", "departmentName", "totalCompensation"])
        try manager.setValue(100, forKey: "salary")
        try manager.setValue(20, forKey: "bonus")
        #expect(sameValue(try manager.value(forKey: "totalCompensation"), 120.0))
        #expect(sameValue(try manager.value(forKey: "fullName"), " "))
    }

    @Test func subclassOfASampleModelInheritsItsOverrides() throws {
        let department = LenientDepartment()
        #expect(department.declaredKeys == ["name", "budget", "employees", "totalSalary"])
        try department.setValue("Ops", forKey: "name")
        #expect(sameValue(try department.value(forKey: "code"), "D-Ops"))
    }

    @Test func keyTablesOfDifferentClassesAreIndependent() throws {
        // Build tables in an order where a subclass comes first.
        let truck = Truck()
        let vehicle = Vehicle()
        let car = Car()
        #expect(truck.declaredKeys.last == "payload")
        #expect(vehicle.declaredKeys == ["wheels", "name"])
        #expect(car.declaredKeys == ["wheels", "name", "brand", "owner"])
        try truck.setValue(1.5, forKey: "payload")
        try vehicle.setValue(2, forKey: "wheels")
        #expect(truck.payload == 1.5)
        #expect(truck.wheels == 4)
        #expect(vehicle.wheels == 2)
    }
}
