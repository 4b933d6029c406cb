import Foundation
import ModelObjects
import SampleModels
import Testing

@Suite struct ValueForKeyTests {
    @Test func returnsAttributeValuesWithTheirSwiftTypes() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 7, salary: 120_000)
        ada.hasDriversLicense = true
        ada.startDate = Date(timeIntervalSinceReferenceDate: 86_400)

        #expect(sameValue(try ada.value(forKey: "firstName"), "Ada"))
        #expect(sameValue(try ada.value(forKey: "lastName"), "Lovelace"))
        #expect(sameValue(try ada.value(forKey: "employeeID"), 7))
        #expect(sameValue(try ada.value(forKey: "salary"), 120_000.0))
        #expect(sameValue(try ada.value(forKey: "hasDriversLicense"), true))
        #expect(sameValue(try ada.value(forKey: "startDate"), Date(timeIntervalSinceReferenceDate: 86_400)))
    }

    @Test func optionalAttributeHoldingNilReturnsNil() throws {
        let employee = Employee()
        let value = try employee.value(forKey: "age")
        #expect(value == nil)
    }

    @Test func optionalAttributeHoldingAValueReturnsTheUnwrappedValue() throws {
        let employee = Employee()
        employee.age = 42
        let value = try employee.value(forKey: "age")
        #expect(typeName(value) == "Swift.Int")
        #expect(value as? Int == 42)
    }

    @Test func toOneRelationshipReturnsTheRelatedObject() throws {
        let sales = Department(name: "Sales")
        let employee = Employee()
        employee.department = sales
        #expect(try employee.value(forKey: "department") as? Department === sales)
    }

    @Test func nilToOneRelationshipReturnsNil() throws {
        let employee = Employee()
        #expect(try employee.value(forKey: "department") == nil)
        #expect(try employee.value(forKey: "manager") == nil)
    }

    @Test func orderedToManyRelationshipReturnsTheArrayInOrder() throws {
        let boss = Employee()
        let first = Employee(firstName: "A", lastName: "", employeeID: 1, salary: 0)
        let second = Employee(firstName: "B", lastName: "", employeeID: 2, salary: 0)
        boss.directReports = [first, second]
        let reports = try #require(try boss.value(forKey: "directReports") as? [Employee])
        #expect(reports.count == 2)
        #expect(reports[0] === first)
        #expect(reports[1] === second)
    }

    @Test func unorderedToManyRelationshipReturnsTheSet() throws {
        let alpha = Project(name: "Alpha")
        let beta = Project(name: "Beta")
        let team = Team(name: "Core", projects: [alpha, beta])
        let projects = try #require(try team.value(forKey: "projects") as? Set<Project>)
        #expect(projects == [alpha, beta])
    }

    @Test func derivedKeyIsComputedFromCurrentValues() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 7, salary: 0)
        #expect(sameValue(try ada.value(forKey: "fullName"), "Ada Lovelace"))
        #expect(sameValue(try ada.value(forKey: "fullNameAndID"), "Ada Lovelace (7)"))
        ada.firstName = "Augusta"
        #expect(sameValue(try ada.value(forKey: "fullName"), "Augusta Lovelace"))
    }

    @Test func optionalDerivedKeyReturnsNilOrTheUnwrappedValue() throws {
        let manager = Manager()
        #expect(try manager.value(forKey: "departmentName") == nil)
        manager.department = Department(name: "Sales")
        let value = try manager.value(forKey: "departmentName")
        #expect(typeName(value) == "Swift.String")
        #expect(value as? String == "Sales")
    }

    @Test func derivedKeysOfEveryKindOfTypeReadAsTheirValues() throws {
        let object = DerivedKinds()
        #expect(try object.value(forKey: "anyHoldingNil") == nil)
        let wrapped = try object.value(forKey: "anyHoldingOptional")
        #expect(typeName(wrapped) == "Swift.Int")
        #expect(wrapped as? Int == 3)
        #expect(try object.value(forKey: "equatableHoldingNil") == nil)
        // One level is unwrapped: `.some(nil)` reads as the inner optional, not as nil.
        #expect(typeName(try object.value(forKey: "nestedOptional")) == "Swift.Optional<Swift.Int>")
        #expect(typeName(try object.value(forKey: "structValue")) == String(reflecting: CGPoint.self))
        #expect(try object.value(forKey: "enumValue") as? FloatingPointSign == .minus)
        #expect(try object.value(forKey: "objectValue") as? DerivedKinds === object)
        let tuple = try #require(try object.value(forKey: "tupleValue") as? (Int, String))
        #expect(tuple.0 == 1 && tuple.1 == "one")
    }

    @Test func readsValuesSetThroughTheTypedProperty() throws {
        let department = Department(name: "R&D", budget: Decimal(string: "1234.56")!)
        #expect(sameValue(try department.value(forKey: "name"), "R&D"))
        #expect(sameValue(try department.value(forKey: "budget"), Decimal(string: "1234.56")!))
    }

    @Test func undefinedKeyThrowsUndefinedKeyNamingClassAndKey() {
        let employee = Employee()
        let error = expectKVCError(.undefinedKey) { _ = try employee.value(forKey: "nickname") }
        #expect(error?.key == "nickname")
        #expect(error?.className == "SampleModels.Employee")
        #expect(error?.message == "SampleModels.Employee is not key value coding-compliant for the key 'nickname'")
    }

    @Test(arguments: ["", "salary ", "Salary", "_salary", "department.name", "@count", "wrappedValue"])
    func keysThatAreNotDeclaredPropertyNamesAreUndefined(key: String) {
        let employee = Employee()
        let error = expectKVCError(.undefinedKey) { _ = try employee.value(forKey: key) }
        #expect(error?.key == key)
    }

    @Test func plainStoredPropertiesAreNotKeys() {
        let object = AllTypes()
        expectKVCError(.undefinedKey) { _ = try object.value(forKey: "plainCounter") }
        expectKVCError(.undefinedKey) { _ = try object.value(forKey: "forwardedString") }
    }

    @Test func defaultValueForUndefinedKeyThrows() {
        let employee = Employee()
        let error = expectKVCError(.undefinedKey) { _ = try employee.value(forUndefinedKey: "salary") }
        #expect(error?.key == "salary")
        #expect(error?.className == "SampleModels.Employee")
    }

    @Test func baseModelObjectHasNoKeys() {
        let object = ModelObject()
        let error = expectKVCError(.undefinedKey) { _ = try object.value(forKey: "anything") }
        #expect(error?.className == "ModelObjects.ModelObject")
    }

    @Test(arguments: [
        ("int", "Swift.Int"), ("int8", "Swift.Int8"), ("int16", "Swift.Int16"), ("int32", "Swift.Int32"),
        ("int64", "Swift.Int64"), ("uint", "Swift.UInt"), ("uint8", "Swift.UInt8"), ("uint16", "Swift.UInt16"),
        ("uint32", "Swift.UInt32"), ("uint64", "Swift.UInt64"), ("double", "Swift.Double"), ("float", "Swift.Float"),
        ("cgFloat", String(reflecting: CGFloat.self)), ("bool", "Swift.Bool"), ("decimal", String(reflecting: Decimal.self)),
        ("string", "Swift.String"), ("date", String(reflecting: Date.self)), ("data", String(reflecting: Data.self)),
        ("uuid", String(reflecting: UUID.self)), ("url", String(reflecting: URL.self)), ("point", String(reflecting: CGPoint.self)),
        ("size", String(reflecting: CGSize.self)), ("rect", String(reflecting: CGRect.self)), ("range", String(reflecting: NSRange.self)),
        ("strings", "Swift.Array<Swift.String>"), ("tags", "Swift.Set<Swift.String>"),
    ])
    func boxesEachAttributeAsItsOwnSwiftType(key: String, expectedType: String) throws {
        let object = AllTypes()
        #expect(typeName(try object.value(forKey: key)) == expectedType)
    }

    @Test func returnsStructValuesUnchanged() throws {
        let object = AllTypes()
        object.point = CGPoint(x: 1, y: 2)
        object.size = CGSize(width: 3, height: 4)
        object.rect = CGRect(x: 5, y: 6, width: 7, height: 8)
        object.range = NSRange(location: 9, length: 10)
        object.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        object.url = URL(string: "https://example.com/a?b=c")!
        object.data = Data([1, 2, 3])
        #expect(try object.value(forKey: "point") as? CGPoint == CGPoint(x: 1, y: 2))
        #expect(try object.value(forKey: "size") as? CGSize == CGSize(width: 3, height: 4))
        #expect(try object.value(forKey: "rect") as? CGRect == CGRect(x: 5, y: 6, width: 7, height: 8))
        #expect(try object.value(forKey: "range") as? NSRange == NSRange(location: 9, length: 10))
        #expect(try object.value(forKey: "uuid") as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        #expect(try object.value(forKey: "url") as? URL == URL(string: "https://example.com/a?b=c")!)
        #expect(try object.value(forKey: "data") as? Data == Data([1, 2, 3]))
    }

    @Test func optionalAttributesOfEveryKindReturnNilWhenEmpty() throws {
        let object = AllTypes()
        for key in ["optionalInt", "optionalDouble", "optionalString", "optionalDate"] {
            #expect(try object.value(forKey: key) == nil, "\(key)")
        }
        object.optionalString = "set"
        #expect(sameValue(try object.value(forKey: "optionalString"), "set"))
    }

    @Test func valueForTypedKeyPathReadsThroughKeyValueCoding() throws {
        let ada = Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 10)
        #expect(sameValue(try ada.value(for: \.salary), 10.0))
        #expect(sameValue(try ada.value(for: \.fullName), "Ada Lovelace"))
        #expect(try ada.value(for: \.department) == nil)
    }
}

/// Derived keys whose values have every kind of type: existentials that hold optionals (read
/// through one level of unwrapping), nested optionals, structs, enums, classes and tuples.
private final class DerivedKinds: ModelObject {
    @Derived(compute: { (_: DerivedKinds) in Int?.none as Any })
    var anyHoldingNil: Any
    @Derived(compute: { (_: DerivedKinds) in Int?.some(3) as Any })
    var anyHoldingOptional: Any
    @Derived(compute: { (_: DerivedKinds) in Int?.none as any Equatable })
    var equatableHoldingNil: any Equatable
    @Derived(compute: { (_: DerivedKinds) in Int??.some(nil) })
    var nestedOptional: Int??
    @Derived(compute: { (_: DerivedKinds) in CGPoint(x: 1, y: 2) })
    var structValue: CGPoint
    @Derived(compute: { (_: DerivedKinds) in FloatingPointSign.minus })
    var enumValue: FloatingPointSign
    @Derived(compute: { (object: DerivedKinds) in object })
    var objectValue: DerivedKinds
    @Derived(compute: { (_: DerivedKinds) in (1, "one") })
    var tupleValue: (Int, String)
}
