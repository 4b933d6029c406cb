import Foundation
import ModelObjects

/// An object whose properties are described by an entity of a managed object model and whose
/// life is managed by a context: Core Data's `NSManagedObject`.
///
/// Subclass it for entities with custom behaviour and declare the modeled properties with
/// ``Managed``, the Swift form of `@dynamic`:
/// ```swift
/// final class Employee: ManagedObject {
///     @Managed var firstName: String?
///     @Managed var salary: Double
///     @Managed var department: Department?
/// }
/// let employee = Employee(context: context)        // the entity the model gives Employee
/// employee.salary = 52_000                          // notifies, tracks, registers undo
/// try employee.value(forKey: "firstName")           // the same storage, by key
/// ```
/// Or use it directly: an entity with no custom class is fully usable by key
/// (`ModelObject/value(forKey:)`, `ModelObject/setValue(_:forKey:)`, `mutableSetValue`).
///
/// Modeled values live in the object's internal storage; key-value coding reads and writes it
/// for every modeled key the class does not declare itself. Changes made through the managed
/// accessors, key-value coding or the manual `willChangeValue`/`didChangeValue` pattern of the
/// Core Data guide are all tracked the same way: the context records them, inverse
/// relationships follow at once (with notifications on both sides), and the context's undo
/// manager can reverse them.
///
/// An object and its context belong to one isolation domain; pass ``objectID`` across.
///
/// Corresponds to Core Data's `NSManagedObject`; differences: errors are thrown, not raised;
/// a fault whose record is gone throws from the throwing accessors (Core Data crashes).
open class ManagedObject: ModelObject, ChangeTrackingObject {
    /// The entity that describes the object.
    ///
    /// Corresponds to `NSManagedObject.entity`.
    public final var entity: EntityDescription { home.entity }
    /// The object's ID: temporary from insertion until the first save, then permanent.
    /// Reading it never fires a fault. Its entity is the object's (every ID an object takes
    /// names the entity it was made with).
    ///
    /// Corresponds to `NSManagedObject.objectID`.
    public internal(set) final var objectID: ManagedObjectID {
        @inline(__always) get { ManagedObjectID(entity: home.entity, key: objectKey) }
        set {
            if newValue.entity !== home.entity {
                home = home.unmanagedContext.map { $0._withUnsafeGuaranteedRef { $0.home(for: newValue.entity) } }
                    ?? newValue.entity.homeWithoutContext
            }
            objectKey = newValue.key
        }
    }
    /// The context the object is registered with; nil before insertion, after its deletion is
    /// saved, or once the context is gone.
    ///
    /// Corresponds to `NSManagedObject.managedObjectContext`.
    public final var managedObjectContext: ManagedObjectContext? { context }

    // The object's state below is read and written several times per property access, and a
    // dynamically checked access costs more than most of those reads (about 190 instructions
    // each, 9 % of inserting and saving 100,000 objects): the checks are off for it. SAFETY:
    // an object belongs to one isolation domain (it is not `Sendable`), and no access to these
    // properties spans a call that could reach them again (each is a read, a whole assignment,
    // or an in-place write whose new value is computed first).

    /// The entity and the context, shared with the context's other objects of the entity (see
    /// `ObjectHome`): one word for both.
    @exclusivity(unchecked) final var home: ObjectHome
    /// The key of ``objectID``, whose entity is the home's.
    @exclusivity(unchecked) final var objectKey: ManagedObjectID.Key
    /// The context, held without reference counting: the context moves the object to a home
    /// without one when it unregisters the object, when it is reset and when it goes away, so
    /// it never dangles. Hot paths reach it through `_withUnsafeGuaranteedRef`, which takes no
    /// reference for the call.
    package final var unmanagedContext: Unmanaged<ManagedObjectContext>? {
        @inline(__always) get { home.unmanagedContext }
        set {
            guard newValue?.toOpaque() != home.unmanagedContext?.toOpaque() else { return }
            home = newValue.map { $0._withUnsafeGuaranteedRef { $0.home(for: home.entity) } } ?? home.entity.homeWithoutContext
        }
    }
    /// The context (see `unmanagedContext`); a read takes a reference for as long as it is used.
    package final var context: ManagedObjectContext? {
        @inline(__always) get { unmanagedContext?.takeUnretainedValue() }
        @inline(__always) set { unmanagedContext = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// The values (a buffer, or a fetched object's compact row), or a fault's fetched row
    /// held compact; see ``values``, which reads and writes them as ``PropertyValues``.
    @exclusivity(unchecked) final var valueStorage: ObjectValueStorage
    /// The snapshot, the fault's fetched row or the save slot, whichever the object holds (no
    /// object needs two of them at once; see `snapshot`, `fetchedRow` and `saveSlot`), or the
    /// state few objects ever need (changes in progress, a fetch batch; see `rareState`), which
    /// then holds the other: one word instead of four, for every object of a fetch carries it.
    @exclusivity(unchecked) final var rowState: ManagedObjectRowState = .none
    // The last four take five bytes (the flags two), and a subclass's fields start right after
    // them: a fault carries every stored field of its class (a `ManagedEmployee`, with its ten
    // one-byte `@Managed` slots, takes 71 bytes, an 80-byte allocation). The depths' deeper levels, a
    // version past 254, the primitive-accessor probe and the validation hint live in the rare
    // state.
    /// `inverseMaintenanceDepth` up to 254; 255: the rare state holds it.
    @exclusivity(unchecked) final var inverseDepthByte: UInt8 = 0
    /// `changeRecordingDepth` up to 254; 255: the rare state holds it.
    @exclusivity(unchecked) final var recordingDepthByte: UInt8 = 0
    /// Life-cycle state.
    @exclusivity(unchecked) package final var flags: ManagedObjectFlags = []
    /// `snapshotVersion` up to 254; 255: the rare state holds it.
    @exclusivity(unchecked) final var versionByte: UInt8 = 0

    /// Creates an object of `entity` and inserts it into `context`, if one is given.
    ///
    /// Every attribute starts at its default value, every to-many relationship empty. With a
    /// context, the object gets a temporary ID, ``awakeFromInsert()`` runs, and it joins
    /// ``ManagedObjectContext/insertedObjects``.
    ///
    /// A context also runs it, with no context, for every object it makes for a record (a
    /// fetched object, a fault), as Core Data does for fetched objects: override it for
    /// initialization in every circumstance, ``awakeFromInsert()`` or ``awakeFromFetch()`` for
    /// one of them. For such an object, ``objectID`` is already the record's when `super`'s
    /// initializer returns (no temporary ID is made for it); its values read as the entity's
    /// defaults until the context makes it a fault, right after the initializer returns, and
    /// what the initializer sets gives way to the record's values.
    ///
    /// Corresponds to `-[NSManagedObject initWithEntity:insertIntoManagedObjectContext:]`.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        if context == nil, let fault = FaultConstruction.pending(for: entity) {
            // An object a context is making for a record (see `FaultConstruction`): the record's
            // ID, moved out of the request, and the `@Managed` slots the context looked up once
            // for the entity.
            let id = fault.pointee.objectID.take().unsafelyUnwrapped
            home = fault.pointee.home?.takeUnretainedValue() ?? entity.homeWithoutContext
            objectKey = id.key
            valueStorage = ObjectValueStorage(entity.initialValues)
            super.init()
            if fault.pointee.claim(by: self) { return }
            // Another object made inside a subclass's initializer: a new object after all. The
            // ID goes back for the object being made to take.
            fault.pointee.objectID = objectID
            objectKey = ManagedObjectID.temporary(for: entity).key
            bindManagedProperties()
            return
        }
        home = entity.homeWithoutContext
        objectKey = ManagedObjectID.temporary(for: entity).key
        valueStorage = ObjectValueStorage(entity.initialValues)
        super.init()
        bindManagedProperties()
        if let context { context.insert(self) }
    }

    /// Creates an object of the entity the context's model gives this class and inserts it into
    /// `context`. When that model gives the class to several entities, or to none, the entity
    /// is ``entity()``'s.
    ///
    /// Corresponds to `-[NSManagedObject initWithContext:]`.
    public convenience init(context: ManagedObjectContext) {
        let entity = context.persistentStoreCoordinator.managedObjectModel.soleEntity(for: Self.self)
        self.init(entity: entity ?? Self.entity(), insertInto: context)
    }

    /// Creates an object of the entity the model gives this class, in no context; used by the
    /// key-value coding machinery (`ModelObject/copy()`).
    public required init() {
        let entity = Self.entity()
        home = entity.homeWithoutContext
        objectKey = ManagedObjectID.temporary(for: entity).key
        valueStorage = ObjectValueStorage(entity.initialValues)
        super.init()
        bindManagedProperties()
    }

    /// Creates an object of the entity the model gives this class from an archive, in no
    /// context; the class's own declared properties are decoded, modeled values start at their
    /// defaults.
    public required init(coder: Coder) throws {
        let entity = Self.entity()
        home = entity.homeWithoutContext
        objectKey = ManagedObjectID.temporary(for: entity).key
        valueStorage = ObjectValueStorage(entity.initialValues)
        try super.init(coder: coder)
        bindManagedProperties()
    }

    deinit {
        context?.objectWillDeinitialize(self)
        releaseValueStorage()
    }

    /// The entity of this class in the most recently made model that names it; a placeholder
    /// entity named after the class, with no properties, when no model does.
    ///
    /// Corresponds to `+[NSManagedObject entity]`.
    open class func entity() -> EntityDescription {
        ManagedObjectClassRegistry.entity(for: self)
    }

    // MARK: - Model hooks

    /// How ``ManagedObjectModel/init(classes:fetchRequestTemplates:configurations:)`` names and
    /// describes the entity of this class; the default names it after the class. A subclass
    /// that does not override it inherits the name, so override it in each class you rename.
    ///
    /// Corresponds to the entity inspector of Xcode's model editor (SwiftData's `@Model` class
    /// name); differences: a class property.
    open class var entityDeclaration: EntityDeclaration { EntityDeclaration() }

    // MARK: - Life-cycle hooks

    /// Called once in the object's life, when it is first inserted into a context (not when an
    /// insert is undone and redone). Set initial values here; values set with
    /// ``setPrimitiveValue(_:forKey:)`` are baseline values, not undoable changes.
    ///
    /// Corresponds to `-[NSManagedObject awakeFromInsert]`.
    open func awakeFromInsert() {}

    /// Called after the object's values are loaded from the store (a fault fired). Change
    /// recording is off inside it: values set here do not make the object updated or enter undo.
    ///
    /// Corresponds to `-[NSManagedObject awakeFromFetch]`.
    open func awakeFromFetch() {}

    /// Called at the start of a save for every inserted, updated and deleted object. Changes
    /// made here are saved too; avoid changing a value back and forth, which loops.
    ///
    /// Corresponds to `-[NSManagedObject willSave]`.
    open func willSave() {}

    /// Called after a save succeeded, for every object it saved.
    ///
    /// Corresponds to `-[NSManagedObject didSave]`.
    open func didSave() {}

    /// Called before the object becomes a fault (a refresh without merge, a reset, its
    /// deletion saved).
    ///
    /// Corresponds to `-[NSManagedObject willTurnIntoFault]`.
    open func willTurnIntoFault() {}

    /// Called after the object became a fault and released its values.
    ///
    /// Corresponds to `-[NSManagedObject didTurnIntoFault]`.
    open func didTurnIntoFault() {}

    /// Called when the object is about to be deleted, before delete rules apply, while its
    /// relationships still hold.
    ///
    /// Corresponds to `-[NSManagedObject prepareForDeletion]`.
    open func prepareForDeletion() {}

    // MARK: - Primitive accessor hooks

    /// The value of a modeled property without access or change notifications; fires the
    /// object's fault if needed. Override it, with ``setPrimitiveValue(_:forKey:)``, to keep a
    /// property in your own stored property (the guide's custom primitive accessors).
    ///
    /// - Throws: `KeyValueCodingError/Code/undefinedKey` for a key the entity does not model;
    ///   ``PersistenceError/Code/objectNotFound`` when the fault's record is gone, or when a
    ///   to-many relationship not loaded yet has no context to load it from; what the store
    ///   throws when it cannot read the relationship.
    ///
    /// Corresponds to `-[NSManagedObject primitiveValueForKey:]`.
    open func primitiveValue(forKey key: String) throws -> Any? {
        if primitiveProbe == .probing { primitiveProbe = .reachedStorage }
        let property = try modeledProperty(forKey: key)
        try fireFaultIfNeeded()
        // An attribute or a to-one: read in place (a fetched object's compact row stays compact).
        if !entity.isToManyByIndex[property.index] { return storedValue(at: property.index) ?? nil }
        if let fault = values[property.index] as? RelationshipFault {
            _ = try relationshipFaultIDs(fault, at: property.index)
        }
        resolveRelationshipFault(at: property.index)
        if values[property.index] is RelationshipFault {
            throw PersistenceError(
                .objectNotFound, message: "the relationship \(entity.name).\(key) of \(objectID) has no context to load it from",
                objectID: objectID)
        }
        return values[property.index]
    }

    /// Sets the value of a modeled property without notifications, change recording or inverse
    /// maintenance, converting it to the attribute's type without loss.
    ///
    /// - Throws: `KeyValueCodingError/Code/undefinedKey` for a key the entity does not model,
    ///   `KeyValueCodingError/Code/typeMismatch` for a value of the wrong type (nothing
    ///   changes).
    ///
    /// Corresponds to `-[NSManagedObject setPrimitiveValue:forKey:]`.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
        let property = try modeledProperty(forKey: key)
        // A value of the attribute's own type, on a loaded object (an `awakeFromInsert` setting
        // a default): written in its slot as it is, nothing to convert, check or box.
        if let value, storeExactValue(value, at: property.index) { return }
        let stored = try storedValue(value, for: property)
        try fireFaultIfNeeded()
        values[property.index] = stored
    }

    // MARK: - Key-value coding hooks

    /// Reads a modeled property the class does not declare itself, with access notifications
    /// (firing the fault); other keys throw.
    ///
    /// - Throws: `KeyValueCodingError/Code/undefinedKey`, or
    ///   ``PersistenceError/Code/objectNotFound`` for a fault whose record is gone.
    open override func value(forUndefinedKey key: String) throws -> Any? {
        guard let property = entity.propertiesByName[key] else { return try super.value(forUndefinedKey: key) }
        // A partial fault holding the property answers without firing.
        if let row = partialRow(holding: property.index) { return row[property.index] }
        try fireFaultIfNeeded()
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return try primitiveValue(forKey: key)
    }

    /// Sets a modeled property the class does not declare itself, notifying observers, keeping
    /// inverse relationships and recording the change; other keys throw.
    ///
    /// Setting a to-one relates the new object and unrelates the previous one; setting a to-many
    /// with a collection relates those objects and unrelates the rest. Nil is accepted for every
    /// property; a mandatory one fails validation when saved.
    ///
    /// - Throws: `KeyValueCodingError/Code/typeMismatch` (nothing changes),
    ///   `KeyValueCodingError/Code/undefinedKey`; ``PersistenceError/Code/objectNotFound``
    ///   (nothing changes) when the object is a fault whose record is gone, or when the value
    ///   relates it to such a fault; what the store throws when it cannot read one.
    open override func setValue(_ value: Any?, forUndefinedKey key: String) throws {
        guard let property = entity.propertiesByName[key] else {
            return try super.setValue(value, forUndefinedKey: key)
        }
        let stored = try storedValue(value, for: property)
        try fireFaultIfNeeded()
        if let relationship = property as? RelationshipDescription { try loadNewlyRelated(stored, through: relationship) }
        if !hasObservationState {
            setUnobservedValue(stored, of: property)
            return
        }
        willChangeValue(forKey: key)
        values[property.index] = stored
        didChangeValue(forKey: key)
    }

    /// Modeled properties take nil (validation reports a missing mandatory value at save);
    /// other keys go to `super`.
    open override func setNilValueForKey(_ key: String) throws {
        guard entity.propertiesByName[key] != nil else { return try super.setNilValueForKey(key) }
        try setValue(nil, forUndefinedKey: key)
    }

    /// False for keys any entity of this class models: the managed accessors notify themselves.
    ///
    /// Corresponds to `+[NSManagedObject automaticallyNotifiesObserversForKey:]`.
    open override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        if ManagedObjectClassRegistry.models(key, in: self) { return false }
        return super.automaticallyNotifiesObservers(forKey: key)
    }

    /// The accessors mutable collection proxies use for modeled to-many relationships: they
    /// post the set mutation or the indexed change and keep inverses. Override it to give your
    /// own (the guide's `add<Key>Object:`/`remove<Key>Object:` pairs); the context then calls
    /// yours when it edits the relationship, inverse maintenance included.
    open override class func collectionAccessors(forKey key: String) -> CollectionAccessors? {
        if let accessors = super.collectionAccessors(forKey: key) { return accessors }
        return managedCollectionAccessors(forKey: key)
    }

    // MARK: - Validation hooks

    /// Checks a proposed value against the model's constraints for `key` (a missing mandatory
    /// value, bounds, lengths, the regular expression, relationship counts), then runs the
    /// class's own validator.
    ///
    /// - Throws: `ValidationError` with Core Data's code for the constraint.
    ///
    /// Corresponds to `-[NSManagedObject validateValue:forKey:error:]`.
    open override func validateValue(_ value: inout Any?, forKey key: String) throws {
        if let hint = validatingProperty, hint.name == key {
            try validateModelConstraints(of: hint, value: value)
        } else if let property = entity.propertiesByName[key] {
            try validateModelConstraints(of: property, value: value)
        }
        try super.validateValue(&value, forKey: key)
    }

    /// Validates every property before the object's first save.
    ///
    /// - Throws: `ValidationError`, every failure (`ValidationError/Code/multipleErrors`).
    ///
    /// Corresponds to `-[NSManagedObject validateForInsert:]`.
    open override func validateForInsert() throws {
        try validateAllModeledProperties()
    }

    /// Validates every property before a save of changes.
    ///
    /// - Throws: `ValidationError`, every failure (`ValidationError/Code/multipleErrors`).
    ///
    /// Corresponds to `-[NSManagedObject validateForUpdate:]`.
    open override func validateForUpdate() throws {
        try validateAllModeledProperties()
    }

    /// Checks the delete rules: a deny relationship with related objects fails.
    ///
    /// - Throws: `ValidationError` with `ValidationError/Code/relationshipDeniedDelete`.
    ///
    /// Corresponds to `-[NSManagedObject validateForDelete:]`.
    open override func validateForDelete() throws {
        try validateDeleteRules()
    }

    // MARK: - Description

    /// The class, address, entity and ID, and the values unless the object is a fault (which
    /// it never fires): `<Employee: 0x…> (entity: Employee; id: x-coredata:///Employee/t…; data: {…})`.
    ///
    /// Corresponds to `-[NSManagedObject description]`.
    open override var description: String {
        let address = String(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()), radix: 16)
        var text = "<\(String(describing: type(of: self))): 0x\(address)> (entity: \(entity.name); id: \(objectID); data: "
        if isFault { return text + "<fault>)" }
        let fields = entity.properties.map { property -> String in
            let value = holdsValue(at: property.index) ? values[property.index] : nil
            return "\(property.name) = \(Self.describe(value, property: property))"
        }
        text += "{" + fields.joined(separator: "; ") + "})"
        return text
    }
}

/// The life-cycle state of a managed object.
package struct ManagedObjectFlags: OptionSet {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    package static let inserted = ManagedObjectFlags(rawValue: 1 << 0)
    package static let updated = ManagedObjectFlags(rawValue: 1 << 1)
    package static let deleted = ManagedObjectFlags(rawValue: 1 << 2)
    package static let fault = ManagedObjectFlags(rawValue: 1 << 3)
    package static let awokeFromInsert = ManagedObjectFlags(rawValue: 1 << 4)
    /// The object's record could not be found when its fault fired.
    package static let unfulfillable = ManagedObjectFlags(rawValue: 1 << 5)
    /// The object is in its context's `unannouncedInserted`: a change to it needs no entry in
    /// `unannouncedUpdated`, which the announcement would take out again.
    package static let insertionUnannounced = ManagedObjectFlags(rawValue: 1 << 6)
    /// The object changed while `insertionUnannounced`: should it leave `unannouncedInserted`
    /// other than by being announced, it joins `unannouncedUpdated`, where the change would
    /// have put it.
    package static let changedWhileInsertionUnannounced = ManagedObjectFlags(rawValue: 1 << 7)
    /// The object is in its context's `unannouncedUpdated` (see `UnannouncedUpdates`): a
    /// further change to it needs no set insertion.
    package static let updateUnannounced = ManagedObjectFlags(rawValue: 1 << 8)
    /// The fault was given a partial row (see `FetchRequest.propertiesToFetch`) and may still
    /// hold it: a hint that spares the reads of every other fault a look at its row. Set with
    /// the row; a stale flag only costs that look (`ManagedObject.partialRow(holding:)`).
    package static let mayHoldPartialRow = ManagedObjectFlags(rawValue: 1 << 9)
}
