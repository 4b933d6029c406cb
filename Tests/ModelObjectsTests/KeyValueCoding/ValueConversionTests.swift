import Foundation
import ModelObjects
import Testing

@Suite struct ValueConversionTests {
    /// Values that convert without loss: (key, value given, value expected back).
    @Test(arguments: [
        ("double", 3 as any Sendable, 3.0 as any Sendable),
        ("double", Int8(-5), -5.0),
        ("double", UInt64(1) << 53, 9_007_199_254_740_992.0),
        ("double", Float(1.5), 1.5),
        ("double", Decimal(string: "0.1")!, 0.1),
        ("double", true, 1.0),
        ("int", 2.0, 2),
        ("int", -7.0, -7),
        ("int", Float(4), 4),
        ("int", Int8(7), 7),
        ("int", UInt64(5), 5),
        ("int", Decimal(42), 42),
        ("int", Decimal(string: "-12")!, -12),
        ("int", true, 1),
        ("int8", 127, Int8(127)),
        ("int8", -128, Int8(-128)),
        ("int8", 100.0, Int8(100)),
        ("int16", -32_768, Int16.min),
        ("int32", Int64(Int32.max), Int32.max),
        ("int64", Int64.min, Int64.min),
        ("uint", 42, UInt(42)),
        ("uint8", 255, UInt8(255)),
        ("uint16", 65_535.0, UInt16.max),
        ("uint32", UInt64(UInt32.max), UInt32.max),
        ("uint64", UInt64.max, UInt64.max),
        ("uint64", Decimal(string: "18446744073709551615")!, UInt64.max),
        ("float", 3, Float(3)),
        ("float", 0.1, Float(0.1)),
        ("float", 16_777_216, Float(16_777_216)),
        ("cgFloat", 2, CGFloat(2)),
        ("cgFloat", 2.5, CGFloat(2.5)),
        ("bool", 1, true),
        ("bool", 0, false),
        ("bool", 1.0, true),
        ("bool", Decimal(0), false),
        ("bool", UInt8(1), true),
        ("decimal", 5, Decimal(5)),
        ("decimal", 0.1, Decimal(string: "0.1")!),
        ("decimal", UInt64.max, Decimal(string: "18446744073709551615")!),
        ("decimal", -2.5, Decimal(string: "-2.5")!),
        ("optionalInt", 5.0, 5),
        ("optionalInt", Int8(3), 3),
        ("optionalDouble", 3, 3.0),
        ("string", "text", "text"),
        ("optionalString", "text", "text"),
    ] as [(String, any Sendable, any Sendable)])
    func convertsLosslessly(key: String, given: any Sendable, expected: any Sendable) throws {
        let object = AllTypes()
        try object.setValue(given, forKey: key)
        let stored = try object.value(forKey: key)
        #expect(sameValue(stored, expected), "got \(String(describing: stored)) (\(typeName(stored)))")
    }

    /// Values that would lose information, or that have the wrong kind: (key, value given).
    @Test(arguments: [
        ("int", 2.5 as any Sendable),
        ("int", Double.nan),
        ("int", Double.infinity),
        ("int", 1e300),
        ("int", Decimal(string: "2.5")!),
        ("int", UInt64.max),
        ("int", "5"),
        ("int8", 300),
        ("int8", -129),
        ("int8", 127.5),
        ("uint", -1),
        ("uint8", 256),
        ("uint8", -0.5),
        ("uint16", 70_000),
        ("int32", Int64(Int32.max) + 1),
        ("int64", UInt64.max),
        ("uint64", -1),
        ("double", (1 << 53) + 1),
        ("double", Int64.max),
        ("double", Decimal(string: "1.00000000000000000001")!),
        ("double", "1.5"),
        ("float", 16_777_217),
        ("float", 1e300),
        ("float", 0.30000000000000004),
        ("bool", 2),
        ("bool", -1),
        ("bool", 0.5),
        ("bool", "true"),
        ("decimal", "1"),
        ("string", 5),
        ("string", 5.0),
        ("date", "2001-01-01"),
        ("date", 0),
        ("data", "bytes"),
        ("uuid", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        ("url", "https://example.com"),
        ("point", CGSize(width: 1, height: 2)),
        ("size", CGPoint(x: 1, y: 2)),
        ("rect", CGPoint(x: 1, y: 2)),
        ("optionalInt", 2.5),
        ("optionalDouble", "3"),
        ("optionalDate", 12),
        ("strings", [1, 2]),
        ("tags", ["a", "b"]),
    ] as [(String, any Sendable)])
    func rejectsLossyOrWrongKindConversions(key: String, given: any Sendable) throws {
        let object = AllTypes()
        let before = try object.value(forKey: key)
        let error = expectKVCError(.typeMismatch) { try object.setValue(given, forKey: key) }
        #expect(sameValue(try object.value(forKey: key), before))
        #expect(error?.key == key)
        #expect(error?.className == "ModelObjectsTests.AllTypes")
        #expect(error?.givenType == typeName(given))
    }

    @Test func failedConversionLeavesThePreviousValue() {
        let object = AllTypes()
        object.int = 7
        object.int8 = 12
        object.optionalInt = 4
        expectKVCError(.typeMismatch) { try object.setValue(2.5, forKey: "int") }
        expectKVCError(.typeMismatch) { try object.setValue(300, forKey: "int8") }
        expectKVCError(.typeMismatch) { try object.setValue(2.5, forKey: "optionalInt") }
        #expect(object.int == 7)
        #expect(object.int8 == 12)
        #expect(object.optionalInt == 4)
    }

    @Test func typeMismatchNamesExpectedAndGivenTypes() {
        let object = AllTypes()
        let error = expectKVCError(.typeMismatch) { try object.setValue(300, forKey: "int8") }
        #expect(error?.expectedType == "Swift.Int8")
        #expect(error?.givenType == "Swift.Int")
        let optional = expectKVCError(.typeMismatch) { try object.setValue(2.5, forKey: "optionalInt") }
        #expect(optional?.expectedType == "Swift.Optional<Swift.Int>")
        #expect(optional?.givenType == "Swift.Double")
    }

    // MARK: - Foundation inputs

    @Test func nsNumberConvertsToEveryNumericWidthWhenExact() throws {
        let object = AllTypes()
        try object.setValue(NSNumber(value: 42), forKey: "int")
        try object.setValue(NSNumber(value: 42), forKey: "double")
        try object.setValue(NSNumber(value: 42), forKey: "int8")
        try object.setValue(NSNumber(value: 42), forKey: "uint16")
        try object.setValue(NSNumber(value: 42), forKey: "decimal")
        try object.setValue(NSNumber(value: 2.0), forKey: "int32")
        try object.setValue(NSNumber(value: 2.5), forKey: "float")
        try object.setValue(NSNumber(value: Int64.max), forKey: "int64")
        try object.setValue(NSNumber(value: UInt64.max), forKey: "uint64")
        #expect(object.int == 42)
        #expect(object.double == 42)
        #expect(object.int8 == 42)
        #expect(object.uint16 == 42)
        #expect(object.decimal == 42)
        #expect(object.int32 == 2)
        #expect(object.float == 2.5)
        #expect(object.int64 == Int64.max)
        #expect(object.uint64 == UInt64.max)
    }

    @Test func nsNumberThatDoesNotFitThrows() {
        let object = AllTypes()
        expectKVCError(.typeMismatch) { try object.setValue(NSNumber(value: 2.5), forKey: "int") }
        expectKVCError(.typeMismatch) { try object.setValue(NSNumber(value: 300), forKey: "int8") }
        expectKVCError(.typeMismatch) { try object.setValue(NSNumber(value: -1), forKey: "uint") }
        expectKVCError(.typeMismatch) { try object.setValue(NSNumber(value: UInt64.max), forKey: "int64") }
        expectKVCError(.typeMismatch) { try object.setValue(NSNumber(value: 2), forKey: "bool") }
        #expect(object.int == 0)
        #expect(object.int8 == 0)
        #expect(object.uint == 0)
        #expect(object.int64 == 0)
        #expect(object.bool == false)
    }

    @Test func nsNumberBoolsAndZeroOneBecomeBool() throws {
        let object = AllTypes()
        try object.setValue(NSNumber(value: true), forKey: "bool")
        #expect(object.bool == true)
        try object.setValue(NSNumber(value: 0), forKey: "bool")
        #expect(object.bool == false)
        try object.setValue(NSNumber(value: 1), forKey: "bool")
        #expect(object.bool == true)
        try object.setValue(NSNumber(value: false), forKey: "int")
        #expect(object.int == 0)
    }

    @Test func nsDecimalNumberConvertsExactly() throws {
        let object = AllTypes()
        try object.setValue(NSDecimalNumber(string: "1.25"), forKey: "decimal")
        #expect(object.decimal == Decimal(string: "1.25")!)
        try object.setValue(NSDecimalNumber(string: "1.25"), forKey: "double")
        #expect(object.double == 1.25)
        try object.setValue(NSDecimalNumber(string: "12"), forKey: "int")
        #expect(object.int == 12)
        expectKVCError(.typeMismatch) { try object.setValue(NSDecimalNumber(string: "12.5"), forKey: "int") }
        #expect(object.int == 12)
    }

    @Test func decimalRoundTripsExactly() throws {
        let object = AllTypes()
        let value = Decimal(string: "12345678901234567890.123456789")!
        try object.setValue(value, forKey: "decimal")
        #expect(object.decimal == value)
        expectKVCError(.typeMismatch) { try object.setValue(value, forKey: "double") }
        expectKVCError(.typeMismatch) { try object.setValue(value, forKey: "int64") }
    }

    @Test func foundationReferenceTypesBridgeToTheirValueTypes() throws {
        let object = AllTypes()
        try object.setValue(NSString(string: "bridged"), forKey: "string")
        try object.setValue(NSDate(timeIntervalSinceReferenceDate: 100), forKey: "date")
        try object.setValue(NSData(bytes: [1, 2, 3] as [UInt8], length: 3), forKey: "data")
        try object.setValue(NSURL(string: "https://example.com/x")!, forKey: "url")
        try object.setValue(NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, forKey: "uuid")
        try object.setValue(NSString(string: "optional"), forKey: "optionalString")
        #expect(object.string == "bridged")
        #expect(object.date == Date(timeIntervalSinceReferenceDate: 100))
        #expect(object.data == Data([1, 2, 3]))
        #expect(object.url == URL(string: "https://example.com/x")!)
        #expect(object.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        #expect(object.optionalString == "optional")
    }

    @Test func nsValueUnboxesToGeometryAndRanges() throws {
        let object = AllTypes()
        try object.setValue(NSValue(point: CGPoint(x: 1, y: 2)), forKey: "point")
        try object.setValue(NSValue(size: CGSize(width: 3, height: 4)), forKey: "size")
        try object.setValue(NSValue(rect: CGRect(x: 5, y: 6, width: 7, height: 8)), forKey: "rect")
        try object.setValue(NSValue(range: NSRange(location: 9, length: 10)), forKey: "range")
        #expect(object.point == CGPoint(x: 1, y: 2))
        #expect(object.size == CGSize(width: 3, height: 4))
        #expect(object.rect == CGRect(x: 5, y: 6, width: 7, height: 8))
        #expect(object.range == NSRange(location: 9, length: 10))
    }

    @Test func swiftGeometryValuesAreTakenAsIs() throws {
        let object = AllTypes()
        try object.setValue(CGPoint(x: 1, y: 2), forKey: "point")
        try object.setValue(CGRect(x: 1, y: 2, width: 3, height: 4), forKey: "rect")
        try object.setValue(NSRange(location: 1, length: 2), forKey: "range")
        #expect(object.point == CGPoint(x: 1, y: 2))
        #expect(object.rect == CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(object.range == NSRange(location: 1, length: 2))
    }

    // These run in a child process: on Linux a number bridges to NSNumber, an NSValue subclass,
    // and asking an NSValue that holds one kind of value for another kind traps inside
    // Foundation; a trap must fail only its own test case.

    @Test(arguments: GeometryMismatch.allCases)
    func numberOrNSValueOfAnotherKindThrowsTypeMismatchInsteadOfTrapping(mismatch: GeometryMismatch) async {
        await #expect(processExitsWith: .success) { [mismatch] in
            let object = AllTypes()
            let (key, value) = mismatch.keyAndValue
            let before = try object.value(forKey: key)
            do {
                try object.setValue(value, forKey: key)
            } catch let error as KeyValueCodingError where error.code == .typeMismatch {
                guard sameValue(try object.value(forKey: key), before) else { throw ExitTestFailure() }
                return
            }
            throw ExitTestFailure()
        }
    }

    // MARK: - Collections of values

    @Test func arrayAttributeAcceptsAnArrayOfItsElementType() throws {
        let object = AllTypes()
        try object.setValue(["a", "b"], forKey: "strings")
        #expect(object.strings == ["a", "b"])
        try object.setValue(Set(["x"]), forKey: "tags")
        #expect(object.tags == ["x"])
    }
}

/// Thrown inside an exit test when the child process saw the wrong outcome.
struct ExitTestFailure: Error {}

/// A value given to a geometry or range attribute that holds another kind of value.
enum GeometryMismatch: String, CaseIterable, Codable, Sendable {
    case intForRange, doubleForPoint, boolForSize, intForRect
    case rectValueForPoint, pointValueForSize, rangeValueForRect, sizeValueForRange

    var keyAndValue: (String, Any) {
        switch self {
        case .intForRange: ("range", 5)
        case .doubleForPoint: ("point", 1.5)
        case .boolForSize: ("size", true)
        case .intForRect: ("rect", 3)
        case .rectValueForPoint: ("point", NSValue(rect: CGRect(x: 1, y: 2, width: 3, height: 4)))
        case .pointValueForSize: ("size", NSValue(point: CGPoint(x: 1, y: 2)))
        case .rangeValueForRect: ("rect", NSValue(range: NSRange(location: 1, length: 2)))
        case .sizeValueForRange: ("range", NSValue(size: CGSize(width: 1, height: 2)))
        }
    }
}
