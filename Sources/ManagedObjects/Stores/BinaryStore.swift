import Foundation
import Synchronization

/// A store kept in one file that is read whole when the store is added and written whole,
/// atomically (a new file renamed over the old one), by every save: small graphs that must
/// survive the process without a database.
///
/// The file records the model's entity version hashes; opening it with a model whose entities
/// differ throws ``PersistenceError/Code/incompatibleModel`` naming them.
///
/// Corresponds to Core Data's `NSBinaryStoreType`; differences: its own file format (a JSON
/// document), not Core Data's.
public final class BinaryStore: PersistentStore {
    private struct State {
        var records: [ManagedObjectID: StoreRecord] = [:]
        var nextPrimaryKey: Int64 = 1
    }

    /// The store's identifier, kept in the file so permanent IDs stay valid across opens.
    public let identifier: String
    /// ``PersistentStoreType/binary``.
    public var type: PersistentStoreType { .binary }
    /// The store's file.
    public var url: URL? { fileURL }
    private let fileURL: URL
    private let model: ManagedObjectModel
    private let state: Mutex<State>

    /// Opens the store in `url`, creating an empty one when the file does not exist.
    ///
    /// - Throws: ``PersistenceError/Code/invalidStore`` when the file cannot be read or is not a
    ///   binary store; ``PersistenceError/Code/incompatibleModel`` when it was written with
    ///   other entities.
    public init(url: URL, model: ManagedObjectModel) throws {
        fileURL = url
        self.model = model
        guard FileManager.default.fileExists(atPath: url.path) else {
            identifier = UUID().uuidString
            state = Mutex(State())
            try write(State())
            return
        }
        let file: BinaryStoreFile
        do {
            file = try JSONDecoder().decode(BinaryStoreFile.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw PersistenceError(
                .invalidStore, message: "\(url.path) is not a readable binary store: \(error)", fileURL: url,
                isCorruptFile: true)
        } catch {
            throw PersistenceError(
                .invalidStore, message: "\(url.path) cannot be read: \(error)", fileURL: url)
        }
        guard file.format == BinaryStoreFile.formatName else {
            throw PersistenceError(
                .invalidStore, message: "\(url.path) is not a binary store (format '\(file.format)')", fileURL: url,
                isCorruptFile: true)
        }
        let differences = Self.differences(stored: file.entityVersionHashes, model: model)
        guard differences.isEmpty else {
            throw PersistenceError(
                .incompatibleModel,
                message: "\(url.path) was written with another model: " + differences.joined(separator: "; "))
        }
        identifier = file.identifier
        do {
            state = Mutex(try Self.state(of: file, model: model))
        } catch var error as PersistenceError {
            // The JSON parsed but its content does not: the file is as damaged as a truncated one.
            error.message = "\(url.path) is not a readable binary store: \(error.message)"
            error.fileURL = url
            error.isCorruptFile = true
            throw error
        }
    }

    /// The records and key counter of a decoded file, checked against `model`.
    ///
    /// - Throws: ``PersistenceError/Code/invalidStore`` for a record of an unknown entity, a
    ///   value that cannot be read back, or a key counter not above every stored key.
    private static func state(of file: BinaryStoreFile, model: ManagedObjectModel) throws -> State {
        guard file.nextPrimaryKey > 0 else {
            throw PersistenceError(.invalidStore, message: "the next primary key \(file.nextPrimaryKey) is not positive")
        }
        var loaded = State()
        loaded.nextPrimaryKey = file.nextPrimaryKey
        for entry in file.records {
            guard let entity = model.entity(named: entry.entity) else {
                throw PersistenceError(.invalidStore, message: "a record names unknown entity '\(entry.entity)'")
            }
            guard entry.key < file.nextPrimaryKey else {
                throw PersistenceError(
                    .invalidStore,
                    message: "record key \(entry.key) is not below the next primary key \(file.nextPrimaryKey)")
            }
            let id = ManagedObjectID(entity: entity, key: .permanent(storeIdentifier: file.identifier, primaryKey: entry.key))
            guard entry.values.count == entity.properties.count else {
                throw PersistenceError(
                    .invalidStore,
                    message: "the record \(entry.key) of \(entity.name) has \(entry.values.count) values for "
                        + "\(entity.properties.count) properties",
                    objectID: id)
            }
            var values: [StoreValue] = []
            values.reserveCapacity(entry.values.count)
            for value in entry.values { values.append(try value.storeValue(model: model, storeIdentifier: file.identifier)) }
            for property in entity.properties {
                if let problem = Self.problem(with: values[property.index], for: property) {
                    throw PersistenceError(
                        .invalidStore,
                        message: "\(entity.name).\(property.name) of the record \(entry.key) \(problem); "
                            + "the store refuses to open the file rather than convert the value",
                        objectID: id, key: property.name)
                }
            }
            loaded.records[id] = StoreRecord(objectID: id, version: entry.version, values: values)
        }
        return loaded
    }

    /// Why `value` cannot be the value of `property` as a save would have written it (another
    /// kind of value, a number outside the attribute's type, nil in a required attribute), as
    /// the end of a sentence; nil when it can.
    static func problem(with value: StoreValue, for property: PropertyDescription) -> String? {
        if property.isTransient { return nil }
        guard let attribute = property as? AttributeDescription else {
            let isToMany = (property as? RelationshipDescription)?.isToMany ?? false
            switch value {
            case .toMany: return isToMany ? nil : "holds several objects for a to-one relationship"
            case .toOne, .null: return isToMany ? "holds one object for a to-many relationship" : nil
            default: return "holds \(describe(value)), which is not a relationship's value"
            }
        }
        let fits: Bool
        switch (value, attribute.attributeType) {
        case (.null, _): return attribute.isOptional ? nil : "is nil, but the attribute is required"
        case (.integer(let integer), .integer16): fits = Int16(exactly: integer) != nil
        case (.integer(let integer), .integer32): fits = Int32(exactly: integer) != nil
        case (.integer, .integer64), (.decimal, .decimal), (.string, .string), (.boolean, .boolean), (.date, .date),
             (.data, .binaryData), (.data, .transformable), (.uuid, .uuid), (.uri, .uri), (.double, .double):
            fits = true
        case (.double(let double), .float): fits = !(double.isFinite && Float(double).isInfinite)
        default: fits = false
        }
        return fits ? nil : "holds \(describe(value)), which is not a value of its type (\(attribute.attributeType))"
    }

    /// A value for a message, dates as their seconds (a date far out of range may not print).
    private static func describe(_ value: StoreValue) -> String {
        switch value {
        case .date(let date): "the date \(date.timeIntervalSinceReferenceDate)"
        case .string(let text): "the string \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        default: "the \(value.kindName) \(value)"
        }
    }

    /// The entities whose version hashes differ between the file and the model, as sentences.
    static func differences(stored: [String: Data], model: ManagedObjectModel) -> [String] {
        let current = model.entityVersionHashesByName
        var differences: [String] = []
        for name in Set(stored.keys).union(current.keys).sorted() {
            switch (stored[name], current[name]) {
            case (nil, _?): differences.append("entity \(name) is new in the model")
            case (_?, nil): differences.append("entity \(name) is not in the model")
            case (let old?, let new?) where old != new: differences.append("entity \(name) changed")
            default: break
            }
        }
        return differences
    }

    /// Reserves `count` keys, unique in the store.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed`` when the keys would pass `Int64.max`.
    public func newPrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        try state.withLock { state in
            let first = state.nextPrimaryKey
            let (end, overflow) = first.addingReportingOverflow(Int64(count))
            guard count >= 0, !overflow else {
                throw PersistenceError(
                    .saveFailed, message: "\(fileURL.path) has no primary keys left for \(count) new objects of \(entity.name)",
                    fileURL: fileURL)
            }
            state.nextPrimaryKey = end
            return Array(first..<end)
        }
    }

    /// The record for `objectID`.
    public func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        state.withLock { $0.records[objectID] }
    }

    /// The records of `objectIDs` that exist.
    public func records(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: StoreRecord] {
        state.withLock { state in
            var found: [ManagedObjectID: StoreRecord] = [:]
            for id in objectIDs { if let record = state.records[id] { found[id] = record } }
            return found
        }
    }

    /// The records of `entity`, in primary-key order.
    public func records(of entity: EntityDescription, includesSubentities: Bool) throws -> [StoreRecord] {
        state.withLock { state in
            state.records.values.filter { record in
                includesSubentities ? record.objectID.entity.isKindOf(entity: entity) : record.objectID.entity.name == entity.name
            }
        }.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
    }

    /// The versions of the records that exist.
    public func versions(of objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: Int64] {
        state.withLock { state in
            var versions: [ManagedObjectID: Int64] = [:]
            for id in objectIDs { if let record = state.records[id] { versions[id] = record.version } }
            return versions
        }
    }

    /// Applies the save and writes the whole file atomically; when the write fails, the store
    /// keeps its previous records.
    ///
    /// - Throws: ``PersistenceError/Code/saveFailed``; ``PersistenceError/Code/constraintConflict``
    ///   when inserted or updated records would share the values of a uniqueness constraint
    ///   with others.
    public func apply(_ changes: SaveChanges) throws {
        try state.withLock { state in
            var next = state
            for id in changes.deleted { next.records[id] = nil }
            for record in changes.inserted { next.records[record.objectID] = record }
            for record in changes.updated { next.records[record.objectID] = record.keepingOmittedRelationships(of: next.records[record.objectID]) }
            let conflicts = UniquenessConstraint.conflicts(in: next.records, touched: changes.inserted + changes.updated)
            if !conflicts.isEmpty { throw PersistenceError.constraintConflicts(conflicts, by: "in the binary store") }
            try write(next)
            state = next
        }
    }

    private func write(_ state: State) throws {
        let file = BinaryStoreFile(
            identifier: identifier, entityVersionHashes: model.entityVersionHashesByName, nextPrimaryKey: state.nextPrimaryKey,
            records: state.records.values.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }.map {
                BinaryStoreFile.Record($0)
            })
        do {
            try JSONEncoder().encode(file).write(to: fileURL, options: .atomic)
        } catch {
            throw PersistenceError(.saveFailed, message: "could not write \(fileURL.path): \(error)")
        }
    }
}

/// The JSON document of a ``BinaryStore``.
struct BinaryStoreFile: Codable {
    static let formatName = "ModelObjects.BinaryStore.1"

    struct Record: Codable {
        var entity: String
        var key: Int64
        var version: Int64
        var values: [Value]

        init(_ record: StoreRecord) {
            entity = record.objectID.entity.name
            key = record.objectID.primaryKey ?? 0
            version = record.version
            values = record.values.map(Value.init)
        }
    }

    /// One value, tagged with its kind.
    enum Value: Codable {
        case null
        case integer(Int64)
        case double(Double)
        case decimal(String)
        case string(String)
        case boolean(Bool)
        case date(Double)
        case data(Data)
        case uuid(UUID)
        case uri(String)
        case toOne(entity: String, key: Int64)
        case toMany([Reference])

        struct Reference: Codable {
            var entity: String
            var key: Int64
        }

        init(_ value: StoreValue) {
            switch value {
            case .null: self = .null
            case .integer(let value): self = .integer(value)
            case .double(let value): self = .double(value)
            case .decimal(let value): self = .decimal(value.description)
            case .string(let value): self = .string(value)
            case .boolean(let value): self = .boolean(value)
            case .date(let value): self = .date(value.timeIntervalSinceReferenceDate)
            case .data(let value): self = .data(value)
            case .uuid(let value): self = .uuid(value)
            case .uri(let value): self = .uri(value.absoluteString)
            case .toOne(nil): self = .null
            case .toOne(let id?): self = .toOne(entity: id.entity.name, key: id.primaryKey ?? 0)
            case .toMany(let ids): self = .toMany(ids.map { Reference(entity: $0.entity.name, key: $0.primaryKey ?? 0) })
            }
        }

        /// The store value, with references resolved against `model`.
        ///
        /// - Throws: ``PersistenceError/Code/invalidStore`` for a value that cannot be read back.
        func storeValue(model: ManagedObjectModel, storeIdentifier: String) throws -> StoreValue {
            func id(_ entity: String, _ key: Int64) throws -> ManagedObjectID {
                guard let description = model.entity(named: entity) else {
                    throw PersistenceError(.invalidStore, message: "a reference names unknown entity '\(entity)'")
                }
                return ManagedObjectID(entity: description, key: .permanent(storeIdentifier: storeIdentifier, primaryKey: key))
            }
            switch self {
            case .null: return .null
            case .integer(let value): return .integer(value)
            case .double(let value): return .double(value)
            case .decimal(let text):
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw PersistenceError(.invalidStore, message: "'\(text)' is not a decimal number")
                }
                return .decimal(decimal)
            case .string(let value): return .string(value)
            case .boolean(let value): return .boolean(value)
            case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .data(let value): return .data(value)
            case .uuid(let value): return .uuid(value)
            case .uri(let text):
                guard let url = URL(string: text) else { throw PersistenceError(.invalidStore, message: "'\(text)' is not a URI") }
                return .uri(url)
            case .toOne(let entity, let key): return .toOne(try id(entity, key))
            case .toMany(let references): return .toMany(try references.map { try id($0.entity, $0.key) })
            }
        }
    }

    var format = BinaryStoreFile.formatName
    var identifier: String
    var entityVersionHashes: [String: Data]
    var nextPrimaryKey: Int64
    var records: [Record]

    init(identifier: String, entityVersionHashes: [String: Data], nextPrimaryKey: Int64, records: [Record]) {
        self.identifier = identifier
        self.entityVersionHashes = entityVersionHashes
        self.nextPrimaryKey = nextPrimaryKey
        self.records = records
    }
}
