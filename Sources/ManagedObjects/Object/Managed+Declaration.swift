import Foundation
import ModelObjects
import Synchronization

/// Flags of a ``Managed`` declaration that its Swift type cannot say, read by
/// ``ManagedObjectModel/init(classes:fetchRequestTemplates:configurations:)``.
///
/// ```swift
/// @Managed(.required, defaultValue: "") var name: String
/// @Managed([.required, .transient]) var draft: String
/// ```
///
/// Corresponds to the check boxes of Xcode's model editor (Optional, Transient); differences: a
/// property is optional in the model unless declared `.required`, whatever its Swift type.
public struct ManagedOptions: OptionSet, Sendable {
    /// The bits of the set.
    ///
    /// Corresponds to nothing in Core Data.
    public var rawValue: Int
    /// Creates a set from its bits.
    ///
    /// Corresponds to nothing in Core Data.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The property must hold a value (or, for a to-many relationship, at least one object) when
    /// its object is saved.
    ///
    /// Corresponds to clearing `NSPropertyDescription.isOptional`.
    public static let required = ManagedOptions(rawValue: 1 << 0)
    /// The property is kept in memory only and never saved to a store. A transient attribute of a
    /// Swift type no attribute type stores is `.undefined`.
    ///
    /// Corresponds to `NSPropertyDescription.isTransient`.
    public static let transient = ManagedOptions(rawValue: 1 << 1)
    /// No two objects of the entity (and its subentities) may hold the same value in the
    /// property: a uniqueness constraint on it alone. Constraints over several properties are
    /// named by ``EntityDeclaration/uniquenessConstraints``.
    ///
    /// Corresponds to an `NSEntityDescription.uniquenessConstraints` element of one property, or
    /// to SwiftData's `@Attribute(.unique)`; differences: as in Core Data, saving a duplicate
    /// throws ``PersistenceError/Code/constraintConflict`` under the default merge policy, where
    /// SwiftData updates the saved object with the new one's values (an upsert, what the
    /// trumping merge policies do here).
    public static let unique = ManagedOptions(rawValue: 1 << 2)
    /// The relationship has no inverse: the model made from classes looks for none, and no
    /// relationship of the destination may name it. Nothing keeps the destination side in step:
    /// see ``ManagedObjectModel/init(classes:fetchRequestTemplates:configurations:)``.
    ///
    /// Corresponds to a relationship whose inverse is "No Inverse" in Xcode's model editor
    /// (which warns about it).
    public static let noInverse = ManagedOptions(rawValue: 1 << 3)
    /// The SQL stores index the property's column, so that fetches filtering or sorting by it
    /// need not read every record: a fetch index named after the property plus `Index`, over it
    /// alone, ascending. Indexes over several properties are named by
    /// ``EntityDeclaration/indexes``.
    ///
    /// Corresponds to a one-element `NSFetchIndexDescription` (Xcode's "Indexed" checkbox of
    /// older models), or to SwiftData's `#Index` of one key path.
    public static let indexed = ManagedOptions(rawValue: 1 << 4)
}

extension Managed where Value: Sendable {
    /// Declares an attribute with what its Swift type cannot say, for models made from classes.
    ///
    /// The attribute type follows the Swift type (`Int` is `.integer64`) unless `type` names
    /// another; values (`defaultValue`, `minimum`, `maximum`) are of the property's type. Models
    /// written with ``Entity`` and ``Property`` or loaded from a model file ignore these
    /// arguments: there the model describes the property.
    ///
    /// ```swift
    /// final class Employee: ManagedObject {
    ///     @Managed(.required, minimum: 0, defaultValue: 0) var salary: Double
    ///     @Managed(minimumLength: 1, maximumLength: 60, renamingIdentifier: "title") var name: String?
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - options: ``ManagedOptions/required``, ``ManagedOptions/transient`` and
    ///     ``ManagedOptions/unique``.
    ///   - minimum: The smallest value allowed, for numbers and dates.
    ///   - maximum: The largest value allowed, for numbers and dates.
    ///   - minimumLength: The fewest characters (strings) or bytes (binary data) allowed.
    ///   - maximumLength: The most characters (strings) or bytes (binary data) allowed.
    ///   - pattern: A regular expression strings must match.
    ///   - defaultValue: The value a new object starts with.
    ///   - type: The attribute type, when it is not the one the Swift type maps to (`.integer16`
    ///     for an `Int`).
    ///   - transformer: The name of the ``ValueTransforming`` transformer that stores values of
    ///     any other Swift type; makes the attribute `.transformable`.
    ///   - renamingIdentifier: The attribute's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the attribute.
    ///
    /// Corresponds to the attribute inspector of Xcode's model editor, or to SwiftData's
    /// `@Attribute(…)`; differences: no macro, the declaration is read once per class by
    /// reflection.
    @inlinable
    public init(
        _ options: ManagedOptions = [], minimum: Value? = nil, maximum: Value? = nil, minimumLength: Int? = nil,
        maximumLength: Int? = nil, pattern: String? = nil, defaultValue: @autoclosure () -> Value? = nil, type: AttributeType? = nil,
        transformer: String? = nil, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: @autoclosure () -> [String: String] = [:]
    ) {
        // Inlined into the class's initializer and specialized there: an object made outside a
        // model reading (every object of a fetch) pays one atomic load, no generic call. The
        // arguments that would cost something to evaluate (a `userInfo` dictionary, a default
        // value, an inverse's key path) are autoclosures, evaluated only while recording.
        guard ManagedDeclarationRecorder.isRecording else {
            self.init()
            return
        }
        self.init(
            recording: options, minimum: minimum, maximum: maximum, minimumLength: minimumLength,
            maximumLength: maximumLength, pattern: pattern, defaultValue: defaultValue(), type: type,
            transformer: transformer, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier, userInfo: userInfo())
    }

    /// Records an attribute declaration while a model reader makes a prototype.
    @usableFromInline
    init(
        recording options: ManagedOptions, minimum: Value?, maximum: Value?, minimumLength: Int?,
        maximumLength: Int?, pattern: String?, defaultValue: Value?, type: AttributeType?,
        transformer: String?, renamingIdentifier: String?, versionHashModifier: String?,
        userInfo: [String: String]
    ) {
        self.init()
        index = ManagedDeclarationRecorder.record(
            ManagedDeclaration(
                options: options, renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
                userInfo: userInfo,
                kind: .attribute(
                    .init(
                        type: type, defaultValue: flattened(defaultValue), minimum: flattened(minimum),
                        maximum: flattened(maximum), minimumLength: minimumLength, maximumLength: maximumLength,
                        pattern: pattern, transformer: transformer))))
    }
}

extension Managed where Value: RelationshipValue {
    /// Declares a relationship and its inverse, for models made from classes.
    ///
    /// The destination and the kind follow the Swift type: `Department?` is to-one, `Set<Employee>`
    /// to-many, `[Employee]` ordered to-many. Name the inverse on one side or both; a relationship
    /// whose inverse neither side names makes the model throw ``ModelError/Code/missingInverse``,
    /// unless it is declared ``ManagedOptions/noInverse``.
    ///
    /// ```swift
    /// final class Department: ManagedObject {
    ///     @Managed(inverse: \Employee.department, deleteRule: .cascade) var employees: Set<Employee>
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - options: ``ManagedOptions/required``, ``ManagedOptions/transient`` and
    ///     ``ManagedOptions/unique`` (a to-one relationship).
    ///   - inverse: The relationship of the destination class that points back.
    ///   - deleteRule: What happens to the destination objects when the object is deleted.
    ///   - minCount: The fewest objects a to-many relationship may hold when saved.
    ///   - maxCount: The most objects a to-many relationship may hold when saved; nil for no limit.
    ///   - renamingIdentifier: The relationship's name in the previous model version, for migration.
    ///   - versionHashModifier: A string that changes the version hash without a schema change.
    ///   - userInfo: Your own information about the relationship.
    ///
    /// Corresponds to the relationship inspector of Xcode's model editor, or to SwiftData's
    /// `@Relationship(deleteRule:inverse:)`; differences: no macro, read once per class by
    /// reflection.
    @inlinable
    public init<Root: ManagedObject, Inverse>(
        _ options: ManagedOptions = [], inverse: @autoclosure () -> KeyPath<Root, Inverse>, deleteRule: DeleteRule = .nullify,
        minCount: Int = 0, maxCount: Int? = nil, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: @autoclosure () -> [String: String] = [:]
    ) {
        guard ManagedDeclarationRecorder.isRecording else {
            self.init()
            return
        }
        self.init(
            recording: options, inverse: inverse() as AnyKeyPath, deleteRule: deleteRule, minCount: minCount,
            maxCount: maxCount, renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
            userInfo: userInfo())
    }

    /// Records a relationship declaration while a model reader makes a prototype.
    @usableFromInline
    init(
        recording options: ManagedOptions, inverse: AnyKeyPath?, deleteRule: DeleteRule, minCount: Int,
        maxCount: Int?, renamingIdentifier: String?, versionHashModifier: String?, userInfo: [String: String]
    ) {
        self.init()
        index = ManagedDeclarationRecorder.record(
            ManagedDeclaration(
                options: options, renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
                userInfo: userInfo,
                kind: .relationship(.init(inverse: inverse, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount))))
    }

    /// Declares a relationship whose inverse the destination class names, for models made from
    /// classes.
    ///
    /// The parameters are those of ``init(_:inverse:deleteRule:minCount:maxCount:renamingIdentifier:versionHashModifier:userInfo:)``
    /// without the inverse. Declare a relationship that has none ``ManagedOptions/noInverse``:
    ///
    /// ```swift
    /// @Managed(.noInverse) var favorites: Set<Product>
    /// ```
    ///
    /// Corresponds to the relationship inspector of Xcode's model editor; differences: read once
    /// per class by reflection.
    @inlinable
    public init(
        _ options: ManagedOptions = [], deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int? = nil,
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil, userInfo: @autoclosure () -> [String: String] = [:]
    ) {
        guard ManagedDeclarationRecorder.isRecording else {
            self.init()
            return
        }
        self.init(
            recording: options, inverse: nil, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier, userInfo: userInfo())
    }
}

/// A value with its optionals flattened, so that `Int16?` declarations record plain `Int16`s.
private func flattened<Value: Sendable>(_ value: Value?) -> (any Sendable)? {
    guard let value else { return nil }
    guard let attributeValue = value as? any ManagedAttributeValue else { return value }
    return attributeValue.flattenedAttributeValue
}

/// The Swift types of attribute values, and optionals of them: what a declaration's values are.
protocol ManagedAttributeValue: Sendable {
    /// The value, or the value an optional wraps; nil for an empty optional.
    var flattenedAttributeValue: (any Sendable)? { get }
}

extension ManagedAttributeValue {
    var flattenedAttributeValue: (any Sendable)? { self }
}

extension Optional: ManagedAttributeValue where Wrapped: ManagedAttributeValue {
    var flattenedAttributeValue: (any Sendable)? {
        guard case .some(let wrapped) = self else { return nil }
        return wrapped.flattenedAttributeValue
    }
}

extension Int: ManagedAttributeValue {}
extension Int16: ManagedAttributeValue {}
extension Int32: ManagedAttributeValue {}
extension Int64: ManagedAttributeValue {}
extension Double: ManagedAttributeValue {}
extension Float: ManagedAttributeValue {}
extension Decimal: ManagedAttributeValue {}
extension Bool: ManagedAttributeValue {}
extension String: ManagedAttributeValue {}
extension Date: ManagedAttributeValue {}
extension Data: ManagedAttributeValue {}
extension UUID: ManagedAttributeValue {}
extension URL: ManagedAttributeValue {}

/// What a ``Managed`` declaration says besides its name and type: its arguments.
struct ManagedDeclaration: @unchecked Sendable {
    // SAFETY: every field is a `Sendable` value but `inverse`, a key path: an immutable object
    // that the reader only applies to prototypes, under `ManagedDeclarationRecorder`'s lock.
    struct AttributeArguments {
        var type: AttributeType?
        var defaultValue: (any Sendable)?
        var minimum: (any Sendable)?
        var maximum: (any Sendable)?
        var minimumLength: Int?
        var maximumLength: Int?
        var pattern: String?
        var transformer: String?
    }

    struct RelationshipArguments {
        var inverse: AnyKeyPath?
        var deleteRule: DeleteRule
        var minCount: Int
        var maxCount: Int?
    }

    enum Kind {
        case attribute(AttributeArguments)
        case relationship(RelationshipArguments)
    }

    var options: ManagedOptions
    var renamingIdentifier: String?
    var versionHashModifier: String?
    var userInfo: [String: String]
    var kind: Kind
}

/// Collects the arguments of ``Managed`` declarations while the model reader makes the
/// prototype of a class.
///
/// A wrapper holds one small integer, its property slot, so a declaration cannot keep its arguments:
/// while a prototype is made, each declaring initializer records them here and leaves their
/// number, as a negative index, in the wrapper, where the reader finds it. Outside of that, the
/// initializers cost one atomic load.
///
/// The slot's byte holds at most ``window`` numbers: a class whose declarations are more is
/// read in several passes, each recording the next ``window`` declarations in the order their
/// initializers run (always the same) and leaving the others unnumbered.
@usableFromInline
enum ManagedDeclarationRecorder {
    /// How many declarations one pass numbers: as many as the slot's negative values.
    static let window = -Int(Int8.min)

    /// The declarations of the pass, and where the pass stands.
    private struct Pass {
        var declarations: [ManagedDeclaration] = []
        /// The number, in initializer order, of the first declaration the pass records.
        var first = 0
        /// How many declaring initializers ran.
        var seen = 0
        /// Whether a declaration past the window ran unrecorded.
        var skipped = false
    }

    /// The number of readings in progress. Read inline by every declaring initializer (see
    /// `isRecording`): a call into this module per wrapper costs more than the load itself,
    /// and an object of a subclass runs one per declared argument list.
    @usableFromInline static let recordingCount = Atomic<Int>(0)
    private static let pass = Mutex<Pass>(Pass())
    /// One reading at a time: declarations are numbered per reading.
    private static let readingLock = Mutex<Void>(())

    /// Whether a reader is making prototypes.
    @inlinable @inline(__always)
    static var isRecording: Bool { recordingCount.load(ordering: .relaxed) > 0 }

    /// Keeps `declaration` when it is in the pass's window and returns the index its wrapper
    /// holds: -2 for the window's first, -3 for the next; -1 (the index of a wrapper not
    /// resolved yet) for a declaration outside it.
    static func record(_ declaration: ManagedDeclaration) -> Int {
        pass.withLock { pass in
            let number = pass.seen
            pass.seen += 1
            guard number >= pass.first else { return -1 }
            guard pass.declarations.count < window else {
                pass.skipped = true
                return -1
            }
            pass.declarations.append(declaration)
            return -1 - pass.declarations.count
        }
    }

    /// The declaration whose index a prototype's wrapper holds; nil for a plain `@Managed`, or
    /// one outside the pass's window.
    static func declaration(atIndex index: Int) -> ManagedDeclaration? {
        let position = -2 - index
        return pass.withLock { $0.declarations.indices.contains(position) ? $0.declarations[position] : nil }
    }

    /// Runs `body` while the declarations numbered `first` to `first + window - 1` (in
    /// initializer order) are recorded, then forgets them; also answers whether declarations
    /// past them ran (another pass, from `first + window`, records those).
    static func recording<Result: Sendable>(
        from first: Int = 0, _ body: () throws -> Result
    ) throws -> (result: Result, skipped: Bool) {
        try readingLock.withLock { _ in
            pass.withLock { $0 = Pass(first: first) }
            recordingCount.add(1, ordering: .sequentiallyConsistent)
            defer {
                recordingCount.subtract(1, ordering: .sequentiallyConsistent)
                pass.withLock { $0 = Pass() }
            }
            let result = try body()
            return (result, pass.withLock { $0.skipped })
        }
    }
}
