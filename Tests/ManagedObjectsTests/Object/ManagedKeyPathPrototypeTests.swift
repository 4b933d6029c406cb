import Foundation
import Synchronization
import ModelObjects
import Testing

@testable import ManagedObjects

/// Kinds of a case a prototype reads first.
enum MPKind: String, CaseIterable, Sendable {
    case plain, fancy
}

/// Properties of types with no empty value: a prototype stands in a literal or a first case.
final class MPLiteralHolder: ManagedObject {
    @Managed var salary: Double
    @Managed(transformer: "TagsTransformer") var tags: [String: String]
    @Managed(transformer: "KindTransformer") var kind: MPKind
}

/// A value of a type a prototype has no stand-in for.
struct MPOpaque: Sendable {
    var bits: Int
}

final class MPOpaqueHolder: ManagedObject {
    @Managed var salary: Double
    @Managed(transformer: "OpaqueTransformer") var opaque: MPOpaque
    var bits: Int { opaque.bits }
}

/// A settable computed property whose getter asks for another key path's key: reading it on a
/// prototype runs a probe inside a probe.
final class MPAliasHolder: ManagedObject {
    @Managed var name: String
    var alias: String {
        get {
            _ = try? key(for: \.name)
            return name
        }
        set { name = newValue }
    }
}

/// `key(for:)` on managed objects reads key paths on a prototype of the class: every property
/// type it can be read for, and a clear error, not a stop, for those it cannot.
@Suite struct ManagedKeyPathPrototypeTests {
    private func make<Object: ManagedObject>(_ type: Object.Type) throws -> Object {
        let model = try ManagedObjectModel(classes: [type])
        return Object(entity: try #require(model.entity(named: "\(type)")), insertInto: nil)
    }

    @Test func propertiesOfDictionaryAndEnumerationTypesMapToTheirKeys() throws {
        let holder = try make(MPLiteralHolder.self)
        #expect(try holder.key(for: \.salary) == "salary")
        #expect(try holder.key(for: \.tags) == "tags")
        #expect(try holder.key(for: \.kind) == "kind")
    }

    @Test func aClassWithAPropertyNoPrototypeCanReadThrowsInsteadOfStopping() throws {
        let holder = try make(MPOpaqueHolder.self)
        holder.opaque = MPOpaque(bits: 1)
        for error in [
            #expect(throws: KeyValueCodingError.self) { _ = try holder.key(for: \.salary) },
            #expect(throws: KeyValueCodingError.self) { _ = try holder.key(for: \.bits) },
        ] {
            #expect(error?.code == .unmappableKeyPath)
        }
    }

    @Test func aKeyPathWhoseGetterAsksForAnotherKeyIsProbedWithoutDeadlock() throws {
        let model = try ManagedObjectModel(classes: [MPAliasHolder.self])
        let entity = try #require(model.entity(named: "MPAliasHolder"))
        // On a thread of its own, so that a probe stuck on its own lock fails this test
        // instead of hanging the run.
        let found = Mutex<[String?]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            let holder = MPAliasHolder(entity: entity, insertInto: nil)
            let alias = try? holder.key(for: \.alias)
            let name = try? holder.key(for: \.name)
            found.withLock { $0 = [alias, name] }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        // The documented limitation: a settable computed property of the same type that reads
        // and writes one @Managed property is taken for it; the inner probe's read is its own.
        #expect(found.withLock { $0 } == ["name", "name"])
    }

    @Test func keysAreFoundAlikeFromSeveralThreads() async throws {
        let model = try ManagedObjectModel(classes: [MPLiteralHolder.self])
        let entity = try #require(model.entity(named: "MPLiteralHolder"))
        let keys = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let holder = MPLiteralHolder(entity: entity, insertInto: nil)
                    return [
                        (try? holder.key(for: \.tags)) ?? "", (try? holder.key(for: \.salary)) ?? "",
                        (try? holder.key(for: \.kind)) ?? "",
                    ]
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(keys == Array(repeating: ["tags", "salary", "kind"], count: 8))
    }
}
