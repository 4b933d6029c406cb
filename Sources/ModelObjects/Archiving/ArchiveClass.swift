/// A class that secure decoding allows in an archive: one of Foundation's container classes or
/// a model class (with its subclasses).
///
/// ```swift
/// let department = try KeyedUnarchiver.unarchivedObject(
///     ofClasses: [.class(Department.self), .class(Employee.self), .array], from: data)
/// ```
///
/// Foundation's value classes (strings, numbers, decimals, dates, data, UUIDs, URLs, `NSNull`
/// and `NSValue` geometry) are always allowed: decoding them runs no class's code and gives a
/// Swift value.
///
/// Corresponds to the class list of Cocoa's `+[NSKeyedUnarchiver
/// unarchivedObjectOfClasses:fromData:error:]`; differences: Foundation's value classes need
/// not be named.
public struct ArchiveClass: Hashable, Sendable, CustomStringConvertible {
    /// The archived class names a Foundation container covers (its mutable and counted kinds,
    /// as `isKindOfClass:` does); empty for a model class.
    let foundationNames: [String]
    /// The model class, by identity.
    let codingClass: ObjectIdentifier?
    /// The class's name: Foundation's, or the Swift class's module-qualified name.
    public let name: String

    /// `NSArray` and `NSMutableArray` (decoded as arrays).
    public static let array = ArchiveClass(foundationNames: ["NSArray", "NSMutableArray"])
    /// `NSSet`, `NSMutableSet` and `NSCountedSet`, which Foundation counts as a kind of set.
    public static let set = ArchiveClass(foundationNames: ["NSSet", "NSMutableSet", "NSCountedSet"])
    /// `NSCountedSet` alone (decoded as a ``CountedSet``).
    public static let countedSet = ArchiveClass(foundationNames: ["NSCountedSet"])
    /// `NSOrderedSet` and `NSMutableOrderedSet` (decoded as arrays).
    public static let orderedSet = ArchiveClass(foundationNames: ["NSOrderedSet", "NSMutableOrderedSet"])
    /// `NSDictionary` and `NSMutableDictionary`.
    public static let dictionary = ArchiveClass(foundationNames: ["NSDictionary", "NSMutableDictionary"])

    /// A model class (or any class adopting ``Coding``) and its subclasses.
    ///
    /// Corresponds to naming a class in Cocoa's allowed classes, which `isKindOfClass:` checks.
    public static func `class`(_ type: any Coding.Type) -> ArchiveClass {
        ArchiveClass(foundationNames: [], codingClass: ObjectIdentifier(type), name: String(reflecting: type))
    }

    private init(foundationNames: [String]) {
        self.init(foundationNames: foundationNames, codingClass: nil, name: foundationNames[0])
    }

    private init(foundationNames: [String], codingClass: ObjectIdentifier?, name: String) {
        self.foundationNames = foundationNames
        self.codingClass = codingClass
        self.name = name
    }

    /// The class's name.
    public var description: String { name }

    /// Foundation's container classes: never decoded unless allowed.
    static let containerNames: Set<String> = Set(
        [array, set, orderedSet, dictionary].flatMap(\.foundationNames))
}

/// An unarchiver's allowed classes, ready for the check made before each class is used.
struct AllowedClasses {
    private let foundationNames: Set<String>
    private let codingClasses: Set<ObjectIdentifier>
    /// The names, sorted, for error messages.
    let names: [String]

    init(_ classes: Set<ArchiveClass>) {
        foundationNames = Set(classes.flatMap(\.foundationNames))
        codingClasses = Set(classes.compactMap(\.codingClass))
        names = classes.map(\.name).sorted()
    }

    /// Whether an object of the class an archive names may be created: a coding class that is
    /// or inherits from an allowed one, an allowed container, or a value class. Names that are
    /// none of these (unknown classes) are left for the reader to report.
    func allows(className: String, codingClass: (any Coding.Type)?) -> Bool {
        if let codingClass {
            var current: AnyClass? = codingClass
            while let each = current {
                if codingClasses.contains(ObjectIdentifier(each)) { return true }
                current = _getSuperclass(each)
            }
            return false
        }
        return !ArchiveClass.containerNames.contains(className) || foundationNames.contains(className)
    }
}
