import Foundation
import Synchronization

/// The process-wide table of value transformers by name, which transformable attributes use.
///
/// Register a transformer before loading or saving objects whose attributes name it. Three names
/// are registered from the start, all keyed archives written with ModelObjects' `KeyedArchiver`:
/// ``secureUnarchiveFromDataName`` (Core Data's default for transformable attributes that name
/// no transformer), `"NSSecureUnarchiveFromDataTransformer"` (the same, as Xcode's model editor
/// names it) and ``keyedUnarchiveFromDataName``. The first two decode securely, as Foundation's
/// do: only arrays, dictionaries, sets and Foundation's value classes, so an attribute holding
/// model objects needs a transformer of its own that names them (with
/// `KeyedUnarchiver.unarchivedObject(ofClasses:from:)`); ``keyedUnarchiveFromDataName`` decodes
/// any known class.
///
/// ```swift
/// ValueTransformerRegistry.register(ColorTransformer(), forName: "ColorTransformer")
/// let transformer = ValueTransformerRegistry.transformer(forName: "ColorTransformer")
/// ```
///
/// Registration is thread-safe.
///
/// Corresponds to Foundation's `ValueTransformer.setValueTransformer(_:forName:)` and
/// `ValueTransformer(forName:)`; differences: a namespace of static functions over
/// ``ValueTransforming`` values, and transformers can be removed.
public enum ValueTransformerRegistry {
    /// The name of the default transformer for transformable attributes,
    /// `"NSSecureUnarchiveFromData"`.
    ///
    /// Corresponds to Foundation's `NSValueTransformerName.secureUnarchiveFromDataTransformerName`.
    public static let secureUnarchiveFromDataName = "NSSecureUnarchiveFromData"
    /// The name of the older keyed-archive transformer, `"NSKeyedUnarchiveFromData"`.
    ///
    /// Corresponds to Foundation's `NSValueTransformerName.keyedUnarchiveFromDataTransformerName`.
    public static let keyedUnarchiveFromDataName = "NSKeyedUnarchiveFromData"

    private static let transformers = Mutex<[String: any ValueTransforming]>([
        secureUnarchiveFromDataName: KeyedArchiveValueTransformer(allowedClasses: KeyedArchiveValueTransformer.secureClasses),
        keyedUnarchiveFromDataName: KeyedArchiveValueTransformer(allowedClasses: nil),
        // The class name Xcode's model editor writes for the default transformer.
        "NSSecureUnarchiveFromDataTransformer": KeyedArchiveValueTransformer(
            allowedClasses: KeyedArchiveValueTransformer.secureClasses),
    ])

    /// Registers `transformer` under `name`, replacing any transformer registered under it.
    ///
    /// Corresponds to `ValueTransformer.setValueTransformer(_:forName:)`.
    public static func register(_ transformer: any ValueTransforming, forName name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    /// Removes the transformer registered under `name`, if any.
    ///
    /// Corresponds to `ValueTransformer.setValueTransformer(nil, forName:)`.
    public static func unregister(name: String) {
        transformers.withLock { $0[name] = nil }
    }

    /// The transformer registered under `name`, or nil.
    ///
    /// Corresponds to `ValueTransformer(forName:)`.
    public static func transformer(forName name: String) -> (any ValueTransforming)? {
        transformers.withLock { $0[name] }
    }

    /// The names with a registered transformer, sorted.
    ///
    /// Corresponds to `ValueTransformer.valueTransformerNames()`; differences: sorted.
    public static var registeredNames: [String] {
        transformers.withLock { $0.keys.sorted() }
    }
}
