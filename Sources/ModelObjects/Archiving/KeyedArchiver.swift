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

    private var classNames: [ObjectIdentifier: String] = [:]
    private let writer = ArchiveWriter()
    // The archiver is used by one thread at a time: the state touched for every value is read
    // and written without dynamic exclusivity checks.
    /// The entries of the object being encoded (or of `$top`).
    @exclusivity(unchecked) private var entries: [(key: String, value: PropertyListValue)] = []
    @exclusivity(unchecked) private var currentUID: UInt64?
    @exclusivity(unchecked) private var topEntries: [(key: String, value: PropertyListValue)] = []
    /// The number of entries when the declared properties were the first and only ones written
    /// for the current object.
    @exclusivity(unchecked) private var declaredEntryCount: Int?
    /// Conditional references, patched once the archive is complete.
    private var conditionalReferences: [ConditionalReference] = []
    private var finishedData: Data?

    /// Creates an archiver; encode values with the keyed methods, then call ``finishEncoding()``.
    public override init() {
        super.init()
        writer.className = { [unowned self] in self.className(for: $0) }
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
        while let (uid, object) = writer.nextQueuedObject() {
            entries = []
            declaredEntryCount = nil
            currentUID = uid
            object.encode(with: self)
            // Entries written by the default `encode(with:)` alone have distinct keys (declared
            // keys, and `$class`, which no Swift property can be named): no check needed.
            let distinct = declaredEntryCount == entries.count
            entries.append((key: "$class", value: .uid(writer.classUID(for: object, versionKey: "$classversion"))))
            let body = distinct
                ? PropertyListDictionary(uncheckedDistinctEntries: entries) : PropertyListDictionary(entries: entries)
            writer.setObject(.dictionary(body), at: uid)
        }
        currentUID = nil
        patchConditionalReferences()
        if let error = encodingError ?? writer.error { throw error }
        let archive = PropertyListValue.dictionary([
            (key: "$version", value: .integer(100_000)),
            (key: "$archiver", value: .string("NSKeyedArchiver")),
            (key: "$top", value: .dictionary(PropertyListDictionary(entries: topEntries))),
            (key: "$objects", value: .array(writer.objects)),
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

    // MARK: Keyed encoding

    public override func encode(_ object: Any?, forKey key: String) {
        entries.append((key: key, value: .uid(writer.reference(to: object, key: key))))
    }

    public override func encodeConditionalObject(_ object: Any?, forKey key: String) {
        guard let value = object.flatMap(flattenOptional), let coding = asCodingObject(value) else {
            entries.append((key: key, value: .uid(writer.reference(to: object, key: key))))
            return
        }
        let identifier = ObjectIdentifier(coding)
        if let uid = writer.objectUIDs[identifier] {
            entries.append((key: key, value: .uid(uid)))
        } else {
            let index = entries.count
            conditionalReferences.append(ConditionalReference(holder: currentUID, index: index, key: key, object: identifier))
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
        let descriptors = object.propertyTable.descriptors
        let first = entries.isEmpty && currentUID != nil
        // Room for the properties and `$class`: one allocation per object, not growth steps.
        if first { entries.reserveCapacity(descriptors.count + 1) }
        for descriptor in descriptors where !descriptor.isReadOnly {
            entries.append((key: descriptor.key, value: writer.encodedValue(of: descriptor, in: object)))
        }
        if first { declaredEntryCount = entries.count }
    }

    private func patchConditionalReferences() {
        for reference in conditionalReferences {
            guard let uid = writer.objectUIDs[reference.object] else { continue }
            if let holder = reference.holder {
                guard case .dictionary(var holderEntries) = writer.objects[Int(holder)] else { continue }
                holderEntries.updateValue(.uid(uid), forKey: reference.key)
                writer.setObject(.dictionary(holderEntries), at: holder)
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
    /// The position of the entry (in `$top`) and its key (in an object).
    let index: Int
    let key: String
    let object: ObjectIdentifier
}
