import Foundation
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
