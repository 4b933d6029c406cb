import Foundation
import Testing
@testable import ManagedObjects

/// An object's values live in one buffer typed per entity: every attribute type keeps its value
/// as it was set, the buffer is shared until written (a fetched, unchanged object and its
/// snapshot hold one buffer), and the values it holds are released with it.
@Suite struct PropertyValuesTests {
    private static func everyTypeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Sample") {
                Property("i16", .integer16)
                Property("i32", .integer32)
                Property("i64", .integer64)
                Property("double", .double)
                Property("float", .float)
                Property("bool", .boolean)
                Property("date", .date)
                Property("decimal", .decimal)
                Property("uuid", .uuid)
                Property("string", .string)
                Property("data", .binaryData)
                Property("url", .uri)
                Property("other", .undefined, transient: true)
                Property("parent", to: "Sample", inverse: "children")
                Property("children", to: "Sample", inverse: "parent", toMany: true)
            }
        }
    }

    private static var samples: [String: AnyHashable] {
        [
            "i16": Int16(-7), "i32": Int32(1 << 20), "i64": Int64.max, "double": 2.5, "float": Float(0.25), "bool": true,
            "date": Date(timeIntervalSinceReferenceDate: 1234.5), "decimal": Decimal(sign: .minus, exponent: -3, significand: 12345),
            "uuid": UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), "string": "héllo",
            "data": Data([1, 2, 3]), "url": URL(fileURLWithPath: "/tmp/a"), "other": "anything",
        ]
    }

    @Test func everyAttributeTypeKeepsItsValueAndItsNil() throws {
        let entity = try #require(try Self.everyTypeModel().entity(named: "Sample"))
        var values = PropertyValues(layout: entity.layout)
        #expect(values.count == entity.properties.count)
        for (key, sample) in Self.samples {
            let index = try #require(entity.propertiesByName[key]).index
            #expect(values[index] == nil)
            values[index] = sample.base
            #expect((values[index] as? AnyHashable) == sample, "\(key)")
            values[index] = nil
            #expect(values[index] == nil, "\(key)")
            values[index] = sample.base
        }
        for (key, sample) in Self.samples {
            #expect((values[try #require(entity.propertiesByName[key]).index] as? AnyHashable) == sample, "\(key)")
        }
    }

    @Test func aCopySharesTheBufferUntilEitherIsWritten() throws {
        let entity = try #require(try Self.everyTypeModel().entity(named: "Sample"))
        let string = try #require(entity.propertiesByName["string"]).index
        var values = PropertyValues(layout: entity.layout)
        values[string] = "before"
        let copy = values
        #expect(values.isIdentical(to: copy))
        values[string] = "after"
        #expect(!values.isIdentical(to: copy))
        #expect(copy[string] as? String == "before")
        #expect(values[string] as? String == "after")
    }

    @Test func writesToValuesHeldOnceChangeTheirBufferInPlace() throws {
        let entity = try #require(try Self.everyTypeModel().entity(named: "Sample"))
        var values = PropertyValues(layout: entity.layout)
        let identity = values.bufferIdentity
        values[try #require(entity.propertiesByName["string"]).index] = "in place"
        values.store(2.5, at: try #require(entity.propertiesByName["double"]).index)
        let stored = values.setValue(Int64(3), at: try #require(entity.propertiesByName["i64"]).index)
        #expect(stored)
        #expect(values.bufferIdentity == identity)
    }

    @Test func typedAccessReadsAndWritesTheSlotInPlace() throws {
        let entity = try #require(try Self.everyTypeModel().entity(named: "Sample"))
        let i64 = try #require(entity.propertiesByName["i64"]).index
        var values = PropertyValues(layout: entity.layout)
        let setInt64 = values.setValue(Int64(42), at: i64)
        #expect(setInt64)
        #expect(values.value(as: Int64.self, at: i64) == 42)
        #expect(values.value(as: Int64?.self, at: i64) == .some(42))
        // `Int` shares `Int64`'s representation on 64-bit platforms.
        let setInt = values.setValue(7 as Int?, at: i64)
        #expect(setInt)
        #expect(values.value(as: Int.self, at: i64) == 7)
        let setString = values.setValue("not a number", at: i64)
        #expect(!setString)
        #expect(values.value(as: String.self, at: i64) == nil)
        values[i64] = nil
        #expect(values.value(as: Int64.self, at: i64) == nil)
        #expect(values.value(as: Int64?.self, at: i64) == .some(nil))
    }

    @Test func bareSlotsKeepTheirNilApartFromTheirValueThroughEveryAccessor() throws {
        let entity = try #require(try Self.everyTypeModel().entity(named: "Sample"))
        let double = try #require(entity.propertiesByName["double"]).index
        let date = try #require(entity.propertiesByName["date"]).index
        var values = PropertyValues(layout: entity.layout)
        // Zero is a value, not nil, in a slot whose nil is its presence byte.
        let set1 = values.setValue(0.0, at: double)
        #expect(set1)
        #expect(values.value(as: Double?.self, at: double) == .some(0.0))
        #expect(values.load(Double.self, at: double) == 0.0)
        let set2 = values.setValue(nil as Double?, at: double)
        #expect(set2)
        #expect(values.value(as: Double?.self, at: double) == .some(nil))
        #expect(values.load(Double.self, at: double) == nil)
        #expect(values[double] == nil)
        values.store(Date(timeIntervalSinceReferenceDate: 0), at: date)
        #expect(values[date] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        let copy = values
        values.store(nil as Date?, at: date)
        #expect(values[date] == nil)
        #expect(copy[date] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        let set3 = values.setValue(Date(timeIntervalSinceReferenceDate: 9) as Date?, at: date)
        #expect(set3)
        #expect(values.value(as: Date.self, at: date) == Date(timeIntervalSinceReferenceDate: 9))
    }

    @Test func slotsAndPresenceBytesNeverOverlapAndPackWithoutPadding() throws {
        for entity in try Self.everyTypeModel().entities + makeTestModel().entities {
            let layout = entity.layout
            var ranges: [Range<Int>] = []
            for slot in layout.slots {
                let shape = slot.kind.memoryLayout
                #expect(slot.offset % shape.alignment == 0, "\(entity.name): \(slot)")
                ranges.append(slot.offset..<(slot.offset + shape.size))
                if shape.isBare { ranges.append(slot.presence..<(slot.presence + 1)) } else { #expect(slot.presence == -1) }
            }
            let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
            for (first, second) in zip(sorted, sorted.dropFirst()) {
                #expect(first.upperBound <= second.lowerBound, "\(entity.name): \(first) and \(second) overlap")
            }
            // Slots placed by decreasing alignment leave no hole before the presence bytes.
            let used = ranges.reduce(0) { $0 + $1.count }
            #expect((used + 7) / 8 == layout.wordCount, "\(entity.name)")
        }
    }

    @Test func valuesAreReleasedWithTheBuffer() throws {
        let model = try Self.everyTypeModel()
        let entity = try #require(model.entity(named: "Sample"))
        weak var released: ManagedObject?
        var values: PropertyValues? = PropertyValues(layout: entity.layout)
        do {
            let object = ManagedObject(entity: entity, insertInto: nil)
            released = object
            values?[try #require(entity.propertiesByName["parent"]).index] = object
            values?[try #require(entity.propertiesByName["other"]).index] = [object]
            let copy = values
            values?[try #require(entity.propertiesByName["string"]).index] = "copied"
            #expect(copy?.isIdentical(to: values ?? PropertyValues()) == false)
        }
        #expect(released != nil)
        values = nil
        #expect(released == nil)
    }

    @Test func aFetchedUnchangedObjectHoldsOneBufferAndAChangeKeepsTheSnapshot() throws {
        let model = try makeTestModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.addPersistentStore(InMemoryStore())
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let written = TestEmployee(context: writer)
        written.firstName = "Ada"
        written.salary = 100
        try writer.save()

        let context = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let employee = try #require(try context.existingObject(with: written.objectID) as? TestEmployee)
        try employee.fireFault()
        let snapshot = try #require(employee.snapshot)
        #expect(employee.values.isIdentical(to: snapshot))
        #expect(employee.changedValues().isEmpty)

        employee.salary = 200
        #expect(employee.snapshot.map { employee.values.isIdentical(to: $0) } == false)
        #expect(employee.committedValues(forKeys: ["salary"])["salary"] as? Double == 100)
        #expect(employee.changedValues()["salary"] as? Double == 200)
        #expect(employee.salary == 200)
    }
}
