import Foundation
import Testing

@testable import ManagedObjects

/// A fetch from a store that decodes rows into objects registers its new objects together,
/// once its rows are read: the registry grows once, to three quarters full, and a to-one
/// relationship to a record of the same fetch still finds the one object of that record.
@Suite struct FetchRegistrationTests {
    /// Nodes saved to a SQLite store, in a ring (`next`) when `linked`; a new context on the
    /// same file.
    private func ring(of count: Int, linked: Bool = true, in directory: TemporaryDirectory) throws -> ManagedObjectContext {
        try Self.ring(of: count, linked: linked) { coordinator in
            try coordinator.addPersistentStore(type: .sqlite, at: directory.file())
        }
    }

    /// Nodes saved to the store `addStore` adds, in a ring (`next`) when `linked`; a new
    /// context of the same coordinator.
    static func ring(
        of count: Int, linked: Bool = true, addStore: (PersistentStoreCoordinator) throws -> Void
    ) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel {
            Entity("Node") {
                Property("name", .string)
                Property("next", to: "Node", inverse: "previous")
                Property("previous", to: "Node", inverse: "next")
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try addStore(coordinator)
        let writer = ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
        let entity = try #require(model.entity(named: "Node"))
        let nodes = (0 ..< count).map { index in
            let node = ManagedObject(entity: entity, insertInto: writer)
            try? node.setValue(String(format: "N%05d", index), forKey: "name")
            return node
        }
        if linked {
            for (index, node) in nodes.enumerated() { try node.setValue(nodes[(index + 1) % count], forKey: "next") }
        }
        try writer.save()
        return ManagedObjectContext(coordinator: coordinator, notificationCenter: NotificationCenter())
    }

    /// Every node, by name, as faults or loaded.
    static func fetchAll(_ context: ManagedObjectContext, asFaults: Bool = true) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: "Node", sortDescriptors: [KeyPathSortDescriptor(key: "name")])
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    private func fetchAll(_ context: ManagedObjectContext, asFaults: Bool = true) throws -> [ManagedObject] {
        try Self.fetchAll(context, asFaults: asFaults)
    }

    @Test func rowsRelatedToRowsOfTheSameFetchShareOneObjectPerRecord() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 5, in: directory)
        let nodes = try fetchAll(context)
        #expect(nodes.count == 5)
        #expect(Set(nodes.map(ObjectIdentifier.init)).count == 5)
        for (index, node) in nodes.enumerated() {
            let next = try #require(try node.value(forKey: "next") as? ManagedObject)
            #expect(next === nodes[(index + 1) % nodes.count])
            #expect(context.registeredObject(for: node.objectID) === node)
        }
        #expect(context.registered.count == 5)
        #expect(context.registered.checkInvariants())
    }

    @Test func aFetchGrowsTheRegistryOnceToThreeQuartersFull() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 1_000, linked: false, in: directory)
        let nodes = try fetchAll(context)
        #expect(nodes.count == 1_000)
        #expect(context.registered.count == 1_000)
        // 1,334 slots, not the 2,048 that doubling from 16 reaches.
        #expect(context.registered.capacity == ObjectRegistry.capacity(for: 1_000))
        #expect(context.registered.checkInvariants())
        #expect(nodes.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
    }

    @Test func aSecondFetchFindsTheObjectsOfTheFirst() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 300, in: directory)
        let first = try fetchAll(context)
        let second = try fetchAll(context)
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        #expect(context.registered.count == 300)
        #expect(context.registered.checkInvariants())
    }

    @Test func aRowsColumnReadsAreWalkedOncePerColumn() throws {
        // A to-one's destination held in the reads once made a debug build's walk of them
        // never end (the iterator's nil misread): each fetch of a row looped forever.
        let directory = try TemporaryDirectory()
        let context = try ring(of: 1, linked: false, in: directory)
        let store = try #require(context.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let mapping = try #require(store.schema.entities["Node"])
        let reads = mapping.reads
        var walked = 0
        for read in reads {
            walked += 1
            if walked > mapping.reads.count { break }
            if read.kind == .toOne { #expect(read.destination?.name == "Node") }
        }
        #expect(walked == mapping.reads.count)
        #expect(reads.filter { $0.kind == .toOne }.count == 2)
    }

    @Test func loadedObjectsRelatedToRowsOfTheSameFetchAreFiredOnceRegistered() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 40, in: directory)
        let nodes = try fetchAll(context, asFaults: false)
        #expect(nodes.count == 40)
        #expect(nodes.allSatisfy { !$0.isFault })
        for (index, node) in nodes.enumerated() {
            #expect(try node.value(forKey: "name") as? String == String(format: "N%05d", index))
            #expect(try node.value(forKey: "next") as? ManagedObject === nodes[(index + 1) % nodes.count])
            #expect(try node.value(forKey: "previous") as? ManagedObject === nodes[(index + nodes.count - 1) % nodes.count])
            #expect(context.registeredObject(for: node.objectID) === node)
        }
        #expect(context.registered.count == 40)
        #expect(context.registered.checkInvariants())
    }

    @Test func aFetchRelatedToRegisteredObjectsAndNewOnesRegistersEachOnce() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 30, in: directory)
        // Some records' objects registered before the fetch, as faults and loaded.
        let some = try context.fetch(
            FetchRequest<ManagedObject>(entityName: "Node", predicate: try KeyValuePredicate(format: "name < 'N00010'")))
        #expect(some.count == 10)
        try some[0].fireFault()
        let nodes = try fetchAll(context)
        #expect(nodes.count == 30)
        #expect(Set(nodes.map(ObjectIdentifier.init)).count == 30)
        #expect(some.allSatisfy { object in nodes.contains { $0 === object } })
        for (index, node) in nodes.enumerated() {
            #expect(try node.value(forKey: "next") as? ManagedObject === nodes[(index + 1) % nodes.count])
        }
        #expect(context.registered.count == 30)
        #expect(context.registered.checkInvariants())
    }

    @Test func aFetchThatFailsPartWayLeavesNoObjectRegisteredOrDangling() throws {
        let directory = try TemporaryDirectory()
        let context = try ring(of: 20, linked: false, in: directory)
        let store = try #require(context.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let path = try #require(store.url?.path)
        let connection = try SQLiteConnection(path: path, create: false)
        // The last row by name has a version that is no positive integer: the fetch reads 19 rows, then throws.
        try connection.execute("UPDATE ZNODE SET Z_OPT = 'x' WHERE ZNAME = 'N00019'")
        let error = #expect(throws: PersistenceError.self) { try fetchAll(context) }
        #expect(error?.code == .operationFailed)
        // The objects made for the rows read were registered, and went away with the fetch
        // (nothing holds them): none is left registered, or dangling.
        #expect(context.registered.count == 0)
        #expect(context.registered.checkInvariants())
        try connection.execute("UPDATE ZNODE SET Z_OPT = 1 WHERE ZNAME = 'N00019'")
        let nodes = try fetchAll(context)
        #expect(nodes.count == 20)
        #expect(Set(nodes.map(ObjectIdentifier.init)).count == 20)
        #expect(context.registered.count == 20)
        #expect(nodes.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
    }
}
