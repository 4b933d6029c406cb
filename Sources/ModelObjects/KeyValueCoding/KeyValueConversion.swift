import Foundation

/// Converts a value given to key-value coding into the property's type, or returns nil.
///
/// The value is taken as is when it already has the type; otherwise numbers convert between
/// widths and kinds when no information is lost (`Int` 3 to `Double` 3.0, `Double` 2.0 to
/// `Int` 2, but never 2.5 to `Int`), Foundation reference types bridge to their Swift value
/// types (`NSNumber`, `NSString`, `NSDate`, `NSData`, `NSURL`, `NSUUID`), and `NSValue`
/// unboxes to `CGPoint`, `CGSize`, `CGRect` and `NSRange`.
package func convertKeyValue<Target>(_ value: Any, to target: Target.Type) -> Target? {
    if let direct = value as? Target { return direct }
    if let convertible = Target.self as? any KeyValueConvertible.Type {
        // A failed conversion to `Wrapped?` must stay a failure, not become `.some(nil)`.
        guard let converted = convertible.convertedKeyValue(from: value) else { return nil }
        return converted as? Target
    }
    return nil
}

/// Whether `value` is `NSNull`. Compares the dynamic type, because `value is NSNull` makes
/// Foundation on Linux bridge every Swift number to an `NSNumber` first (and a metatype cast
/// costs a runtime call; nobody subclasses `NSNull`).
@inline(__always)
package func isNull(_ value: Any) -> Bool {
    ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self)
}

/// `value` as a model object, or nil. Checks that the value is a class instance first: casting
/// a Swift collection to a class makes Foundation on Linux bridge it to an `NSArray` (copying
/// every element) before the cast fails.
@inline(__always)
package func asModelObject(_ value: Any) -> ModelObject? {
    guard type(of: value) is AnyObject.Type else { return nil }
    return value as? ModelObject
}

/// `value` as an object that adopts ``Coding``, without bridging value types to Foundation.
@inline(__always)
func asCodingObject(_ value: Any) -> (any Coding)? {
    guard type(of: value) is AnyObject.Type else { return nil }
    return value as? any Coding
}

/// Removes one level of `Optional` from a value held as `Any`, so that a nil property reads as
/// nil rather than as `Optional<T>.none` boxed in `Any`.
func flattenOptional(_ value: Any) -> Any? {
    if let optional = value as? any OptionalValue { return optional.flattened }
    return value
}

/// Whether a value whose static type is `type` is never an `Optional` at run time: true for
/// structs, enums other than `Optional`, and classes; false for `Optional` and for everything
/// that may hold one (`Any`, other existentials, tuples, …), whose values
/// ``flattenOptional(_:)`` must look into.
///
/// Reads the metadata kind, the first word of a type's metadata (part of Swift's stable ABI):
/// 0x200 for a struct, 0x201 for an enum, 0x202 for `Optional`; a class holds 0 there, or its
/// isa pointer (above 0x7FF) on platforms with Objective-C interoperability.
func cannotHoldOptional(_ type: Any.Type) -> Bool {
    let kind = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
    return kind == 0x200 || kind == 0x201 || kind == 0 || kind > 0x7FF
}

/// The `none` value of `target` when it is an optional type; nil for any other type, which
/// cannot hold a nil.
func noneValue<Target>(of target: Target.Type) -> Target? {
    (Target.self as? any OptionalValue.Type)?.noneValue as? Target
}

extension ModelObject {
    /// A key-value-coding value converted for a property of type `Target`: a nil becomes the
    /// optional's `none`. Returns nil, having handed the key to ``setNilValueForKey(_:)``, for
    /// a nil the type cannot hold.
    ///
    /// - Throws: ``KeyValueCodingError/Code/typeMismatch``; what `setNilValueForKey` throws.
    func keyValueToStore<Target>(_ value: Any?, as target: Target.Type, forKey key: String) throws -> Target? {
        if let value {
            guard let typed = convertKeyValue(value, to: Target.self) else {
                throw KeyValueCodingError.mismatch(key, in: self, expected: Target.self, given: value)
            }
            return typed
        }
        if let none = noneValue(of: Target.self) { return none }
        try setNilValueForKey(key)
        return nil
    }
}

/// Implemented by `Optional` so that generic code can see through it.
protocol OptionalValue {
    /// The wrapped value, itself flattened, or nil.
    var flattened: Any? { get }
    /// The type of the wrapped value.
    static var wrappedType: Any.Type { get }
    /// The `none` value.
    static var noneValue: Self { get }
}

extension Optional: OptionalValue {
    var flattened: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
    static var wrappedType: Any.Type { Wrapped.self }
    static var noneValue: Self { .none }
}

/// A type that key-value coding converts other values into.
protocol KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Self?
}

extension Optional: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Self? {
        if isNull(value) { return .some(.none) }
        return convertKeyValue(value, to: Wrapped.self).map { .some($0) }
    }
}

extension KeyValueConvertible where Self: BinaryInteger {
    static func convertedKeyValue(from value: Any) -> Self? {
        KeyValueNumber(value)?.exactly(Self.self)
    }
}

extension Int: KeyValueConvertible {}
extension Int8: KeyValueConvertible {}
extension Int16: KeyValueConvertible {}
extension Int32: KeyValueConvertible {}
extension Int64: KeyValueConvertible {}
extension UInt: KeyValueConvertible {}
extension UInt8: KeyValueConvertible {}
extension UInt16: KeyValueConvertible {}
extension UInt32: KeyValueConvertible {}
extension UInt64: KeyValueConvertible {}

extension Double: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Double? { KeyValueNumber(value)?.exactDouble }
}

extension Float: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Float? { KeyValueNumber(value)?.exactFloat }
}

extension CGFloat: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> CGFloat? {
        KeyValueNumber(value)?.exactDouble.map { CGFloat($0) }
    }
}

extension Bool: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Bool? { KeyValueNumber(value)?.exactBool }
}

extension Decimal: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Decimal? { KeyValueNumber(value)?.decimalValue }
}

extension String: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> String? {
        (value as? NSString).map { String(describing: $0) }
    }
}

extension Date: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Date? {
        (value as? NSDate).map { Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) }
    }
}

extension Data: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> Data? {
        (value as? NSData).map { Data(referencing: $0) }
    }
}

extension URL: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> URL? {
        (value as? NSURL).flatMap { $0.absoluteURL }
    }
}

extension UUID: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> UUID? {
        (value as? NSUUID).flatMap { UUID(uuidString: $0.uuidString) }
    }
}

/// The `NSValue` in `value` when it really is one (not a bridged number) holding a struct whose
/// Objective-C type encoding starts with `encodingPrefix`; Foundation traps when asked for
/// another kind of struct.
private func boxedValue(_ value: Any, _ encodingPrefix: String) -> NSValue? {
    guard type(of: value) is NSValue.Type, !(type(of: value) is NSNumber.Type),
          let boxed = value as? NSValue,
          String(cString: boxed.objCType).hasPrefix(encodingPrefix)
    else { return nil }
    return boxed
}

extension CGPoint: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> CGPoint? { boxedValue(value, "{CGPoint")?.pointValue }
}

extension CGSize: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> CGSize? { boxedValue(value, "{CGSize")?.sizeValue }
}

extension CGRect: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> CGRect? { boxedValue(value, "{CGRect")?.rectValue }
}

extension NSRange: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> NSRange? { boxedValue(value, "{_NSRange")?.rangeValue }
}

/// The value itself when it is one of the plain value types key-value coding boxes (which may
/// cross isolation domains), nil otherwise (model objects, collections of them).
func sendableKeyValue(_ value: Any) -> (any Sendable)? {
    switch value {
    case let v as String: v
    case let v as Int: v
    case let v as Double: v
    case let v as Bool: v
    case let v as Decimal: v
    case let v as Date: v
    case let v as Data: v
    case let v as UUID: v
    case let v as URL: v
    case let v as Float: v
    case let v as Int8: v
    case let v as Int16: v
    case let v as Int32: v
    case let v as Int64: v
    case let v as UInt: v
    case let v as UInt8: v
    case let v as UInt16: v
    case let v as UInt32: v
    case let v as UInt64: v
    case let v as CGFloat: v
    case let v as CGPoint: v
    case let v as CGSize: v
    case let v as CGRect: v
    case let v as NSRange: v
    case let v as [String]: v
    default: nil
    }
}
