import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct TypedKeyPathTests {
    @Test func mapsAttributeKeyPathsToTheirKeys() throws {
        let employee = Employee()
        #expect(try employee.key(for: \.salary) == "salary")
        #expect(try employee.key(for: \.firstName) == "firstName")
        #expect(try employee.key(for: \.age) == "age")
        #expect(try employee.key(for: \.hasDriversLicense) == "hasDriversLicense")
        #expect(try employee.key(for: \.startDate) == "startDate")
    }

    @Test func mapsRelationshipKeyPathsToTheirKeys() throws {
        let employee = Employee()
        #expect(try employee.key(for: \.department) == "department")
        #expect(try employee.key(for: \.manager) == "manager")
        #expect(try employee.key(for: \.directReports) == "directReports")
        #expect(try Team().key(for: \.projects) == "projects")
    }

    @Test func mapsDerivedKeyPathsToTheirKeys() throws {
        let employee = Employee()
        #expect(try employee.key(for: \.fullName) == "fullName")
        #expect(try employee.key(for: \.fullNameAndID) == "fullNameAndID")
    }

    @Test func mapsEveryBoxedTypeOfAllTypes() throws {
        let object = AllTypes()
        #expect(try object.key(for: \.int8) == "int8")
        #expect(try object.key(for: \.uint64) == "uint64")
        #expect(try object.key(for: \.decimal) == "decimal")
        #expect(try object.key(for: \.rect) == "rect")
        #expect(try object.key(for: \.range) == "range")
        #expect(try object.key(for: \.optionalDate) == "optionalDate")
        #expect(try object.key(for: \.info) == "info")
    }

    @Test func mapsInheritedAndSubclassKeys() throws {
        let manager = Manager()
        #expect(try manager.key(for: \.bonus) == "bonus")
        #expect(try manager.key(for: \.salary) == "salary")
        #expect(try manager.key(for: \.totalCompensation) == "totalCompensation")
        let car = SportsCar()
        #expect(try car.key(for: \.wheels) == "wheels")
        #expect(try car.key(for: \.owner) == "owner")
        #expect(try car.key(for: \.badge) == "badge")
    }

    @Test func mappingIsStableAcrossCallsAndInstances() throws {
        let first = Employee()
        let second = Employee()
        #expect(try first.key(for: \.lastName) == "lastName")
        #expect(try first.key(for: \.lastName) == "lastName")
        #expect(try second.key(for: \.lastName) == "lastName")
        #expect(try second.key(for: \.employeeID) == "employeeID")
    }

    @Test func mappingDoesNotChangeTheValue() throws {
        let employee = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 3, salary: 42)
        let sales = Department(name: "Sales")
        employee.department = sales
        _ = try employee.key(for: \.salary)
        _ = try employee.key(for: \.department)
        _ = try employee.key(for: \.fullName)
        #expect(employee.salary == 42)
        #expect(employee.department === sales)
        #expect(employee.fullName == "Ada Lovelace")
    }

    @Test func objectStillWorksNormallyAfterMapping() throws {
        let employee = Employee()
        _ = try employee.key(for: \.salary)
        employee.salary = 7
        #expect(employee.salary == 7)
        try employee.setValue(8, forKey: "salary")
        #expect(employee.salary == 8)
    }

    @Test func unmappableKeyPathsThrow() {
        let employee = Employee()
        let error = expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.description) }
        #expect(error?.className == "SampleModels.Employee")
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.hashValue) }
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.declaredKeys) }
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.directReports.count) }
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.firstName.count) }
    }

    @Test func plainStoredPropertyIsUnmappableAndKeepsItsValue() {
        let object = AllTypes()
        object.plainCounter = 5
        expectKVCError(.unmappableKeyPath) { _ = try object.key(for: \.plainCounter) }
        #expect(object.plainCounter == 5)
    }

    @Test func keyPathThroughAToOneRelationshipIsUnmappable() {
        let employee = Employee()
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.department?.name) }
        employee.department = Department(name: "Sales")
        expectKVCError(.unmappableKeyPath) { _ = try employee.key(for: \.department?.name) }
    }

    @Test func keyPathIntoAStructAttributeIsUnmappable() {
        // Documented: only key paths of one component map to keys.
        let object = AllTypes()
        object.rect = CGRect(x: 1, y: 2, width: 3, height: 4)
        expectKVCError(.unmappableKeyPath) { _ = try object.key(for: \.rect.origin.x) }
        expectKVCError(.unmappableKeyPath) { _ = try object.key(for: \.range.length) }
        #expect(object.rect == CGRect(x: 1, y: 2, width: 3, height: 4))
    }

    @Test func computedPropertyForwardingToAnAttributeIsUnmappable() throws {
        // Documented: the key path must name a property declared with a wrapper.
        let object = AllTypes()
        expectKVCError(.unmappableKeyPath) { _ = try object.key(for: \.forwardedString) }
        // Documented limitation: rooted at a subclass, a computed property that forwards to one
        // inherited declared property of the same type cannot be told apart from it.
        let manager = Manager()
        #expect(try manager.key(for: \.shoutedName) == "fullName")
    }

    @Test func valueForTypedKeyPath() throws {
        let manager = Manager()
        manager.salary = 100
        manager.bonus = 5
        #expect(sameValue(try manager.value(for: \.totalCompensation), 105.0))
        #expect(sameValue(try manager.value(for: \.bonus), 5.0))
        #expect(try manager.value(for: \.age) == nil)
        expectKVCError(.unmappableKeyPath) { _ = try manager.value(for: \.description) }
    }

    @Test func mutableProxiesForTypedKeyPaths() throws {
        let employee = Employee()
        let arrayProxy = try employee.mutableArrayValue(for: \.directReports)
        try arrayProxy.append(Employee())
        #expect(employee.directReports.count == 1)
        let object = AllTypes()
        let setProxy = try object.mutableSetValue(for: \.tags)
        try setProxy.insert("x")
        #expect(object.tags == ["x"])
        let stringsProxy = try object.mutableArrayValue(for: \.strings)
        #expect(stringsProxy.key == "strings")
    }
}
