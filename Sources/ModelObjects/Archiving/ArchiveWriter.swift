import Foundation

/// The `$objects` table shared by the keyed and sequential archivers: it gives every value a
/// UID, encodes each object once (queueing model objects so that deep graphs do not deepen the
/// stack), uniques strings, and writes Foundation's forms of value classes.
final class ArchiveWriter {
    // A writer belongs to one archiver, used by one thread at a time: its state is read and
    // written without dynamic exclusivity checks, which cost as much as the work here.
    @exclusivity(unchecked) private(set) var objects: [PropertyListValue] = [.string("$null")]
    @exclusivity(unchecked) private(set) var objectUIDs = ObjectUIDTable()
    /// Keeps encoded objects alive so that their identifiers stay unique while encoding.
    @exclusivity(unchecked) private var retainedObjects: [AnyObject] = []
    @exclusivity(unchecked) private var stringUIDs = StringUIDTable()
    @exclusivity(unchecked) private var classUIDs = ObjectUIDTable()
    /// Objects whose UID is reserved and whose body is still to be encoded, in order.
    @exclusivity(unchecked) private var queue: [(uid: UInt64, object: any Coding)] = []
    @exclusivity(unchecked) private var queueHead = 0
    /// The first value that could not be encoded.
    private(set) var error: ArchiveError?
    /// The class name written for a class; set by the owning archiver.
    var className: (AnyClass) -> String

    init(className: @escaping (AnyClass) -> String = { String(reflecting: $0) }) {
        self.className = className
    }

    func recordError(_ error: ArchiveError) {
        if self.error == nil { self.error = error }
    }

    /// The next queued object, or nil when every object is encoded.
    func nextQueuedObject() -> (uid: UInt64, object: any Coding)? {
        guard queueHead < queue.count else { return nil }
        defer { queueHead += 1 }
        return queue[queueHead]
    }

    /// Stores the encoded body of a queued object.
    func setObject(_ value: PropertyListValue, at uid: UInt64) {
        objects[Int(uid)] = value
    }

    /// The UID of the class dictionary of `object`'s class: `$classname`, `$classes` (the
    /// class and its superclasses, then `NSObject`), and the class version when not 0 under
    /// `versionKey`.
    func classUID(for object: any Coding, versionKey: String?) -> UInt64 {
        let cls: AnyClass = type(of: object)
        if let uid = classUIDs[ObjectIdentifier(cls)] { return uid }
        var names: [PropertyListValue] = []
        var current: AnyClass? = cls
        while let each = current {
            names.append(.string(className(each)))
            current = _getSuperclass(each)
        }
        names.append(.string("NSObject"))
        var entries: [(key: String, value: PropertyListValue)] = [
            (key: "$classes", value: .array(names)),
            (key: "$classname", value: .string(className(cls))),
        ]
        if let versionKey, let model = cls as? ModelObject.Type, model.version != 0 {
            entries.append((key: versionKey, value: .integer(Int64(model.version))))
        }
        let uid = append(.dictionary(PropertyListDictionary(entries: entries)))
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

    /// A declared property's value for an object's body, read straight from storage for the
    /// common stored types.
    func encodedValue(of descriptor: PropertyDescriptor, in object: ModelObject) -> PropertyListValue {
        switch descriptor.layout {
        case .double: .real(descriptor.load(Double.self, in: object))
        case .int: .integer(Int64(descriptor.load(Int.self, in: object)))
        case .bool: .bool(descriptor.load(Bool.self, in: object))
        case .string: .uid(uid(forString: descriptor.load(String.self, in: object)))
        case .object: .uid(descriptor.load(ModelObject?.self, in: object).map { uid(forObject: $0) } ?? 0)
        case .generic:
            if let collection = descriptor.objectCollection {
                .uid(uid(forObjectsOf: collection, at: descriptor.address(in: object)))
            } else {
                inlineValue(descriptor.value(in: object), key: descriptor.key)
            }
        }
    }

    /// The `NSArray` or `NSSet` of a to-many relationship's objects, written as
    /// ``reference(to:key:)`` writes a collection, with no cast per element.
    private func uid(forObjectsOf collection: any ModelObjectCollection.Type, at address: UnsafeRawPointer) -> UInt64 {
        var references: [PropertyListValue] = []
        collection.forEachObject(at: address) { references.append(.uid(uid(forObject: $0))) }
        let name = collection.isOrderedCollection ? "NSArray" : "NSSet"
        return append(.dictionary([
            (key: "NS.objects", value: .array(references)),
            (key: "$class", value: .uid(foundationClassUID(name))),
        ]))
    }

    /// The UID of a string, uniqued.
    func uid(forString string: String) -> UInt64 {
        stringUIDs.uid(for: string) { append(.string(string)) }
    }

    /// The UID of an object, reserved and queued for encoding the first time.
    func uid(forObject object: any Coding) -> UInt64 {
        let identifier = ObjectIdentifier(object)
        if let uid = objectUIDs[identifier] { return uid }
        let uid = append(.string("$null"))
        objectUIDs[identifier] = uid
        retainedObjects.append(object)
        queue.append((uid: uid, object: object))
        return uid
    }

    /// Scalars go inline in an object's body, as `encodeInteger:forKey:` and its relatives
    /// write them; everything else is a reference into `$objects`.
    func inlineValue(_ value: Any?, key: String?) -> PropertyListValue {
        // Exact-type checks first: failed `as?` casts to number types are slow (each tries
        // Foundation bridging), and most values are one of these.
        if let value {
            let valueType = type(of: value)
            if valueType == Int.self, let int = unboxTrivial(value, as: Int.self) { return .integer(Int64(int)) }
            if valueType == Double.self, let double = unboxTrivial(value, as: Double.self) { return .real(double) }
            if valueType == Bool.self, let bool = unboxTrivial(value, as: Bool.self) { return .bool(bool) }
            if valueType == String.self || valueType is AnyObject.Type {
                return .uid(reference(to: value, key: key))
            }
        }
        return switch value {
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

    func append(_ value: PropertyListValue) -> UInt64 {
        objects.append(value)
        return UInt64(objects.count - 1)
    }

    /// The UID of `value` in `$objects`, encoding it (or queueing it, for objects) if new.
    func reference(to value: Any?, key: String?) -> UInt64 {
        guard let value = value.flatMap(flattenOptional) else { return 0 }
        if type(of: value) == String.self, let string = value as? String { return uid(forString: string) }
        if let coding = asCodingObject(value) { return uid(forObject: coding) }
        switch value {
        case let string as String:
            return uid(forString: string)
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
        case _ where isNull(value):
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
        case let countedSet as any ArchivableCountedSet:
            return appendCountedSet(countedSet, key: key)
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
        case let bool as Bool where type(of: value) == Bool.self:
            return append(.bool(bool))
        default:
            if let number = KeyValueNumber(value) {
                switch number {
                case .signed(let v): return append(.integer(v))
                case .unsigned(let v): return append(.unsignedInteger(v))
                case .double(let v): return append(.real(v))
                case .decimal(let v): return append(decimalValue(v))
                }
            }
            recordError(ArchiveError(
                .invalidValue, key: key, className: String(reflecting: type(of: value)),
                message: "a value of type \(type(of: value)) cannot be archived; adopt Coding or archive its parts"))
            return 0
        }
    }

    private func appendDictionary(keys: [Any], values: [Any?], key: String?) -> UInt64 {
        let keyReferences = keys.map { PropertyListValue.uid(reference(to: $0, key: key)) }
        let valueReferences = values.map { PropertyListValue.uid(reference(to: $0, key: key)) }
        return append(.dictionary([
            (key: "NS.keys", value: .array(keyReferences)),
            (key: "NS.objects", value: .array(valueReferences)),
            (key: "$class", value: .uid(foundationClassUID("NSDictionary"))),
        ]))
    }

    /// `NSCountedSet`'s keyed form, as Foundation writes it: `NS.count` distinct members, then
    /// `NS.object<i>` and its count `NS.count<i>` for each.
    private func appendCountedSet(_ countedSet: any ArchivableCountedSet, key: String?) -> UInt64 {
        var entries: [(key: String, value: PropertyListValue)] = [(key: "NS.count", value: .integer(0))]
        var index = 0
        countedSet.forEachMemberAndCount { member, count in
            let uid = reference(to: member, key: key)
            if uid == 0 {
                // NSCountedSet cannot hold nil, and the reader rejects a member at UID 0.
                recordError(ArchiveError(
                    .invalidValue, key: key, className: "NSCountedSet", message: "a counted set member is nil"))
            }
            entries.append((key: "NS.object\(index)", value: .uid(uid)))
            entries.append((key: "NS.count\(index)", value: .integer(Int64(count))))
            index += 1
        }
        entries[0].value = .integer(Int64(index))
        let classUID = foundationClassUID("NSCountedSet", superclasses: ["NSMutableSet", "NSSet"])
        entries.append((key: "$class", value: .uid(classUID)))
        return append(.dictionary(PropertyListDictionary(entries: entries)))
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
            (key: "NS.bo", value: .integer(1)),
            // Foundation on Linux reads the mantissa as an object; Apple's reads either form.
            (key: "NS.mantissa", value: .uid(append(.data(mantissa)))),
            (key: "$class", value: .uid(foundationClassUID("NSDecimalNumber", superclasses: ["NSNumber", "NSValue"]))),
        ])
    }
}
