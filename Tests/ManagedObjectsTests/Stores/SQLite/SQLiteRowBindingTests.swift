import Foundation
import Testing
@testable import ManagedObjects

/// The rows one save writes with one statement hold each record's own values: nothing is left
/// over from the row written before (the statement keeps its bindings between rows).
@Suite struct SQLiteRowBindingTests {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Shape", abstract: true) { Property("name", .string) }
            Entity("Square", parent: "Shape") { Property("side", .double) }
            Entity("Circle", parent: "Shape") { Property("radius", .double) }
            Entity("Holder") {
                Property("label", .string)
                Property("count", .integer64)
                // The destination has subentities: the row keeps the target's entity in a column.
                Property("shape", to: "Shape")
            }
        }
    }

    @Test func aRowAfterOneWithValuesWritesItsOwnNullsIncludingTheTargetsEntityColumn() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let probe = try SQLiteProbe(directory: directory, model: model)
        let square = try #require(model.entity(named: "Square"))
        let holder = try #require(model.entity(named: "Holder"))
        let shapeID = try probe.insert(square)
        let keys = try probe.store.newPrimaryKeys(for: holder, count: 3)
        let ids = keys.map { ManagedObjectID(entity: holder, key: .permanent(storeIdentifier: probe.store.identifier, primaryKey: $0)) }
        func values(_ label: String?, _ count: Int64?, _ shape: ManagedObjectID?) -> [StoreValue] {
            var values = [StoreValue](repeating: .null, count: holder.properties.count)
            values[holder.propertiesByName["label"]?.index ?? 0] = label.map(StoreValue.string) ?? .null
            values[holder.propertiesByName["count"]?.index ?? 0] = count.map(StoreValue.integer) ?? .null
            values[holder.propertiesByName["shape"]?.index ?? 0] = shape.map { .toOne($0) } ?? .null
            return values
        }
        var changes = SaveChanges()
        changes.inserted = [
            StoreRecord(objectID: ids[0], version: 1, values: values("full", 3, shapeID)),
            StoreRecord(objectID: ids[1], version: 1, values: values(nil, nil, nil)),
            StoreRecord(objectID: ids[2], version: 1, values: values("again", 4, shapeID)),
        ]
        try probe.store.apply(changes)
        #expect(try probe.query("SELECT ZLABEL, ZCOUNT, ZSHAPE IS NULL, ZSHAPE_ENT FROM ZHOLDER ORDER BY Z_PK") == [
            "full|3|0|Square", "NULL|NULL|1|NULL", "again|4|0|Square",
        ])
    }
}
