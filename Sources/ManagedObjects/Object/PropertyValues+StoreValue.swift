import Foundation
import ModelObjects

extension PropertyValues {
    /// The value of the attribute slot at `index` as a store keeps it, read in place; nil for
    /// object, to-many and `Any?` slots (relationships, transformable and undefined attributes), and for
    /// an index out of range, which take the general path.
    func storeValue(at index: Int) -> StoreValue? {
        guard let kind = kind(at: index) else { return nil }
        switch kind {
        case .int16: return load(Int16.self, at: index).map { .integer(Int64($0)) } ?? .null
        case .int32: return load(Int32.self, at: index).map { .integer(Int64($0)) } ?? .null
        case .int64: return load(Int64.self, at: index).map(StoreValue.integer) ?? .null
        case .double: return load(Double.self, at: index).map(StoreValue.double) ?? .null
        // As key-value coding widens a `Float` (so the store keeps what the attribute showed).
        case .float: return load(Float.self, at: index).flatMap { convertKeyValue($0, to: Double.self) }.map(StoreValue.double) ?? .null
        case .boolean: return load(Bool.self, at: index).map(StoreValue.boolean) ?? .null
        case .date: return load(Date.self, at: index).map(StoreValue.date) ?? .null
        case .decimal: return load(Decimal.self, at: index).map(StoreValue.decimal) ?? .null
        case .uuid: return load(UUID.self, at: index).map(StoreValue.uuid) ?? .null
        case .string: return load(String.self, at: index).map(StoreValue.string) ?? .null
        case .data: return load(Data.self, at: index).map(StoreValue.data) ?? .null
        case .url: return load(URL.self, at: index).map(StoreValue.uri) ?? .null
        case .object, .any, .toMany, .orderedToMany: return nil
        }
    }
}
