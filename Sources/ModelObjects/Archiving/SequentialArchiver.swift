import Foundation

/// Writes classic (sequential) archives: each object's values are read back in the order they
/// were written, and each class's ``ModelObject/version`` is recorded so that `init(coder:)` can
/// read archives written by older versions.
///
/// ```swift
/// override func encode(with coder: Coder) {
///     if coder.allowsKeyedCoding {
///         coder.encode(firstName, forKey: "First")
///     } else {
///         coder.encode(firstName)
///     }
/// }
/// ```
///
/// The archive is a property list (binary by default) with its own archiver name,
/// `ModelObjectsSequentialArchiver`; objects are shared and cycles are fine, as in keyed
/// archives. The default ``ModelObject/encode(with:)`` writes the declared properties as one
/// block, which the default ``ModelObject/init(coder:)`` reads back.
///
/// Corresponds to Cocoa's `NSArchiver` (classic archiving); differences: the byte format is not
/// Cocoa's typedstream, which has no reader on Linux.
public final class SequentialArchiver: Coder {
    /// The property-list form of the archive: `.binary` (the default) or `.xml`.
    public var outputFormat: PropertyListSerialization.PropertyListFormat = .binary

    private let writer = ArchiveWriter { KeyedArchiver.className(for: $0) }
    private var values: [PropertyListValue] = []
    private var finishedData: Data?

    /// Creates an archiver; append values with the sequential methods, then call
    /// ``finishEncoding()``.
    public override init() {
        super.init()
    }

    /// Returns a sequential archive of `rootObject`.
    ///
    /// - Throws: ``ArchiveError/Code/invalidValue`` when a value in the graph cannot be encoded.
    ///
    /// Corresponds to `+[NSArchiver archivedDataWithRootObject:]`.
    public static func archivedData(
        withRootObject rootObject: Any?, format: PropertyListSerialization.PropertyListFormat = .binary
    ) throws -> Data {
        let archiver = SequentialArchiver()
        archiver.outputFormat = format
        archiver.encode(rootObject)
        return try archiver.finishEncoding()
    }

    public override var allowsKeyedCoding: Bool { false }

    /// Finishes the archive and returns it; later calls return the same data.
    ///
    /// - Throws: The first encoding error.
    public func finishEncoding() throws -> Data {
        if let finishedData { return finishedData }
        let top = values
        while let (uid, object) = writer.nextQueuedObject() {
            values = []
            object.encode(with: self)
            writer.setObject(.dictionary([
                (key: "$values", value: .array(values)),
                (key: "$class", value: .uid(writer.classUID(for: object, versionKey: "$classversion"))),
            ]), at: uid)
        }
        if let error = encodingError ?? writer.error { throw error }
        let archive = PropertyListValue.dictionary([
            (key: "$version", value: .integer(1)),
            (key: "$archiver", value: .string(SequentialUnarchiver.archiverName)),
            (key: "$top", value: .array(top)),
            (key: "$objects", value: .array(writer.objects)),
        ])
        let data = try PropertyListEncoding.encode(archive, format: outputFormat)
        finishedData = data
        return data
    }

    public override func encode(_ object: Any?) {
        values.append(.uid(writer.reference(to: object, key: nil)))
    }

    public override func encode(_ value: Int) {
        values.append(.integer(Int64(value)))
    }

    public override func encode(_ value: Double) {
        values.append(.real(value))
    }

    public override func encode(_ value: Bool) {
        values.append(.bool(value))
    }

    override func encodeDeclaredProperties(of object: ModelObject) {
        var block: [(key: String, value: PropertyListValue)] = []
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            block.append((key: descriptor.key, value: writer.encodedValue(of: descriptor, in: object)))
        }
        values.append(.dictionary([(key: SequentialUnarchiver.defaultBlockKey, value: .dictionary(PropertyListDictionary(entries: block)))]))
    }
}

/// Reads classic (sequential) archives written by ``SequentialArchiver``: values come back in
/// the order they were written.
///
/// Corresponds to Cocoa's `NSUnarchiver`.
public final class SequentialUnarchiver: Coder, ArchiveReaderDelegate {
    static let archiverName = "ModelObjectsSequentialArchiver"
    static let defaultBlockKey = "$declaredProperties"

    /// The deepest chain of objects being decoded inside one another (256 by default).
    public var maximumNestingDepth: Int {
        get { reader.maximumNestingDepth }
        set { reader.maximumNestingDepth = newValue }
    }

    private let reader: ArchiveReader
    private var frames: [(values: [PropertyListValue], position: Int)]
    private var versions: [String: Int] = [:]

    /// Opens a sequential archive for decoding.
    ///
    /// - Throws: ``ArchiveError/Code/corruptArchive`` when the data is not a sequential archive.
    public init(forReadingFrom data: Data) throws {
        let archive = try PropertyListEncoding.decode(data)
        guard case .string(Self.archiverName)? = archive["$archiver"], case .integer(1)? = archive["$version"] else {
            throw ArchiveError(.corruptArchive, message: "not a sequential archive of this library")
        }
        guard case .array(let objects)? = archive["$objects"], case .array(let top)? = archive["$top"] else {
            throw ArchiveError(.corruptArchive, message: "sequential archive without $objects or $top arrays")
        }
        frames = [(top, 0)]
        reader = ArchiveReader(objects: objects)
        super.init()
        reader.delegate = self
        versions = reader.classVersions(versionKey: "$classversion")
    }

    /// Decodes the first object of a sequential archive.
    ///
    /// Corresponds to `+[NSUnarchiver unarchiveObjectWithData:]`.
    public static func unarchivedObject(from data: Data) throws -> Any? {
        try SequentialUnarchiver(forReadingFrom: data).decodeObject()
    }

    /// Decodes the first object of a sequential archive and checks its type.
    ///
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when it is not a `T`.
    public static func unarchivedObject<T>(ofClass type: T.Type, from data: Data) throws -> T? {
        let unarchiver = try SequentialUnarchiver(forReadingFrom: data)
        guard let value = try unarchiver.decodeObject() else { return nil }
        guard let typed = value as? T else {
            // A root of another type: the graph decoded for nothing is freed.
            unarchiver.reader.releaseEveryDecodedObject()
            throw ArchiveError(
                .typeMismatch, className: String(reflecting: Swift.type(of: value)),
                message: "expected a \(T.self), found a \(Swift.type(of: value))")
        }
        return typed
    }

    public override var allowsKeyedCoding: Bool { false }

    public override func version(forClassName className: String) -> Int? {
        versions[className]
    }

    private func nextValue() throws -> PropertyListValue {
        let index = frames.count - 1
        let (values, position) = frames[index]
        guard position < values.count else {
            throw ArchiveError(.valueNotFound, message: "read past the \(values.count) values archived for this object")
        }
        frames[index].position += 1
        return values[position]
    }

    public override func decodeObject() throws -> Any? {
        try reader.value(of: try nextValue())
    }

    override func decodeDeclaredProperties(of object: ModelObject) throws {
        let index = frames.count - 1
        let (values, position) = frames[index]
        guard position < values.count, case .dictionary(let entries) = values[position],
              case .dictionary(let block)? = entries.first(where: { $0.key == Self.defaultBlockKey })?.value
        else { return }
        frames[index].position += 1
        for descriptor in object.propertyTable.descriptors where !descriptor.isReadOnly {
            guard let entry = block.first(where: { $0.key == descriptor.key })?.value else { continue }
            try reader.decodeProperty(descriptor, of: object, from: entry)
        }
    }

    override func objectDidBeginDecoding(_ object: ModelObject) {
        reader.objectDidBeginDecoding(object)
    }

    func codingClass(named name: String) -> (any Coding.Type)? {
        KeyedUnarchiver.defaultCodingClass(named: name)
    }

    func instantiate(_ cls: any Coding.Type, from entries: PropertyListDictionary) throws -> Any {
        guard case .array(let values)? = entries.first(where: { $0.key == "$values" })?.value else {
            throw ArchiveError(.corruptArchive, message: "an archived object has no $values array")
        }
        frames.append((values, 0))
        defer { frames.removeLast() }
        return try cls.init(coder: self)
    }
}
