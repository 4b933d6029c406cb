import Foundation

/// An error thrown while making a managed object model: an inconsistent description (a
/// relationship to an unknown entity, an inverse that does not point back, a property declared
/// twice, a cycle of superentities) or a model file that cannot be read.
///
/// The error names what is wrong: ``entityName`` and ``propertyName`` for the description, and
/// ``fileURL`` and ``line`` for a file.
///
/// ```swift
/// do { model = try ManagedObjectModel(contentsOf: url) }
/// catch ModelError.Code.unknownDestination { … }
/// catch let error as ModelError { print(error) }   // ModelError.malformedModelFile [file …:12]: …
/// ```
///
/// Corresponds to Core Data's `NSInternalInconsistencyException` raised for an inconsistent
/// `NSManagedObjectModel`, and to the Cocoa file-reading errors for a model file; differences:
/// it is thrown, never raised, and has its own domain with small codes.
public struct ModelError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure. New codes may be added; switch with a `default` case.
    ///
    /// Corresponds to nothing in Core Data, which raises exceptions with messages instead;
    /// differences: a code per kind of inconsistency so callers can match them.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the code.
        ///
        /// Corresponds to `NSError.code`.
        public var rawValue: Int
        /// Creates a code from its numeric value.
        ///
        /// Corresponds to nothing in Core Data.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A relationship's destination names no entity of the model.
        ///
        /// Corresponds to Core Data's exception for a relationship without a destination entity.
        public static let unknownDestination = Code(rawValue: 1)
        /// A relationship's inverse names no relationship of the destination entity.
        ///
        /// Corresponds to Xcode's "inverse relationship not found" model error.
        public static let unknownInverse = Code(rawValue: 2)
        /// A relationship's inverse does not point back at it: it names no inverse, or another one.
        ///
        /// Corresponds to Xcode's "misconfigured inverse" model warning; differences: an error here.
        public static let inverseMismatch = Code(rawValue: 3)
        /// An entity declares a property twice, or redeclares one it inherits.
        ///
        /// Corresponds to Core Data's exception for a property name used twice in an entity.
        public static let duplicateProperty = Code(rawValue: 4)
        /// Two entities of the model have the same name.
        ///
        /// Corresponds to Core Data's exception for an entity name used twice in a model.
        public static let duplicateEntity = Code(rawValue: 5)
        /// An entity's superentity names no entity of the model.
        ///
        /// Corresponds to Xcode's "parent entity not found" model error.
        public static let unknownSuperentity = Code(rawValue: 6)
        /// An entity is its own superentity, directly or through others.
        ///
        /// Corresponds to Core Data's exception for an entity that is its own superentity.
        public static let inheritanceCycle = Code(rawValue: 7)
        /// A name is empty, or contains a character a key cannot hold (`.`, `@`, white space).
        ///
        /// Corresponds to Xcode's model validation of names.
        public static let invalidName = Code(rawValue: 8)
        /// An attribute's type is unknown, or not allowed where it is used (undefined for a
        /// non-transient attribute).
        ///
        /// Corresponds to Core Data's exception for an undefined attribute type on a persistent attribute.
        public static let unsupportedAttributeType = Code(rawValue: 9)
        /// A default value is not a value of the attribute's type.
        ///
        /// Corresponds to Core Data's exception for a default value of the wrong class.
        public static let invalidDefaultValue = Code(rawValue: 10)
        /// A validation constraint cannot hold: a minimum above its maximum, a constraint on a type
        /// it does not apply to, a regular expression that does not compile, a negative count; or
        /// a uniqueness constraint that names no property, a property twice, one the entity does
        /// not have, or a transient or to-many one (or, in a class's ``EntityDeclaration``, a key
        /// path that reads no single `@Managed` property).
        ///
        /// Corresponds to Xcode's model validation of constraints.
        public static let invalidConstraint = Code(rawValue: 11)
        /// The model file or bundle does not exist, cannot be read, or is not a kind of model file
        /// this library reads.
        ///
        /// Corresponds to `NSFileReadNoSuchFileError` (260) for model files.
        public static let unknownFile = Code(rawValue: 12)
        /// The model file is not well-formed XML, or not the XML Xcode writes for a model.
        ///
        /// Corresponds to `NSFileReadCorruptFileError` (259) for model files.
        public static let malformedModelFile = Code(rawValue: 13)
        /// A versioned model bundle (`.xcdatamodeld`) names no current version and holds several,
        /// or names a version it does not hold.
        ///
        /// Corresponds to a `.momd` whose `VersionInfo.plist` names no current model.
        public static let unknownModelVersion = Code(rawValue: 14)
        /// A fetch request template or configuration names no entity of the model.
        ///
        /// Corresponds to Core Data's exception for a fetch request or configuration naming an
        /// unknown entity.
        public static let unknownEntity = Code(rawValue: 15)

        /// A typed fetch request names an entity none of whose objects (its own or its
        /// subentities') can be of the request's type.
        ///
        /// Corresponds to nothing in Core Data, where the cast of the results fails at run time.
        public static let entityClassMismatch = Code(rawValue: 16)

        /// A ``Managed`` property of a class a model is made from has a Swift type no attribute
        /// type or relationship holds, attribute arguments on a relationship, or
        /// ``ManagedOptions/noInverse`` on an attribute.
        ///
        /// Corresponds to SwiftData's error for a `@Model` property of an unsupported type.
        public static let unsupportedPropertyType = Code(rawValue: 17)
        /// A relationship of a class a model is made from names no inverse, and no relationship
        /// of its destination names it, and it is not declared ``ManagedOptions/noInverse``.
        ///
        /// Corresponds to Xcode's "has no inverse" model warning; differences: an error here.
        public static let missingInverse = Code(rawValue: 18)
        /// A relationship of a class a model is made from leads to a class that is not among the
        /// model's classes but is the superclass of several of them (or is ``ManagedObject``).
        ///
        /// Corresponds to nothing in Core Data, whose relationships name their destination entity.
        public static let ambiguousDestination = Code(rawValue: 19)

        /// The constant's name (`"inverseMismatch"`), or `"code N"` for an unknown code.
        ///
        /// Corresponds to nothing in Cocoa, whose codes are bare numbers.
        public var description: String {
            switch self {
            case .unknownDestination: "unknownDestination"
            case .unknownInverse: "unknownInverse"
            case .inverseMismatch: "inverseMismatch"
            case .duplicateProperty: "duplicateProperty"
            case .duplicateEntity: "duplicateEntity"
            case .unknownSuperentity: "unknownSuperentity"
            case .inheritanceCycle: "inheritanceCycle"
            case .invalidName: "invalidName"
            case .unsupportedAttributeType: "unsupportedAttributeType"
            case .invalidDefaultValue: "invalidDefaultValue"
            case .invalidConstraint: "invalidConstraint"
            case .unknownFile: "unknownFile"
            case .malformedModelFile: "malformedModelFile"
            case .unknownModelVersion: "unknownModelVersion"
            case .unknownEntity: "unknownEntity"
            case .entityClassMismatch: "entityClassMismatch"
            case .unsupportedPropertyType: "unsupportedPropertyType"
            case .missingInverse: "missingInverse"
            case .ambiguousDestination: "ambiguousDestination"
            default: "code \(rawValue)"
            }
        }

        /// Matches a thrown error against a code: `catch ModelError.Code.inverseMismatch`.
        ///
        /// Corresponds to matching `NSError.code` in a `catch`; differences: also checks the type.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ModelError)?.code == code
        }
    }

    /// What went wrong.
    ///
    /// Corresponds to `NSError.code`.
    public var code: Code
    /// The entity involved, when there is one.
    ///
    /// Corresponds to the entity named in the message of Core Data's exception.
    public var entityName: String?
    /// The property involved, when there is one.
    ///
    /// Corresponds to the property named in the message of Core Data's exception.
    public var propertyName: String?
    /// The model file involved, for errors while loading one.
    ///
    /// Corresponds to `NSURLErrorKey` in the error's userInfo.
    public var fileURL: URL?
    /// The line of the model file where the problem was found, when known.
    ///
    /// Corresponds to `XMLParser.lineNumber` at the failure.
    public var line: Int?
    /// A readable explanation naming what was found and what was expected.
    ///
    /// Corresponds to `NSLocalizedDescriptionKey` in the error's userInfo.
    public var message: String
    /// The error that caused this one, such as the XML parser's.
    ///
    /// Corresponds to `NSUnderlyingErrorKey` in the error's userInfo.
    public var underlyingError: (any Error)?

    /// Creates an error.
    ///
    /// Corresponds to `NSError(domain:code:userInfo:)`.
    public init(
        _ code: Code, entity: String? = nil, property: String? = nil, file: URL? = nil,
        line: Int? = nil, message: String, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.entityName = entity
        self.propertyName = property
        self.fileURL = file
        self.line = line
        self.message = message
        self.underlyingError = underlyingError
    }

    /// The code, the entity and property, the file and line, and the message:
    /// `ModelError.unknownDestination [Department.employees]: destination entity 'Employe' is …`.
    ///
    /// Corresponds to `NSError.localizedDescription`; differences: names the code and context.
    public var description: String {
        var text = "ModelError.\(code)"
        switch (entityName, propertyName) {
        case let (entity?, property?): text += " [\(entity).\(property)]"
        case let (entity?, nil): text += " [\(entity)]"
        case let (nil, property?): text += " [.\(property)]"
        case (nil, nil): break
        }
        if let fileURL {
            text += " [file \(fileURL.path)"
            if let line { text += ":\(line)" }
            text += "]"
        }
        return text + ": \(message)"
    }
}

extension ModelError: CustomNSError, LocalizedError {
    /// The error domain, `"ModelObjects.ModelError"`.
    ///
    /// Corresponds to `NSError.domain`; differences: this library's own domain.
    public static var errorDomain: String { "ModelObjects.ModelError" }

    /// The code's number.
    ///
    /// Corresponds to `NSError.code`.
    public var errorCode: Int { code.rawValue }

    /// The description under `NSLocalizedDescriptionKey`, the file under `NSFilePathErrorKey` and
    /// `NSURLErrorKey`, and the underlying error under `NSUnderlyingErrorKey`.
    ///
    /// Corresponds to `NSError.userInfo`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let fileURL {
            info[NSFilePathErrorKey] = fileURL.path
            info[NSURLErrorKey] = fileURL
        }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }

    /// The same text as ``description``.
    ///
    /// Corresponds to `NSError.localizedDescription`.
    public var errorDescription: String? { description }
}
