import Foundation

/// A class whose instances can be written to an archive and read back.
///
/// ``ModelObject`` adopts it with defaults that cover every declared attribute and
/// relationship; a class overrides both members to choose its own keys or layout.
///
/// Corresponds to Cocoa's `NSCoding`; differences: `init(coder:)` throws instead of returning nil.
public protocol Coding: AnyObject {
    /// Writes the object's state to `coder`.
    func encode(with coder: Coder)
    /// Creates an object from the state `coder` holds.
    init(coder: Coder) throws
}

/// The interface objects use to write themselves to an archive and read themselves back: keyed
/// (``KeyedArchiver``, ``KeyedUnarchiver``) or sequential (``SequentialArchiver``,
/// ``SequentialUnarchiver``).
///
/// Encoding methods do not throw: a value that cannot be encoded is remembered and reported when
/// the archiver finishes. Decoding methods throw ``ArchiveError``. A keyed method called on a
/// sequential coder, or the reverse, fails with ``ArchiveError/Code/unsupportedOperation``.
///
/// Corresponds to Cocoa's `NSCoder`.
public class Coder {
    /// The first encoding error, reported when the archiver finishes.
    var encodingError: ArchiveError?

    init() {}

    /// Whether the coder reads and writes values by key (keyed archives) or in order (classic
    /// archives). An `encode(with:)` may branch on it to support both.
    ///
    /// Corresponds to `-[NSCoder allowsKeyedCoding]`.
    public var allowsKeyedCoding: Bool { false }

    func recordEncodingError(_ error: ArchiveError) {
        if encodingError == nil { encodingError = error }
    }

    func unsupported(_ operation: String) -> ArchiveError {
        ArchiveError(
            .unsupportedOperation,
            message: "\(operation) is not supported by \(type(of: self)) (allowsKeyedCoding is \(allowsKeyedCoding))")
    }

    // MARK: Keyed encoding

    /// Encodes an object or value for `key`: a model object (encoded once however often it is
    /// referenced), a string, a number, a date, data, a UUID, a URL, a `Decimal`, a geometry
    /// value, or an array, set or dictionary of these. Nil encodes as nil.
    ///
    /// Corresponds to `-[NSCoder encodeObject:forKey:]`.
    public func encode(_ object: Any?, forKey key: String) {
        recordEncodingError(unsupported("encode(_:forKey:)"))
    }

    /// Encodes a reference to `object` that is kept only if the object is also encoded
    /// unconditionally elsewhere in the archive; otherwise it decodes as nil.
    ///
    /// Corresponds to `-[NSCoder encodeConditionalObject:forKey:]`.
    public func encodeConditionalObject(_ object: Any?, forKey key: String) {
        recordEncodingError(unsupported("encodeConditionalObject(_:forKey:)"))
    }

    /// Encodes an integer for `key` (`encodeInteger:forKey:`).
    public func encode(_ value: Int, forKey key: String) {
        recordEncodingError(unsupported("encode(_:forKey:)"))
    }

    /// Encodes a 32-bit integer for `key` (`encodeInt32:forKey:`).
    public func encode(_ value: Int32, forKey key: String) { encode(Int(value), forKey: key) }

    /// Encodes a 64-bit integer for `key` (`encodeInt64:forKey:`).
    public func encode(_ value: Int64, forKey key: String) {
        recordEncodingError(unsupported("encode(_:forKey:)"))
    }

    /// Encodes a double for `key` (`encodeDouble:forKey:`).
    public func encode(_ value: Double, forKey key: String) {
        recordEncodingError(unsupported("encode(_:forKey:)"))
    }

    /// Encodes a float for `key` (`encodeFloat:forKey:`).
    public func encode(_ value: Float, forKey key: String) { encode(Double(value), forKey: key) }

    /// Encodes a Boolean for `key` (`encodeBool:forKey:`).
    public func encode(_ value: Bool, forKey key: String) {
        recordEncodingError(unsupported("encode(_:forKey:)"))
    }

    // MARK: Keyed decoding

    /// Whether the archive holds a value for `key` in the object being decoded.
    ///
    /// Corresponds to `-[NSCoder containsValueForKey:]`.
    public func containsValue(forKey key: String) -> Bool { false }

    /// Decodes the object or value encoded for `key`; nil when the key is missing or nil was
    /// encoded. An object referenced several times decodes to one shared instance.
    ///
    /// - Throws: ``ArchiveError`` for a corrupt archive or an unknown class.
    ///
    /// Corresponds to `-[NSCoder decodeObjectForKey:]`.
    public func decodeObject(forKey key: String) throws -> Any? {
        throw unsupported("decodeObject(forKey:)")
    }

    /// Decodes the object for `key` and checks its type.
    ///
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when the decoded value is not a `T`.
    ///
    /// Corresponds to `-[NSCoder decodeObjectOfClass:forKey:]`.
    public func decodeObject<T>(of type: T.Type, forKey key: String) throws -> T? {
        guard let value = try decodeObject(forKey: key) else { return nil }
        guard let typed = convertKeyValue(value, to: T.self) else {
            throw ArchiveError(
                .typeMismatch, key: key, className: String(reflecting: Swift.type(of: value)),
                message: "expected a \(T.self), found a \(Swift.type(of: value))")
        }
        return typed
    }

    /// Decodes an integer for `key`; 0 when the key is missing.
    ///
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when the value is not an integer that fits.
    ///
    /// Corresponds to `-[NSCoder decodeIntegerForKey:]`.
    public func decodeInteger(forKey key: String) throws -> Int { try decodeScalar(Int.self, forKey: key) ?? 0 }

    /// Decodes a 32-bit integer for `key`; 0 when the key is missing (`decodeInt32ForKey:`).
    public func decodeInt32(forKey key: String) throws -> Int32 { try decodeScalar(Int32.self, forKey: key) ?? 0 }

    /// Decodes a 64-bit integer for `key`; 0 when the key is missing (`decodeInt64ForKey:`).
    public func decodeInt64(forKey key: String) throws -> Int64 { try decodeScalar(Int64.self, forKey: key) ?? 0 }

    /// Decodes a double for `key`; 0 when the key is missing (`decodeDoubleForKey:`).
    public func decodeDouble(forKey key: String) throws -> Double { try decodeScalar(Double.self, forKey: key) ?? 0 }

    /// Decodes a float for `key`; 0 when the key is missing (`decodeFloatForKey:`).
    public func decodeFloat(forKey key: String) throws -> Float { try decodeScalar(Float.self, forKey: key) ?? 0 }

    /// Decodes a Boolean for `key`; false when the key is missing (`decodeBoolForKey:`).
    public func decodeBool(forKey key: String) throws -> Bool { try decodeScalar(Bool.self, forKey: key) ?? false }

    func decodeScalar<T>(_ type: T.Type, forKey key: String) throws -> T? {
        guard containsValue(forKey: key), let value = try decodeObject(forKey: key) else { return nil }
        guard let typed = convertKeyValue(value, to: T.self) else {
            throw ArchiveError(
                .typeMismatch, key: key, className: String(reflecting: Swift.type(of: value)),
                message: "expected a \(T.self), found \(describeKeyValue(value)) (\(Swift.type(of: value)))")
        }
        return typed
    }

    // MARK: Sequential encoding and decoding

    /// Appends an object or value to a sequential archive (`encodeObject:`).
    public func encode(_ object: Any?) {
        recordEncodingError(unsupported("encode(_:)"))
    }

    /// Appends an integer to a sequential archive (`encodeValueOfObjCType:"q" at:`).
    public func encode(_ value: Int) { encode(value as Any?) }

    /// Appends a double to a sequential archive (`encodeValueOfObjCType:"d" at:`).
    public func encode(_ value: Double) { encode(value as Any?) }

    /// Appends a Boolean to a sequential archive (`encodeValueOfObjCType:"c" at:`).
    public func encode(_ value: Bool) { encode(value as Any?) }

    /// Reads the next object or value of a sequential archive (`decodeObject`).
    ///
    /// - Throws: ``ArchiveError/Code/valueNotFound`` past the end of the object's values.
    public func decodeObject() throws -> Any? {
        throw unsupported("decodeObject()")
    }

    /// Reads the next value of a sequential archive as an integer.
    public func decodeInteger() throws -> Int { try decodeNext(Int.self) }

    /// Reads the next value of a sequential archive as a double.
    public func decodeDouble() throws -> Double { try decodeNext(Double.self) }

    /// Reads the next value of a sequential archive as a Boolean.
    public func decodeBool() throws -> Bool { try decodeNext(Bool.self) }

    func decodeNext<T>(_ type: T.Type) throws -> T {
        let value = try decodeObject()
        guard let value, let typed = convertKeyValue(value, to: T.self) else {
            throw ArchiveError(
                .typeMismatch, className: value.map { String(reflecting: Swift.type(of: $0)) },
                message: "expected a \(T.self), found \(describeKeyValue(value))")
        }
        return typed
    }

    /// The version of `className` recorded in the archive being decoded (0 when the class
    /// recorded none), or nil when the archive has no object of that class or the coder is
    /// encoding.
    ///
    /// Corresponds to `-[NSCoder versionForClassName:]`.
    public func version(forClassName className: String) -> Int? { nil }

    // MARK: Hooks for ModelObject's default coding

    /// Called by ``ModelObject/init(coder:)`` as soon as the object exists, so that references
    /// back to it (cycles) decode to it.
    func objectDidBeginDecoding(_ object: ModelObject) {}

    /// Encodes the declared properties of a model object (its default `encode(with:)`).
    func encodeDeclaredProperties(of object: ModelObject) {}

    /// Decodes the declared properties of a model object (its default `init(coder:)`).
    func decodeDeclaredProperties(of object: ModelObject) throws {}
}

extension ModelObject: Coding {}
