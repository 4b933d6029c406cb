import Foundation
import Testing

@testable import ManagedObjects
import ModelObjects
import SampleModels

@Suite struct AttributeTypeTests {
    @Test(arguments: [
        (AttributeType.integer16, UInt(100), "Integer 16"), (.integer32, 200, "Integer 32"),
        (.integer64, 300, "Integer 64"),
        (.decimal, 400, "Decimal"), (.double, 500, "Double"), (.float, 600, "Float"), (.string, 700, "String"),
        (.boolean, 800, "Boolean"), (.date, 900, "Date"), (.binaryData, 1000, "Binary"), (.uuid, 1100, "UUID"),
        (.uri, 1200, "URI"), (.transformable, 1800, "Transformable"), (.objectID, 2000, "Object ID"),
        (.undefined, 0, "Undefined"),
    ])
    func rawValuesAndXcodeNamesAreCoreDatas(type: AttributeType, rawValue: UInt, xcodeName: String) {
        #expect(type.rawValue == rawValue)
        #expect(AttributeType(rawValue: rawValue) == type)
        #expect(type.xcodeName == xcodeName)
        #expect(AttributeType(xcodeName: xcodeName) == type)
    }

    @Test func valueTypesAreTheSwiftTypes() {
        #expect(AttributeType.integer16.valueType == Int16.self)
        #expect(AttributeType.integer32.valueType == Int32.self)
        #expect(AttributeType.integer64.valueType == Int64.self)
        #expect(AttributeType.decimal.valueType == Decimal.self)
        #expect(AttributeType.double.valueType == Double.self)
        #expect(AttributeType.float.valueType == Float.self)
        #expect(AttributeType.string.valueType == String.self)
        #expect(AttributeType.boolean.valueType == Bool.self)
        #expect(AttributeType.date.valueType == Date.self)
        #expect(AttributeType.binaryData.valueType == Data.self)
        #expect(AttributeType.uuid.valueType == UUID.self)
        #expect(AttributeType.uri.valueType == URL.self)
        #expect(AttributeType.transformable.valueType == nil)
        #expect(AttributeType.objectID.valueType == nil)
        #expect(AttributeType.undefined.valueType == nil)
    }

    @Test func unknownTypesAndNamesAreKeptApart() {
        let composite = AttributeType(rawValue: 2100)
        #expect(composite.xcodeName == nil)
        #expect(composite.description == "AttributeType(2100)")
        #expect(AttributeType(xcodeName: "Composite") == nil)
        #expect(AttributeType.integer16.isNumeric && AttributeType.integer16.isInteger)
        #expect(AttributeType.decimal.isNumeric && !AttributeType.decimal.isInteger)
        #expect(!AttributeType.date.isNumeric)
        #expect(AttributeType.binaryData.description == "binaryData")
    }

    @Test func valuesCompareWithinTheirType() {
        #expect(AttributeType.integer16.compare(Int16(1), Int16(2)) == .orderedAscending)
        #expect(AttributeType.double.compare(2.5, 2.5) == .orderedSame)
        #expect(AttributeType.decimal.compare(Decimal(3), Decimal(string: "2.9") ?? 0) == .orderedDescending)
        let (early, late) = (Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1))
        #expect(AttributeType.date.compare(early, late) == .orderedAscending)
        #expect(AttributeType.string.compare("a", "b") == nil)
    }

    @Test func xcodeTextParsesToTheValueType() {
        #expect(AttributeType.integer32.parse("42") as? Int32 == 42)
        #expect(AttributeType.integer16.parse("70000") == nil)
        #expect(AttributeType.boolean.parse("YES") as? Bool == true)
        #expect(AttributeType.boolean.parse("perhaps") == nil)
        #expect(AttributeType.decimal.parse("12.50") as? Decimal == Decimal(string: "12.5"))
        #expect(AttributeType.decimal.parse("twelve") == nil)
        #expect(AttributeType.date.parse("60") as? Date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(AttributeType.binaryData.parse("00") == nil)
    }
}

@Suite struct DeleteRuleTests {
    @Test(arguments: [
        (DeleteRule.noAction, UInt(0), "No Action"), (.nullify, 1, "Nullify"), (.cascade, 2, "Cascade"),
        (.deny, 3, "Deny"),
    ])
    func rawValuesAndXcodeNamesAreCoreDatas(rule: DeleteRule, rawValue: UInt, xcodeName: String) {
        #expect(rule.rawValue == rawValue)
        #expect(rule.xcodeName == xcodeName)
        #expect(DeleteRule(xcodeName: xcodeName) == rule)
    }

    @Test func unknownRulesHaveNoXcodeName() {
        #expect(DeleteRule(rawValue: 9).xcodeName == nil)
        #expect(DeleteRule(xcodeName: "Explode") == nil)
        #expect(DeleteRule.cascade.description == "cascade")
    }
}

@Suite(.serialized) struct ValueTransformerTests {
    struct Reversing: ValueTransforming {
        func transformedValue(_ value: Any) throws -> Data {
            guard let string = value as? String else { throw CocoaError(.coderInvalidValue) }
            return Data(String(string.reversed()).utf8)
        }
        func reverseTransformedValue(_ data: Data) throws -> Any {
            String(String(decoding: data, as: UTF8.self).reversed())
        }
    }

    @Test func registeredTransformersAreFoundByName() throws {
        let name = "ModelTests.Reversing"
        ValueTransformerRegistry.register(Reversing(), forName: name)
        defer { ValueTransformerRegistry.unregister(name: name) }
        #expect(ValueTransformerRegistry.registeredNames.contains(name))

        let model = try ManagedObjectModel {
            Entity("Box") {
                Property("label", .transformable, transformer: name)
                Property("payload", .transformable)
                Property("title", .string)
            }
        }
        let box = try #require(model.entity(named: "Box"))
        let transformer = try #require(box.attributesByName["label"]?.valueTransformer)
        let data = try transformer.transformedValue("abc")
        #expect(data == Data("cba".utf8))
        #expect(try transformer.reverseTransformedValue(data) as? String == "abc")
        #expect(box.attributesByName["title"]?.valueTransformer == nil)

        ValueTransformerRegistry.unregister(name: name)
        #expect(box.attributesByName["label"]?.valueTransformer == nil)
        #expect(ValueTransformerRegistry.transformer(forName: name) == nil)
    }

    @Test func transformableAttributesDefaultToKeyedArchives() throws {
        let model = try ManagedObjectModel {
            Entity("Box") { Property("payload", .transformable) }
        }
        let attribute = try #require(model.entity(named: "Box")?.attributesByName["payload"])
        #expect(attribute.valueTransformerName == nil)
        let transformer = try #require(attribute.valueTransformer)
        let data = try transformer.transformedValue("hello")
        #expect(try transformer.reverseTransformedValue(data) as? String == "hello")
        #expect(ValueTransformerRegistry.transformer(forName: "NSKeyedUnarchiveFromData") != nil)
        // The name Xcode's model editor writes for the default.
        #expect(ValueTransformerRegistry.transformer(forName: "NSSecureUnarchiveFromDataTransformer") != nil)
    }

    @Test func secureDefaultTransformersRefuseModelClassesFromStoreBytes() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Department(name: "Research"))
        for name in ["NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"] {
            let transformer = try #require(ValueTransformerRegistry.transformer(forName: name))
            #expect {
                try transformer.reverseTransformedValue(data)
            } throws: { error in
                (error as? ArchiveError)?.code == .classNotAllowed
                    && (error as? ArchiveError)?.className == String(reflecting: Department.self)
            }
            let values: [String: Any] = ["tags": Set(["a"]), "list": [1, 2], "when": Date(timeIntervalSinceReferenceDate: 1)]
            let decoded = try transformer.reverseTransformedValue(try transformer.transformedValue(values))
            #expect((decoded as? [String: Any])?.count == 3)
        }
        let unchecked = try #require(ValueTransformerRegistry.transformer(forName: "NSKeyedUnarchiveFromData"))
        #expect((try unchecked.reverseTransformedValue(data) as? Department)?.name == "Research")
    }
}
