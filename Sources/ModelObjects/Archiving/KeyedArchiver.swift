import Foundation
import Synchronization

/// Writes object graphs to keyed archives in Foundation's `NSKeyedArchiver` format, as a binary
/// or XML property list, so that archives move between this library and Foundation.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: department)
/// let copy = try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data)
/// ```
///
/// Every object is encoded once, however often it is referenced, and cycles (a department and
/// its employees pointing back at it) are fine. Objects are encoded breadth first, so deep
/// graphs do not deepen the call stack.
///
/// The archive has Foundation's layout: `$archiver` = `NSKeyedArchiver`, `$version` = 100000,
/// `$objects` with `$null` at UID 0, `$top`, and a `$class` entry per object naming its class
/// dictionary (`$classname`, `$classes`). A class whose ``ModelObject/version`` is not 0 also
/// records it as `$classversion` in its class dictionary (Foundation ignores the entry).
///
/// Corresponds to Cocoa's `NSKeyedArchiver`; differences: errors are thrown from
/// ``finishEncoding()`` instead of raised while encoding.
public final class KeyedArchiver: Coder {
    /// The property-list form of the archive: `.binary` (the default) or `.xml`.
    public var outputFormat: PropertyListSerialization.PropertyListFormat = .binary

    private var objects: [PropertyListValue] = [.string("$null")]
    private var objectUIDs: [ObjectIdentifier: UInt64] = [:]
    /// Keeps encoded objects alive so that their identifiers stay unique while encoding.
    private var retainedObjects: [AnyObject] = []
    private var stringUIDs: [String: UInt64] = [:]
    private var classUIDs: [ObjectIdentifier: UInt64] = [:]
    private var classNames: [ObjectIdentifier: String] = [:]
    /// Objects whose UID is reserved and whose body is still to be encoded, in order.
    private var queue: [(uid: UInt64, object: any Coding)] = []
    private var queueHead = 0
    /// The entries of the object being encoded (or of `$top`).
    private var entries: [(key: String, value: PropertyListValue)] = []
    private var currentUID: UInt64?
    private var topEntries: [(key: String, value: PropertyListValue)] = []
    /// Conditional references, patched once the archive is complete.
    private var conditionalReferences: [ConditionalReference] = []
    private var finishedData: Data?

    /// Creates an archiver; encode values with the keyed methods, then call ``finishEncoding()``.
    public override init() {
        super.init()
    }

    /// Returns an archive of `rootObject` (stored under the key `root`, as Foundation does).
    ///
    /// - Throws: ``ArchiveError/Code/invalidValue`` when a value in the graph cannot be encoded.
    ///
    /// Corresponds to `+[NSKeyedArchiver archivedDataWithRootObject:requiringSecureCoding:error:]`.
    public static func archivedData(
        withRootObject rootObject: Any?, format: PropertyListSerialization.PropertyListFormat = .binary
    ) throws -> Data {
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        archiver.encode(rootObject, forKey: "root")
        return try archiver.finishEncoding()
    }

    public override var allowsKeyedCoding: Bool { true }

    /// Finishes the archive and returns it; later calls return the same data.
    ///
    /// - Throws: The first encoding error (``ArchiveError/Code/invalidValue`` for a value that
    ///   cannot be archived, ``ArchiveError/Code/unsupportedOperation`` for a sequential method
    ///   called on this keyed coder).
    ///
    /// Corresponds to `-[NSKeyedArchiver finishEncoding]` followed by `encodedData`.
    public func finishEncoding() throws -> Data {
        if let finishedData { return finishedData }
        topEntries = entries
        while queueHead < queue.count {
            let (uid, object) = queue[queueHead]
            queueHead += 1
            entries = []
            currentUID = uid
            object.encode(with: self)
            entries.append((key: "$class", value: .uid(classUID(for: object))))
            objects[Int(uid)] = .dictionary(entries)
        }
        currentUID = nil
        patchConditionalReferences()
        if let encodingError { throw encodingError }
        let archive = PropertyListValue.dictionary([
            (key: "$version", value: .integer(100_000)),
            (key: "$archiver", value: .string("NSKeyedArchiver")),
            (key: "$top", value: .dictionary(topEntries)),
            (key: "$objects", value: .array(objects)),
        ])
        let data = try PropertyListEncoding.encode(archive, format: outputFormat)
        finishedData = data
        return data
    }

    // MARK: Class names

    private static let defaultClassNames = Mutex<[ObjectIdentifier: String]>([:])

    /// Sets the name every archiver writes for `cls` (nil removes the mapping).
    ///
    /// Corresponds to `+[NSKeyedArchiver setClassName:forClass:]`.
    public static func setClassName(_ name: String?, for cls: AnyClass) {
        defaultClassNames.withLock { $0[ObjectIdentifier(cls)] = name }
    }

    /// The name archivers write for `cls` by default: the one set with
    /// ``setClassName(_:for:)-swift.type.method``, or the module-qualified Swift name
    /// (`SampleModels.Employee`), as Foundation writes for Swift classes.
    public static func className(for cls: AnyClass) -> String {
        defaultClassNames.withLock { $0[ObjectIdentifier(cls)] } ?? String(reflecting: cls)
    }

    /// Sets the name this archiver writes for `cls`, over the class-level default.
    ///
    /// Corresponds to `-[NSKeyedArchiver setClassName:forClass:]`.
    public func setClassName(_ name: String?, for cls: AnyClass) {
        classNames[ObjectIdentifier(cls)] = name
    }

    private func className(for cls: AnyClass) -> String {
        classNames[ObjectIdentifier(cls)] ?? Self.className(for: cls)
    }

    private func classUID(for object: any Coding) -> UInt64 {
        let cls: AnyClass = type(of: object)
        if let uid = classUIDs[ObjectIdentifier(cls)] { return uid }
        var names: [PropertyListValue] = []
        var current: AnyClass? = cls
        while let each = current {
            names.append(.string(className(for: each)))
            current = _getSuperclass(each)
        }
        names.append(.string("NSObject"))
        var entries: [(key: String, value: PropertyListValue)] = [
            (key: "$classes", value: .array(names)),
            (key: "$classname", value: .string(className(for: cls))),
        ]
        if let model = cls as? ModelObject.Type, model.version != 0 {
            entries.append((key: "$classversion", value: .integer(Int64(model.version))))
        }
        let uid = append(.dictionary(entries))
        classUIDs[ObjectIdentifier(cls)] = uid
        return uid
    }

    private func foundationClassUID(_ name: String, superclasses: [String] = []) -> UInt64 {
        let key = "\u{0}" + name
        if let uid = stringUIDs[key] { return uid }
        let uid = append(.dictionary([
            (key: "$classes", value: .array(([name] + superclasses + ["NSObject"]).map { .string($0) })),
            (key: "$classname", value: .string(name)),
        ]))
        stringUIDs[key] = uid
        return uid
    }

    // MARK: Keyed encoding

    public override func encode(_ object: Any?, forKey key: String) {
        entries.append((key: key, value: .uid(reference(to: object, key: key))))
    }

    public override func encodeConditionalObject(_ object: Any?, forKey key: String) {
        guard let coding = object.flatMap(flattenOptional) as? any Coding else {
            entries.append((key: key, value: .uid(reference(to: object, key: key))))
            return
        }
        let identifier = ObjectIdentifier(coding)
        if let uid = objectUIDs[identifier] {
            entries.append((key: key, value: .uid(uid)))
        } else {
            let index = entries.count
            conditionalReferences.append(ConditionalReference(holder: currentUID, index: index, object: identifier))
            entries.append((key: key, value: .uid(0)))
        }
    }

    public override func encode(_ value: Int, forKey key: String) {
        entries.append((key: key, value: .integer(Int64(value))))
    }

    public override func encode(_ value: Int64, forKey key: String) {
        entries.append((key: key, value: .integer(value)))
    }

    public override func encode(_ value: Double, forKey key: String) {
        entries.append((key: key, value: .real(value)))
    }

    public override func encode(_ value: Bool, forKey key: String) {
        entries.append((key: key, value: .bool(value)))
    }

    public override func version(forClassName className: String) -> Int? {
        nil
    }

    override func encodeDeclaredProperties(of object: ModelObject) {
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            let value = descriptor.storage.keyValue(in: object, at: descriptor.offset)
            entries.append((key: descriptor.key, value: inlineValue(value, key: descriptor.key)))
        }
    }

    /// Scalars go inline in the object's dictionary, as `encodeInteger:forKey:` and its
    /// relatives write them; everything else is a reference into `$objects`.
    private func inlineValue(_ value: Any?, key: String) -> PropertyListValue {
        switch value {
        case let value as Int: .integer(Int64(value))
        case let value as Double: .real(value)
        case let value as Bool: .bool(value)
        case let value as Int64: .integer(value)
        case let value as Int32: .integer(Int64(value))
        case let value as Int16: .integer(Int64(value))
        case let value as Int8: .integer(Int64(value))
        case let value as UInt8: .integer(Int64(value))
        case let value as UInt16: .integer(Int64(value))
        case let value as UInt32: .integer(Int64(value))
        case let value as Float: .real(Double(value))
        default: .uid(reference(to: value, key: key))
        }
    }

    // MARK: Object references

    private func append(_ value: PropertyListValue) -> UInt64 {
        objects.append(value)
        return UInt64(objects.count - 1)
    }

    /// The UID of `value` in `$objects`, encoding it (or queueing it, for objects) if new.
    private func reference(to value: Any?, key: String) -> UInt64 {
        guard let value = value.flatMap(flattenOptional) else { return 0 }
        switch value {
        case let coding as any Coding:
            let identifier = ObjectIdentifier(coding)
            if let uid = objectUIDs[identifier] { return uid }
            let uid = append(.string("$null"))
            objectUIDs[identifier] = uid
            retainedObjects.append(coding)
            queue.append((uid: uid, object: coding))
            return uid
        case let string as String:
            if let uid = stringUIDs[string] { return uid }
            let uid = append(.string(string))
            stringUIDs[string] = uid
            return uid
        case let data as Data:
            return append(.data(data))
        case let date as Date:
            return append(.dictionary([
                (key: "NS.time", value: .real(date.timeIntervalSinceReferenceDate)),
                (key: "$class", value: .uid(foundationClassUID("NSDate"))),
            ]))
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            return append(.dictionary([
                (key: "NS.uuidbytes", value: .data(bytes)),
                (key: "$class", value: .uid(foundationClassUID("NSUUID"))),
            ]))
        case let url as URL:
            let relative = reference(to: url.relativeString, key: key)
            let base = reference(to: url.baseURL, key: key)
            return append(.dictionary([
                (key: "NS.base", value: .uid(base)),
                (key: "NS.relative", value: .uid(relative)),
                (key: "$class", value: .uid(foundationClassUID("NSURL"))),
            ]))
        case let decimal as Decimal:
            return append(decimalValue(decimal))
        case is NSNull:
            return append(.dictionary([(key: "$class", value: .uid(foundationClassUID("NSNull")))]))
        case let point as CGPoint:
            return append(nsValue(special: 1, key: "NS.pointval", .string("{\(point.x), \(point.y)}")))
        case let size as CGSize:
            return append(nsValue(special: 2, key: "NS.sizeval", .string("{\(size.width), \(size.height)}")))
        case let rect as CGRect:
            let text = "{{\(rect.origin.x), \(rect.origin.y)}, {\(rect.size.width), \(rect.size.height)}}"
            return append(nsValue(special: 3, key: "NS.rectval", .string(text)))
        case let range as NSRange:
            return append(.dictionary([
                (key: "NS.special", value: .integer(4)),
                (key: "NS.rangeval.location", value: .integer(Int64(range.location))),
                (key: "NS.rangeval.length", value: .integer(Int64(range.length))),
                (key: "$class", value: .uid(foundationClassUID("NSValue"))),
            ]))
        case let dictionary as [String: Any]:
            let keys = dictionary.keys.sorted()
            return appendDictionary(keys: keys.map { $0 }, values: keys.map { dictionary[$0] }, key: key)
        case let dictionary as [AnyHashable: Any]:
            let pairs = Array(dictionary)
            return appendDictionary(keys: pairs.map(\.key.base), values: pairs.map(\.value), key: key)
        case let collection as any KeyValueCollection:
            var references: [PropertyListValue] = []
            references.reserveCapacity(collection.keyValueCount)
            collection.forEachKeyValue { references.append(.uid(reference(to: $0, key: key))) }
            let name = collection.isOrderedKeyValueCollection ? "NSArray" : "NSSet"
            return append(.dictionary([
                (key: "NS.objects", value: .array(references)),
                (key: "$class", value: .uid(foundationClassUID(name))),
            ]))
        default:
            if let number = KeyValueNumber(value) {
                switch number {
                case .signed(let v): return append(.integer(v))
                case .unsigned(let v): return append(.unsignedInteger(v))
                case .double(let v): return append(.real(v))
                case .decimal(let v): return append(decimalValue(v))
                }
            }
            recordEncodingError(ArchiveError(
                .invalidValue, key: key, className: String(reflecting: type(of: value)),
                message: "a value of type \(type(of: value)) cannot be archived; adopt Coding or archive its parts"))
            return 0
        }
    }

    private func appendDictionary(keys: [Any], values: [Any?], key: String) -> UInt64 {
        let keyReferences = keys.map { PropertyListValue.uid(reference(to: $0, key: key)) }
        let valueReferences = values.map { PropertyListValue.uid(reference(to: $0, key: key)) }
        return append(.dictionary([
            (key: "NS.keys", value: .array(keyReferences)),
            (key: "NS.objects", value: .array(valueReferences)),
            (key: "$class", value: .uid(foundationClassUID("NSDictionary"))),
        ]))
    }

    private func nsValue(special: Int64, key: String, _ value: PropertyListValue) -> PropertyListValue {
        .dictionary([
            (key: "NS.special", value: .integer(special)),
            (key: key, value: value),
            (key: "$class", value: .uid(foundationClassUID("NSValue"))),
        ])
    }

    /// `NSDecimalNumber`'s keyed form: exponent, length, sign, compactness and the 128-bit
    /// mantissa as little-endian bytes.
    private func decimalValue(_ decimal: Decimal) -> PropertyListValue {
        let parts = DecimalParts(decimal)
        var mantissa = Data()
        for word in parts.mantissa {
            mantissa.append(UInt8(truncatingIfNeeded: word))
            mantissa.append(UInt8(truncatingIfNeeded: word >> 8))
        }
        return .dictionary([
            (key: "NS.exponent", value: .integer(Int64(parts.exponent))),
            (key: "NS.length", value: .integer(Int64(parts.length))),
            (key: "NS.negative", value: .bool(parts.isNegative)),
            (key: "NS.compact", value: .bool(true)),
            (key: "NS.mantissa.bo", value: .integer(1)),
            (key: "NS.mantissa", value: .data(mantissa)),
            (key: "$class", value: .uid(foundationClassUID("NSDecimalNumber", superclasses: ["NSNumber", "NSValue"]))),
        ])
    }

    private func patchConditionalReferences() {
        for reference in conditionalReferences {
            guard let uid = objectUIDs[reference.object] else { continue }
            if let holder = reference.holder {
                guard case .dictionary(var holderEntries) = objects[Int(holder)] else { continue }
                holderEntries[reference.index].value = .uid(uid)
                objects[Int(holder)] = .dictionary(holderEntries)
            } else {
                topEntries[reference.index].value = .uid(uid)
            }
        }
    }
}

/// A conditional reference waiting to learn whether its object is archived.
private struct ConditionalReference {
    /// The UID of the object whose entry holds the reference, nil for `$top`.
    let holder: UInt64?
    /// The position of the entry.
    let index: Int
    let object: ObjectIdentifier
}
