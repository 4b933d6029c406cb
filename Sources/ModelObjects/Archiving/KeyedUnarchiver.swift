import Foundation
import Synchronization

/// Reads keyed archives in Foundation's `NSKeyedArchiver` format (binary or XML property list),
/// written by ``KeyedArchiver`` or by Foundation.
///
/// ```swift
/// let department = try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data)
/// ```
///
/// Model objects are found by the class name in the archive: a name mapped with
/// ``setClass(_:forClassName:)`` (on the unarchiver or for all unarchivers), or else the
/// module-qualified Swift name of a ``ModelObject`` subclass. Foundation's value classes
/// (`NSString`, `NSNumber`, `NSDate`, `NSData`, `NSUUID`, `NSURL`, `NSDecimalNumber`, `NSNull`,
/// `NSValue` geometry, `NSArray`, `NSSet`, `NSOrderedSet`, `NSDictionary` and their mutable and
/// counted forms) decode to their Swift counterparts. Any other class throws
/// ``ArchiveError/Code/unknownClass`` naming it.
///
/// Hostile archives are safe: wrong types, dangling or self-referencing UIDs, cycles through
/// collections and nesting deeper than ``maximumNestingDepth`` throw ``ArchiveError``.
///
/// Corresponds to Cocoa's `NSKeyedUnarchiver`; differences: decoding throws instead of raising,
/// and a graph with cycles through model objects decodes (Foundation on Linux overflows its
/// stack on a department whose employees point back at it).
public final class KeyedUnarchiver: Coder {
    /// The deepest chain of objects being decoded inside one another before decoding fails with
    /// ``ArchiveError/Code/nestingTooDeep``; it keeps hostile archives from exhausting the stack.
    public var maximumNestingDepth = 256

    private let objects: [PropertyListValue]
    private var decoded: [Any?]
    private var decodedFlags: [DecodeState]
    private var frames: [[(key: String, value: PropertyListValue)]]
    private var uidStack: [Int] = []
    private var classes: [String: AnyClass] = [:]
    private var versions: [String: Int] = [:]

    private enum DecodeState: UInt8 {
        case pending, inProgress, done
    }

    /// Opens an archive for decoding.
    ///
    /// - Throws: ``ArchiveError/Code/corruptArchive`` when the data is not a keyed archive.
    ///
    /// Corresponds to `-[NSKeyedUnarchiver initForReadingFromData:error:]`.
    public init(forReadingFrom data: Data) throws {
        let archive = try PropertyListEncoding.decode(data)
        guard case .string("NSKeyedArchiver")? = archive["$archiver"] else {
            throw ArchiveError(.corruptArchive, message: "not a keyed archive: $archiver is missing or not NSKeyedArchiver")
        }
        switch archive["$version"] {
        case .integer(100_000)?: break
        default: throw ArchiveError(.corruptArchive, message: "unsupported keyed archive $version (expected 100000)")
        }
        guard case .array(let objects)? = archive["$objects"] else {
            throw ArchiveError(.corruptArchive, message: "keyed archive without an $objects array")
        }
        guard case .dictionary(let top)? = archive["$top"] else {
            throw ArchiveError(.corruptArchive, message: "keyed archive without a $top dictionary")
        }
        self.objects = objects
        decoded = Array(repeating: nil, count: objects.count)
        decodedFlags = Array(repeating: .pending, count: objects.count)
        frames = [top]
        super.init()
        for object in objects {
            guard case .dictionary(let entries) = object,
                  let nameEntry = entries.first(where: { $0.key == "$classname" }),
                  case .string(let name) = nameEntry.value else { continue }
            if case .integer(let version)? = object["$classversion"], let version = Int(exactly: version) {
                versions[name] = version
            } else if versions[name] == nil {
                versions[name] = 0
            }
        }
    }

    /// Decodes the root object of an archive written with
    /// ``KeyedArchiver/archivedData(withRootObject:format:)`` (the `root` key).
    ///
    /// Corresponds to `+[NSKeyedUnarchiver unarchivedObjectOfClasses:fromData:error:]`.
    public static func unarchivedObject(from data: Data) throws -> Any? {
        try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: "root")
    }

    /// Decodes the root object of an archive and checks its type.
    ///
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when the root is not a `T`.
    ///
    /// Corresponds to `+[NSKeyedUnarchiver unarchivedObjectOfClass:fromData:error:]`.
    public static func unarchivedObject<T>(ofClass type: T.Type, from data: Data) throws -> T? {
        try KeyedUnarchiver(forReadingFrom: data).decodeObject(of: T.self, forKey: "root")
    }

    public override var allowsKeyedCoding: Bool { true }

    // MARK: Class names

    private static let defaultClasses = Mutex<[String: ClassBox]>([:])

    /// Maps a class name found in archives to a class, for every unarchiver (nil removes it).
    ///
    /// Corresponds to `+[NSKeyedUnarchiver setClass:forClassName:]`.
    public static func setClass(_ cls: (any Coding.Type)?, forClassName name: String) {
        defaultClasses.withLock { $0[name] = cls.map { ClassBox(type: $0) } }
    }

    /// Maps a class name found in this archive to a class, over the class-level mapping.
    ///
    /// Corresponds to `-[NSKeyedUnarchiver setClass:forClassName:]`.
    public func setClass(_ cls: (any Coding.Type)?, forClassName name: String) {
        classes[name] = cls
    }

    private func codingClass(named name: String) -> (any Coding.Type)? {
        if let cls = classes[name] as? any Coding.Type { return cls }
        if let box = Self.defaultClasses.withLock({ $0[name] }) { return box.type }
        return _typeByName(name) as? ModelObject.Type
    }

    public override func version(forClassName className: String) -> Int? {
        versions[className]
    }

    // MARK: Keyed decoding

    private var currentFrame: [(key: String, value: PropertyListValue)] {
        frames[frames.count - 1]
    }

    private func entry(forKey key: String) -> PropertyListValue? {
        currentFrame.first { $0.key == key }?.value
    }

    public override func containsValue(forKey key: String) -> Bool {
        entry(forKey: key) != nil
    }

    public override func decodeObject(forKey key: String) throws -> Any? {
        guard let entry = entry(forKey: key) else { return nil }
        do {
            return try value(of: entry)
        } catch var error as ArchiveError {
            if error.key == nil { error.key = key }
            throw error
        }
    }

    override func decodeDeclaredProperties(of object: ModelObject) throws {
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            guard let entry = entry(forKey: descriptor.key) else { continue }
            let value = try decodeObject(forKey: descriptor.key)
            _ = entry
            do {
                try descriptor.storage.setKeyValue(value, in: object, descriptor: descriptor)
            } catch let error as ArchiveError {
                throw error
            } catch {
                throw ArchiveError(
                    .typeMismatch, key: descriptor.key, className: String(reflecting: type(of: object)),
                    message: "the archived value does not fit the property: \(error)")
            }
        }
    }

    override func objectDidBeginDecoding(_ object: ModelObject) {
        guard let uid = uidStack.last, decodedFlags[uid] == .inProgress, decoded[uid] == nil else { return }
        decoded[uid] = object
    }

    /// An inline value (number, Boolean) or the object a UID refers to.
    private func value(of entry: PropertyListValue) throws -> Any? {
        switch entry {
        case .uid(let uid): return try object(at: uid)
        case .integer(let value): return Int(exactly: value) ?? value
        case .unsignedInteger(let value): return value
        case .real(let value): return value
        case .bool(let value): return value
        case .string(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .array, .dictionary:
            throw ArchiveError(.corruptArchive, message: "a keyed value must be a scalar or a UID, found a collection")
        }
    }

    /// The object at `uid` in `$objects`, decoded once and shared.
    private func object(at uid: UInt64) throws -> Any? {
        guard let index = Int(exactly: uid), index < objects.count else {
            throw ArchiveError(.corruptArchive, message: "UID \(uid) is outside $objects (\(objects.count) entries)")
        }
        if index == 0 { return nil }
        switch decodedFlags[index] {
        case .done:
            return decoded[index]
        case .inProgress:
            if let partial = decoded[index] { return partial }
            throw ArchiveError(.corruptArchive, message: "UID \(uid) refers to itself through a collection")
        case .pending:
            break
        }
        guard uidStack.count < maximumNestingDepth else {
            throw ArchiveError(.nestingTooDeep, message: "objects nest deeper than \(maximumNestingDepth)")
        }
        decodedFlags[index] = .inProgress
        uidStack.append(index)
        defer { uidStack.removeLast() }
        do {
            let value = try decodeEntry(objects[index], uid: index)
            decoded[index] = value
            decodedFlags[index] = .done
            return value
        } catch {
            decodedFlags[index] = .pending
            decoded[index] = nil
            throw error
        }
    }

    private func decodeEntry(_ entry: PropertyListValue, uid: Int) throws -> Any? {
        switch entry {
        case .string(let value): return value == "$null" ? nil : value
        case .integer(let value): return Int(exactly: value) ?? value
        case .unsignedInteger(let value): return value
        case .real(let value): return value
        case .bool(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .uid, .array:
            throw ArchiveError(.corruptArchive, message: "$objects[\(uid)] is not an object")
        case .dictionary(let entries):
            guard let classEntry = entries.first(where: { $0.key == "$class" }),
                  case .uid(let classUID) = classEntry.value,
                  let classIndex = Int(exactly: classUID), classIndex > 0, classIndex < objects.count,
                  case .string(let className)? = objects[classIndex]["$classname"]
            else {
                throw ArchiveError(.corruptArchive, message: "$objects[\(uid)] has no valid $class")
            }
            return try decodeInstance(className: className, entries: entries, uid: uid)
        }
    }

    private func decodeInstance(
        className: String, entries: [(key: String, value: PropertyListValue)], uid: Int
    ) throws -> Any? {
        if let cls = codingClass(named: className) {
            frames.append(entries)
            defer { frames.removeLast() }
            return try cls.init(coder: self)
        }
        frames.append(entries)
        defer { frames.removeLast() }
        switch className {
        case "NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet":
            return try uidArray("NS.objects").map { try object(at: $0) ?? NSNull() }
        case "NSSet", "NSMutableSet", "NSCountedSet":
            var set = Set<AnyHashable>()
            for element in try uidArray("NS.objects") {
                guard let value = try object(at: element) else { continue }
                set.insert(try hashable(value, className))
            }
            return set
        case "NSDictionary", "NSMutableDictionary":
            let keys = try uidArray("NS.keys")
            let values = try uidArray("NS.objects")
            guard keys.count == values.count else {
                throw ArchiveError(.corruptArchive, className: className, message: "NS.keys and NS.objects differ in length")
            }
            var dictionary: [AnyHashable: Any] = [:]
            for (key, value) in zip(keys, values) {
                guard let decodedKey = try object(at: key) else { continue }
                dictionary[try hashable(decodedKey, className)] = try object(at: value) ?? NSNull()
            }
            if dictionary.keys.allSatisfy({ $0.base is String }) {
                return Dictionary(uniqueKeysWithValues: dictionary.compactMap { key, value in
                    (key.base as? String).map { ($0, value) }
                })
            }
            return dictionary
        case "NSString", "NSMutableString":
            return try requiredString("NS.string", className)
        case "NSData", "NSMutableData":
            guard case .data(let data)? = entry(forKey: "NS.data") else {
                throw ArchiveError(.corruptArchive, className: className, message: "NS.data is missing")
            }
            return data
        case "NSDate":
            guard case .real(let time)? = entry(forKey: "NS.time") else {
                throw ArchiveError(.corruptArchive, className: className, message: "NS.time is missing")
            }
            return Date(timeIntervalSinceReferenceDate: time)
        case "NSUUID":
            guard case .data(let bytes)? = entry(forKey: "NS.uuidbytes"), bytes.count == 16 else {
                throw ArchiveError(.corruptArchive, className: className, message: "NS.uuidbytes must be 16 bytes")
            }
            let b = Array(bytes)
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                               b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case "NSURL":
            let relative = try decodeObject(forKey: "NS.relative")
            guard let relative = relative as? String else {
                throw ArchiveError(.corruptArchive, className: className, message: "NS.relative is not a string")
            }
            let base = try decodeObject(forKey: "NS.base") as? URL
            guard let url = URL(string: relative, relativeTo: base) else {
                throw ArchiveError(.corruptArchive, className: className, message: "'\(relative)' is not a URL")
            }
            return url
        case "NSNull":
            return NSNull()
        case "NSDecimalNumber":
            return try decodeDecimal()
        case "NSNumber":
            if let value = try decodeObject(forKey: "NS.number") { return value }
            throw ArchiveError(.corruptArchive, className: className, message: "NS.number is missing")
        case "NSValue":
            return try decodeValue()
        default:
            throw ArchiveError(
                .unknownClass, className: className,
                message: "the archive contains an object of class '\(className)', which is not known here; map it with setClass(_:forClassName:)")
        }
    }

    private func uidArray(_ key: String) throws -> [UInt64] {
        guard case .array(let elements)? = entry(forKey: key) else {
            throw ArchiveError(.corruptArchive, key: key, message: "\(key) is missing or not an array")
        }
        return try elements.map {
            guard case .uid(let uid) = $0 else {
                throw ArchiveError(.corruptArchive, key: key, message: "\(key) holds a value that is not a UID")
            }
            return uid
        }
    }

    private func hashable(_ value: Any, _ className: String) throws -> AnyHashable {
        guard let hashable = value as? AnyHashable else {
            throw ArchiveError(.corruptArchive, className: className, message: "a \(type(of: value)) cannot be a set member or key")
        }
        return hashable
    }

    private func requiredString(_ key: String, _ className: String) throws -> String {
        switch entry(forKey: key) {
        case .string(let value)?: return value
        case .uid(let uid)?:
            if let value = try object(at: uid) as? String { return value }
        default: break
        }
        throw ArchiveError(.corruptArchive, key: key, className: className, message: "\(key) is not a string")
    }

    private func decodeDecimal() throws -> Decimal {
        func integer(_ key: String) throws -> Int64 {
            guard case .integer(let value)? = entry(forKey: key) else {
                throw ArchiveError(.corruptArchive, key: key, className: "NSDecimalNumber", message: "\(key) is missing")
            }
            return value
        }
        guard case .data(let mantissa)? = entry(forKey: "NS.mantissa"), mantissa.count <= 16 else {
            throw ArchiveError(.corruptArchive, className: "NSDecimalNumber", message: "NS.mantissa is missing or too long")
        }
        let exponent = try integer("NS.exponent")
        let length = try integer("NS.length")
        guard let exponent8 = Int8(exactly: exponent), (0...8).contains(length) else {
            throw ArchiveError(.corruptArchive, className: "NSDecimalNumber", message: "exponent or length out of range")
        }
        let bigEndian = (try? integer("NS.mantissa.bo")) == 0
        let bytes = Array(mantissa) + Array(repeating: 0, count: 16 - mantissa.count)
        var shorts = [UInt16](repeating: 0, count: 8)
        for i in 0..<8 {
            let low = UInt16(bytes[2 * i]), high = UInt16(bytes[2 * i + 1])
            shorts[i] = bigEndian ? (low << 8 | high) : (high << 8 | low)
        }
        var negative = false
        if case .bool(let value)? = entry(forKey: "NS.negative") { negative = value }
        if length == 0 && negative { return Decimal.nan }
        return DecimalParts(mantissa: shorts, exponent: Int(exponent8), isNegative: negative).decimal
    }

    private func decodeValue() throws -> Any {
        guard case .integer(let special)? = entry(forKey: "NS.special") else {
            throw ArchiveError(.unknownClass, className: "NSValue", message: "only NSValue geometry and ranges are supported")
        }
        func numbers(_ key: String, count: Int) throws -> [Double] {
            let text = try requiredString(key, "NSValue")
            let parts = text.split(whereSeparator: { "{}, ".contains($0) }).map { Double($0) }
            guard parts.count == count, parts.allSatisfy({ $0 != nil }) else {
                throw ArchiveError(.corruptArchive, key: key, className: "NSValue", message: "'\(text)' is not \(count) numbers")
            }
            return parts.compactMap { $0 }
        }
        switch special {
        case 1:
            let n = try numbers("NS.pointval", count: 2)
            return CGPoint(x: n[0], y: n[1])
        case 2:
            let n = try numbers("NS.sizeval", count: 2)
            return CGSize(width: n[0], height: n[1])
        case 3:
            let n = try numbers("NS.rectval", count: 4)
            return CGRect(x: n[0], y: n[1], width: n[2], height: n[3])
        case 4:
            guard case .integer(let location)? = entry(forKey: "NS.rangeval.location"),
                  case .integer(let length)? = entry(forKey: "NS.rangeval.length"),
                  let location = Int(exactly: location), let length = Int(exactly: length), location >= 0, length >= 0
            else {
                throw ArchiveError(.corruptArchive, className: "NSValue", message: "invalid NS.rangeval")
            }
            return NSRange(location: location, length: length)
        default:
            throw ArchiveError(.unknownClass, className: "NSValue", message: "unsupported NSValue kind \(special)")
        }
    }
}

/// A class stored in a lock-protected table.
// SAFETY: metatypes are immutable; the box only carries one across threads.
private struct ClassBox: @unchecked Sendable {
    let type: any Coding.Type
}
