import Foundation

/// The base class of model objects: its declared properties are reachable by string key
/// (key-value coding) and observable (key-value observing).
///
/// Declare each key-value-compliant property with a property wrapper; the Swift name is the key:
/// ```swift
/// final class Employee: ModelObject {
///     @Attribute var firstName = ""
///     @Attribute var salary = 0.0
///     @Relationship var department: Department?
///     @Derived("firstName", "lastName", compute: { (e: Employee) in "\(e.firstName) \(e.lastName)" })
///     var fullName: String
/// }
/// let employee = Employee()
/// try employee.setValue("Ada", forKey: "firstName")
/// try employee.value(forKeyPath: "department.name")
/// ```
/// Subclasses inherit and extend the keys of their superclasses, to any depth.
///
/// Model objects are equal only to themselves and hash by identity, so they can live in sets
/// (unordered to-many relationships).
///
/// Corresponds to Cocoa's `NSObject` with its `NSKeyValueCoding` and `NSKeyValueObserving`
/// categories. Differences: every method throws where Cocoa raises an exception; keys are the
/// declared properties (there is no search for methods or instance variables by name).
///
/// A model object and its graph belong to one isolation domain: the class is not `Sendable`.
open class ModelObject: Hashable, CustomStringConvertible {
    /// The class's keys, or the observation state, which holds them: one word for both, for
    /// every object carries it (a fetch makes a million of them) and few are ever observed.
    @exclusivity(unchecked) @usableFromInline
    package final var keysAndObservers: KeysAndObservers

    /// The keys of this object's class; shared by all its instances. A read takes a reference;
    /// hot paths borrow the table through ``withPropertyTable(_:)`` instead.
    @inlinable
    package final var propertyTable: PropertyTable {
        @inline(__always) get { keysAndObservers.table.takeUnretainedValue() }
    }

    /// Calls `body` with the keys of this object's class, borrowed without reference counting
    /// (tables live for the life of the process).
    @inlinable @inline(__always)
    package final func withPropertyTable<Result>(_ body: (PropertyTable) throws -> Result) rethrows -> Result {
        try keysAndObservers.table._withUnsafeGuaranteedRef(body)
    }

    /// Observers of this object and pending changes; nil while nobody observes it, which is what
    /// keeps a typed set as cheap as a plain stored property.
    @inlinable
    package final var observationState: ObservationState? {
        @inline(__always) get { keysAndObservers.state?.takeUnretainedValue() }
        set {
            let old = keysAndObservers
            if let newValue {
                keysAndObservers = KeysAndObservers(retainedState: Unmanaged.passRetained(newValue))
            } else {
                keysAndObservers = KeysAndObservers(keys: old.table)
            }
            old.state?.release()
        }
    }

    /// Whether the object has an observation state (`observationState != nil`), without
    /// taking a reference to it.
    @inlinable
    package final var hasObservationState: Bool {
        @inline(__always) get { keysAndObservers.isObserved }
    }

    /// Creates an object whose properties hold their declared initial values.
    ///
    /// Corresponds to `-[NSObject init]`.
    public required init() {
        let table = PropertyTable.unretainedTable(for: Self.self)
        keysAndObservers = KeysAndObservers(keys: table)
        table._withUnsafeGuaranteedRef { $0.recordDependencies(from: self) }
    }

    deinit {
        observationState?.objectWillDeinitialize(self)
        keysAndObservers.state?.release()
    }

    // MARK: - Identity

    /// Model objects are equal only when they are the same object.
    public static func == (lhs: ModelObject, rhs: ModelObject) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The class name and the object's address, as Cocoa's `-description` prints by default.
    open var description: String {
        "<\(String(reflecting: type(of: self))): 0x\(String(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()), radix: 16))>"
    }

    // MARK: - Key-value coding hooks

    /// Returns the value of the property named by `key`.
    ///
    /// Declared properties answer directly; any other key goes to
    /// ``value(forUndefinedKey:)``. Optional properties holding nil return nil.
    ///
    /// - Throws: ``KeyValueCodingError`` with code ``KeyValueCodingError/Code/undefinedKey``
    ///   from the default ``value(forUndefinedKey:)``.
    /// - Complexity: One hash lookup.
    ///
    /// Corresponds to `-[NSObject valueForKey:]`; differences: values are Swift values (`Double`,
    /// `CGRect`), not `NSNumber`/`NSValue`; it throws instead of raising; it cannot be overridden
    /// (override ``value(forUndefinedKey:)`` to answer extra keys), so key paths, collection
    /// operators and archiving, which read declared properties directly, always agree with it.
    public final func value(forKey key: String) throws -> Any? {
        if let value = withPropertyTable({ table in table.withDescriptor(forKey: key, { $0.value(in: self) }) }) { return value }
        return try value(forUndefinedKey: key)
    }

    /// Sets the property named by `key`, converting the value when no information is lost and
    /// notifying observers.
    ///
    /// Nil for a property that cannot hold nil calls ``setNilValueForKey(_:)``; an undeclared
    /// key calls ``setValue(_:forUndefinedKey:)``.
    ///
    /// - Throws: ``KeyValueCodingError`` with code ``KeyValueCodingError/Code/typeMismatch``
    ///   when the value cannot be converted (the object is left unchanged),
    ///   ``KeyValueCodingError/Code/undefinedKey`` or ``KeyValueCodingError/Code/readOnlyKey``
    ///   from ``setValue(_:forUndefinedKey:)``, or what ``setNilValueForKey(_:)`` throws.
    ///
    /// Corresponds to `-[NSObject setValue:forKey:]`; differences: conversions are lossless only
    /// (a `String` never becomes a number, 2.5 never becomes an `Int`); it cannot be overridden
    /// (override ``setValue(_:forUndefinedKey:)`` to accept extra keys).
    public final func setValue(_ value: Any?, forKey key: String) throws {
        if try withPropertyTable({ table in try table.withDescriptor(forKey: key, { try $0.setValue(value, in: self) }) }) != nil {
            return
        }
        try setValue(value, forUndefinedKey: key)
    }

    /// Called by ``value(forKey:)`` for a key the class does not declare. Override it to answer
    /// extra keys and call `super` for the others.
    ///
    /// The default answers a key served by the class's ``collectionAccessors(forKey:)`` with
    /// the elements they read (an array for ordered accessors, a set for unordered ones), and
    /// throws for any other key.
    ///
    /// - Throws: ``KeyValueCodingError/Code/undefinedKey``, or what the accessors throw.
    ///
    /// Corresponds to `-[NSObject valueForUndefinedKey:]`, which raises `NSUnknownKeyException`,
    /// together with the step of `-valueForKey:`'s search that finds `countOf<Key>` and
    /// `objectIn<Key>AtIndex:` (or `enumeratorOf<Key>` and `memberOf<Key>:`); differences: that
    /// step comes after an override of this method rather than before it.
    open func value(forUndefinedKey key: String) throws -> Any? {
        if let accessors = type(of: self).collectionAccessors(forKey: key), !accessors.isFrameworkDefault,
           let value = try accessors.readValue(of: self) {
            return value
        }
        throw KeyValueCodingError.undefined(key, in: self)
    }

    /// Called by ``setValue(_:forKey:)`` for a key the class does not declare or cannot set.
    /// Override it to accept extra keys; the default throws.
    ///
    /// - Throws: ``KeyValueCodingError/Code/readOnlyKey`` for a derived key and for a key served
    ///   by read-only ``collectionAccessors(forKey:)``,
    ///   ``KeyValueCodingError/Code/undefinedKey`` otherwise.
    ///
    /// Corresponds to `-[NSObject setValue:forUndefinedKey:]`.
    open func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        if let descriptor = propertyTable.descriptor(forKey: key), descriptor.isReadOnly {
            throw KeyValueCodingError(
                .readOnlyKey, key: key, className: String(reflecting: type(of: self)),
                message: "the key '\(key)' is derived and cannot be set")
        }
        if let accessors = type(of: self).collectionAccessors(forKey: key), !accessors.isFrameworkDefault,
           accessors.isReadOnly {
            throw KeyValueCodingError(
                .readOnlyKey, key: key, className: String(reflecting: type(of: self)),
                message: "the key '\(key)' has collection accessors for reading only and cannot be set")
        }
        throw KeyValueCodingError.undefined(key, in: self)
    }

    /// Called by ``setValue(_:forKey:)`` when nil is given for a property that cannot hold nil (a
    /// scalar, a struct or any other non-optional type). Override it to map nil to a value:
    /// ```swift
    /// override func setNilValueForKey(_ key: String) throws {
    ///     if key == "salary" { salary = 0 } else { try super.setNilValueForKey(key) }
    /// }
    /// ```
    /// - Throws: ``KeyValueCodingError/Code/nilValueForNonOptional`` by default.
    ///
    /// Corresponds to `-[NSObject setNilValueForKey:]`, which raises `NSInvalidArgumentException`.
    open func setNilValueForKey(_ key: String) throws {
        throw KeyValueCodingError(
            .nilValueForNonOptional, key: key, className: String(reflecting: type(of: self)),
            message: "nil cannot be set for the non-optional key '\(key)'")
    }

    /// The collection accessors a class provides for a to-many key, which mutable collection
    /// proxies call instead of replacing the whole collection.
    ///
    /// Override it to return ``CollectionAccessors/ordered(count:objectAt:insert:remove:replace:)``
    /// or ``CollectionAccessors/unordered(members:addObject:removeObject:add:remove:intersect:)``
    /// for the key, or the read-only ``CollectionAccessors/ordered(count:objectAt:)`` and
    /// ``CollectionAccessors/unordered(count:enumerator:member:)``; call `super` for other keys.
    /// A key the class does not declare but serves with accessors that read is answered by
    /// ``value(forKey:)`` too (through the default ``value(forUndefinedKey:)``), so key paths
    /// and collection operators reach it.
    ///
    /// Corresponds to Cocoa's search for `countOf<Key>`, `objectIn<Key>AtIndex:`,
    /// `enumeratorOf<Key>`, `memberOf<Key>:`, `insertObject:in<Key>AtIndex:`,
    /// `removeObjectFrom<Key>AtIndex:`, `add<Key>Object:` and their relatives.
    open class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        nil
    }

    // MARK: - Validation hooks

    /// The validator of `key`, the Swift counterpart of a `validate<Key>:error:` method: override
    /// it to return a ``KeyValueValidator`` for your keys and call `super` for the others.
    ///
    /// ```swift
    /// override class func validator(forKey key: String) -> KeyValueValidator? {
    ///     switch key {
    ///     case "age":
    ///         return KeyValueValidator { (_: Employee, age: inout Int?) in
    ///             if let value = age, value <= 0 {
    ///                 throw ValidationError(key: "age", value: value, message: "Age must be greater than zero")
    ///             }
    ///         }
    ///     default:
    ///         return super.validator(forKey: key)
    ///     }
    /// }
    /// ```
    ///
    /// Corresponds to Cocoa's search for `validate<Key>:error:`.
    open class func validator(forKey key: String) -> KeyValueValidator? {
        nil
    }

    /// Validates a proposed value for `key` with the key's validator, which may replace it
    /// (coercion) or throw. Keys without a validator pass.
    ///
    /// A validator that calls `validateValue` for its own key on the same object is not run
    /// again (Cocoa loops forever there).
    ///
    /// - Throws: ``ValidationError``: the validator's own, or one with code
    ///   ``ValidationError/Code/keyValueValidation`` wrapping any other error it throws.
    ///
    /// Corresponds to `-[NSObject validateValue:forKey:error:]`.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        guard let validator = type(of: self).validator(forKey: key) else { return }
        try runValidator(validator, value: &value, forKey: key)
    }

    /// Checks the object before it is first saved; by default the same checks as
    /// ``validateForUpdate()``. Overrides call `super` first and add their own failures.
    ///
    /// - Throws: ``ValidationError``, with every failure (code
    ///   ``ValidationError/Code/multipleErrors`` when there are several).
    ///
    /// Corresponds to `-[NSManagedObject validateForInsert:]`.
    open func validateForInsert() throws {
        try validateAllProperties()
    }

    /// Checks the object's current values: every declared property's validator runs, and every
    /// failure is reported, not only the first. Overrides call `super` first and add
    /// inter-property checks (see ``ValidationError/combining(_:)``).
    ///
    /// - Throws: ``ValidationError``, with every failure (code
    ///   ``ValidationError/Code/multipleErrors`` when there are several).
    ///
    /// Corresponds to `-[NSManagedObject validateForUpdate:]`, which the Model Object
    /// Implementation Guide suggests co-opting for plain model objects.
    open func validateForUpdate() throws {
        try validateAllProperties()
    }

    /// Checks that the object may be deleted; the default allows it.
    ///
    /// Corresponds to `-[NSManagedObject validateForDelete:]`.
    open func validateForDelete() throws {}

    // MARK: - Copying hooks

    /// Returns a copy: a new instance of the same class whose attributes are copied (through
    /// ``dictionaryWithValues(forKeys:)`` and ``setValuesForKeys(_:)``, the seed's "cheap" copy)
    /// and whose relationships point at the same objects. Override it to change what a copy
    /// means for your class; start from `super.copy()`.
    ///
    /// Corresponds to `-[NSObject copy]` with an `NSCopying` implementation.
    open func copy() -> Self {
        let copy = type(of: self).init()
        copyValues(into: copy)
        return copy
    }

    /// Whether ``deepCopy()`` copies the objects related through `key` (the object owns them)
    /// rather than sharing them. The default owns nothing; a department might own its employees.
    open class func ownsRelatedObjects(forKey key: String) -> Bool {
        false
    }

    // MARK: - Codable hooks

    /// How encoding writes the objects of the relationship `key`: ``RelationshipCoding/nested``
    /// inside this object, or as ``RelationshipCoding/reference``s to where the graph writes them.
    /// The default follows ``ownsRelatedObjects(forKey:)``: nested for the objects this class
    /// owns, references for the others.
    ///
    /// Corresponds to nothing in Cocoa, whose keyed archives always refer to objects by number.
    open class func relationshipCoding(forKey key: String) -> RelationshipCoding {
        ownsRelatedObjects(forKey: key) ? .nested : .reference
    }

    // MARK: - Archiving hooks

    /// The version of the class's archived form, recorded in archives; an `init(coder:)` reads
    /// the version an archive was written with from ``Coder/version(forClassName:)``.
    ///
    /// Corresponds to `+[NSObject version]` (set with `+setVersion:` in Cocoa; override it here).
    open class var version: Int { 0 }

    /// Writes the object to an archive. The default encodes every declared attribute and
    /// relationship under its key (keyed archives) or in declaration order (sequential
    /// archives); related objects are archived too, once each, cycles included.
    ///
    /// Override it to choose your own keys (then override ``init(coder:)`` to match):
    /// ```swift
    /// override func encode(with coder: Coder) {
    ///     coder.encode(firstName, forKey: "First")
    ///     coder.encode(employeeID, forKey: "EmpID")
    /// }
    /// ```
    ///
    /// Corresponds to `-[NSCoding encodeWithCoder:]`.
    open func encode(with coder: Coder) {
        coder.encodeDeclaredProperties(of: self)
    }

    /// Creates an object from an archive. The default reads back what the default
    /// ``encode(with:)`` wrote; keys missing from the archive keep their initial values.
    ///
    /// An override calls `super.init(coder:)` first, then decodes its own keys. References back
    /// to the object being decoded (a department's employees pointing at their department)
    /// resolve to it.
    ///
    /// - Throws: ``ArchiveError`` when the archive is corrupt or a value has the wrong type.
    ///
    /// Corresponds to `-[NSCoding initWithCoder:]`.
    public required init(coder: Coder) throws {
        let table = PropertyTable.unretainedTable(for: Self.self)
        keysAndObservers = KeysAndObservers(keys: table)
        table._withUnsafeGuaranteedRef { $0.recordDependencies(from: self) }
        coder.objectDidBeginDecoding(self)
        try coder.decodeDeclaredProperties(of: self)
    }

    // MARK: - Observation hooks

    /// Whether reading this class's declared properties inside the Observation framework's
    /// `withObservationTracking` registers them, so that the tracking hears their changes.
    /// True by default, as for an `@Observable` class: override it to return false to keep a
    /// class's reads out of every tracking, so that its objects never call a tracking's
    /// `onChange` (key-value observers are not affected).
    ///
    /// ```swift
    /// final class Employee: ModelObject {
    ///     @Attribute var salary = 0.0
    /// }
    /// withObservationTracking { _ = employee.salary } onChange: { print("salary changed") }
    /// ```
    ///
    /// Outside tracking scopes a typed getter only checks the thread's tracking pointer (see
    /// the Performance article) and registers nothing, whatever the class answers. Reads by
    /// key (``value(forKey:)``) do not register. Read once per class, when its first instance
    /// is made.
    ///
    /// Corresponds to the `@Observable` macro's access tracking; answering false corresponds to
    /// marking every property `@ObservationIgnored`.
    open class var tracksObservationAccess: Bool {
        true
    }

    // MARK: - Key-value observing hooks

    /// Whether setting `key` through its property or key-value coding notifies observers by
    /// itself. Return false for keys whose setters call ``willChangeValue(forKey:)`` and
    /// ``didChangeValue(forKey:)`` themselves; call `super` for other keys.
    ///
    /// For a declared property the answer is asked once per class and key, at the first set
    /// that has observers or trackings to notify, and kept: it must not change over the
    /// class's life (Cocoa too decides once per class, when it first observes a key).
    ///
    /// Corresponds to `+[NSObject automaticallyNotifiesObserversForKey:]`.
    open class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        true
    }

    /// The key paths whose values affect the value of `key`: observers of `key` are notified
    /// when any of them changes. Override it and add to what `super` returns.
    ///
    /// The default returns the dependencies declared with ``Derived`` and those registered with
    /// ``setKeys(_:triggerChangeNotificationsForDependentKey:)``.
    ///
    /// Corresponds to `+[NSObject keyPathsForValuesAffectingValueForKey:]`; differences: key
    /// paths may go through to-many relationships with a collection operator
    /// (`"employees.@sum.salary"`), which Cocoa does not allow.
    open class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        KeyDependencies.declaredKeyPaths(affecting: key, in: self)
    }

    /// Tells observers of `key` that its value is about to change; pair it with
    /// ``didChangeValue(forKey:)``. Calls may nest.
    ///
    /// Corresponds to `-[NSObject willChangeValueForKey:]`; differences: it cannot be
    /// overridden, so that automatic notifications may take a shorter path that is equivalent.
    public final func willChangeValue(forKey key: String) {
        notifyTrackerWillChange(forKey: key, change: .setting)
        observationState?.willChange(self, key: key, change: PendingChangeKind.setting)
    }

    /// Tells observers of `key` that its value changed, with the old value taken at the matching
    /// ``willChangeValue(forKey:)``.
    ///
    /// Corresponds to `-[NSObject didChangeValueForKey:]`; differences: it cannot be overridden.
    public final func didChangeValue(forKey key: String) {
        notifyTrackerDidChange(forKey: key)
        observationState?.didChange(self, key: key)
    }
}

@available(*, unavailable, message: "model objects belong to one isolation domain; pass object IDs or values across")
extension ModelObject: Sendable {}
