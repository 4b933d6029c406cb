import Foundation

/// Converts the values of a transformable attribute to the `Data` a store keeps, and back.
///
/// A transformable attribute (``AttributeType/transformable``) holds a value of any type; the
/// store keeps bytes. The attribute names its transformer with
/// ``AttributeDescription/valueTransformerName``, and the name is looked up in
/// ``ValueTransformerRegistry`` when a value is saved or loaded. Nil values are stored as nil
/// without calling the transformer.
///
/// ```swift
/// struct ColorTransformer: ValueTransforming {
///     func transformedValue(_ value: Any) throws -> Data {
///         guard let color = value as? Color else { throw ColorError.notAColor }
///         return Data(color.hexString.utf8)
///     }
///     func reverseTransformedValue(_ data: Data) throws -> Any {
///         try Color(hexString: String(decoding: data, as: UTF8.self))
///     }
/// }
/// ValueTransformerRegistry.register(ColorTransformer(), forName: "ColorTransformer")
/// ```
///
/// Corresponds to Foundation's `ValueTransformer` as Core Data uses it for transformable
/// attributes (`transformedValue(_:)` to data, `reverseTransformedValue(_:)` from data);
/// differences: a protocol typed to `Data` (Linux has no `ValueTransformer` subclassing story),
/// conversions throw instead of returning nil, and transformers are `Sendable` so the registry can
/// be shared.
public protocol ValueTransforming: Sendable {
    /// Converts an attribute value to the bytes stored for it.
    ///
    /// - Throws: Any error, when the value is not one this transformer converts.
    func transformedValue(_ value: Any) throws -> Data

    /// Converts stored bytes back to an attribute value.
    ///
    /// - Throws: Any error, when the bytes are not ones this transformer wrote.
    func reverseTransformedValue(_ data: Data) throws -> Any
}

/// The transformer registered by default as `"NSSecureUnarchiveFromData"` and
/// `"NSKeyedUnarchiveFromData"`: keyed archives written with ModelObjects' `KeyedArchiver`.
struct KeyedArchiveValueTransformer: ValueTransforming {
    func transformedValue(_ value: Any) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value)
    }

    func reverseTransformedValue(_ data: Data) throws -> Any {
        guard let value = try KeyedUnarchiver.unarchivedObject(from: data) else {
            throw ArchiveError(.valueNotFound, key: "root", message: "the archive's root object is nil")
        }
        return value
    }
}
