import Foundation
import Testing

@testable import ManagedObjects

/// A class with more `@Managed` declarations than one prototype pass numbers (128: a wrapper
/// holds its number in one byte), and more properties than a wrapper's byte binds (126 and
/// under): the ones past it find their index on each access.
final class WideRecord: ManagedObject {
    @Managed(defaultValue: 0) var v000: Int64
    @Managed(defaultValue: 1) var v001: Int64
    @Managed(defaultValue: 2) var v002: Int64
    @Managed(defaultValue: 3) var v003: Int64
    @Managed(defaultValue: 4) var v004: Int64
    @Managed(defaultValue: 5) var v005: Int64
    @Managed(defaultValue: 6) var v006: Int64
    @Managed(defaultValue: 7) var v007: Int64
    @Managed(defaultValue: 8) var v008: Int64
    @Managed(defaultValue: 9) var v009: Int64
    @Managed(defaultValue: 10) var v010: Int64
    @Managed(defaultValue: 11) var v011: Int64
    @Managed(defaultValue: 12) var v012: Int64
    @Managed(defaultValue: 13) var v013: Int64
    @Managed(defaultValue: 14) var v014: Int64
    @Managed(defaultValue: 15) var v015: Int64
    @Managed(defaultValue: 16) var v016: Int64
    @Managed(defaultValue: 17) var v017: Int64
    @Managed(defaultValue: 18) var v018: Int64
    @Managed(defaultValue: 19) var v019: Int64
    @Managed(defaultValue: 20) var v020: Int64
    @Managed(defaultValue: 21) var v021: Int64
    @Managed(defaultValue: 22) var v022: Int64
    @Managed(defaultValue: 23) var v023: Int64
    @Managed(defaultValue: 24) var v024: Int64
    @Managed(defaultValue: 25) var v025: Int64
    @Managed(defaultValue: 26) var v026: Int64
    @Managed(defaultValue: 27) var v027: Int64
    @Managed(defaultValue: 28) var v028: Int64
    @Managed(defaultValue: 29) var v029: Int64
    @Managed(defaultValue: 30) var v030: Int64
    @Managed(defaultValue: 31) var v031: Int64
    @Managed(defaultValue: 32) var v032: Int64
    @Managed(defaultValue: 33) var v033: Int64
    @Managed(defaultValue: 34) var v034: Int64
    @Managed(defaultValue: 35) var v035: Int64
    @Managed(defaultValue: 36) var v036: Int64
    @Managed(defaultValue: 37) var v037: Int64
    @Managed(defaultValue: 38) var v038: Int64
    @Managed(defaultValue: 39) var v039: Int64
    @Managed(defaultValue: 40) var v040: Int64
    @Managed(defaultValue: 41) var v041: Int64
    @Managed(defaultValue: 42) var v042: Int64
    @Managed(defaultValue: 43) var v043: Int64
    @Managed(defaultValue: 44) var v044: Int64
    @Managed(defaultValue: 45) var v045: Int64
    @Managed(defaultValue: 46) var v046: Int64
    @Managed(defaultValue: 47) var v047: Int64
    @Managed(defaultValue: 48) var v048: Int64
    @Managed(defaultValue: 49) var v049: Int64
    @Managed(defaultValue: 50) var v050: Int64
    @Managed(defaultValue: 51) var v051: Int64
    @Managed(defaultValue: 52) var v052: Int64
    @Managed(defaultValue: 53) var v053: Int64
    @Managed(defaultValue: 54) var v054: Int64
    @Managed(defaultValue: 55) var v055: Int64
    @Managed(defaultValue: 56) var v056: Int64
    @Managed(defaultValue: 57) var v057: Int64
    @Managed(defaultValue: 58) var v058: Int64
    @Managed(defaultValue: 59) var v059: Int64
    @Managed(defaultValue: 60) var v060: Int64
    @Managed(defaultValue: 61) var v061: Int64
    @Managed(defaultValue: 62) var v062: Int64
    @Managed(defaultValue: 63) var v063: Int64
    @Managed(defaultValue: 64) var v064: Int64
    @Managed(defaultValue: 65) var v065: Int64
    @Managed(defaultValue: 66) var v066: Int64
    @Managed(defaultValue: 67) var v067: Int64
    @Managed(defaultValue: 68) var v068: Int64
    @Managed(defaultValue: 69) var v069: Int64
    @Managed(defaultValue: 70) var v070: Int64
    @Managed(defaultValue: 71) var v071: Int64
    @Managed(defaultValue: 72) var v072: Int64
    @Managed(defaultValue: 73) var v073: Int64
    @Managed(defaultValue: 74) var v074: Int64
    @Managed(defaultValue: 75) var v075: Int64
    @Managed(defaultValue: 76) var v076: Int64
    @Managed(defaultValue: 77) var v077: Int64
    @Managed(defaultValue: 78) var v078: Int64
    @Managed(defaultValue: 79) var v079: Int64
    @Managed(defaultValue: 80) var v080: Int64
    @Managed(defaultValue: 81) var v081: Int64
    @Managed(defaultValue: 82) var v082: Int64
    @Managed(defaultValue: 83) var v083: Int64
    @Managed(defaultValue: 84) var v084: Int64
    @Managed(defaultValue: 85) var v085: Int64
    @Managed(defaultValue: 86) var v086: Int64
    @Managed(defaultValue: 87) var v087: Int64
    @Managed(defaultValue: 88) var v088: Int64
    @Managed(defaultValue: 89) var v089: Int64
    @Managed(defaultValue: 90) var v090: Int64
    @Managed(defaultValue: 91) var v091: Int64
    @Managed(defaultValue: 92) var v092: Int64
    @Managed(defaultValue: 93) var v093: Int64
    @Managed(defaultValue: 94) var v094: Int64
    @Managed(defaultValue: 95) var v095: Int64
    @Managed(defaultValue: 96) var v096: Int64
    @Managed(defaultValue: 97) var v097: Int64
    @Managed(defaultValue: 98) var v098: Int64
    @Managed(defaultValue: 99) var v099: Int64
    @Managed(defaultValue: 100) var v100: Int64
    @Managed(defaultValue: 101) var v101: Int64
    @Managed(defaultValue: 102) var v102: Int64
    @Managed(defaultValue: 103) var v103: Int64
    @Managed(defaultValue: 104) var v104: Int64
    @Managed(defaultValue: 105) var v105: Int64
    @Managed(defaultValue: 106) var v106: Int64
    @Managed(defaultValue: 107) var v107: Int64
    @Managed(defaultValue: 108) var v108: Int64
    @Managed(defaultValue: 109) var v109: Int64
    @Managed(defaultValue: 110) var v110: Int64
    @Managed(defaultValue: 111) var v111: Int64
    @Managed(defaultValue: 112) var v112: Int64
    @Managed(defaultValue: 113) var v113: Int64
    @Managed(defaultValue: 114) var v114: Int64
    @Managed(defaultValue: 115) var v115: Int64
    @Managed(defaultValue: 116) var v116: Int64
    @Managed(defaultValue: 117) var v117: Int64
    @Managed(defaultValue: 118) var v118: Int64
    @Managed(defaultValue: 119) var v119: Int64
    @Managed(defaultValue: 120) var v120: Int64
    @Managed(defaultValue: 121) var v121: Int64
    @Managed(defaultValue: 122) var v122: Int64
    @Managed(defaultValue: 123) var v123: Int64
    @Managed(defaultValue: 124) var v124: Int64
    @Managed(defaultValue: 125) var v125: Int64
    @Managed(defaultValue: 126) var v126: Int64
    @Managed(defaultValue: 127) var v127: Int64
    @Managed(defaultValue: 128) var v128: Int64
    @Managed(defaultValue: 129) var v129: Int64
    @Managed(defaultValue: 130) var v130: Int64
    @Managed(defaultValue: 131) var v131: Int64
    @Managed(defaultValue: 132) var v132: Int64
    @Managed(defaultValue: 133) var v133: Int64
    @Managed(defaultValue: 134) var v134: Int64
    @Managed(inverse: \WideRecord.children) var parent: WideRecord?
    @Managed(deleteRule: .cascade) var children: Set<WideRecord>
}

/// Classes read into a model keep every declaration's arguments, however many they declare,
/// and every `@Managed` property reads and writes its own value, whatever its index.
@Suite struct ClassModelManyDeclarationsTests {
    @Test func everyDeclarationKeepsItsArgumentsPastOnePassesWindow() throws {
        #expect(ManagedDeclarationRecorder.window == 128)
        let model = try ManagedObjectModel(classes: [WideRecord.self])
        let entity = try #require(model.entitiesByName["WideRecord"])
        for k in 0..<135 {
            let attribute = try #require(entity.attributesByName[String(format: "v%03d", k)])
            #expect(attribute.defaultValue as? Int64 == Int64(k), "v\(k)")
        }
        // The two relationships are declared 136th and 137th, outside the first pass.
        let parent = try #require(entity.relationshipsByName["parent"])
        let children = try #require(entity.relationshipsByName["children"])
        #expect(parent.inverseRelationship === children)
        #expect(children.inverseRelationship === parent)
        #expect(children.deleteRule == .cascade)
    }

    @Test func propertiesPastTheSlotsByteReadAndWriteTheirOwnValues() throws {
        let model = try ManagedObjectModel(classes: [WideRecord.self])
        let entity = try #require(model.entitiesByName["WideRecord"])
        #expect(entity.properties.count == 137)
        #expect(entity.properties.contains { $0.index > Int(Int8.max) - 1 })
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let record = WideRecord(context: context)
        let child = WideRecord(context: context)
        #expect(record.v000 == 0 && record.v134 == 134)
        record.v000 = 1_000
        record.v126 = 1_126
        record.v134 = 1_134
        child.parent = record
        #expect(record.children == [child])
        #expect(record.v000 == 1_000 && record.v126 == 1_126 && record.v134 == 1_134 && record.v133 == 133)
        #expect(try record.value(forKey: "v134") as? Int64 == 1_134)
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let fetched = try reader.fetch(FetchRequest<WideRecord>(entityName: "WideRecord"))
        let readRecord = try #require(fetched.first { $0.objectID == record.objectID })
        #expect(readRecord.v134 == 1_134 && readRecord.v000 == 1_000 && readRecord.v126 == 1_126 && readRecord.v001 == 1)
        #expect(readRecord.children.map(\.objectID) == [child.objectID])
    }
}
