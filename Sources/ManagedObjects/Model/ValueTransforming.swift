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

/// The transformers registered by default: keyed archives written with ModelObjects'
/// `KeyedArchiver`. With `allowedClasses` (`"NSSecureUnarchiveFromData"`), reading refuses any
/// class outside them before it is made, so store bytes cannot instantiate arbitrary model
/// classes; without (`"NSKeyedUnarchiveFromData"`), every known class decodes.
struct KeyedArchiveValueTransformer: ValueTransforming {
    /// Foundation's `NSSecureUnarchiveFromDataTransformer.allowedTopLevelClasses`: its
    /// containers; the value classes it lists always pass.
    static let secureClasses: Set<ArchiveClass> = [.array, .dictionary, .set]

    let allowedClasses: Set<ArchiveClass>?

    func transformedValue(_ value: Any) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value)
    }

    func reverseTransformedValue(_ data: Data) throws -> Any {
        let value = try allowedClasses.map { try KeyedUnarchiver.unarchivedObject(ofClasses: $0, from: data) }
            ?? KeyedUnarchiver.unarchivedObject(from: data)
        guard let value else {
            throw ArchiveError(.valueNotFound, key: "root", message: "the archive's root object is nil")
        }
        return value
    }
}
