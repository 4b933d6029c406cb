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
/// ``setClass(_:forClassName:)-type.method`` (on the unarchiver or for all unarchivers), or else the
/// module-qualified Swift name of a ``ModelObject`` subclass. Foundation's value classes
/// (`NSString`, `NSNumber`, `NSDate`, `NSData`, `NSUUID`, `NSURL`, `NSDecimalNumber`, `NSNull`,
/// `NSValue` geometry, `NSArray`, `NSSet`, `NSOrderedSet`, `NSDictionary` and their mutable
/// forms) decode to their Swift counterparts; `NSCountedSet` decodes to a
/// ``CountedSet``<`AnyHashable`> that keeps every count. Any other class throws
/// ``ArchiveError/Code/unknownClass`` naming it.
///
/// Hostile archives are safe: wrong types, dangling or self-referencing UIDs, cycles through
/// collections and nesting deeper than ``maximumNestingDepth`` throw ``ArchiveError``.
///
/// Corresponds to Cocoa's `NSKeyedUnarchiver`; differences: decoding throws instead of raising,
/// and a graph with cycles through model objects decodes (Foundation on Linux overflows its
/// stack on a department whose employees point back at it).
public final class KeyedUnarchiver: Coder, ArchiveReaderDelegate {
    /// The deepest chain of objects being decoded inside one another before decoding fails with
    /// ``ArchiveError/Code/nestingTooDeep`` (256 by default); it keeps hostile archives from
    /// exhausting the stack.
    public var maximumNestingDepth: Int {
        get { reader.maximumNestingDepth }
        set { reader.maximumNestingDepth = newValue }
    }

    /// The classes whose objects this unarchiver may create, or nil (the default) for any class
    /// it knows. When set, every object's class is checked against them before the object is
    /// created, wherever it sits in the graph: a model class must be named (a subclass of a
    /// named class passes), and so must Foundation's containers (``ArchiveClass/array``,
    /// ``ArchiveClass/dictionary``, …); Foundation's value classes always pass. Any other class
    /// throws ``ArchiveError/Code/classNotAllowed`` naming it, and its `init(coder:)` never runs.
    /// Setting it forgets the objects decoded so far, so a later decode makes them again under
    /// the new rules.
    ///
    /// Corresponds to the allowed classes of Cocoa's secure coding (`requiresSecureCoding` and
    /// `decodeObjectOfClasses:forKey:`); differences: one set for the whole graph, checked for
    /// model objects' declared properties too, and value classes need not be named.
    public var allowedClasses: Set<ArchiveClass>? {
        didSet {
            allowed = allowedClasses.map(AllowedClasses.init)
            reader.forgetResolvedClasses()
            reader.forgetDecodedObjects()
            firstRefusal = nil
        }
    }

    private var allowed: AllowedClasses?
    /// The first class refused, kept so that a refusal an `init(coder:)` swallowed (`try?`)
    /// still fails ``unarchivedObject(ofClasses:from:)``, as Foundation's does.
    private var firstRefusal: ArchiveError?
    private let reader: ArchiveReader
    /// The bodies of the objects being decoded, innermost last. Used by one thread at a time.
    @exclusivity(unchecked) private var frames: [PropertyListDictionary]
    private var classes: [String: any Coding.Type] = [:]
    private lazy var versions: [String: Int] = reader.classVersions(versionKey: "$classversion")

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
        frames = [top]
        reader = ArchiveReader(objects: objects)
        super.init()
        reader.delegate = self
    }

    /// Decodes the root object of an archive written with
    /// ``KeyedArchiver/archivedData(withRootObject:format:)`` (the `root` key), creating objects
    /// of any known class: for an archive from an untrusted source, use
    /// ``unarchivedObject(ofClasses:from:)``.
    ///
    /// Corresponds to `+[NSKeyedUnarchiver unarchiveTopLevelObjectWithData:error:]`.
    public static func unarchivedObject(from data: Data) throws -> Any? {
        try KeyedUnarchiver(forReadingFrom: data).decodeObject(forKey: "root")
    }

    /// Decodes the root object of an archive, allowing only objects of the given classes
    /// anywhere in it (see ``allowedClasses``): an archive that names another class throws
    /// before any object of that class is created.
    ///
    /// ```swift
    /// let object = try KeyedUnarchiver.unarchivedObject(
    ///     ofClasses: [.class(Department.self), .class(Employee.self), .array], from: untrusted)
    /// ```
    ///
    /// - Throws: ``ArchiveError/Code/classNotAllowed`` naming the first class refused (even when
    ///   a custom `init(coder:)` caught it), and the errors of ``unarchivedObject(from:)``.
    ///
    /// Corresponds to `+[NSKeyedUnarchiver unarchivedObjectOfClasses:fromData:error:]`.
    public static func unarchivedObject(ofClasses classes: Set<ArchiveClass>, from data: Data) throws -> Any? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.allowedClasses = classes
        let root = try unarchiver.decodeObject(forKey: "root")
        if let refusal = unarchiver.firstRefusal {
            unarchiver.reader.releaseEveryDecodedObject()
            throw refusal
        }
        return root
    }

    /// Decodes the root object of an archive and checks its type.
    ///
    /// The check is made on the decoded root: objects of any known class are created on the
    /// way. For an archive from an untrusted source, use ``unarchivedObject(ofClasses:from:)``.
    ///
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when the root is not a `T`.
    ///
    /// Corresponds to `+[NSKeyedUnarchiver unarchivedObjectOfClass:fromData:error:]`;
    /// differences: not secure decoding (Foundation allows only the named class).
    public static func unarchivedObject<T>(ofClass type: T.Type, from data: Data) throws -> T? {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        do {
            return try unarchiver.decodeObject(of: T.self, forKey: "root")
        } catch {
            // A root of another type: the graph decoded for nothing is freed.
            unarchiver.reader.releaseEveryDecodedObject()
            throw error
        }
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
        reader.forgetResolvedClasses()
    }

    func instantiate(_ cls: any Coding.Type, from entries: PropertyListDictionary) throws -> Any {
        frames.append(entries)
        defer { frames.removeLast() }
        return try cls.init(coder: self)
    }

    func refusal(forClassNamed name: String, codingClass: (any Coding.Type)?) -> ArchiveError? {
        guard let allowed, !allowed.allows(className: name, codingClass: codingClass) else { return nil }
        let refusal = ArchiveError(
            .classNotAllowed, className: name,
            message: "the archive contains an object of class '\(name)', which is not among the allowed classes (\(allowed.names.joined(separator: ", ")))")
        if firstRefusal == nil { firstRefusal = refusal }
        return refusal
    }

    func codingClass(named name: String) -> (any Coding.Type)? {
        classes[name] ?? Self.defaultCodingClass(named: name)
    }

    /// The class-level mapping for a name, or else the `ModelObject` subclass with that
    /// module-qualified Swift name.
    static func defaultCodingClass(named name: String) -> (any Coding.Type)? {
        if let box = defaultClasses.withLock({ $0[name] }) { return box.type }
        return _typeByName(name) as? ModelObject.Type
    }

    public override func version(forClassName className: String) -> Int? {
        versions[className]
    }

    // MARK: Keyed decoding

    private func entry(forKey key: String) -> PropertyListValue? {
        frames[frames.count - 1][key]
    }

    public override func containsValue(forKey key: String) -> Bool {
        entry(forKey: key) != nil
    }

    public override func decodeObject(forKey key: String) throws -> Any? {
        guard let entry = entry(forKey: key) else { return nil }
        do {
            return try reader.value(of: entry)
        } catch var error as ArchiveError {
            if error.key == nil { error.key = key }
            throw error
        }
    }

    override func decodeDeclaredProperties(of object: ModelObject) throws {
        let entries = frames[frames.count - 1]
        // Archives written by the default `encode(with:)` list the keys in declaration order:
        // the next entry is tried before a search.
        var next = 0
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            let entry: PropertyListValue
            if next < entries.count, entries[next].key == descriptor.key {
                entry = entries[next].value
                next += 1
            } else if let found = entries[descriptor.key] {
                entry = found
            } else {
                continue
            }
            try reader.decodeProperty(descriptor, of: object, from: entry)
        }
    }

    override func objectDidBeginDecoding(_ object: ModelObject) {
        reader.objectDidBeginDecoding(object)
    }
}

/// A class stored in a lock-protected table.
// SAFETY: metatypes are immutable; the box only carries one across threads.
private struct ClassBox: @unchecked Sendable {
    let type: any Coding.Type
}
