import Foundation

/// The `$objects` table shared by the keyed and sequential unarchivers: it decodes each object
/// once (so shared references stay shared), resolves references back to an object still being
/// decoded (cycles), guards against hostile archives (bad UIDs, cycles through collections,
/// excessive nesting), and decodes Foundation's value classes.
final class ArchiveReader {
    let objects: [PropertyListValue]
    var maximumNestingDepth = 256
    // The reader belongs to one unarchiver and is used by one thread at a time: its state is
    // read and written without dynamic exclusivity checks.
    @exclusivity(unchecked) private var decoded: [Any?]
    @exclusivity(unchecked) private var decodedFlags: [DecodeState]
    @exclusivity(unchecked) private var uidStack: [Int] = []
    /// The objects finished since the outermost `object(at:)` call began, by UID.
    @exclusivity(unchecked) private var finishedInCall: [Int] = []
    /// Objects whose decoding failed after they registered themselves (references back to
    /// them may have been taken), since the outermost call began.
    @exclusivity(unchecked) private var abandonedInCall: [Any] = []
    /// The object body being decoded, for the Foundation value classes.
    @exclusivity(unchecked) private var entries = PropertyListDictionary()
    /// The class each class dictionary names, by the dictionary's index in `$objects`: finding
    /// a class by name goes through the runtime's demangler, so it is done once per archive.
    @exclusivity(unchecked) private var resolvedClasses: [Int: ResolvedClass] = [:]
    /// The unarchiver that finds classes and creates instances. Not retained: the unarchiver
    /// owns the reader, and a weak reference would cost a side-table access per object.
    unowned(unsafe) var delegate: (any ArchiveReaderDelegate)?

    private enum ResolvedClass {
        /// A class the delegate instantiates.
        case coding(any Coding.Type)
        /// One of Foundation's value classes, or an unknown class: decoded or reported by name.
        case named(String)
        /// A class outside the unarchiver's allowed classes: reported, never created.
        case refused(ArchiveError)
    }

    private enum DecodeState: UInt8 {
        case pending, inProgress, done
    }

    init(objects: [PropertyListValue]) {
        self.objects = objects
        decoded = Array(repeating: nil, count: objects.count)
        decodedFlags = Array(repeating: .pending, count: objects.count)
    }

    /// The versions recorded under `versionKey` in the class dictionaries, 0 where absent.
    func classVersions(versionKey: String) -> [String: Int] {
        var versions: [String: Int] = [:]
        for object in objects {
            guard case .string(let name)? = object["$classname"] else { continue }
            if case .integer(let version)? = object[versionKey], let version = Int(exactly: version) {
                versions[name] = version
            } else if versions[name] == nil {
                versions[name] = 0
            }
        }
        return versions
    }

    /// Decodes `entry` and sets it as the value of a declared property (the default
    /// `init(coder:)`), reporting a value that does not fit as a type mismatch.
    func decodeProperty(_ descriptor: PropertyDescriptor, of object: ModelObject, from entry: PropertyListValue) throws {
        if decodePropertyDirectly(descriptor, of: object, from: entry) { return }
        let value = try value(of: entry)
        do {
            try descriptor.setValue(value, in: object)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(
                .typeMismatch, key: descriptor.key, className: String(reflecting: type(of: object)),
                message: "the archived value does not fit the property: \(error)")
        }
    }

    /// Forgets the classes found for class names, after the unarchiver's mapping changed.
    func forgetResolvedClasses() {
        resolvedClasses.removeAll()
    }

    /// Forgets the objects already decoded, after the allowed classes changed: an object made
    /// under the old rules must not come back from the cache without its class being checked
    /// again. Objects still being decoded keep their place so references back to them resolve.
    func forgetDecodedObjects() {
        for index in decodedFlags.indices where decodedFlags[index] == .done {
            decodedFlags[index] = .pending
            decoded[index] = nil
        }
    }

    /// Sets the common stored types straight from the archived value, without boxing it in
    /// `Any` and casting it back: what ``decodeProperty(_:of:from:)`` does for them, through
    /// the same setter. False, having done nothing, for anything else (which takes the general
    /// path, with its errors).
    private func decodePropertyDirectly(
        _ descriptor: PropertyDescriptor, of object: ModelObject, from entry: PropertyListValue
    ) -> Bool {
        switch (descriptor.layout, entry) {
        case (.double, .real(let value)):
            descriptor.storeDirectly(value, in: object)
        case (.int, .integer(let value)):
            guard let value = Int(exactly: value) else { return false }
            descriptor.storeDirectly(value, in: object)
        case (.bool, .bool(let value)):
            descriptor.storeDirectly(value, in: object)
        case (.string, .uid(let uid)):
            // A string object (even one spelled `$null`: only UID 0 is nil); UID 0, bad UIDs and
            // the nesting limit go the general way.
            guard let index = Int(exactly: uid), index > 0, index < objects.count,
                  uidStack.count < maximumNestingDepth,
                  case .string(let value) = objects[index]
            else { return false }
            descriptor.storeDirectly(value, in: object)
        default:
            return false
        }
        return true
    }

    /// Registers an object whose initializer is running, so that references back to it resolve.
    func objectDidBeginDecoding(_ object: AnyObject) {
        guard let uid = uidStack.last, decodedFlags[uid] == .inProgress, decoded[uid] == nil else { return }
        decoded[uid] = object
    }

    private func entry(forKey key: String) -> PropertyListValue? {
        entries[key]
    }

    private func decodeObject(forKey key: String) throws -> Any? {
        guard let entry = entry(forKey: key) else { return nil }
        return try value(of: entry)
    }

    /// An inline value (number, Boolean) or the object a UID refers to.
    func value(of entry: PropertyListValue) throws -> Any? {
        switch entry {
        case .uid(let uid): return try object(at: uid)
        case .integer(let value): return Int(exactly: value) ?? value
        case .unsignedInteger(let value): return value
        case .real(let value): return value
        case .float(let value): return Double(value)
        case .bool(let value): return value
        case .string(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .array, .dictionary:
            throw ArchiveError(.corruptArchive, message: "a keyed value must be a scalar or a UID, found a collection")
        }
    }

    /// The object at `uid` in `$objects`, decoded once and shared.
    func object(at uid: UInt64) throws -> Any? {
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
        let outermost = uidStack.isEmpty
        decodedFlags[index] = .inProgress
        uidStack.append(index)
        defer { uidStack.removeLast() }
        do {
            let value = try decodeEntry(objects[index], uid: index)
            decoded[index] = value
            decodedFlags[index] = .done
            if outermost {
                finishedInCall.removeAll(keepingCapacity: true)
                abandonedInCall.removeAll()
            } else {
                finishedInCall.append(index)
            }
            return value
        } catch {
            decodedFlags[index] = .pending
            if let partial = decoded[index] { abandonedInCall.append(partial) }
            decoded[index] = nil
            if outermost { releaseObjectsOfFailedCall() }
            throw error
        }
    }

    /// Forgets the objects the failed outermost call made and drops their relationships.
    ///
    /// Relationships and their inverses are strong references, so the objects of a graph with
    /// cycles (a department and its employees) keep each other alive: once the call has
    /// failed, nothing outside holds them, and without this they would never be freed, one
    /// leaked graph per corrupt archive. They are forgotten, too, so that a later call decodes
    /// them again rather than returning objects that refer to a failed one. Objects held only
    /// in attributes of other types (a dictionary of objects) are not reached.
    private func releaseObjectsOfFailedCall() {
        var made = abandonedInCall
        for uid in finishedInCall where decodedFlags[uid] == .done {
            if let object = decoded[uid] { made.append(object) }
            decoded[uid] = nil
            decodedFlags[uid] = .pending
        }
        finishedInCall.removeAll(keepingCapacity: true)
        abandonedInCall.removeAll()
        Self.dropRelationships(of: made)
    }

    /// Forgets every object decoded so far and drops their relationships: for an entry point
    /// that decoded a graph and then refuses it (a root of the wrong type, a class refused by
    /// secure decoding), so that the graph nobody receives is freed.
    func releaseEveryDecodedObject() {
        var made: [Any] = []
        for uid in decodedFlags.indices where decodedFlags[uid] == .done {
            if let object = decoded[uid] { made.append(object) }
            decoded[uid] = nil
            decodedFlags[uid] = .pending
        }
        Self.dropRelationships(of: made)
    }

    private static func dropRelationships(of objects: [Any]) {
        for case let object as ModelObject in objects {
            for descriptor in PropertyTable.table(for: type(of: object)).descriptors where descriptor.isRelationship {
                descriptor.dropRelatedObjects(in: object)
            }
        }
    }

    private func decodeEntry(_ entry: PropertyListValue, uid: Int) throws -> Any? {
        switch entry {
        // Only the reference UID 0 means nil (handled in `object(at:)`); a string object is a
        // string, whatever it spells, so a user's "$null" survives.
        case .string(let value): return value
        case .integer(let value): return Int(exactly: value) ?? value
        case .unsignedInteger(let value): return value
        case .real(let value): return value
        case .float(let value): return Double(value)
        case .bool(let value): return value
        case .data(let value): return value
        case .date(let value): return value
        case .uid, .array:
            throw ArchiveError(.corruptArchive, message: "$objects[\(uid)] is not an object")
        case .dictionary(let entries):
            guard case .uid(let classUID)? = entries.value(forUsuallyLastKey: "$class"),
                  let classIndex = Int(exactly: classUID), classIndex > 0, classIndex < objects.count
            else {
                throw ArchiveError(.corruptArchive, message: "$objects[\(uid)] has no valid $class")
            }
            let resolved: ResolvedClass
            if let known = resolvedClasses[classIndex] {
                resolved = known
            } else {
                guard case .string(let className)? = objects[classIndex]["$classname"] else {
                    throw ArchiveError(.corruptArchive, message: "$objects[\(uid)] has no valid $class")
                }
                let cls = delegate?.codingClass(named: className)
                if let refusal = delegate?.refusal(forClassNamed: className, codingClass: cls) {
                    resolved = .refused(refusal)
                } else if let cls {
                    resolved = .coding(cls)
                } else {
                    resolved = .named(className)
                }
                resolvedClasses[classIndex] = resolved
            }
            switch resolved {
            case .coding(let cls):
                guard let delegate else { return nil }
                return try delegate.instantiate(cls, from: entries)
            case .named(let className):
                return try decodeInstance(className: className, entries: entries, uid: uid)
            case .refused(let error):
                throw error
            }
        }
    }

    private func decodeInstance(
        className: String, entries: PropertyListDictionary, uid: Int
    ) throws -> Any? {
        let saved = self.entries
        self.entries = entries
        defer { self.entries = saved }
        switch className {
        case "NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet":
            return try numberedOrArrayUIDs(prefix: "NS.object.").map { try object(at: $0) ?? NSNull() }
        case "NSCountedSet":
            return try decodeCountedSet()
        case "NSSet", "NSMutableSet":
            var set = Set<AnyHashable>()
            for element in try numberedOrArrayUIDs(prefix: "NS.object") {
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

    /// An `NSCountedSet` as Foundation writes it: `NS.count` members, each `NS.object<i>` with
    /// its count `NS.count<i>` (at least 1). Every count is kept; a member given twice adds up.
    private func decodeCountedSet() throws -> CountedSet<AnyHashable> {
        let className = "NSCountedSet"
        guard case .integer(let declared)? = entry(forKey: "NS.count"), let count = Int(exactly: declared),
              count >= 0, count <= entries.count / 2
        else {
            throw ArchiveError(.corruptArchive, key: "NS.count", className: className, message: "NS.count is missing or does not match the members")
        }
        var set = CountedSet<AnyHashable>()
        for index in 0..<count {
            guard case .uid(let uid)? = entry(forKey: "NS.object\(index)") else {
                throw ArchiveError(.corruptArchive, key: "NS.object\(index)", className: className, message: "a counted-set member is missing or not a UID")
            }
            guard case .integer(let times)? = entry(forKey: "NS.count\(index)"), let times = Int(exactly: times), times > 0 else {
                throw ArchiveError(.corruptArchive, key: "NS.count\(index)", className: className, message: "a counted-set member's count is missing or not positive")
            }
            guard let member = try object(at: uid) else {
                throw ArchiveError(.corruptArchive, key: "NS.object\(index)", className: className, message: "a counted-set member is nil")
            }
            set.insert(try hashable(member, className), count: times)
        }
        return set
    }

    /// The members of a collection: the `NS.objects` array, or (as Apple writes ordered sets)
    /// one UID per numbered key, `NS.object.0`, `NS.object.1`, … or `NS.object0`, ….
    private func numberedOrArrayUIDs(prefix: String) throws -> [UInt64] {
        if entry(forKey: "NS.objects") != nil { return try uidArray("NS.objects") }
        var uids: [UInt64] = []
        // Each member has its own key, so the body's size bounds the count.
        for index in 0..<entries.count {
            guard let value = entry(forKey: "\(prefix)\(index)") else { break }
            guard case .uid(let uid) = value else {
                throw ArchiveError(.corruptArchive, key: "\(prefix)\(index)", message: "a collection member is not a UID")
            }
            uids.append(uid)
        }
        guard !uids.isEmpty || entries.count <= 1 || entry(forKey: "NS.count") != nil else {
            throw ArchiveError(.corruptArchive, key: "NS.objects", message: "NS.objects is missing or not an array")
        }
        return uids
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
        #if !canImport(Darwin)
        // swift-corelibs-foundation bridges a set or dictionary holding a Decimal to Objective-C
        // objects whenever it is cast to a class (`value as? ModelObject`), and NSDecimalNumber's
        // hash recurses there until the stack overflows: such a collection would crash the first
        // code that casts it.
        if value is Decimal {
            throw ArchiveError(.corruptArchive, className: className, message: "a decimal number cannot be a set member or key on this platform")
        }
        #endif
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
        let mantissaEntry = entry(forKey: "NS.mantissa")
        var mantissaData: Data?
        switch mantissaEntry {
        case .data(let data)?: mantissaData = data
        case .uid(let uid)?: mantissaData = try object(at: uid) as? Data
        default: break
        }
        guard let mantissa = mantissaData, mantissa.count <= 16 else {
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
            // Inline integers (as this library and Foundation on Linux write them) or references
            // to numbers (as Apple's Foundation writes them).
            let location = try entry(forKey: "NS.rangeval.location").flatMap { try value(of: $0) } as? Int
            let length = try entry(forKey: "NS.rangeval.length").flatMap { try value(of: $0) } as? Int
            guard let location, let length, location >= 0, length >= 0 else {
                throw ArchiveError(.corruptArchive, className: "NSValue", message: "invalid NS.rangeval")
            }
            return NSRange(location: location, length: length)
        default:
            throw ArchiveError(.unknownClass, className: "NSValue", message: "unsupported NSValue kind \(special)")
        }
    }
}

/// What an ``ArchiveReader`` asks of the unarchiver that owns it.
protocol ArchiveReaderDelegate: AnyObject {
    /// The class for a class name, or nil for Foundation's classes and unknown ones.
    func codingClass(named name: String) -> (any Coding.Type)?
    /// Creates an instance of a coding class from its archived body.
    func instantiate(_ cls: any Coding.Type, from entries: PropertyListDictionary) throws -> Any
    /// The error refusing a class the archive names, checked before any object of it is
    /// created; nil when it may be decoded.
    func refusal(forClassNamed name: String, codingClass: (any Coding.Type)?) -> ArchiveError?
}

extension ArchiveReaderDelegate {
    func refusal(forClassNamed name: String, codingClass: (any Coding.Type)?) -> ArchiveError? { nil }
}
